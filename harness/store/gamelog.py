"""Finished games out of the results database and back: JSON Lines export and import, readable game
sheets, and the positions of a game one ply at a time (for ``arena replay``).

An exported line is exactly the object ``arena match --json`` prints for a game, plus where the game
came from: ``game_id`` (its number in the database, as ``arena games`` lists it and ``arena replay``
takes it), ``key``, ``pair_key`` and ``round`` (its place in the tournament's schedule),
``finished_at``, and ``tournament`` (name, config and engines with their programs' SHA-256). That is
everything the database holds about the game, so importing the lines rebuilds it.
"""

from __future__ import annotations

import io
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from harness.store.admit import Admission, Offered, Tournament, offered_from_data, tournament_from_data
from harness.errors import UsageError
from harness.games.registry import RuleOptions, get_game
from harness.match.match import GameRecord, MoveRecord
from harness.referee.protocol import Verdict
from harness.store.records import Fields, record_from_data
from harness.store.store import GameRow, Store
from harness.text import visible
from harness.match.verify import RecordRefused, shown

EXTRA_KEYS = ("game_id", "key", "pair_key", "round", "finished_at", "tournament")
"""What an exported line holds beyond ``arena match --json``'s record."""


def export_records(store: Store, tournament: int | None = None) -> Iterator[dict[str, Any]]:
    """Every stored game (of one tournament, or all) as an exported JSON object, in storage order."""
    tournaments: dict[int, dict[str, Any]] = {}
    for row in store.game_rows(tournament):
        if row.tournament not in tournaments:
            info = store.tournament_info(row.tournament)
            tournaments[row.tournament] = {"name": info["name"], "created_at": info["created_at"],
                                           "config": info["config"], "engines": store.engines_of(row.tournament)}
        data = store.game_record(row.id).to_json()
        data.update(game_id=row.id, key=row.key, pair_key=row.pair_key, round=row.round,
                    finished_at=row.finished_at, tournament=tournaments[row.tournament])
        yield data


MAX_LINE_BYTES = 16 << 20
"""The longest line ``arena import`` reads (an exported game of 10,000 plies is about 2 MiB)."""
MAX_FILE_BYTES = 1 << 30
"""The largest file ``arena import`` reads."""


def import_records(store: Store, file: BinaryIO, source: str) -> tuple[int, int]:
    """Add the exported games in ``file`` to ``store``, each into its tournament (found, or made,
    by name and config), believing nothing a line claims (harness.store.admit); returns (games added,
    games already there). All or nothing: the games are written in one transaction, which the
    first refused line rolls back (UsageError or RecordRefused naming the file and line)."""
    added = already = 0
    with store.transaction():
        admission = Admission(store)
        for number, data in _objects(file, source):
            try:
                tournament, game = offered_line(data)
                if admission.admit(tournament, game):
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


def _options(record: GameRecord) -> Any:
    return RuleOptions(record.win_priority)


@dataclass(frozen=True)
class Frame:
    """One step of a replay: the position after ``ply`` plies, and the move that led to it."""

    ply: int
    position: Any
    move: MoveRecord | None


def frames(record: GameRecord) -> list[Frame]:
    """The start position, then the position after each legal move."""
    rules = get_game(record.game)
    position = rules.position(record.size, record.start_player, record.start_board, _options(record))
    steps = [Frame(0, position.copy(), None)]
    for move in record.moves:
        if move.verdict is not Verdict.OK or move.move is None:
            steps.append(Frame(move.ply, position.copy(), move))
            break
        position.push(move.move)
        steps.append(Frame(move.ply, position.copy(), move))
    return steps


def describe_frame(record: GameRecord, frame: Frame, total: int) -> str:
    """A frame as text: a heading, the move and its time and verdict, and the board."""
    rules = get_game(record.game)
    names = {"x": record.x, "o": record.o}
    if frame.move is None:
        heading = f"start ({frame.position.player} to move)"
    else:
        move = frame.move
        what = (rules.describe_move(move.move) if move.verdict is Verdict.OK and move.move is not None
                else f"forfeits: {move.verdict.value}{': ' + move.detail if move.detail else ''}")
        heading = f"ply {move.ply}/{total}: {move.player} ({names[move.player]}) {what} ({move.seconds:.2f} s)"
    last = frame.move.move if frame.move is not None and frame.move.verdict is Verdict.OK else None
    lines = [heading, *rules.render(frame.position, last).splitlines()]
    if frame.move is not None:
        lines += [f"warning: {warning}" for warning in frame.move.warnings]
    return _text(lines)


def heading(row: GameRow | None, record: GameRecord) -> str:
    rules = get_game(record.game)
    where = f"game {row.id} ({row.key}, tournament {row.tournament_name!r}): " if row is not None else ""
    return visible(f"{where}{record.x} (x) vs {record.o} (o), {rules.title} {rules.size_phrase(record.size)}, "
                   f"{record.time:g} s per move")


def game_sheet(row: GameRow, record: GameRecord) -> str:
    """A readable game sheet: who played, every move with its time, the result and why."""
    rules = get_game(record.game)
    lines = [heading(row, record), f"finished {row.finished_at}"]
    steps = frames(record)
    lines += rules.render(steps[0].position).splitlines()
    for move in record.moves:
        if move.verdict is Verdict.OK and move.move is not None:
            lines.append(f"{move.ply:>4}. {move.player} {rules.describe_move(move.move):<20} {move.seconds:6.2f} s")
        else:
            lines.append(f"{move.ply:>4}. {move.player} forfeits by {move.verdict.value}: {move.detail}")
        lines += [f"        warning: {warning}" for warning in move.warnings]
    final = steps[-1]
    lines += rules.render(final.position, final.move.move if final.move is not None else None).splitlines()
    lines.append(f"result: {record.result} ({record.reason})")
    if record.fault is not None:
        lines += record.fault.evidence_lines()
    return _text(lines)


def _text(lines: list[str]) -> str:
    """Lines for a terminal: whatever a program printed or a file claimed shown safely, each line
    one line (harness.text.visible)."""
    return "\n".join(visible(line) for line in lines)
