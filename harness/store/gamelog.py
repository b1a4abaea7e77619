"""Finished games out of the results database: JSON Lines export, readable game sheets, and the
positions of a game one ply at a time (for ``arena replay``). harness.tournament.admit reads the
lines back (``arena import``).

An exported line is exactly the object ``arena match --json`` prints for a game, plus where the game
came from: ``game_id`` (its number in the database, as ``arena games`` lists it and ``arena replay``
takes it), ``key``, ``pair_key`` and ``round`` (its place in the tournament's schedule),
``finished_at``, and ``tournament`` (name, config and engines with their programs' SHA-256). That is
everything the database holds about the game, so importing the lines rebuilds it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from harness.games.registry import RuleOptions, get_game
from harness.match.match import GameRecord, MoveRecord
from harness.referee.protocol import Verdict
from harness.store.store import GameRow, Store
from harness.text import visible

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
