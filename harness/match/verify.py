"""Believe no game record that came from outside this process: replay it and derive its end.

A record returned by a cluster worker, read from an exported file or merged from another database
is checked here before it is stored: every field has its type, the moves are replayed through the
rules from the start position (each legal, each board the referee's), and the result, winner,
termination and reason are derived from the moves exactly as ``match.play_game`` decides them. A
fault must be the last move's, and the last move the one that ended the game. Anything else raises
RecordRefused with one line naming the first problem.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from harness.errors import HarnessError
from harness.games.errors import PositionError
from harness.games.registry import GAMES, PLAYERS, RuleOptions
from harness.match.match import Fault, GameRecord, MoveRecord, Termination, game_end
from harness.referee.protocol import CallWarning, Verdict
from harness.text import clip

if TYPE_CHECKING:
    from harness.tournament.schedule import ScheduledGame
    from harness.match.settings import GameSettings

_PLAYERS = tuple(PLAYERS)
"""x and o: a string of them would take "" and "xo" for players."""
RESULTS = {"x": "1-0", "o": "0-1", None: "1/2-1/2"}
"""The result each winner (None: a draw) gives."""


class RecordRefused(HarnessError):
    """A game record that is not what its moves say: the message names the first problem."""


def shown(value: object) -> str:
    """A value as an error message shows it: short, with control characters escaped."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, str) and len(value) > 40:
        return repr(value[:40]) + "..."
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _need(condition: bool, problem: str) -> None:
    if not condition:
        raise RecordRefused(problem)


def _is_text(value: object) -> bool:
    return isinstance(value, str)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_seconds(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def derived_end(record: GameRecord) -> tuple[str | None, Termination, str]:
    """(winner, termination, reason) that the record's moves give, replayed from its start position.

    Raises RecordRefused when a field has the wrong type, a move is illegal or its board is not the
    rules' board, the moves go on after the game ended or stop before it ends, or a fault is not the
    last move's.
    """
    _need(isinstance(record, GameRecord), f"not a game record ({type(record).__name__})")
    _need(_is_text(record.game) and record.game in GAMES, f"unknown game {shown(record.game)}")
    rules = GAMES[record.game]
    for name, value in (("x", record.x), ("o", record.o), ("size", record.size), ("start_board", record.start_board),
                        ("start_player", record.start_player), ("win_priority", record.win_priority),
                        ("reason", record.reason), ("result", record.result)):
        _need(_is_text(value), f"{name}: expected text, got {type(value).__name__}")
    _need(record.x != "" and record.o != "" and record.x != record.o,
          f"engines {shown(record.x)} and {shown(record.o)}: expected two different names")
    _need(_is_seconds(record.time) and record.time > 0, f"time: expected seconds above 0, got {shown(record.time)}")
    _need(_is_int(record.max_plies) and record.max_plies >= 1,
          f"max_plies: expected a whole number from 1, got {shown(record.max_plies)}")
    _need(record.win_priority in rules.win_priorities,
          f"win_priority: {shown(record.win_priority)} is not a rule option of {rules.title}")
    _need(record.winner is None or record.winner in _PLAYERS, f"winner: expected x, o or none, got {shown(record.winner)}")
    _need(record.termination is None or isinstance(record.termination, Termination),
          f"termination: expected one of {', '.join(t.value for t in Termination)}, got {shown(record.termination)}")
    _need(record.fault is None or isinstance(record.fault, Fault), f"fault: expected a fault, got {shown(record.fault)}")
    _need(isinstance(record.moves, list), f"moves: expected a list, got {type(record.moves).__name__}")
    try:
        _need(rules.parse_size(record.size) == record.size, f"size {shown(record.size)} is not written as {rules.title} writes it")
        position = rules.position(record.size, record.start_player, record.start_board, RuleOptions(record.win_priority))
    except PositionError as error:
        raise RecordRefused(f"bad start position: {error}") from None
    _need(position.winner() is None and rules.end_reason(position) is None and bool(position.legal_moves()),
          "the start position is already over")
    _need(len(record.moves) > 0, "no moves: a game ends only by a move or a forfeit")
    names = {"x": record.x, "o": record.o}
    seen = {position.key(): 1}
    ended: tuple[str | None, Termination, str] | None = None
    for index, move in enumerate(record.moves):
        _check_move_types(move, index + 1)
        where = f"ply {move.ply}"
        if ended is not None or move.player != position.player or move.engine != names[move.player]:
            _need(ended is None, f"{where}: a move after the game ended ({ended[2] if ended else ''})")
            _need(move.player == position.player, f"{where}: {shown(move.player)} moved, but {position.player} was to move")
            _need(move.engine == names[move.player], f"{where}: engine {shown(move.engine)} moved for {move.player}, "
                  f"which {shown(names[move.player])} plays")
        if move.verdict is not Verdict.OK:
            _need(index == len(record.moves) - 1, f"{where}: a forfeit ({move.verdict.value}) that is not the last move")
            _need(move.move is None and move.board is None, f"{where}: a forfeit with a move or board recorded")
            winner = "o" if move.player == "x" else "x"
            ended = (winner, Termination.FORFEIT,
                     f"{winner} wins: {move.player} ({move.engine}) forfeits by {move.verdict.value}: {move.detail}")
            break
        if move.move is None or not position.is_legal(move.move):
            raise RecordRefused(f"{where}: move {shown(move.move)} is not legal")
        position.push(move.move)
        if move.board != position.board():
            raise RecordRefused(f"{where}: the board after move {move.move} is not the rules' board")
        ended = game_end(rules, position, seen, move.ply, record.max_plies, move.player, move.engine, move.move)
    if ended is None:
        raise RecordRefused(f"the moves stop at ply {len(record.moves)}, but the game is not over there")
    _check_fault(record, ended[1])
    return ended


def _check_move_types(move: object, ply: int) -> None:
    if (type(move) is MoveRecord and type(move.ply) is int and move.ply == ply and move.player in _PLAYERS
            and type(move.engine) is str and (move.move is None or type(move.move) is int)
            and (move.board is None or type(move.board) is str) and type(move.verdict) is Verdict
            and _is_seconds(move.seconds) and type(move.warnings) is tuple
            and all(isinstance(warning, CallWarning) for warning in move.warnings) and type(move.detail) is str):
        return  # the common case, without building a message per check
    _need(isinstance(move, MoveRecord), f"move {ply}: expected a move record, got {type(move).__name__}")
    assert isinstance(move, MoveRecord)
    _need(_is_int(move.ply) and move.ply == ply, f"move {ply}: numbered {shown(move.ply)}; plies count 1, 2, 3, ...")
    _need(_is_text(move.player) and move.player in _PLAYERS, f"ply {ply}: player {shown(move.player)}; expected x or o")
    _need(_is_text(move.engine), f"ply {ply}: engine: expected text, got {type(move.engine).__name__}")
    _need(move.move is None or _is_int(move.move), f"ply {ply}: move {shown(move.move)}; expected a whole number")
    _need(move.board is None or _is_text(move.board), f"ply {ply}: board: expected text, got {type(move.board).__name__}")
    _need(isinstance(move.verdict, Verdict), f"ply {ply}: verdict {shown(move.verdict)}; expected one of "
          f"{', '.join(v.value for v in Verdict)}")
    _need(_is_seconds(move.seconds), f"ply {ply}: seconds {shown(move.seconds)}; expected a time of 0 or more")
    _need(isinstance(move.warnings, tuple) and all(isinstance(w, CallWarning) for w in move.warnings),
          f"ply {ply}: warnings: expected a list of warnings")
    _need(_is_text(move.detail), f"ply {ply}: detail: expected text, got {type(move.detail).__name__}")


def _check_fault(record: GameRecord, termination: Termination) -> None:
    """A forfeit has the fault of its last move; any other end has none."""
    last = record.moves[-1]
    if termination is not Termination.FORFEIT:
        _need(record.fault is None, f"a fault recorded, but the game ended by {termination.value}")
        return
    fault = record.fault
    _need(fault is not None, f"ply {last.ply}: a forfeit without its fault")
    assert fault is not None
    for name, value in (("engine", fault.engine), ("detail", fault.detail), ("stderr_tail", fault.stderr_tail)):
        _need(_is_text(value), f"fault: {name}: expected text, got {type(value).__name__}")
    _need(isinstance(fault.stdout_tail, tuple) and all(_is_text(line) for line in fault.stdout_tail),
          "fault: stdout_tail: expected a list of lines")
    _need(isinstance(fault.argv, tuple) and all(_is_text(word) for word in fault.argv), "fault: argv: expected a list of words")
    _need(fault.exit_status is None or _is_int(fault.exit_status), f"fault: exit_status {shown(fault.exit_status)}")
    _need((fault.engine, fault.player, fault.verdict, fault.detail) == (last.engine, last.player, last.verdict, last.detail),
          f"fault: {shown(fault.engine)} ({fault.player}) {getattr(fault.verdict, 'value', fault.verdict)} is not the "
          f"last move's ({shown(last.engine)} ({last.player}) {last.verdict.value})")


def check_record(record: GameRecord) -> None:
    """Refuse (RecordRefused) a record whose result, winner, termination or reason is not what its
    moves give, or whose fields are not a game's (see ``derived_end``)."""
    winner, termination, reason = derived_end(record)
    claimed = (record.result, record.winner, record.termination, record.reason)
    derived = (RESULTS[winner], winner, termination, reason)
    if claimed != derived:
        raise RecordRefused(
            f"the record says {clip(str(record.result), 40)} ({_plain(record.termination)}: {clip(str(record.reason), 300)}), "
            f"but its moves give {RESULTS[winner]} ({termination.value}: {reason})"
        )


def check_scheduled(record: GameRecord, scheduled: ScheduledGame, settings: GameSettings) -> None:
    """Refuse a record that is not the scheduled ``game`` under ``settings`` (engines, size, start
    position, rules), or whose moves do not give its end (``check_record``)."""
    wanted = {"x": scheduled.x, "o": scheduled.o, "game": settings.game, "size": scheduled.size, "start_board": scheduled.start_board,
              "start_player": scheduled.start_player, "time": settings.time, "max_plies": settings.max_plies,
              "win_priority": settings.win_priority}
    for field, value in wanted.items():
        found = getattr(record, field, None)
        if found != value or type(found) is not type(value) and field != "time":
            raise RecordRefused(f"{field} is {shown(_plain(found))}, but game {scheduled.game_id} has {shown(value)}")
    check_record(record)


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Termination) else value
