"""A class's own tables, beside the games of its league in the same results database.

``arena class`` keeps in one SQLite file what it found of each submission (intake), each submission's
validation report, the moves of the similarity probes, the submissions frozen at the deadline and the
Swiss pairings; its games are a tournament's games (``Store.ensure_tournament``), so ``arena report``,
``arena games`` and ``arena replay`` read them as any others. Every write is one transaction: a run
that is stopped loses at most the work in flight, and the next run goes on from what is stored.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from harness.store.store import Store

SCHEMA = """
CREATE TABLE IF NOT EXISTS class_submissions (
    class TEXT NOT NULL,
    student TEXT NOT NULL,
    hash TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    files INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    PRIMARY KEY (class, student, hash)
);
CREATE TABLE IF NOT EXISTS class_frozen (
    class TEXT NOT NULL,
    student TEXT NOT NULL,
    hash TEXT,
    frozen_at TEXT NOT NULL,
    PRIMARY KEY (class, student)
);
CREATE TABLE IF NOT EXISTS class_validations (
    student TEXT NOT NULL,
    hash TEXT NOT NULL,
    settings TEXT NOT NULL,
    passed INTEGER NOT NULL,
    report_json TEXT NOT NULL,
    validated_at TEXT NOT NULL,
    PRIMARY KEY (student, hash, settings)
);
CREATE TABLE IF NOT EXISTS class_probes (
    hash TEXT NOT NULL,
    settings TEXT NOT NULL,
    position INTEGER NOT NULL,
    move INTEGER,
    PRIMARY KEY (hash, settings, position)
);
CREATE TABLE IF NOT EXISTS class_swiss (
    league TEXT NOT NULL,
    round INTEGER NOT NULL,
    first TEXT NOT NULL,
    second TEXT NOT NULL,
    PRIMARY KEY (league, round, first)
);
"""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ClassBook:
    """The class tables of an open (writable) Store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.connection = store.connection
        if not store.read_only:
            self.connection.executescript(SCHEMA)

    def has_tables(self) -> bool:
        return self.connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'class_submissions'").fetchone() is not None

    # --- intake ---------------------------------------------------------------------------------

    def record_submission(self, class_name: str, student: str, hash_: str, status: str, reason: str,
                          files: int, size: int) -> None:
        """Note that ``student``'s folder had this content now (first and last seen)."""
        now = _now()
        with self.store.transaction() as cursor:
            cursor.execute(
                "INSERT INTO class_submissions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (class, student, hash) "
                "DO UPDATE SET status = excluded.status, reason = excluded.reason, last_seen = excluded.last_seen",
                (class_name, student, hash_, status, reason, files, size, now, now))

    def submissions_seen(self, class_name: str, student: str) -> list[dict[str, Any]]:
        rows = self.connection.execute(
            "SELECT hash, status, reason, first_seen, last_seen FROM class_submissions WHERE class = ? AND student = ? "
            "ORDER BY first_seen", (class_name, student)).fetchall()
        return [dict(zip(("hash", "status", "reason", "first_seen", "last_seen"), row)) for row in rows]

    def frozen(self, class_name: str) -> dict[str, str | None] | None:
        """The submissions frozen at the deadline (student -> hash, None: nothing then), or None if not frozen."""
        rows = self.connection.execute(
            "SELECT student, hash FROM class_frozen WHERE class = ?", (class_name,)).fetchall()
        if not rows:
            return None
        return {str(student): None if hash_ is None else str(hash_) for student, hash_ in rows if student}

    def freeze(self, class_name: str, hashes: dict[str, str | None]) -> None:
        now = _now()
        with self.store.transaction() as cursor:
            cursor.executemany("INSERT OR IGNORE INTO class_frozen VALUES (?, ?, ?, ?)",
                               [(class_name, student, hash_, now) for student, hash_ in hashes.items()])
            # A row for no student marks the class frozen even when no student had submitted.
            cursor.execute("INSERT OR IGNORE INTO class_frozen VALUES (?, ?, ?, ?)", (class_name, "", None, now))

    # --- validation -----------------------------------------------------------------------------

    def validation(self, student: str, hash_: str, settings: str) -> dict[str, Any] | None:
        row = self.connection.execute(
            "SELECT report_json FROM class_validations WHERE student = ? AND hash = ? AND settings = ?",
            (student, hash_, settings)).fetchone()
        if row is None:
            return None
        value = json.loads(row[0])
        return value if isinstance(value, dict) else None

    def save_validation(self, student: str, hash_: str, settings: str, report: dict[str, Any]) -> None:
        with self.store.transaction() as cursor:
            cursor.execute("INSERT OR REPLACE INTO class_validations VALUES (?, ?, ?, ?, ?, ?)",
                           (student, hash_, settings, int(bool(report.get("passed"))),
                            json.dumps(report, sort_keys=True), _now()))

    # --- probes ---------------------------------------------------------------------------------

    def probes(self, hash_: str, settings: str) -> dict[int, int | None]:
        rows = self.connection.execute(
            "SELECT position, move FROM class_probes WHERE hash = ? AND settings = ?", (hash_, settings)).fetchall()
        return {int(position): None if move is None else int(move) for position, move in rows}

    def save_probes(self, hash_: str, settings: str, moves: dict[int, int | None]) -> None:
        with self.store.transaction() as cursor:
            cursor.executemany("INSERT OR REPLACE INTO class_probes VALUES (?, ?, ?, ?)",
                               [(hash_, settings, position, move) for position, move in moves.items()])

    # --- Swiss pairings -------------------------------------------------------------------------

    def swiss_rounds(self, league: str) -> dict[int, list[tuple[str, str]]]:
        rounds: dict[int, list[tuple[str, str]]] = {}
        for round_number, first, second in self.connection.execute(
                "SELECT round, first, second FROM class_swiss WHERE league = ? ORDER BY round, rowid", (league,)):
            rounds.setdefault(int(round_number), []).append((str(first), str(second)))
        return rounds

    def save_swiss_round(self, league: str, round_number: int, pairs: list[tuple[str, str]]) -> None:
        with self.store.transaction() as cursor:
            cursor.executemany("INSERT OR IGNORE INTO class_swiss VALUES (?, ?, ?, ?)",
                               [(league, round_number, first, second) for first, second in pairs])
