"""The results store: one writer per database (an OS lock), read-only opens for report and merge.

Real processes, real SQLite files: a tournament holds the lock while a second command tries it.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from harness.errors import StoreError
from harness.store.store import Store, lock_path
from tests.conftest import ARENA, TINY, arena, assert_nothing_left, bound_by_permissions, live_descendants

SLOW = """
name: slow
n: [5]
time: 1
rounds: 6
max_plies: 6
openings: {plies: 2, seed: 3}
concurrency: 1
engines:
  - {name: s1, builtin: alphabeta}
  - {name: s2, builtin: alphabeta}
"""
"""Each move takes alpha-beta about 0.9 s: a run that lasts about a minute."""


@pytest.fixture(scope="module")
def finished(tiny_db: Path) -> Path:
    """A finished tournament's database, alone in its folder (beside its log and lock file)."""
    return tiny_db


def games_in(db: Path) -> int:
    try:
        with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as connection:
            return int(connection.execute("SELECT count(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_a_second_writer_stops_at_once_naming_the_running_tournament_and_sigkill_frees_it(tmp_path: Path) -> None:
    config = tmp_path / "slow.yaml"
    config.write_text(SLOW)
    db = tmp_path / "slow.sqlite"
    before = set(live_descendants())
    holder = subprocess.Popen([ARENA, "tournament", str(config), "--db", str(db), "--no-progress"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while games_in(db) < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert games_in(db) >= 1 and holder.poll() is None
        pid, started, command = lock_path(db).read_text().splitlines()
        assert (int(pid), command) == (holder.pid, "arena tournament")
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", started)

        began = time.monotonic()
        second = arena("tournament", str(config), "--db", str(db), "--no-progress")
        assert time.monotonic() - began < 10  # at once, not after the running one
        assert (second.returncode, second.stdout) == (2, "")
        assert second.stderr == (
            f"arena: error: {db} is in use by another arena tournament (pid {holder.pid}, started {started}); "
            f"wait for it to finish or give another --db\n")
        other = tmp_path / "other.yaml"
        other.write_text(TINY)
        assert arena("tournament", str(other), "--db", str(db)).stderr == second.stderr

        # Readers go on meanwhile: the report, and a merge reading the running database.
        report = arena("report", str(db), "--json")
        assert report.returncode == 0, report.stderr
        copy = tmp_path / "copy.sqlite"
        merged = arena("merge", str(copy), str(db))
        assert merged.returncode == 0, merged.stderr
        into_running = arena("merge", str(db), str(copy))
        assert into_running.stderr == (
            f"arena: error: {db} is in use by another arena tournament (pid {holder.pid}, started {started}); "
            f"wait for it to finish or merge into another database\n")
        assert holder.poll() is None, "the run must still be going for this test to mean anything"
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert_nothing_left(before)  # its pool worker and engine die with it
    # The killed holder's lock went with it: the next writer starts at once.
    other = tmp_path / "other.yaml"
    after = arena("tournament", str(other), "--db", str(db), "--no-progress")
    assert after.returncode == 0, after.stderr
    assert "2 games played now" in after.stdout


def test_a_merge_holds_the_lock_too(tmp_path: Path, finished: Path) -> None:
    target = tmp_path / "all.sqlite"
    with Store(target, role="arena merge"):
        result = arena("tournament", str(finished.parent / "tiny.yaml"), "--db", str(target))
    assert result.returncode == 2
    assert re.fullmatch(
        rf"arena: error: {re.escape(str(target))} is in use by another arena merge \(pid {os.getpid()}, started "
        r"[0-9-]+ [0-9:]+ UTC\); wait for it to finish or give another --db\n", result.stderr)


def test_report_creates_changes_and_journals_nothing(finished: Path) -> None:
    before = {path.name: path.stat().st_mtime_ns for path in finished.parent.iterdir()}
    data = finished.read_bytes()
    for args in (["report", str(finished)], ["report", str(finished), "--json"], ["report", str(finished), "--csv"]):
        result = arena(*args)
        assert result.returncode == 0, result.stderr
    assert {path.name: path.stat().st_mtime_ns for path in finished.parent.iterdir()} == before
    assert finished.read_bytes() == data


def test_report_of_dev_null_and_of_an_empty_file_touches_nothing(tmp_path: Path) -> None:
    journal_before = Path("/dev/null-journal").exists()
    result = arena("report", "/dev/null")
    assert (result.returncode, result.stderr) == (2, (
        "arena: error: /dev/null is not a results database (not a regular file); give a database written by "
        "'arena tournament', or a new path\n"))
    assert Path("/dev/null-journal").exists() == journal_before
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    for args in (["report", str(empty)], ["merge", str(tmp_path / "all.sqlite"), str(empty)]):
        result = arena(*args)
        assert (result.returncode, result.stderr) == (2, (
            f"arena: error: {empty} is not a results database (empty file); give a database written by "
            f"'arena tournament', or a new path\n")), args
    assert empty.stat().st_size == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["empty.sqlite"]


@pytest.mark.parametrize(("content", "reason"), [
    (os.urandom(3000), "file is not a database"),
    (None, "no tournaments table"),
])
def test_files_that_are_not_results_databases_are_refused_unchanged(
    tmp_path: Path, content: bytes | None, reason: str
) -> None:
    path = tmp_path / "x.sqlite"
    if content is None:
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE notes (text)")
        connection.close()
    else:
        path.write_bytes(content)
    data = path.read_bytes()
    message = (f"{path} is not a results database ({reason}); give a database written by 'arena tournament', "
               f"or a new path")
    with pytest.raises(StoreError) as read:
        Store(path, read_only=True)
    with pytest.raises(StoreError) as write:
        Store(path)
    assert str(read.value) == str(write.value) == message
    assert path.read_bytes() == data
    assert not path.with_name("x.sqlite-wal").exists() and not path.with_name("x.sqlite-journal").exists()


@pytest.mark.setting
def test_report_works_in_a_read_only_folder(finished: Path, tmp_path: Path) -> None:
    """A finished database (WAL mode, no -wal or -shm beside it) in a folder the reader cannot write."""
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "tiny.sqlite").write_bytes(finished.read_bytes())
    (tmp_path / "ro").chmod(0o555)
    user = bound_by_permissions()
    try:
        refused = subprocess.run([*user, "touch", "ro/probe"], cwd=tmp_path, capture_output=True, text=True)
        assert refused.returncode == 1 and "Permission denied" in refused.stderr  # the folder binds this reader
        result = arena("report", "ro/tiny.sqlite", "--csv", cwd=tmp_path, user=user)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("name,games,")
        assert sorted(path.name for path in (tmp_path / "ro").iterdir()) == ["tiny.sqlite"]
    finally:
        (tmp_path / "ro").chmod(0o755)


def test_read_only_store_cannot_write(finished: Path) -> None:
    with Store(finished, read_only=True) as store:
        assert store.latest_tournament() == 1
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.connection.execute("DELETE FROM games")
    assert not lock_path(finished).read_text().startswith(str(os.getpid()))


OLD_SCHEMA = """
CREATE TABLE tournaments (id INTEGER PRIMARY KEY, name TEXT NOT NULL, config_json TEXT NOT NULL,
    config_hash TEXT NOT NULL, config_path TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE engines (tournament_id INTEGER NOT NULL REFERENCES tournaments(id), name TEXT NOT NULL,
    command TEXT NOT NULL, program TEXT, sha256 TEXT, PRIMARY KEY (tournament_id, name));
CREATE TABLE games (id INTEGER PRIMARY KEY, tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    game_id TEXT NOT NULL, pair_key TEXT NOT NULL, round INTEGER NOT NULL, n INTEGER NOT NULL, x TEXT NOT NULL,
    o TEXT NOT NULL, time REAL NOT NULL, max_plies INTEGER NOT NULL, win_priority TEXT NOT NULL,
    start_board TEXT NOT NULL, start_player TEXT NOT NULL, result TEXT NOT NULL, winner TEXT,
    termination TEXT NOT NULL, reason TEXT NOT NULL, plies INTEGER NOT NULL, fault_json TEXT,
    finished_at TEXT NOT NULL, UNIQUE (tournament_id, game_id));
CREATE TABLE moves (game INTEGER NOT NULL REFERENCES games(id), ply INTEGER NOT NULL, player TEXT NOT NULL,
    engine TEXT NOT NULL, move INTEGER, board TEXT, verdict TEXT NOT NULL, seconds REAL NOT NULL,
    warnings_json TEXT NOT NULL, detail TEXT NOT NULL, PRIMARY KEY (game, ply));
"""
"""harness/store/store.py's schema before games were plugins (commit 67fe04e's parent): Betsy only, no game
or size column in games."""
OLD_GAME_COLUMNS = ("id, tournament_id, game_id, pair_key, round, n, x, o, time, max_plies, win_priority, start_board, "
                    "start_player, result, winner, termination, reason, plies, fault_json, finished_at")


def columns(db: Path) -> list[str]:
    with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as connection:
        return [row[1] for row in connection.execute("PRAGMA table_info(games)")]


def test_a_database_of_the_old_schema_is_read_as_it_is_and_upgraded_by_a_writer(tmp_path: Path, finished: Path) -> None:
    # The finished TINY tournament rewritten as the earlier version wrote it: the same rows in the old tables.
    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as connection:
        connection.executescript(OLD_SCHEMA)
        connection.execute("ATTACH DATABASE ? AS new", (f"{finished.resolve().as_uri()}?mode=ro",))
        for table, names in (("tournaments", "*"), ("engines", "*"), ("games", OLD_GAME_COLUMNS), ("moves", "*")):
            connection.execute(f"INSERT INTO main.{table} SELECT {names} FROM new.{table}")
    connection.close()
    assert "size" not in columns(old) and games_in(old) == 2

    for args in (["report"], ["report", "--json"], ["games"], ["export"]):
        now, then = arena(args[0], str(finished), *args[1:]), arena(args[0], str(old), *args[1:])
        assert (then.returncode, then.stderr) == (0, ""), args
        assert then.stdout == now.stdout.replace(str(finished), str(old)), args
    assert "size" not in columns(old)  # readers change nothing

    resumed = arena("tournament", str(finished.parent / "tiny.yaml"), "--db", str(old))
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.splitlines()[0] == f"0 games played now, 2 already in {old}, 2 scheduled"
    assert columns(old)[-3:] == ["game", "size", "time_scale"]
    with sqlite3.connect(f"{old.resolve().as_uri()}?mode=ro", uri=True) as connection:
        assert connection.execute("SELECT DISTINCT game, size FROM games").fetchall() == [("betsy", "3")]
