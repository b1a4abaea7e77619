"""Games from outside into a results database, believing nothing they claim: the lines of
``arena import`` (the JSON Lines harness.store.gamelog exports) and the tournaments of ``arena
merge`` pass the same checks.

- Every field has its type (harness.store.records); names are printable text.
- The moves, replayed through the rules, give the result, winner, termination and reason (harness.match.verify).
- The game's x and o are engines of the tournament it joins, with the same programs (SHA-256).
- For a tournament whose stored config is one ``arena tournament`` writes, the game is a game of its
  schedule: key, round, pairing, colours, size, start position and settings (harness.tournament.fingerprints),
  so a forged game cannot take the place of one the tournament has yet to play.
- A key already stored is "already there" only for the same game; other content is refused, naming
  the first field that differs.

Callers run a whole file or share inside one ``Store.transaction()``: the first refused game rolls
back everything written before it.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, BinaryIO

from harness.tournament.config import Opening, TournamentConfig
from harness.errors import ConfigError, UsageError
from harness.tournament.fingerprints import NotAFingerprint, config_from_fingerprint, is_tournament_config, scheduled_game
from harness.match.match import GameRecord
from harness.store.records import Fields, record_from_data
from harness.store.gamelog import EXTRA_KEYS
from harness.store.store import STORED_KEYS, Store, config_hash_of
from harness.match.verify import RecordRefused, check_record, check_scheduled, shown

_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Engine:
    """An engine as a file or share lists it."""

    name: str
    command: str
    program: str | None
    sha256: str | None

    def row(self) -> dict[str, Any]:
        return {"name": self.name, "command": self.command, "program": self.program, "sha256": self.sha256}


@dataclass(frozen=True)
class Tournament:
    """The tournament a file or share says its games belong to."""

    name: str
    config: dict[str, Any]
    engines: tuple[Engine, ...]
    created_at: str


@dataclass(frozen=True)
class Offered:
    """One game offered: its place in the tournament and its record."""

    key: str
    pair_key: str
    round: int
    finished_at: str
    record: GameRecord


def engine_from_data(fields: Fields) -> Engine:
    fields.only(("name", "command", "program", "sha256"))
    sha = fields.optional_text("sha256")
    if sha is not None and not _SHA256.fullmatch(sha):
        raise fields.refuse("sha256", "a SHA-256 (64 hex digits) or null", sha)
    return Engine(fields.name("name"), fields.text("command"), fields.optional_text("program"), sha)


def tournament_from_data(fields: Fields, engines: list[Any], config: object) -> Tournament:
    """A Tournament from its fields (name, created_at), the list of its engines and its config."""
    listed = [engine_from_data(Fields(item, f"{fields.where('engines')}[{index}]")) for index, item in enumerate(engines)]
    names = [engine.name for engine in listed]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise RecordRefused(f"{fields.where('engines')}: engine {shown(twice)} is listed twice")
    if not isinstance(config, dict):
        raise fields.refuse("config", "an object", config)
    created = (fields.text("created_at") if "created_at" in fields.data
               else datetime.now(timezone.utc).isoformat(timespec="seconds"))
    return Tournament(fields.name("name"), config, tuple(listed), created)


def offered_from_data(data: dict[str, Any], record: GameRecord) -> Offered:
    """The place of a game (key, pair_key, round, finished_at) from its exported or stored form."""
    fields = Fields(data)
    return Offered(fields.name("key"), fields.name("pair_key"), fields.whole("round", 1),
                   fields.name("finished_at"), record)


@dataclass
class _Target:
    """A tournament of the database that offered games join."""

    id: int
    name: str
    engines: dict[str, str | None]
    """Name -> the SHA-256 of its program, as stored."""
    config: TournamentConfig | None
    """The config rebuilt from the stored fingerprint; None for a tournament without a schedule
    (``arena play``'s games)."""
    openings: dict[tuple[str, int], Opening] = field(default_factory=dict)


class Admission:
    """Adds offered games to one database (see the module's docstring), inside the caller's transaction."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._targets: dict[tuple[str, str], _Target] = {}

    def target(self, tournament: Tournament) -> _Target:
        """The database's tournament with this name and config, created (with the listed engines)
        if missing; RecordRefused for a tournament config that is not one ``arena tournament`` writes,
        or a new one whose engines are not its config's."""
        key = (tournament.name, config_hash_of(tournament.config))
        found = self._targets.get(key)
        if found is not None:
            return found
        config = None
        if is_tournament_config(tournament.config):
            try:
                config = config_from_fingerprint(tournament.config)
            except NotAFingerprint as error:
                raise RecordRefused(f"tournament {shown(tournament.name)}: config: {error}") from None
        stored = self.store.find_tournament(*key)
        if stored is None:
            listed = [engine.name for engine in tournament.engines]
            if config is not None and listed != [engine.name for engine in config.engines]:
                raise RecordRefused(
                    f"tournament {shown(tournament.name)}: its engines ({', '.join(listed)}) are not its config's "
                    f"({', '.join(engine.name for engine in config.engines)})")
            # No config path: the file's or share's is another machine's, and pages show paths relative to it.
            stored = self.store.add_tournament(tournament.name, tournament.config, "", tournament.created_at,
                                               [engine.row() for engine in tournament.engines])
            engines = {engine.name: engine.sha256 for engine in tournament.engines}
        else:
            engines = {engine["name"]: engine["sha256"] for engine in self.store.engines_of(stored)}
        target = self._targets[key] = _Target(stored, tournament.name, engines, config)
        return target

    def admit(self, tournament: Tournament, offer: Offered) -> bool:
        """Write ``offer`` into its tournament: True, or False when the same game is already there.
        RecordRefused (one line naming the first problem) for a game that is not believed."""
        target = self.target(tournament)
        record = offer.record
        listed = {engine.name: engine for engine in tournament.engines}
        for colour, name in (("x", record.x), ("o", record.o)):
            engine = listed.get(name)
            if engine is None:
                raise RecordRefused(f"{colour}: engine {shown(name)} is not listed with tournament "
                                    f"{shown(tournament.name)}")
            if name not in target.engines:
                if target.config is not None:
                    raise RecordRefused(
                        f"{colour}: engine {shown(name)} is not an engine of tournament {shown(target.name)} "
                        f"(its engines: {', '.join(target.engines)})")
                self.store.add_engine(target.id, engine.row())  # arena play's games: one tournament, any opponent
                target.engines[name] = engine.sha256
            elif target.engines[name] != engine.sha256:
                raise RecordRefused(
                    f"{colour}: engine {shown(name)} of tournament {shown(target.name)} is another program in "
                    f"{self.store.path} (its SHA-256 differs), so this is not a game of that engine")
        if target.config is not None:
            scheduled = scheduled_game(target.config, offer.key, target.openings)
            if scheduled is None:
                raise RecordRefused(f"key {shown(offer.key)} is not a game of the schedule of tournament "
                                    f"{shown(target.name)}")
            if (offer.pair_key, offer.round) != (scheduled.pair_key, scheduled.round):
                raise RecordRefused(f"game {offer.key}: pair_key and round are {shown(offer.pair_key)} and "
                                    f"{offer.round}, but its schedule says {scheduled.pair_key!r} and {scheduled.round}")
            check_scheduled(record, scheduled, target.config.settings)
        else:
            check_record(record)
        existing = self.store.game_id_of(target.id, offer.key)
        if existing is not None:
            stored = self.store.game_record(existing)
            data = self.store.game_data(existing)
            difference = first_difference(
                _content(stored, data["pair_key"], data["round"], data["finished_at"]),
                _content(record, offer.pair_key, offer.round, offer.finished_at))
            if difference is None:
                return False
            raise RecordRefused(
                f"game {shown(offer.key)} of tournament {shown(target.name)} is already in {self.store.path} with "
                f"other content ({difference} differs); import it into another database")
        self.store.save_record(target.id, offer.key, offer.pair_key, offer.round, record, offer.finished_at)
        return True


def _content(record: GameRecord, pair_key: str, round_number: int, finished_at: str) -> dict[str, Any]:
    return {**record.to_json(), "pair_key": pair_key, "round": round_number, "finished_at": finished_at}


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The path (``moves[3].seconds``) of the first value that differs between two JSON values."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(key for key in b if key not in a)]:
            found = first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else key)
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for index, (left, right) in enumerate(zip(a, b)):
            found = first_difference(left, right, f"{path}[{index}]")
            if found is not None:
                return found
        return None if len(a) == len(b) else (f"{path} (the number of them)" if path else "length")
    return None if a == b and type(a) is type(b) or _same_number(a, b) else path or "value"


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return (isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool)
            and not isinstance(b, bool) and a == b)


def share_tournament(source: Store, tournament: int) -> Tournament:
    """The tournament of a share (another database), its stored values checked."""
    row = source.tournament_row(tournament)
    fields = Fields(row)
    text = fields.text("config_json")
    try:
        config = json.loads(text)
    except (ValueError, RecursionError):
        raise RecordRefused("config_json: not JSON") from None
    if not isinstance(config, dict):
        raise fields.refuse("config_json", "a JSON object", config)
    if fields.text("config_hash") != config_hash_of(config):
        raise RecordRefused("config_hash: not the SHA-256 of its config")
    fields.text("config_path")
    return tournament_from_data(fields, source.engine_rows(tournament), config)


def merge_share(target: Store, source: Store, tournament: int) -> tuple[int, int, int]:
    """Add the games of ``source``'s tournament to ``target`` (see the module's docstring): returns
    (the target's tournament id, games added, games already there). Nothing is written unless every
    game passes; RecordRefused names the share and the game, ConfigError an engine whose program
    differs between the two."""
    try:
        offered = share_tournament(source, tournament)
    except RecordRefused as error:
        raise RecordRefused(f"{source.path}: tournament {tournament}: {error}") from None
    added = already = 0
    with target.transaction():
        admission = Admission(target)
        try:
            into = admission.target(offered)
        except RecordRefused as error:
            raise RecordRefused(f"{source.path}: {error}") from None
        for engine in offered.engines:
            if engine.name in into.engines and into.engines[engine.name] != engine.sha256:
                raise ConfigError(
                    f"engine {engine.name!r} of tournament {offered.name!r} differs between {source.path} and "
                    f"{target.path} (the SHA-256 of {engine.program} is not the same): their games are "
                    f"not of the same engine, so they cannot be merged")
        for row_id in source.game_ids(tournament):
            key: object = "?"
            try:
                data = source.game_data(row_id)
                key = data["key"]
                offer = offered_from_data(data, record_from_data(data, STORED_KEYS))
                if admission.admit(offered, offer):
                    added += 1
                else:
                    already += 1
            except RecordRefused as error:
                raise RecordRefused(f"{source.path} game {row_id} ({shown(key)}): {error}") from None
    return into.id, added, already


# --- arena import: the lines of arena export ----------------------------------------------------


MAX_LINE_BYTES = 16 << 20
"""The longest line ``arena import`` reads (an exported game of 10,000 plies is about 2 MiB)."""
MAX_FILE_BYTES = 1 << 30
"""The largest file ``arena import`` reads."""


def import_records(store: Store, file: BinaryIO, source: str) -> tuple[int, int]:
    """Add the exported games in ``file`` to ``store``, each into its tournament (found, or made,
    by name and config), believing nothing a line claims (Admission); returns (games added,
    games already there). All or nothing: the games are written in one transaction, which the
    first refused line rolls back (UsageError or RecordRefused naming the file and line)."""
    added = already = 0
    with store.transaction():
        admission = Admission(store)
        for number, data in _objects(file, source):
            try:
                tournament, offer = offered_line(data)
                if admission.admit(tournament, offer):
                    added += 1
                else:
                    already += 1
            except RecordRefused as error:
                raise RecordRefused(f"{source} line {number}: {error}") from None
    return added, already


def offered_line(data: dict[str, Any]) -> tuple[Tournament, Offered]:
    """The tournament and game of one exported line, every field's type checked."""
    record = record_from_data(data, EXTRA_KEYS)
    fields = Fields(data)
    fields.whole("game_id", 1)  # its number in the database it came from: informative only
    info = fields.object("tournament")
    info.only(("name", "created_at", "config", "engines"))
    return tournament_from_data(info, info.items("engines"), info.get("config")), offered_from_data(data, record)


def read_lines(file: BinaryIO, source: str) -> Iterator[tuple[int, str]]:
    """The lines of ``file`` (numbered from 1) as text, read one at a time: a line over
    MAX_LINE_BYTES, a file over MAX_FILE_BYTES or bytes that are not UTF-8 are a UsageError at once."""
    try:
        info = os.fstat(file.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        info = None
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > MAX_FILE_BYTES:
        raise UsageError(f"{source}: {info.st_size} bytes, over the {MAX_FILE_BYTES >> 30} GiB that one import "
                         f"reads; split it (arena export --tournament K) or import its parts one by one")
    total = 0
    number = 0
    while True:
        line = file.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        total += len(line)
        if total > MAX_FILE_BYTES:
            raise UsageError(f"{source}: over the {MAX_FILE_BYTES >> 30} GiB that one import reads; split it "
                             f"(arena export --tournament K) or import its parts one by one")
        if len(line) > MAX_LINE_BYTES and not (len(line) == MAX_LINE_BYTES + 1 and line.endswith(b"\n")):
            raise UsageError(f"{source} line {number}: longer than {MAX_LINE_BYTES >> 20} MiB, so not a game "
                             f"'arena export' writes; give a file written by 'arena export'")
        try:
            yield number, line.decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{source} line {number}: not UTF-8 text; give a file written by 'arena export'") from None


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {shown(key)} is given twice")
        found[key] = value
    return found


def _objects(file: BinaryIO, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in read_lines(file, source):
        if not line.strip():
            continue
        try:
            data = json.loads(line, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as error:
            raise UsageError(f"{source} line {number}: not JSON ({error.msg}); give a file written by 'arena export'") from None
        except (ValueError, RecursionError) as error:
            why = "nested too deeply" if isinstance(error, RecursionError) else str(error)
            raise UsageError(f"{source} line {number}: not JSON as 'arena export' writes it ({why})") from None
        if not isinstance(data, dict):  # its kind only: a line of another file is not shown
            kind = ("true or false" if isinstance(data, bool) else "null" if data is None else "text"
                    if isinstance(data, str) else "a number" if isinstance(data, (int, float)) else "a list")
            raise UsageError(f"{source} line {number}: expected a JSON object (one game), got {kind}")
        yield number, data
