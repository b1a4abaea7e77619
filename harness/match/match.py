"""One game between two engines: alternate referee calls, adjudicate, record everything."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from harness.referee.engine_specs import EngineSpec
from harness.games.registry import GAMES, PLAYERS
from harness.referee.protocol import CallWarning, Verdict
from harness.referee.referee import CallResult, Capsule, Limits, ask

if TYPE_CHECKING:
    from harness.games.registry import Game, Position
    from harness.match.settings import GameSettings


class Termination(str, enum.Enum):
    """Why a game ended."""

    LINE = "line"
    """A player completed a line (Betsy: n in a row; Connect Four: four)."""
    FULL_BOARD = "full-board"
    """No move left and no line: a draw (Connect Four)."""
    NO_MOVE = "no-move"
    """The side to move had no move and lost (All The King's Horses)."""
    FORFEIT = "forfeit"
    """An engine call ended with a verdict other than ok."""
    REPETITION = "repetition"
    """The same board with the same side to move occurred for the third time."""
    MAX_PLIES = "max-plies"
    """The ply limit was reached."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class MoveRecord:
    """One engine call of a game."""

    ply: int
    """1-based ply number within the game (after the start position)."""
    player: str
    """``x`` or ``o``."""
    engine: str
    move: int | None
    """The move played (None when the call failed without a well-formed answer)."""
    board: str | None
    """The board after the move (the referee's), or None if no legal move was made."""
    verdict: Verdict
    """How the call ended (stored as its value)."""
    seconds: float
    warnings: tuple[CallWarning, ...] = ()
    """Protocol warnings (stored and exported as ``{kind, text}``)."""
    detail: str = ""


@dataclass(frozen=True)
class Fault:
    """Evidence kept from the engine call that lost a game by forfeit."""

    engine: str
    player: str
    verdict: Verdict
    detail: str
    exit_status: int | None
    stdout_tail: tuple[str, ...]
    stderr_tail: str
    argv: tuple[str, ...]
    capsule: Capsule | None = None
    """The call kept whole (argv, position, program hash, limits, CPU, memory): what ``arena repro``
    runs again; None in games recorded before capsules were kept."""

    def evidence_lines(self, count: int = 5) -> list[str]:
        """The last ``count`` lines of its stdout and of its stderr, ``  stdout| ...`` and
        ``  stderr| ...``, each line cut to a bounded excerpt (harness.text.excerpt) with what was cut."""
        from harness.text import cut_note, excerpt

        shown = []
        for stream, lines in (("stdout", self.stdout_tail), ("stderr", self.stderr_tail.splitlines())):
            kept, cut = excerpt(lines, count)
            shown += [f"  {stream}| {line}" for line in kept]
            if cut:
                shown.append(f"  {stream}| {cut_note(cut)}")
        return shown


@dataclass
class GameRecord:
    """Everything about one finished game."""

    x: str
    """Name of the engine playing blue (moves first from the empty board)."""
    o: str
    """Name of the engine playing red."""
    game: str
    """The game's name (harness.games.registry)."""
    size: str
    """The board size as on the wire: ``5`` (Betsy's n) or ``8x8`` (Connect Four)."""
    time: float
    """Seconds per move."""
    start_board: str
    start_player: str
    max_plies: int
    win_priority: str
    moves: list[MoveRecord] = field(default_factory=list)
    result: str = "*"
    """``1-0`` (x wins), ``0-1`` (o wins) or ``1/2-1/2``."""
    winner: str | None = None
    termination: Termination | None = None
    reason: str = ""
    """One line: why the game ended."""
    fault: Fault | None = None
    time_scale: float = 1.0
    """The clock's scale (harness.referee.calibrate): every limit of the game was ``time`` times it."""

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def n(self) -> int:
        """Betsy's board size (the size as a number)."""
        return int(self.size)

    def to_json(self) -> dict[str, Any]:
        """A plain JSON object; enums become their values. Betsy games also carry ``n``."""
        data: dict[str, Any] = _plain(asdict(self))
        rules = GAMES.get(self.game)
        n = rules.legacy_n(self.size) if rules is not None else None
        if n is not None:
            data["n"] = n
        data["plies"] = self.plies
        return data


def _plain(value: Any) -> Any:
    if isinstance(value, CallWarning):
        return value.to_json()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


MoveCallback = Callable[[GameRecord, MoveRecord, "Position"], None]


def score_for_x(result: str) -> float:
    """Blue's points for a result: 1 for ``1-0``, 0 for ``0-1``, 0.5 for a draw."""
    return {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)


@dataclass
class Standing:
    """Wins, draws and losses of one engine."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    def add(self, score: float) -> None:
        """Count one game in which the engine scored ``score`` (1, 0.5 or 0)."""
        if score == 1:
            self.wins += 1
        elif score == 0:
            self.losses += 1
        else:
            self.draws += 1


class Overloaded(Exception):
    """A game stopped because a call was starved by the machine even when run again alone
    (harness.referee.referee.starved_of): neither engine is judged, the game is not counted, and a
    rerun of a tournament plays it again."""


def play_game(
    x: EngineSpec,
    o: EngineSpec,
    settings: GameSettings,
    size: str | None = None,
    *,
    start: Position | None = None,
    limits: Limits | None = None,
    on_move: MoveCallback | None = None,
) -> GameRecord:
    """Play one game under ``settings``, from ``start`` or the empty board of ``size``; any engine
    fault loses the game for that engine and is recorded. ``limits``: the referee's defaults if not given."""
    rules = settings.rules
    if start is not None:
        position = rules.position(start.size_text, start.player, start.board(), settings.options)
    else:
        position = rules.initial(size if size is not None else rules.default_size, settings.options)
    call_limits = limits if limits is not None else Limits()
    engines = {"x": x, "o": o}
    record = GameRecord(
        x.name, o.name, rules.name, position.size_text, settings.time, position.board(), position.player,
        settings.max_plies, settings.win_priority, time_scale=settings.time_scale,
    )
    seen: dict[int, int] = {position.key(): 1}
    while True:
        player = position.player
        engine = engines[player]
        call = ask(engine.command, position, settings.clock, call_limits, engine.extra_args)
        ply = record.plies + 1
        if call.stall:
            raise Overloaded(f"{settings.rules.size_phrase(position.size_text)}, ply {ply}: {player} "
                             f"({engine.name}) was not judged: the machine was overloaded "
                             f"({call.stall.removeprefix('starved: ')}); the game is not counted")
        if call.verdict is not Verdict.OK:
            record.moves.append(_move_record(ply, player, engine.name, call, None))
            _forfeit(record, player, engine.name, call)
            break
        assert call.move is not None
        position.push(call.move)
        move_record = _move_record(ply, player, engine.name, call, position.board())
        record.moves.append(move_record)
        if on_move is not None:
            on_move(record, move_record, position)
        ended = game_end(rules, position, seen, record.plies, settings.max_plies, player, engine.name, call.move)
        if ended is not None:
            _finish(record, *ended)
            break
    return record


def game_end(rules: Game, position: Position, seen: dict[int, int], plies: int, max_plies: int, player: str,
             name: str, move: int) -> tuple[str | None, Termination, str] | None:
    """Whether the game is over after ``player`` (called ``name``) played ``move``: (winner or None,
    termination, reason), or None. Counts the position in ``seen`` (repetitions)."""
    winner_colour = position.winner()
    if winner_colour is not None:
        winner = PLAYERS[winner_colour]
        if not rules.has_draws:
            return winner, Termination.NO_MOVE, f"{winner} wins: {player} ({name}) {rules.describe_move(move)} and {rules.win_phrase}"
        how = rules.win_phrase if winner == player else f"{rules.win_phrase} for {winner}"
        return winner, Termination.LINE, f"{winner} wins: {player} ({name}) {rules.describe_move(move)} and {how}"
    ended = rules.end_reason(position)
    if ended is not None:
        return None, Termination.FULL_BOARD, f"draw: {ended}"
    if rules.draws_by_repetition:
        key = position.key()
        seen[key] = seen.get(key, 0) + 1
        if seen[key] >= 3:
            return None, Termination.REPETITION, "draw: the same board with the same side to move occurred a third time"
    if plies >= max_plies and rules.has_draws:
        return None, Termination.MAX_PLIES, f"draw: {max_plies} plies without a line"
    return None


def _move_record(ply: int, player: str, engine: str, call: CallResult, board: str | None) -> MoveRecord:
    return MoveRecord(
        ply, player, engine, call.move if call.ok else None, board, call.verdict,
        round(call.seconds, 4), call.warnings, call.detail,
    )


def finish(record: GameRecord, winner: str | None, termination: Termination, reason: str) -> None:
    """Set a record's result, winner, termination and reason."""
    _finish(record, winner, termination, reason)


def _finish(record: GameRecord, winner: str | None, termination: Termination, reason: str) -> None:
    record.winner = winner
    record.result = {"x": "1-0", "o": "0-1", None: "1/2-1/2"}[winner]
    record.termination = termination
    record.reason = reason


def _forfeit(record: GameRecord, player: str, engine: str, call: CallResult) -> None:
    winner = "o" if player == "x" else "x"
    record.fault = Fault(
        engine, player, call.verdict, call.detail, call.exit_status, call.stdout_tail,
        call.stderr_tail, call.argv, call.capsule,
    )
    _finish(record, winner, Termination.FORFEIT,
            f"{winner} wins: {player} ({engine}) forfeits by {call.verdict.value}: {call.detail}")


