"""Wire I/O shared by our engines: read ``N PLAYER BOARD SECONDS [--option value ...]``, print the
answer ``MOVE NEWBOARD`` as the last line of stdout.

The first argument tells the game: ``5`` is Betsy (n), ``8x8`` Connect Four (WxH). Every engine
process starts afresh for each move, so this module and everything it imports stays light: no
argparse, no typing, no random (see harness.rng), and Connect Four's rules are imported only for a
Connect Four position.
"""

from __future__ import annotations

import math
import os
import sys
import time

from harness.games.betsy import Move, Position, PositionError
from harness.rng import Rng as Rng  # re-exported: engines take their generator from here

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Literal, TypeAlias

    from harness.games import connect4

    AnyPosition: TypeAlias = "Position | connect4.Position"
    GameName: TypeAlias = Literal["betsy", "connect4"]

STARTED = time.monotonic()
"""When this engine process began importing, for time budgets that include start-up."""


def process_age(at: float) -> float:
    """Seconds this process had been running at ``at`` (a time.monotonic() value).

    Read from /proc (10 ms resolution): the interpreter's start-up, before any of our code ran,
    counts against the move's time limit too. 0 where /proc is not available.
    """
    try:
        with open("/proc/self/stat", "rb") as file:
            stat = file.read()
        start_ticks = int(stat[stat.rindex(b")") + 2:].split()[19])
        with open("/proc/uptime", "rb") as file:
            uptime = float(file.read().split()[0])
        age_now = uptime - start_ticks / os.sysconf("SC_CLK_TCK")
        return min(max(age_now - (time.monotonic() - at), 0.0), 2.0)
    except (OSError, ValueError, IndexError):
        return 0.0


class UsageError(ValueError):
    """Bad command-line arguments; the message names the argument and the fix."""


def is_connect4(size: str) -> bool:
    """Whether the protocol's first argument names a Connect Four board (``WxH``) rather than Betsy's n."""
    return "x" in size


class Request:
    """One call of an engine: the position to move in, the time limit and the engine's options."""

    __slots__ = ("position", "seconds", "options")

    def __init__(self, position: AnyPosition, seconds: float, options: dict[str, int | float | bool]):
        self.position = position
        """The position, side to move included: a ``betsy.Position`` or a ``connect4.Position``."""
        self.seconds = seconds
        """The move's time limit in seconds."""
        self.options = options
        """Option values by name (only those given)."""

    @property
    def game(self) -> GameName:
        """``betsy`` or ``connect4``."""
        return "betsy" if isinstance(self.position, Position) else "connect4"

    @property
    def seed(self) -> int | None:
        """``--seed``, if given."""
        value = self.options.get("seed")
        return None if value is None else int(value)


def parse_seconds(text: str) -> float:
    """The SECONDS argument: a positive number (``5`` or ``0.5``)."""
    try:
        seconds = float(text)
    except ValueError:
        raise UsageError(f"invalid time limit {text!r}: give a positive number of seconds") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise UsageError(f"invalid time limit {text!r}: give a positive number of seconds")
    return seconds


def parse_request(
    argv: Sequence[str], options: dict[str, type] | None = None, connect4_only: bool = False,
    kings_horses: bool = False,
) -> Request:
    """Parse ``N PLAYER BOARD SECONDS`` and ``--name value`` options (anywhere, or ``--name=value``).

    ``N`` is Betsy's board size, or ``WxH`` for Connect Four (required with ``connect4_only``).
    ``options`` maps option names to ``int``, ``float`` or ``bool`` (a flag without a value).
    With ``kings_horses``, ``--move PLAYER b1r b1c b2r b2c w1r w1c w2r w2c`` (All The King's Horses,
    the seed's command line; no time argument) is understood too.
    """
    known = {"seed": int, **(options or {})}
    positional: list[str] = []
    values: dict[str, int | float | bool] = {}
    args = list(argv)
    knights = "--move" in args
    if knights:
        if not kings_horses:
            raise UsageError("--move (All The King's Horses) is not played by this engine: use random, greedy or "
                             "bestmove for it")
        args.remove("--move")
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not arg.startswith("--") or arg == "--":
            positional.append(arg)
            continue
        given, has_value, value = arg[2:].partition("=")
        name = given.replace("-", "_")  # --mcts-share and --mcts_share are the same option
        kind = known.get(name)
        if kind is None:
            choices = ", ".join("--" + key.replace("_", "-") for key in known)
            raise UsageError(f"unknown option --{given}{' with --move' if knights else ''}: the options are {choices}")
        if kind is bool:
            if has_value:
                raise UsageError(f"option --{given} takes no value")
            values[name] = True
            continue
        if not has_value:
            if i >= len(args):
                raise UsageError(f"option --{given} needs a value")
            value = args[i]
            i += 1
        try:
            values[name] = kind(value)
        except ValueError:
            raise UsageError(
                f"invalid value {value!r} for --{given}: expected {'a whole number' if kind is int else 'a number'}"
            ) from None
    if knights:
        return _kings_horses_request(positional, values)
    if len(positional) != 4:
        raise UsageError(
            f"expected 4 arguments N PLAYER BOARD SECONDS, got {len(positional)}"
            + (f": {' '.join(positional)}" if positional else "")
        )
    n_text, player, board, seconds_text = positional
    if connect4_only and not is_connect4(n_text):
        raise UsageError(
            f"invalid board size {n_text!r}: this engine plays Connect Four only; give WxH, columns x rows, "
            f"e.g. 8x8 or 7x6"
        )
    try:
        position: AnyPosition
        if is_connect4(n_text):
            from harness.games import connect4

            position = connect4.Position.from_text(n_text, player, board)
            over = connect4_game_over(position)
            if over is not None:
                raise UsageError(over)
        else:
            position = Position.from_text(n_text, player, board)
    except PositionError as error:
        raise UsageError(str(error)) from None
    return Request(position, parse_seconds(seconds_text), values)


def _kings_horses_request(words: list[str], values: dict[str, int | float | bool]) -> Request:
    """The request for ``PLAYER b1r b1c b2r b2c w1r w1c w2r w2c`` (the words after ``--move``)."""
    from harness.games import kings_horses

    try:
        position = kings_horses.Position.from_words(words)
    except PositionError as error:
        raise UsageError(f"{error}; give --move PLAYER b1r b1c b2r b2c w1r w1c w2r w2c") from None
    if not position.legal_moves():
        raise UsageError(f"{position.word} has no move here, so the game is over "
                         f"({kings_horses.WORDS[1 - position.turn]} wins)")
    return Request(position, 1.0, values)  # type: ignore[arg-type]


def connect4_game_over(position: connect4.Position) -> str | None:
    """Why a Connect Four position has no move to answer (a four, a full board), or None."""
    winner = position.winner()
    if winner is not None:
        return f"the game is over: {'xo'[winner]} has four in a row, so there is no move to make"
    if position.is_full():
        return "the game is over: the board is full (a draw), so there is no move to make"
    return None


_last_answer: list[str] = []


def print_answer(position: AnyPosition, move: Move) -> None:
    """Print the answer line now (flushed) unless it is the line printed last: engines that find a
    better move print it again, so a kill at the deadline still finds their best answer."""
    line = format_answer(position, move)
    if _last_answer != [line]:
        print(line, flush=True)
        _last_answer[:] = [line]


def format_answer(position: AnyPosition, move: Move) -> str:
    """The answer line ``MOVE NEWBOARD`` (``COLUMN NEWBOARD`` in Connect Four) for ``move`` played in
    ``position``; in All The King's Horses the next position, ``PLAYER b1r b1c ... w2c``."""
    position.push(move)
    line = getattr(position, "line", None)
    answer = line() if line is not None else f"{move} {position.board()}"
    position.pop()
    return answer


HELP_FLAGS = ("-h", "--help")

ARGUMENTS_HELP = (
    ("N", "the game and board size: N for Betsy, N columns and N + 3 rows (1 to 16);\n"
          "WxH for Connect Four, W columns and H rows (4 to 12 each, e.g. 8x8 or 7x6)"),
    ("PLAYER", "side to move: x (moves first; blue in Betsy) or o (red in Betsy)"),
    ("BOARD", "every cell, row by row from the top, each . (empty), x or o:\n"
              "N*(N+3) cells for Betsy, W*H for Connect Four"),
    ("SECONDS", "time limit for this move, in seconds"),
)
CONNECT4_ARGUMENTS_HELP = (
    ("N", "the board size WxH: W columns and H rows (4 to 12 each, e.g. 8x8 or 7x6)"),
    ("PLAYER", "side to move: x (moves first) or o"),
    ("BOARD", "the W*H cells, row by row from the top, each . (empty), x or o"),
    ("SECONDS", "time limit for this move, in seconds"),
)
_DEFAULT_HELP = {"seed": ("S", "seed of the engine's random choices (a whole number)")}


def usage(
    prog: str,
    options: dict[str, type] | None = None,
    option_help: dict[str, tuple[str, str]] | None = None,
    summary: str = "",
    connect4_only: bool = False,
) -> str:
    """The ``--help`` text: synopsis, arguments and every option the engine accepts.

    ``option_help`` maps an option name to ``(METAVAR, description)``; ``METAVAR`` is ignored for
    flags. Built only when asked for, so the normal path pays nothing for it.
    """
    arguments = CONNECT4_ARGUMENTS_HELP if connect4_only else ARGUMENTS_HELP
    known = {"seed": int, **(options or {})}
    described = option_help or {}
    order = [name for name in described if name in known] + [name for name in known if name not in described]
    rows: list[tuple[str, str]] = []
    synopsis = []
    for name in order:
        flag = "--" + name.replace("_", "-")
        metavar, text = described.get(name) or _DEFAULT_HELP.get(name, ("VALUE", ""))
        if known[name] is bool:
            rows.append((flag, text))
            synopsis.append(f"[{flag}]")
        else:
            rows.append((f"{flag} {metavar}", text))
            synopsis.append(f"[{flag} {metavar}]")
    rows.append(("-h, --help", "print this help and exit"))
    lines = [f"usage: {prog} N PLAYER BOARD SECONDS {' '.join(synopsis)}".rstrip()]
    if summary:
        lines += ["", summary]
    width = max(len(left) for left, _ in (*arguments, *rows)) + 2
    indent = "\n" + " " * (width + 2)
    for heading, entries in (
        ("arguments:", arguments),
        ("options (--name value or --name=value; - and _ are the same in a name):", rows),
    ):
        lines += ["", heading]
        lines += [f"  {left:<{width}}{text.replace(chr(10), indent)}".rstrip() for left, text in entries]
    answer = [
        "The last line printed is the answer MOVE NEWBOARD: MOVE is the column c (1 to W) the",
        "disc drops into; NEWBOARD is the board after the move.",
    ] if connect4_only else [
        "The last line printed is the answer MOVE NEWBOARD: in Betsy MOVE is c to drop a pebble",
        "into column c, or -c to rotate column c; in Connect Four MOVE is the column c (1 to W)",
        "the disc drops into. NEWBOARD is the board after the move.",
    ]
    lines += ["", *answer, "Bad arguments: a one-line message on stderr and exit status 2."]
    return "\n".join(lines) + "\n"


def run(
    prog: str,
    choose: Callable[[Request], Move],
    argv: Sequence[str] | None = None,
    options: dict[str, type] | None = None,
    option_help: dict[str, tuple[str, str]] | None = None,
    summary: str = "",
    kings_horses: bool = False,
) -> int:
    """An engine's ``main``: parse, choose, print the answer line; exit 2 on bad arguments.

    ``-h`` or ``--help`` anywhere prints ``usage(...)`` and exits 0.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    if any(arg in HELP_FLAGS for arg in args):
        sys.stdout.write(usage(prog, options, option_help, summary))
        return 0
    try:
        request = parse_request(args, options, kings_horses=kings_horses)
    except UsageError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    print_answer(request.position, choose(request))
    return 0
