"""Believe no game record that came from outside this process: replay it and derive its end.

A record returned by a cluster worker, read from an exported file or merged from another database
is checked here before it is stored: every field has its type, the moves are replayed through the
rules from the start position (each legal, each board the referee's), and the result, winner,
termination and reason are derived from the moves exactly as ``match.play_game`` decides them. A
fault must be the last move's, and the last move the one that ended the game. Anything else raises
RecordRefused with one line naming the first problem.
"""

from __future__ import annotations

import enum
import math
from typing import TYPE_CHECKING, Any, TypeVar

from harness.errors import HarnessError
from harness.games.errors import PositionError
from harness.games.registry import GAMES, PLAYERS, RuleOptions
from harness.match import Fault, GameRecord, MoveRecord, Termination, game_end
from harness.protocol import CallWarning, Verdict

if TYPE_CHECKING:
    from harness.schedule import ScheduledGame
    from harness.settings import GameSettings

RESULTS = {"x": "1-0", "o": "0-1", None: "1/2-1/2"}
"""The result each winner (None: a draw) gives."""


class RecordRefused(HarnessError):
    """A game record that is not what its moves say: the message names the first problem."""


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
    _need(_is_text(record.game) and record.game in GAMES, f"unknown game {record.game!r}")
    rules = GAMES[record.game]
    for name, value in (("x", record.x), ("o", record.o), ("size", record.size), ("start_board", record.start_board),
                        ("start_player", record.start_player), ("win_priority", record.win_priority),
                        ("reason", record.reason), ("result", record.result)):
        _need(_is_text(value), f"{name}: expected text, got {type(value).__name__}")
    _need(record.x != "" and record.o != "" and record.x != record.o,
          f"engines {record.x!r} and {record.o!r}: expected two different names")
    _need(_is_seconds(record.time) and record.time > 0, f"time: expected seconds above 0, got {record.time!r}")
    _need(_is_int(record.max_plies) and record.max_plies >= 1,
          f"max_plies: expected a whole number from 1, got {record.max_plies!r}")
    _need(record.win_priority in ("mover", "blue") and (record.game == "betsy" or record.win_priority == "mover"),
          f"win_priority: {record.win_priority!r} is not a rule option of {rules.title}")
    _need(record.winner is None or record.winner in PLAYERS, f"winner: expected x, o or none, got {record.winner!r}")
    _need(record.termination is None or isinstance(record.termination, Termination),
          f"termination: expected one of {', '.join(t.value for t in Termination)}, got {record.termination!r}")
    _need(record.fault is None or isinstance(record.fault, Fault), f"fault: expected a fault, got {record.fault!r}")
    _need(isinstance(record.moves, list), f"moves: expected a list, got {type(record.moves).__name__}")
    try:
        _need(rules.parse_size(record.size) == record.size, f"size {record.size!r} is not written as {rules.title} writes it")
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
        _need(ended is None, f"{where}: a move after the game ended ({ended[2] if ended else ''})")
        _need(move.player == position.player, f"{where}: {move.player!r} moved, but {position.player} was to move")
        _need(move.engine == names[move.player], f"{where}: engine {move.engine!r} moved for {move.player}, "
              f"which {names[move.player]!r} plays")
        if move.verdict is not Verdict.OK:
            _need(index == len(record.moves) - 1, f"{where}: a forfeit ({move.verdict.value}) that is not the last move")
            _need(move.move is None and move.board is None, f"{where}: a forfeit with a move or board recorded")
            winner = "o" if move.player == "x" else "x"
            ended = (winner, Termination.FORFEIT,
                     f"{winner} wins: {move.player} ({move.engine}) forfeits by {move.verdict.value}: {move.detail}")
            break
        _need(move.move is not None and position.is_legal(move.move), f"{where}: move {move.move!r} is not legal")
        assert move.move is not None
        position.push(move.move)
        _need(move.board == position.board(), f"{where}: the board after move {move.move} is not the rules' board")
        ended = game_end(rules, position, seen, move.ply, record.max_plies, move.player, move.engine, move.move)
    if ended is None:
        raise RecordRefused(f"the moves stop at ply {len(record.moves)}, but the game is not over there")
    _check_fault(record, ended[1])
    return ended


def _check_move_types(move: object, ply: int) -> None:
    _need(isinstance(move, MoveRecord), f"move {ply}: expected a move record, got {type(move).__name__}")
    assert isinstance(move, MoveRecord)
    _need(_is_int(move.ply) and move.ply == ply, f"move {ply}: numbered {move.ply!r}; plies count 1, 2, 3, ...")
    _need(_is_text(move.player) and move.player in PLAYERS, f"ply {ply}: player {move.player!r}; expected x or o")
    _need(_is_text(move.engine), f"ply {ply}: engine: expected text, got {type(move.engine).__name__}")
    _need(move.move is None or _is_int(move.move), f"ply {ply}: move {move.move!r}; expected a whole number")
    _need(move.board is None or _is_text(move.board), f"ply {ply}: board: expected text, got {type(move.board).__name__}")
    _need(isinstance(move.verdict, Verdict), f"ply {ply}: verdict {move.verdict!r}; expected one of "
          f"{', '.join(v.value for v in Verdict)}")
    _need(_is_seconds(move.seconds), f"ply {ply}: seconds {move.seconds!r}; expected a time of 0 or more")
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
    _need(fault.exit_status is None or _is_int(fault.exit_status), f"fault: exit_status {fault.exit_status!r}")
    _need((fault.engine, fault.player, fault.verdict, fault.detail) == (last.engine, last.player, last.verdict, last.detail),
          f"fault: {fault.engine!r} ({fault.player}) {getattr(fault.verdict, 'value', fault.verdict)} is not the "
          f"last move's ({last.engine!r} ({last.player}) {last.verdict.value})")


def check_record(record: GameRecord) -> None:
    """Refuse (RecordRefused) a record whose result, winner, termination or reason is not what its
    moves give, or whose fields are not a game's (see ``derived_end``)."""
    winner, termination, reason = derived_end(record)
    claimed = (record.result, record.winner, record.termination, record.reason)
    derived = (RESULTS[winner], winner, termination, reason)
    if claimed != derived:
        raise RecordRefused(
            f"the record says {record.result} ({_plain(record.termination)}: {record.reason}), "
            f"but its moves give {RESULTS[winner]} ({termination.value}: {reason})"
        )


def check_scheduled(record: GameRecord, game: ScheduledGame, settings: GameSettings) -> None:
    """Refuse a record that is not the scheduled ``game`` under ``settings`` (engines, size, start
    position, rules), or whose moves do not give its end (``check_record``)."""
    wanted = {"x": game.x, "o": game.o, "game": settings.game, "size": game.size, "start_board": game.start_board,
              "start_player": game.start_player, "time": settings.time, "max_plies": settings.max_plies,
              "win_priority": settings.win_priority}
    for field, value in wanted.items():
        found = getattr(record, field, None)
        if found != value or type(found) is not type(value) and field != "time":
            raise RecordRefused(f"{field} is {_plain(found)!r}, but game {game.game_id} has {value!r}")
    check_record(record)


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Termination) else value


def record_from_data(data: object) -> GameRecord:
    """A GameRecord rebuilt from its JSON form (``GameRecord.to_json``), every value's type checked
    as it is read: nothing in ``data`` is called or trusted. RecordRefused names the first problem;
    the moves are not judged here (``check_record`` does that)."""
    record = _mapping(data, "the record")
    moves = _sequence(record.get("moves"), "moves")
    fault = record.get("fault")
    return GameRecord(
        _text(record, "x"), _text(record, "o"), _text(record, "game"), _text(record, "size"),
        _number(record, "time"), _text(record, "start_board"), _text(record, "start_player"),
        _whole(record, "max_plies"), _text(record, "win_priority"),
        [_move_from_data(move, index + 1) for index, move in enumerate(moves)],
        _text(record, "result"), _optional_text(record, "winner"),
        None if record.get("termination") is None else _enum(Termination, record, "termination"),
        _text(record, "reason"), None if fault is None else _fault_from_data(fault),
    )


def _move_from_data(data: object, ply: int) -> MoveRecord:
    move = _mapping(data, f"move {ply}")
    where = f"move {ply}"
    warnings = tuple(_warning_from_data(item, where) for item in _sequence(move.get("warnings"), f"{where}: warnings"))
    played = move.get("move")
    _need(played is None or _is_int(played), f"{where}: move {played!r}; expected a whole number")
    return MoveRecord(_whole(move, "ply", where), _text(move, "player", where), _text(move, "engine", where),
                      played if isinstance(played, int) else None, _optional_text(move, "board", where),
                      _enum(Verdict, move, "verdict", where), _number(move, "seconds", where), warnings,
                      _text(move, "detail", where))


def _warning_from_data(data: object, where: str) -> CallWarning:
    from harness.protocol import WarningKind

    warning = _mapping(data, f"{where}: a warning")
    return CallWarning(_enum(WarningKind, warning, "kind", f"{where}: warning"), _text(warning, "text", f"{where}: warning"))


def _fault_from_data(data: object) -> Fault:
    fault = _mapping(data, "fault")
    status = fault.get("exit_status")
    _need(status is None or _is_int(status), f"fault: exit_status {status!r}; expected a whole number")
    stdout = tuple(_sequence(fault.get("stdout_tail"), "fault: stdout_tail"))
    argv = tuple(_sequence(fault.get("argv"), "fault: argv"))
    _need(all(_is_text(line) for line in stdout), "fault: stdout_tail: expected a list of lines")
    _need(all(_is_text(word) for word in argv), "fault: argv: expected a list of words")
    return Fault(_text(fault, "engine", "fault"), _text(fault, "player", "fault"), _enum(Verdict, fault, "verdict", "fault"),
                 _text(fault, "detail", "fault"), status if isinstance(status, int) else None, stdout,
                 _text(fault, "stderr_tail", "fault"), argv)


def _mapping(value: object, what: str) -> dict[str, Any]:
    _need(isinstance(value, dict) and all(isinstance(key, str) for key in value),
          f"{what}: expected a JSON object, got {type(value).__name__}")
    assert isinstance(value, dict)
    return value


def _sequence(value: object, what: str) -> list[Any]:
    _need(isinstance(value, (list, tuple)), f"{what}: expected a list, got {type(value).__name__}")
    assert isinstance(value, (list, tuple))
    return list(value)


def _label(where: str, key: str) -> str:
    return f"{where}: {key}" if where else key


def _text(data: dict[str, Any], key: str, where: str = "") -> str:
    value = data.get(key)
    _need(_is_text(value), f"{_label(where, key)}: expected text, got {type(value).__name__}")
    return str(value)


def _optional_text(data: dict[str, Any], key: str, where: str = "") -> str | None:
    return None if data.get(key) is None else _text(data, key, where)


def _whole(data: dict[str, Any], key: str, where: str = "") -> int:
    value = data.get(key)
    _need(_is_int(value), f"{_label(where, key)}: expected a whole number, got {value!r:.40}")
    assert isinstance(value, int)
    return value


def _number(data: dict[str, Any], key: str, where: str = "") -> float:
    value = data.get(key)
    _need(_is_seconds(value), f"{_label(where, key)}: expected a number of 0 or more, got {value!r:.40}")
    assert isinstance(value, (int, float))
    return float(value)


_E = TypeVar("_E", bound=enum.Enum)


def _enum(kind: type[_E], data: dict[str, Any], key: str, where: str = "") -> _E:
    value = data.get(key)
    for member in kind:
        if _is_text(value) and member.value == value:
            return member
    raise RecordRefused(f"{_label(where, key)}: {value!r:.40}; expected one of {', '.join(str(m.value) for m in kind)}")
