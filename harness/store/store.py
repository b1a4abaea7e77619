"""Tournament results in SQLite: one transaction per finished game, so no finished game is ever lost.

The database (WAL mode, synchronous=FULL) holds tournaments with their config snapshot, engines with
their command and the SHA-256 of their program file, games with every GameRecord field, and moves.
Running the same config against the same database resumes it: finished games are skipped.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.errors import ConfigError, OutputError, StoreError
from harness.games.errors import PositionError
from harness.games.registry import GAMES, PLAYERS
from harness.match.match import GameRecord, Termination
from harness.referee.programs import file_sha256 as file_sha256
from harness.referee.protocol import CallWarning, WarningKind
from harness.match.verify import RESULTS, RecordRefused, shown
from harness.outputs import file_problem, folder_problem

from harness.store.records import Fields, check_replayable, fault_from_data, record_from_data

_GAME_COLUMNS = (
    "game_id, pair_key, round, n, x, o, time, max_plies, win_priority, start_board, start_player, "
    "result, winner, termination, reason, plies, fault_json, finished_at, game, size, time_scale"
)
_OLD_GAME_COLUMNS = _GAME_COLUMNS.replace(", game, size, time_scale", ", 'betsy', CAST(n AS TEXT), 1.0")
"""The same values from a database written before games were plugins (Betsy only, size = n)."""
STORED_KEYS = ("key", "pair_key", "round", "finished_at")
"""What ``Store.game_data`` holds beyond a record's JSON form."""
_ROW_FIELDS = ("id", "tournament_id", "tournament", "key", "pair_key", "round", "game", "size", "x", "o", "result",
               "termination", "plies", "finished_at")
_STORED_FIELDS = ("id", "key", "pair_key", "round", "game", "size", "x", "o", "result", "winner", "termination",
                  "reason", "plies", "fault", "start_board", "start_player")
_MOVE_COLUMNS = "ply, player, engine, move, board, verdict, seconds, warnings_json, detail"
_INSERT_TOURNAMENT = (
    "INSERT INTO tournaments (name, config_json, config_hash, config_path, created_at) VALUES (?, ?, ?, ?, ?)"
)
_INSERT_ENGINE = "INSERT INTO engines (tournament_id, name, command, program, sha256) VALUES (?, ?, ?, ?, ?)"
_INSERT_GAME = f"INSERT OR IGNORE INTO games (tournament_id, {_GAME_COLUMNS}) VALUES ({', '.join('?' * 22)})"
_INSERT_MOVE = f"INSERT INTO moves (game, {_MOVE_COLUMNS}) VALUES ({', '.join('?' * 10)})"

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    config_json TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    config_path TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS engines (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    name TEXT NOT NULL,
    command TEXT NOT NULL,
    program TEXT,
    sha256 TEXT,
    PRIMARY KEY (tournament_id, name)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    game_id TEXT NOT NULL,
    pair_key TEXT NOT NULL,
    round INTEGER NOT NULL,
    n INTEGER NOT NULL,  -- Betsy's n; 0 for other games (see size)
    x TEXT NOT NULL,
    o TEXT NOT NULL,
    time REAL NOT NULL,
    max_plies INTEGER NOT NULL,
    win_priority TEXT NOT NULL,
    start_board TEXT NOT NULL,
    start_player TEXT NOT NULL,
    result TEXT NOT NULL,
    winner TEXT,
    termination TEXT NOT NULL,
    reason TEXT NOT NULL,
    plies INTEGER NOT NULL,
    fault_json TEXT,
    finished_at TEXT NOT NULL,
    game TEXT NOT NULL DEFAULT 'betsy',
    size TEXT NOT NULL DEFAULT '',
    time_scale REAL NOT NULL DEFAULT 1,  -- the clock's scale: every limit was time x time_scale
    UNIQUE (tournament_id, game_id)
);
CREATE TABLE IF NOT EXISTS moves (
    game INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    player TEXT NOT NULL,
    engine TEXT NOT NULL,
    move INTEGER,
    board TEXT,
    verdict TEXT NOT NULL,
    seconds REAL NOT NULL,
    warnings_json TEXT NOT NULL,
    detail TEXT NOT NULL,
    PRIMARY KEY (game, ply)
);
CREATE TABLE IF NOT EXISTS analyses (
    game INTEGER PRIMARY KEY REFERENCES games(id),
    kind TEXT NOT NULL,  -- proved, assessment, none, not reached (harness.analysis.losing.KINDS)
    finding_json TEXT NOT NULL,
    seconds REAL NOT NULL,
    budget REAL NOT NULL,
    analysed_at TEXT NOT NULL
);
"""


_SQLITE_HEADER = b"SQLite format 3\x00"
WRITERS = {"arena tournament": "give another --db", "arena analyse": "analyse a copy of it",
           "arena merge": "merge into another database",
           "arena import": "import into another database", "arena class": "give another --db", "arena play": "give another --db"}
"""The commands that write a results database, and the advice to a second writer while one runs."""


def lock_path(path: Path) -> Path:
    """The lock file beside a results database: held by the one process writing it."""
    return path.with_name(path.name + ".lock")


def log_path(path: Path) -> Path:
    """The log beside a results database, ``<db>.log`` (``results/quick.sqlite.log``): the whole
    name kept, so no two databases share a log, and a database never is its own log."""
    return path.with_name(path.name + ".log")


def _not_results(path: Path, reason: object) -> StoreError:
    return StoreError(
        f"{path} is not a results database ({reason}); give a database written by 'arena tournament', "
        f"or a new path"
    )


def damaged(path: Path, reason: object) -> StoreError:
    """A results database whose pages or values are damaged, said in one line."""
    detail = " ".join(str(reason).replace("*** in database main ***", "").split())
    return StoreError(f"{path} is damaged ({detail}); restore it from a copy, or give another database")


def _file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a results database, from the file alone; None when it may be one
    (or does not exist, or is empty: both become a new database when written)."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            return "it is a directory"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_size == 0:
            return None
        with open(path, "rb") as file:
            header = file.read(len(_SQLITE_HEADER))
    except FileNotFoundError:
        return None
    except OSError as error:
        return error.strerror or str(error)
    return None if header == _SQLITE_HEADER else "file is not a database"


def _problem(path: Path, error: Exception) -> StoreError:
    """An SQLite or decoding error met opening ``path``: not a database at all, or a damaged one."""
    if isinstance(error, sqlite3.DatabaseError) and "file is not a database" in str(error):
        return _not_results(path, error)
    return damaged(path, error)


def check_database_file(path: Path) -> None:
    """Refuse, before anything is written beside it, a path that cannot be a results database."""
    problem = _file_problem(Path(path))
    if problem is not None:
        raise _not_results(Path(path), problem)


def check_database(path: Path, what: str) -> None:
    """Refuse, before any work, a results database that cannot be written: the file, and its folder
    (for the lock file, the log and SQLite's journal). ``what`` names it in the message (``--db``,
    ``DB``)."""
    check_database_file(path)
    problem = folder_problem(path.parent)
    for beside in (path, lock_path(path), log_path(path)):
        if problem is None and os.path.lexists(beside):
            problem = file_problem(beside) and f"{beside}: {file_problem(beside)}"
    if problem is not None:
        raise OutputError(f"invalid {what} {path}: {problem}; the database, its lock file and its log go in its "
                          "folder: give a path in a folder you can write")


class NewDatabase:
    """Whether a database made by a command holds anything yet (see ``new_database``)."""

    def __init__(self) -> None:
        self.written = False
        """Set once a transaction that adds something is committed: the database is kept then."""


@contextlib.contextmanager
def new_database(path: Path) -> Iterator[NewDatabase]:
    """Remove the results database made inside the block (with its lock file and SQLite's journals)
    when the block fails before anything was written to it: a refused import or merge leaves no
    empty database behind."""
    existed = os.path.lexists(path)
    made = NewDatabase()
    try:
        yield made
    except BaseException:
        if not existed and not made.written:
            for file in (path, lock_path(path), *(path.with_name(path.name + end) for end in ("-wal", "-shm", "-journal"))):
                with contextlib.suppress(FileNotFoundError):
                    file.unlink()
        raise


class _WriterLock:
    """An OS lock (POSIX ``lockf``) on ``<db>.lock``, held while one process writes the database.

    Taken without waiting: a second writer fails at once, naming the holder (pid and start time,
    written into the lock file). The OS releases it when the holder exits in any way, SIGKILL
    included; a POSIX lock is not inherited by forked worker processes, so it goes with the holder.
    """

    def __init__(self, db: Path, role: str) -> None:
        self.path = lock_path(db)
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise StoreError(
                f"cannot write in {db.parent} ({error.strerror or error}): {db.name} and its lock file "
                f"{self.path.name} go there; give a --db in a folder you can write"
            ) from None
        try:
            fcntl.lockf(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                holder = os.pread(self.fd, 4096, 0).decode("utf-8", "replace").splitlines()
            finally:
                os.close(self.fd)
            who = (f"another {holder[2]} (pid {holder[0]}, started {holder[1]})" if len(holder) >= 3
                   else "another arena process")  # it has the lock but has not written its name yet
            raise StoreError(
                f"{db} is in use by {who}; wait for it to finish or {WRITERS.get(role, 'give another --db')}"
            ) from None
        started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n{started}\n{role}\n".encode(), 0)

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the file releases the lock
            self.fd = -1


def is_tournament_config(config: Mapping[str, Any]) -> bool:
    """Whether a stored config claims to be a tournament's (it has engines and rounds), as opposed
    to the config of ``arena play``'s games."""
    return "engines" in config and "rounds" in config


def config_hash_of(config: dict[str, Any]) -> str:
    """The SHA-256 that identifies a tournament's config (its JSON with sorted keys)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()


def _json_column(text: Any, where: str, kind: type) -> Any:
    """A JSON column's value, which must be a ``kind`` (list or dict); RecordRefused otherwise."""
    if not isinstance(text, str):
        raise RecordRefused(f"{where}: expected JSON text, got {shown(text)}")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise RecordRefused(f"{where}: not JSON") from None
    if not isinstance(value, kind):
        raise RecordRefused(f"{where}: expected {'a list' if kind is list else 'an object'}, got {shown(value)}")
    return value


def _warning(item: Any) -> CallWarning:
    """A stored warning: ``{kind, text}``, or its text alone (databases from before warnings had kinds)."""
    if isinstance(item, dict):
        return CallWarning.from_json(item)
    text = str(item)
    kind = (WarningKind.LINES_AFTER_ANSWER if "after the answer" in text
            else WarningKind.KILLED_AT_DEADLINE if "deadline" in text
            else WarningKind.SIGNAL_AFTER_ANSWER if "signal" in text else WarningKind.EXIT_STATUS_AFTER_ANSWER)
    return CallWarning(kind, text)


@dataclass(frozen=True)
class EngineEntry:
    """An engine as a tournament's row records it."""

    name: str
    command: str
    """The command as shown (``python3 engines/greedy.py``)."""
    program: str | None
    """The program file whose SHA-256 is recorded (None for a command without one)."""


@dataclass(frozen=True)
class TournamentEntry:
    """What the store records of a tournament's config: plain values, written as they are."""

    name: str
    fingerprint: dict[str, Any]
    """Everything that decides the games' outcomes, stored as JSON with sorted keys; its SHA-256
    (config_hash_of) identifies the tournament."""
    path: str
    """The config file (made absolute when stored), or "" for none."""
    engines: tuple[EngineEntry, ...]


@dataclass(frozen=True)
class GameRow:
    """One line of a games listing (``arena games``)."""

    id: int
    """The game's number in this database (``arena replay DB ID``)."""
    tournament: int
    tournament_name: str
    key: str
    """The schedule's id of the game (``n5:r1:random:greedy:a``), unique in its tournament."""
    pair_key: str
    round: int
    game: str
    size: str
    x: str
    o: str
    result: str
    termination: str
    plies: int
    finished_at: str


@dataclass(frozen=True)
class StoredGame:
    """A finished game as read back from the store."""

    game_id: str
    pair_key: str
    round: int
    game: str
    size: str
    """Board size as on the wire (``5``, ``8x8``)."""
    x: str
    o: str
    result: str
    winner: str | None
    termination: str
    reason: str
    plies: int
    fault: dict[str, Any] | None
    start_board: str = ""
    start_player: str = "x"


class Store:
    """One results database, opened for writing (created if missing; one writer at a time, see
    _WriterLock) or with ``read_only=True``, which never creates, converts or journals a file."""

    def __init__(self, path: str | Path, *, read_only: bool = False, role: str = "arena tournament") -> None:
        self.path = Path(path)
        self.read_only = read_only
        self._lock: _WriterLock | None = None
        problem = _file_problem(self.path)
        if problem is not None:
            raise _not_results(self.path, problem)
        if read_only:
            self.connection = self._connect_read_only()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(
                f"cannot create the folder {self.path.parent} for {self.path.name} "
                f"({error.strerror or error}); give a --db in a folder you can write"
            ) from None
        self._lock = _WriterLock(self.path, role)
        try:
            self.connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as error:
            self._lock.release()
            raise StoreError(f"cannot open {self.path} ({error}); give a --db in a folder you can write") from None
        try:
            self._check_contents()
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=FULL")
            self.connection.execute("PRAGMA foreign_keys=ON")
            self.connection.executescript(SCHEMA)
            self._upgrade()
        except (sqlite3.DatabaseError, UnicodeDecodeError, StoreError) as error:
            self.close()
            if isinstance(error, StoreError):
                raise
            if isinstance(error, sqlite3.OperationalError):
                raise StoreError(
                    f"cannot write {self.path} ({error}); check that you can write it and its folder, "
                    f"or give another --db"
                ) from None
            raise _problem(self.path, error) from None

    def _connect_read_only(self) -> sqlite3.Connection:
        if not self.path.exists():
            raise StoreError(f"no results database at {self.path}; check the path")
        if self.path.stat().st_size == 0:
            raise _not_results(self.path, "empty file")
        # Without a -wal file no writer has the database open: read it as an immutable file, which
        # creates nothing beside it (plain mode=ro would leave -wal and -shm files, and fails in a
        # read-only folder). With one, a tournament may be writing: read through its WAL.
        wal = self.path.with_name(self.path.name + "-wal")
        uri = self.path.resolve().as_uri() + ("?mode=ro" if wal.exists() else "?mode=ro&immutable=1")
        try:
            connection = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
        except sqlite3.Error as error:
            raise StoreError(f"cannot read {self.path} ({error}); check the path and its permissions") from None
        try:
            self.connection = connection
            self._check_contents()
        except (sqlite3.DatabaseError, UnicodeDecodeError, StoreError) as error:
            connection.close()
            if isinstance(error, StoreError):
                raise
            raise _problem(self.path, error) from None
        return connection

    def _check_contents(self) -> None:
        """Refuse an SQLite file that holds other tables than ours, or whose pages are damaged."""
        tables = {row[0] for row in self.connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if (tables or self.read_only) and "tournaments" not in tables:
            raise _not_results(self.path, "no tournaments table")
        if tables:
            verdict = self.connection.execute("PRAGMA quick_check(1)").fetchone()[0]
            if verdict != "ok":
                raise damaged(self.path, verdict)

    def _has_game_columns(self) -> bool:
        columns = {row[1] for row in self.connection.execute("PRAGMA table_info(games)")}
        return "size" in columns

    def _has_time_scale(self) -> bool:
        return "time_scale" in {row[1] for row in self.connection.execute("PRAGMA table_info(games)")}

    def _upgrade(self) -> None:
        """Add the game and size columns to a database written before games were plugins, and the
        time_scale column (1: every game's clock as its time said) to one written before it was kept."""
        if not self._has_game_columns():
            with self._transaction() as cursor:
                cursor.execute("ALTER TABLE games ADD COLUMN game TEXT NOT NULL DEFAULT 'betsy'")
                cursor.execute("ALTER TABLE games ADD COLUMN size TEXT NOT NULL DEFAULT ''")
                cursor.execute("UPDATE games SET size = CAST(n AS TEXT)")
        if not self._has_time_scale():
            with self._transaction() as cursor:
                cursor.execute("ALTER TABLE games ADD COLUMN time_scale REAL NOT NULL DEFAULT 1")

    def _game_columns(self) -> str:
        if not self._has_game_columns():
            return _OLD_GAME_COLUMNS
        return _GAME_COLUMNS if self._has_time_scale() else _GAME_COLUMNS.replace(", time_scale", ", 1.0")

    def close(self) -> None:
        connection = getattr(self, "connection", None)
        if connection is not None:
            connection.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- tournaments ----------------------------------------------------------------------------

    def latest_tournament(self, name: str | None = None) -> int | None:
        if name is None:
            row = self.connection.execute("SELECT max(id) FROM tournaments").fetchone()
        else:
            row = self.connection.execute(
                "SELECT max(id) FROM tournaments WHERE name = ?", (name,)
            ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def has_tournament(self, tournament: int) -> bool:
        if not -(1 << 63) <= tournament < 1 << 63:  # no SQLite integer: no such tournament
            return False
        return self.connection.execute(
            "SELECT 1 FROM tournaments WHERE id = ?", (tournament,)
        ).fetchone() is not None

    def open_tournament(self, entry: TournamentEntry, force_new: bool = False) -> int:
        """The tournament to (re)run for ``entry``: the existing one if unchanged, else refuse.

        A changed config or engine file is refused with ConfigError unless ``force_new``, which starts
        a new tournament in the same database (earlier results are kept).
        """
        existing = self.latest_tournament(entry.name)
        if existing is not None and not force_new:
            self._check_unchanged(existing, entry)
            return existing
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self._transaction() as cursor:
            cursor.execute(
                _INSERT_TOURNAMENT,
                (entry.name, json.dumps(entry.fingerprint, sort_keys=True),
                 config_hash_of(entry.fingerprint), str(Path(entry.path).resolve()) if entry.path else "", now),
            )
            tournament = int(cursor.lastrowid or 0)
            cursor.executemany(
                _INSERT_ENGINE,
                [(tournament, e.name, e.command, e.program, file_sha256(e.program)) for e in entry.engines],
            )
        return tournament

    def _check_unchanged(self, tournament: int, entry: TournamentEntry) -> None:
        stored_json, stored_hash = self.connection.execute(
            "SELECT config_json, config_hash FROM tournaments WHERE id = ?", (tournament,)
        ).fetchone()
        fix = (
            f"run with --force-new to start a new tournament in {self.path} (earlier results are "
            f"kept), or give another --db"
        )
        if stored_hash != config_hash_of(entry.fingerprint):
            stored = self.tournament_info(tournament)["config"]
            current = entry.fingerprint
            changed = sorted(key for key in set(stored) | set(current) if stored.get(key) != current.get(key))
            raise ConfigError(
                f"{self.path} holds tournament {entry.name!r} with a different config "
                f"(changed: {', '.join(changed)}); {fix}"
            )
        stored_engines = {
            name: (program, sha) for name, program, sha in self.connection.execute(
                "SELECT name, program, sha256 FROM engines WHERE tournament_id = ?", (tournament,)
            )
        }
        for engine in entry.engines:
            program, sha = stored_engines.get(engine.name, (None, None))
            if sha != file_sha256(engine.program):
                raise ConfigError(
                    f"engine {engine.name!r} changed since tournament {entry.name!r} started in "
                    f"{self.path} (the SHA-256 of {engine.program} differs); {fix}"
                )

    # --- games ----------------------------------------------------------------------------------

    def done_game_ids(self, tournament: int) -> set[str]:
        return {row[0] for row in self.connection.execute(
            "SELECT game_id FROM games WHERE tournament_id = ?", (tournament,)
        )}

    def save_record(self, tournament: int, key: str, pair_key: str, round_number: int, record: GameRecord,
                    finished_at: str | None = None) -> int | None:
        """Write one finished game under its key (unique in the tournament) and its moves in one
        transaction; its row id, or None if a game with that key was already there."""
        now = finished_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
        fault = None if record.fault is None else json.dumps(record.to_json()["fault"])
        with self._transaction() as cursor:
            cursor.execute(
                _INSERT_GAME,
                (tournament, key, pair_key, round_number,
                 _n_column(record.game, record.size), record.x, record.o,
                 record.time, record.max_plies, record.win_priority, record.start_board,
                 record.start_player, record.result, record.winner, record.termination,
                 record.reason, record.plies, fault, now, record.game, record.size, record.time_scale),
            )
            if cursor.rowcount == 0:
                return None
            row_id = int(cursor.lastrowid or 0)
            cursor.executemany(
                _INSERT_MOVE,
                [(row_id, m.ply, m.player, m.engine, m.move, m.board, m.verdict, m.seconds,
                  json.dumps([w.to_json() for w in m.warnings]), m.detail) for m in record.moves],
            )
        return row_id

    def ensure_tournament(self, name: str, config: dict[str, Any], engines: list[dict[str, Any]],
                          path: str = "", created_at: str | None = None) -> int:
        """The tournament named ``name`` with exactly this config (created, with its engines, if
        missing; an engine not yet in it is added): where ``arena play`` stores its games. Games from
        outside go through harness.tournament.admit instead, which adds nothing unchecked."""
        config_json = json.dumps(config, sort_keys=True)
        config_hash = config_hash_of(config)
        row = self.connection.execute(
            "SELECT max(id) FROM tournaments WHERE name = ? AND config_hash = ?", (name, config_hash)).fetchone()
        if row is not None and row[0] is not None:
            tournament = int(row[0])
            known = {r[0] for r in self.connection.execute(
                "SELECT name FROM engines WHERE tournament_id = ?", (tournament,))}
            missing = [e for e in engines if e["name"] not in known]
            if missing:
                with self._transaction() as cursor:
                    cursor.executemany(_INSERT_ENGINE, [
                        (tournament, e["name"], e.get("command", ""), e.get("program"), e.get("sha256"))
                        for e in missing])
            return tournament
        now = created_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self._transaction() as cursor:
            cursor.execute(_INSERT_TOURNAMENT, (name, config_json, config_hash, path, now))
            tournament = int(cursor.lastrowid or 0)
            cursor.executemany(_INSERT_ENGINE, [
                (tournament, e["name"], e.get("command", ""), e.get("program"), e.get("sha256")) for e in engines])
        return tournament

    def engines_of(self, tournament: int) -> list[dict[str, Any]]:
        """Each engine of a tournament: name, command, program file and its SHA-256."""
        engines = []
        for values in self.engine_rows(tournament):
            fields = Fields(values)
            with self._damage(f"tournament {tournament}: engine {shown(values['name'])}"):
                engines.append({"name": fields.text("name"), "command": fields.text("command"),
                                "program": fields.optional_text("program"), "sha256": fields.optional_text("sha256")})
        return engines

    def game_rows(self, tournament: int | None = None) -> list[GameRow]:
        """Every stored game (of one tournament, or all), in the order they were stored."""
        game, size = ("g.game", "g.size") if self._has_game_columns() else ("'betsy'", "CAST(g.n AS TEXT)")
        where, args = ("WHERE g.tournament_id = ?", (tournament,)) if tournament is not None else ("", ())
        rows = self.connection.execute(
            f"SELECT g.id, g.tournament_id, t.name, g.game_id, g.pair_key, g.round, {game}, {size}, g.x, g.o, "
            f"g.result, g.termination, g.plies, g.finished_at FROM games g JOIN tournaments t ON t.id = g.tournament_id "
            f"{where} ORDER BY g.id", args).fetchall()
        return [self._game_row(row) for row in rows]

    def _game_row(self, row: tuple[Any, ...]) -> GameRow:
        fields = Fields(dict(zip(_ROW_FIELDS, row)))
        with self._damage(f"game {row[0]}"):
            return GameRow(
                row[0], row[1], fields.text("tournament"), fields.text("key"), fields.text("pair_key"),
                fields.whole("round"), fields.choice("game", tuple(GAMES)), fields.text("size"), fields.text("x"),
                fields.text("o"), fields.choice("result", tuple(RESULTS.values())),
                fields.choice("termination", tuple(t.value for t in Termination)), fields.whole("plies"),
                fields.text("finished_at"))

    @contextlib.contextmanager
    def _damage(self, where: str) -> Iterator[None]:
        """A stored value found wrong inside becomes StoreError naming ``where`` and the value."""
        try:
            yield
        except RecordRefused as error:
            raise damaged(self.path, f"{where}: {error}") from None

    def find_game(self, text: str) -> int | None:
        """The row id of a game given as its id (a number) or its key (``n5:r1:a:b:a``, when unique)."""
        if text.isascii() and text.isdigit() and len(text) < 19:
            found = self.connection.execute("SELECT id FROM games WHERE id = ?", (int(text),)).fetchone()
            return None if found is None else int(found[0])
        found = self.connection.execute("SELECT id FROM games WHERE game_id = ? ORDER BY id", (text,)).fetchall()
        if len(found) > 1:
            raise StoreError(f"{len(found)} games have the key {text!r} (one per tournament); give the game's "
                             f"number from 'arena games {self.path}'")
        return int(found[0][0]) if found else None

    def game_data(self, row_id: int) -> dict[str, Any]:
        """A stored game as the JSON form of its record (``GameRecord.to_json``) plus ``key``,
        ``pair_key``, ``round`` and ``finished_at``, the values as stored: records.record_from_data
        checks them. RecordRefused when a JSON column is not JSON."""
        row = self.connection.execute(f"SELECT {self._game_columns()} FROM games WHERE id = ?", (row_id,)).fetchone()
        (key, pair_key, round_number, _n, x, o, seconds, max_plies, win_priority, start_board, start_player, result,
         winner, termination, reason, plies, fault_json, finished_at, game, size, time_scale) = row
        moves = [
            {"ply": ply, "player": player, "engine": engine, "move": move, "board": board, "verdict": verdict,
             "seconds": seconds_taken, "detail": detail,
             "warnings": [_warning(item).to_json() if isinstance(item, str) else item
                          for item in _json_column(warnings_json, f"moves[{index}].warnings", list)]}
            for index, (ply, player, engine, move, board, verdict, seconds_taken, warnings_json, detail)
            in enumerate(self.connection.execute(
                f"SELECT {_MOVE_COLUMNS} FROM moves WHERE game = ? ORDER BY ply", (row_id,)))
        ]
        return {"key": key, "pair_key": pair_key, "round": round_number, "finished_at": finished_at,
                "x": x, "o": o, "game": game, "size": size, "time": seconds, "start_board": start_board,
                "start_player": start_player, "max_plies": max_plies, "win_priority": win_priority, "moves": moves,
                "result": result, "winner": winner, "termination": termination, "reason": reason,
                "fault": None if fault_json is None else _json_column(fault_json, "fault", dict), "plies": plies,
                "time_scale": time_scale}

    def game_record(self, row_id: int) -> GameRecord:
        """A stored game as the GameRecord it was written from (enums, warnings and fault included);
        StoreError naming the game and the field when a stored value is not a game's."""
        with self._damage(f"game {row_id}"):
            record = record_from_data(self.game_data(row_id), STORED_KEYS, names=False)
            check_replayable(record)
        return record

    def games(self, tournament: int) -> list[StoredGame]:
        """A tournament's games (what a report counts), each row's values checked."""
        game, size = ("game", "size") if self._has_game_columns() else ("'betsy'", "CAST(n AS TEXT)")
        rows = self.connection.execute(
            f"SELECT id, game_id, pair_key, round, {game}, {size}, x, o, result, winner, termination, reason, "
            "plies, fault_json, start_board, start_player FROM games WHERE tournament_id = ? ORDER BY id", (tournament,)
        ).fetchall()
        return [self._stored_game(row) for row in rows]

    def _stored_game(self, row: tuple[Any, ...]) -> StoredGame:
        fields = Fields(dict(zip(_STORED_FIELDS, row)))
        with self._damage(f"game {row[0]}"):
            fault = None if row[13] is None else _json_column(row[13], "fault", dict)
            if fault is not None:
                fault_from_data(fault, "fault", names=False)
            stored = StoredGame(
                fields.text("key"), fields.text("pair_key"), fields.whole("round"), fields.choice("game", tuple(GAMES)),
                fields.text("size"), fields.text("x"), fields.text("o"),
                fields.choice("result", tuple(RESULTS.values())), fields.choice("winner", (*PLAYERS, None)),
                fields.choice("termination", tuple(t.value for t in Termination)), fields.text("reason"),
                fields.whole("plies"), fault, fields.text("start_board"), fields.choice("start_player", tuple(PLAYERS)))
        try:
            GAMES[stored.game].position(stored.size, stored.start_player, stored.start_board)
        except PositionError as error:
            raise damaged(self.path, f"game {row[0]}: start position: {error}") from None
        return stored

    def engine_names(self, tournament: int) -> list[str]:
        return [engine["name"] for engine in self.engines_of(tournament)]

    def tournament_info(self, tournament: int) -> dict[str, Any]:
        """A tournament's name, config (a JSON object) and start; StoreError if they are damaged."""
        values = self.tournament_row(tournament)
        fields = Fields(values)
        with self._damage(f"tournament {tournament}"):
            return {"id": tournament, "name": fields.text("name"),
                    "config": _json_column(values["config_json"], "config", dict),
                    "created_at": fields.text("created_at"), "config_path": fields.text("config_path")}

    def tournament_row(self, tournament: int) -> dict[str, Any]:
        """A tournament's stored values as they are (name, config_json, config_hash, config_path,
        created_at), unchecked: what a merge reads from a share."""
        row = self.connection.execute(
            "SELECT name, config_json, config_hash, config_path, created_at FROM tournaments WHERE id = ?",
            (tournament,)).fetchone()
        return dict(zip(("name", "config_json", "config_hash", "config_path", "created_at"), row))

    def engine_rows(self, tournament: int) -> list[dict[str, Any]]:
        """A tournament's engines as stored (name, command, program, sha256), unchecked."""
        return [dict(zip(("name", "command", "program", "sha256"), row)) for row in self.connection.execute(
            "SELECT name, command, program, sha256 FROM engines WHERE tournament_id = ? ORDER BY rowid", (tournament,))]

    def game_ids(self, tournament: int) -> list[int]:
        """The row ids of a tournament's games, in storage order."""
        return [int(row[0]) for row in self.connection.execute(
            "SELECT id FROM games WHERE tournament_id = ? ORDER BY id", (tournament,))]

    def game_id_of(self, tournament: int, key: str) -> int | None:
        """The row id of the tournament's game with this key, if stored."""
        row = self.connection.execute(
            "SELECT id FROM games WHERE tournament_id = ? AND game_id = ?", (tournament, key)).fetchone()
        return None if row is None else int(row[0])

    def find_tournament(self, name: str, config_hash: str) -> int | None:
        """The latest tournament with this name and config hash."""
        row = self.connection.execute(
            "SELECT max(id) FROM tournaments WHERE name = ? AND config_hash = ?", (name, config_hash)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def add_tournament(self, name: str, config: dict[str, Any], config_path: str, created_at: str,
                       engines: list[dict[str, Any]]) -> int:
        """A new tournament with its engines (each: name, command, program, sha256)."""
        config_json = json.dumps(config, sort_keys=True)
        with self._transaction() as cursor:
            cursor.execute(_INSERT_TOURNAMENT, (name, config_json, config_hash_of(config), config_path, created_at))
            tournament = int(cursor.lastrowid or 0)
            cursor.executemany(_INSERT_ENGINE, [
                (tournament, e["name"], e["command"], e["program"], e["sha256"]) for e in engines])
        return tournament

    def add_engine(self, tournament: int, engine: dict[str, Any]) -> None:
        with self._transaction() as cursor:
            cursor.execute(_INSERT_ENGINE, (tournament, engine["name"], engine["command"], engine["program"],
                                            engine["sha256"]))

    def move_times(self, tournament: int) -> dict[str, tuple[int, float, float]]:
        """Per engine: (moves, mean seconds, max seconds) over its calls."""
        self._check_seconds(tournament)
        rows = self.connection.execute(
            "SELECT m.engine, count(*), avg(m.seconds), max(m.seconds) FROM moves m "
            "JOIN games g ON g.id = m.game WHERE g.tournament_id = ? GROUP BY m.engine",
            (tournament,),
        ).fetchall()
        return {name: (count, mean, peak) for name, count, mean, peak in rows}

    def move_seconds(self, tournament: int) -> dict[str, list[float]]:
        """Every engine call's seconds in a tournament, sorted, by engine."""
        self._check_seconds(tournament)
        found: dict[str, list[float]] = {}
        for name, seconds in self.connection.execute(
            "SELECT m.engine, m.seconds FROM moves m JOIN games g ON g.id = m.game WHERE g.tournament_id = ? "
            "ORDER BY m.seconds", (tournament,)
        ):
            found.setdefault(name, []).append(seconds)
        return found

    def _check_seconds(self, tournament: int) -> None:
        """Refuse move times or engine names that are not numbers or text (a hand-edited database)."""
        bad = self.connection.execute(
            "SELECT m.game, m.ply, m.engine, m.seconds FROM moves m JOIN games g ON g.id = m.game "
            "WHERE g.tournament_id = ? AND (typeof(m.seconds) NOT IN ('integer', 'real') OR m.seconds < 0 "
            "OR typeof(m.engine) != 'text') LIMIT 1", (tournament,)).fetchone()
        if bad is not None:
            game, ply, engine, seconds = bad
            what = f"seconds: expected a number from 0, got {shown(seconds)}" if isinstance(engine, str) else \
                f"engine: expected text, got {shown(engine)}"
            raise damaged(self.path, f"game {game}: ply {shown(ply)}: {what}")

    # --- analyses of finished games (harness.analysis) -----------------------------------------------

    def _has_analyses(self) -> bool:
        """Whether the analyses table exists (a database opened read-only may predate it)."""
        return self.connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'analyses'").fetchone() is not None

    def analysed_ids(self, tournament: int | None = None) -> set[int]:
        """The row ids of the games (of one tournament, or all) that have a stored analysis."""
        if not self._has_analyses():
            return set()
        where, args = ("WHERE g.tournament_id = ?", (tournament,)) if tournament is not None else ("", ())
        return {int(row[0]) for row in self.connection.execute(
            f"SELECT a.game FROM analyses a JOIN games g ON g.id = a.game {where}", args)}

    def save_analysis(self, game: int, kind: str, finding: dict[str, Any], seconds: float, budget: float) -> None:
        """A game's analysis, in one transaction (replacing an earlier one)."""
        with self._transaction() as cursor:
            cursor.execute(
                "INSERT OR REPLACE INTO analyses (game, kind, finding_json, seconds, budget, analysed_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game, kind, json.dumps(finding, sort_keys=True), seconds, budget,
                 datetime.now(timezone.utc).isoformat(timespec="seconds")))

    def analysis(self, game: int) -> dict[str, Any] | None:
        """A game's stored analysis: its finding (a JSON object, checked by harness.analysis) with its
        ``seconds`` and ``budget``; None when the game has none. StoreError when a value is damaged."""
        if not self._has_analyses():
            return None
        row = self.connection.execute(
            "SELECT finding_json, seconds, budget FROM analyses WHERE game = ?", (game,)).fetchone()
        if row is None:
            return None
        with self._damage(f"game {game}"):
            finding = _json_column(row[0], "analysis", dict)
            fields = Fields({"seconds": row[1], "budget": row[2]})
            return {"finding": finding, "seconds": fields.number("seconds", 0, 1e9), "budget": fields.number("budget", 0, 1e9)}

    def integrity_ok(self) -> bool:
        return bool(self.connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok")

    # --- helpers --------------------------------------------------------------------------------

    class _Tx:
        """One transaction; inside another, a savepoint of it (the outer one decides what is kept)."""

        def __init__(self, connection: sqlite3.Connection) -> None:
            self.connection = connection
            self.inner = False

        def __enter__(self) -> sqlite3.Cursor:
            self.inner = self.connection.in_transaction
            self.connection.execute("SAVEPOINT inner" if self.inner else "BEGIN IMMEDIATE")
            return self.connection.cursor()

        def __exit__(self, kind: object, *rest: object) -> None:
            if self.inner:
                if kind is not None:
                    self.connection.execute("ROLLBACK TO inner")
                self.connection.execute("RELEASE inner")
            else:
                self.connection.execute("ROLLBACK" if kind is not None else "COMMIT")

    def _transaction(self) -> Store._Tx:
        return Store._Tx(self.connection)

    def transaction(self) -> Store._Tx:
        """Everything written inside is kept together or not at all (``with store.transaction():``)."""
        return Store._Tx(self.connection)


def _n_column(game: str, size: str) -> int:
    """The games table's ``n``: Betsy's n, 0 for other games (as before games were plugins)."""
    rules = GAMES.get(game)
    n = rules.legacy_n(size) if rules is not None else None
    return 0 if n is None else n
