"""The per-move engine protocol: the argv of one call, and the parsing of what the engine printed.

Pure functions, no processes: the referee feeds them what it read. See docs/rules.md.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

# The answer readers live with the games (each game's own in its package); re-exported here.
from harness.games.wire import Answer as Answer
from harness.games.wire import find_answer as find_answer
from harness.games.wire import parse_answer_line as parse_answer_line

if TYPE_CHECKING:
    from harness.games.registry import Position

Move = int


class Verdict(str, enum.Enum):
    """How one engine call ended. Anything but OK loses the game for that engine."""

    OK = "ok"
    TIME = "time"
    """Still running at the deadline with no answer."""
    NO_ANSWER = "no-answer"
    """Exited without a well-formed answer (crash, garbage, silence)."""
    OUTPUT_LIMIT = "output-limit"
    """Printed more than the output cap."""
    ILLEGAL_MOVE = "illegal-move"
    """A move that is not legal in the position."""
    BOARD_MISMATCH = "board-mismatch"
    """A board that is not the result of the move."""
    FAILED_TO_START = "failed-to-start"
    """The program could not be started."""

    def __str__(self) -> str:
        return self.value


class WarningKind(str, enum.Enum):
    """What a protocol warning is about: tolerated, recorded, never a fault."""

    LINES_AFTER_ANSWER = "lines-after-answer"
    """Non-blank lines printed after the answer line."""
    EXIT_STATUS_AFTER_ANSWER = "exit-status-after-answer"
    """Exited with a non-zero status after answering."""
    SIGNAL_AFTER_ANSWER = "signal-after-answer"
    """Killed by a signal (its own, or a limit's) after answering."""
    KILLED_AT_DEADLINE = "killed-at-deadline"
    """Still running at the deadline, killed; its last answer counts."""
    STALL_REPLAYED = "stall-replayed"
    """A time fault that was a stall of the machine, run again once; the replay's result counts."""

    def __str__(self) -> str:
        return self.value


class CallWarning(str):
    """One protocol warning: its text (this string) and its ``kind``, a WarningKind.

    A ``str`` so that it reads as the sentence it is; code asks ``kind``, never the words."""

    kind: WarningKind

    def __new__(cls, kind: WarningKind, text: str) -> CallWarning:
        warning = super().__new__(cls, text)
        warning.kind = kind
        return warning

    def __reduce__(self) -> tuple[type[CallWarning], tuple[WarningKind, str]]:
        return CallWarning, (self.kind, str(self))

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind.value, "text": str(self)}

    @classmethod
    def from_json(cls, data: dict[str, str]) -> CallWarning:
        """The warning from its ``{kind, text}`` form."""
        return cls(WarningKind(data["kind"]), str(data["text"]))


MAX_SECONDS = 3600
"""The longest time limit per move accepted anywhere (config ``time``, ``--time``)."""
MAX_GRACE = 60
"""The longest grace past the limit accepted anywhere (config ``grace``, ``--grace``)."""


def format_seconds(seconds: float, allow_fractional: bool = False) -> str:
    """The SECONDS argument: a whole number unless fractions are allowed.

    Many existing programs parse it with ``int()``, so a whole limit is printed as ``5``, not ``5.0``.
    """
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"time limit must be a positive number of seconds, got {seconds!r}")
    if seconds > MAX_SECONDS:
        raise ValueError(f"time limit {seconds:g} s is over the maximum of {MAX_SECONDS} s per move")
    if float(seconds).is_integer():
        return str(int(seconds))
    if not allow_fractional:
        raise ValueError(
            f"time limit {seconds!r} is not a whole number of seconds; use a whole number, or allow "
            f"fractions (allow_fractional_time: true) if every engine accepts them"
        )
    return repr(float(seconds))


@dataclass(frozen=True, slots=True)
class Clock:
    """The time of one engine call: the limit, the grace past it, and SECONDS as the argv writes it.

    Made once per game settings (``GameSettings.clock``) and read by every call; the limit is checked
    and its argv text written here, once, not per move.
    """

    seconds: float
    """Seconds per move, the protocol's SECONDS."""
    grace: float = 0.5
    """Seconds past the limit allowed for start-up and exit; the deadline is limit + grace."""
    allow_fractional: bool = False
    """Whether SECONDS may have a fraction (e.g. 0.5); many programs read it with int()."""
    scale: float = 1.0
    """The time scale (harness.referee.calibrate): the limit and the grace are multiplied by it, so a
    slower machine gives the same work in its time; 1 on a machine as fast as the reference."""
    seconds_text: str = field(init=False)
    """SECONDS on the command line: ``5``, not ``5.0``; ``0.5`` only when fractions are allowed. Scaled,
    the limit the program is told: whole seconds rounded down (at least 1) unless fractions are
    allowed (then to a hundredth, rounded down): never more than it is given."""

    def __post_init__(self) -> None:
        text = format_seconds(self.seconds, self.allow_fractional)
        if self.scale != 1:
            told = self.seconds * self.scale
            text = (format_seconds(max(0.01, math.floor(told * 100) / 100), True) if self.allow_fractional
                    else str(max(1, math.floor(told))))
        object.__setattr__(self, "seconds_text", text)

    @property
    def limit(self) -> float:
        """Seconds the program is given: the time limit, scaled."""
        return self.seconds * self.scale

    @property
    def allowed(self) -> float:
        """Seconds of the program's own time from spawn to the deadline: the limit plus the grace, scaled."""
        return (self.seconds + self.grace) * self.scale


def engine_argv(
    command: Sequence[str],
    position: Position,
    clock: Clock,
    extra_args: Sequence[str] = (),
) -> list[str]:
    """``PROGRAM SIZE PLAYER BOARD SECONDS`` for one move (SIZE: Betsy's ``n``, Connect Four's
    ``WxH``; All The King's Horses: ``PROGRAM --move PLAYER b1r b1c ... w2c``), then any
    engine-specific ``extra_args``."""
    from harness.games.registry import game_of

    return [*command, *game_of(position).argv(position, clock.seconds_text), *extra_args]


def answer_warnings(answer: Answer, exit_status: int | None) -> list[CallWarning]:
    """Protocol warnings for an accepted answer: prose after it, a failing exit after it."""
    warnings = []
    if answer.lines_after:
        plural = "s" if answer.lines_after > 1 else ""
        warnings.append(CallWarning(
            WarningKind.LINES_AFTER_ANSWER,
            f"{answer.lines_after} line{plural} printed after the answer (the answer should be the last line)",
        ))
    if exit_status is not None and exit_status != 0:
        if exit_status < 0:
            warnings.append(CallWarning(WarningKind.SIGNAL_AFTER_ANSWER,
                                        f"killed by signal {-exit_status} after answering"))
        else:
            warnings.append(CallWarning(WarningKind.EXIT_STATUS_AFTER_ANSWER,
                                        f"exited with status {exit_status} after answering"))
    return warnings


def check_answer(position: Position, move: Move, board: str, text: str = "") -> tuple[Verdict, str]:
    """Judge an answer against the rules: (OK, "") or (ILLEGAL_MOVE | BOARD_MISMATCH, why)."""
    if text:  # a position answer: the move is the one that gives it (0: none does)
        if move == 0:
            from harness.games.registry import game_of

            return Verdict.ILLEGAL_MOVE, (f"no legal move gives the printed position {text} (position "
                                          f"{' '.join(game_of(position).argv(position, '')[1:])})")
        return Verdict.OK, ""
    reason = position.illegal_reason(move)
    if reason is not None:
        return Verdict.ILLEGAL_MOVE, f"{reason} (position {position.size_text} {position.player} {position.board()})"
    expected = position.after(move).board()
    if board != expected:
        return Verdict.BOARD_MISMATCH, f"move {move} gives {expected}, but the engine printed {board}"
    return Verdict.OK, ""


def decode_lines(data: bytes, ended_by_exit: bool) -> list[str]:
    """Complete lines of raw output as text: UTF-8 with replacement, ``\\r`` stripped.

    A last fragment without a newline counts only if the program ended it by exiting
    (``ended_by_exit``); a line cut off by the referee's kill does not count.
    """
    text = data.decode("utf-8", errors="replace")
    parts = text.split("\n")
    last = parts.pop()
    if ended_by_exit and last:
        parts.append(last)
    return [part.rstrip("\r") for part in parts]
