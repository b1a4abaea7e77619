"""The ``Game`` interface: everything above the rules (referee, match, schedule, tournament, store,
report, validate, the CLI) reaches a game's rules through it, never through a game module directly.

A game is named in configs (``game: connect4``) and on the command line (``--game connect4``). Its
size is text everywhere above the rules -- ``"5"`` for Betsy (n), ``"8x8"`` for Connect Four (WxH) --
because that is how it travels on the wire (the protocol's first argument) and in records.

Game modules are imported on first use, so an engine process that plays Betsy never loads Connect
Four's tables, and the other way round.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol

from harness.games.errors import PositionError

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence


class Position(Protocol):
    """What the harness uses of a game's position (``betsy.Position``, ``connect4.Position``)."""

    turn: int

    @property
    def size_text(self) -> str: ...

    @property
    def player(self) -> str: ...

    def board(self) -> str: ...

    def key(self) -> int: ...

    def legal_moves(self) -> list[int]: ...

    def is_legal(self, move: int) -> bool: ...

    def illegal_reason(self, move: int) -> str | None: ...

    def push(self, move: int) -> None: ...

    def pop(self) -> Any: ...

    def after(self, move: int) -> Any: ...

    def winner(self) -> int | None: ...

    def copy(self) -> Any: ...


PLAYERS = "xo"
"""Every game's two sides on the wire: ``x`` moves first, ``o`` second."""


class Game:
    """One game's rules as the harness sees them. Subclasses fill in the game-specific parts."""

    name = ""
    """The name in configs and on the command line."""
    title = ""
    """The name in reports."""
    size_key = "size"
    """How the size is called on the command line and in configs (``n`` for Betsy)."""
    size_metavar = "SIZE"
    default_size = ""
    size_help = ""
    """One phrase: what a size is and the supported range."""
    example_sizes: tuple[str, ...] = ()
    """Sizes used by default where several are wanted (validation)."""
    draws_by_repetition = False
    """Whether a position can repeat (Betsy's rotations); if not, repetitions are not tracked."""
    has_draws = True
    """Whether a game can be drawn; a game without draws also ignores the ply limit (it always ends)."""
    win_phrase = "completes a line"
    """How a move wins, after ``{player} ({engine}) {move}``: ``and completes a line``."""
    notation = ""
    """How a move is typed, in one phrase (``arena play``'s hint after a move it refuses)."""
    numbered_rows = False
    """Whether drawn boards number their rows too (a game whose positions name squares by row)."""

    # --- sizes and positions -------------------------------------------------------------------

    def parse_size(self, text: str | int) -> str:
        """The canonical size text; raises PositionError naming the problem."""
        raise NotImplementedError

    def initial(self, size: str, options: RuleOptions | None = None) -> Any:
        """The start position of a game of this size."""
        raise NotImplementedError

    def position(self, size: str | int, player: str, board: str, options: RuleOptions | None = None) -> Any:
        """A checked position from its wire form; raises PositionError naming the problem."""
        raise NotImplementedError

    def parse_move(self, text: str) -> int:
        """A move's text as an int (legality is the position's business)."""
        raise NotImplementedError

    def random_start(self, size: str, rng: Any) -> Any:
        """A random start position for games without a fixed one; None: openings are random plies
        from ``initial``."""
        return None

    # --- words ---------------------------------------------------------------------------------

    def describe_move(self, move: int) -> str:
        """What a move does, as a verb phrase: ``drops into column 3``."""
        return f"drops into column {move}"

    def move_kind(self, move: int) -> str:
        """A one-word kind of move for tables: ``drop`` or ``rotate``."""
        return "drop"

    def size_phrase(self, size: str) -> str:
        """The size in prose: ``n = 5`` or ``8x8``."""
        return size

    def position_phrase(self, size: str, player: str) -> str:
        """A position's size and side to move in prose, for reports: ``n = 5, x to move``."""
        return f"{self.size_phrase(size)}, {player} to move"

    def end_reason(self, position: Any) -> str | None:
        """Why a position without a winner is over (a full board), or None if play goes on."""
        return None if position.legal_moves() else "the board is full"

    def render(self, position: Any, last_move: int | None = None) -> str:
        """The board drawn for a terminal, with column numbers and the last move marked."""
        return render_grid(position.board(), self.columns(position), last_move_column(last_move))

    def columns(self, position: Any) -> int:
        raise NotImplementedError

    def picture(self, position: Any, start: Any) -> str:
        """``position`` as a grid of ``.``, ``x`` and ``o``, ``columns(start)`` wide, for drawn boards
        (every frame of a game from ``start`` has the same shape)."""
        return str(position.board())

    def move_column(self, move: int) -> int:
        """The column a move is marked under in drawn boards (0: none)."""
        return abs(move)

    # --- engines -------------------------------------------------------------------------------

    def argv(self, position: Any, seconds: str) -> list[str]:
        """The protocol's arguments after the program: ``SIZE PLAYER BOARD SECONDS``."""
        return [position.size_text, position.player, position.board(), seconds]

    def find_answer(self, position: Any, lines: Sequence[str]) -> Any:
        """The engine's answer in its output lines (harness.protocol.Answer), or None."""
        from harness.protocol import find_answer

        return find_answer(lines)

    def evaluate(self, position: Any) -> int:
        """The searches' static evaluation for the side to move (the engines' own)."""
        raise NotImplementedError

    def suites(self) -> Any:
        """What ``arena validate`` asks a program about in this game (harness.positions.Suites)."""
        from harness.positions import suites

        return suites(self.name)

    def sizes(self, text: str) -> tuple[str, ...]:
        """Sizes separated by commas (``3,5,8`` or ``7x6,8x8``), each checked, duplicates dropped."""
        found = [self.parse_size(part.strip()) for part in text.split(",")]
        return tuple(dict.fromkeys(found))

    def __repr__(self) -> str:
        return f"<game {self.name}>"


class RuleOptions:
    """A game's rule options, passed to ``initial``/``position`` (Betsy's win priority)."""

    __slots__ = ("win_priority",)

    def __init__(self, win_priority: str = "mover") -> None:
        self.win_priority = win_priority


def last_move_column(move: int | None) -> int | None:
    return None if move is None else abs(move)


def render_grid(board: str, columns: int, mark_column: int | None = None) -> str:
    """Rows of ``board`` (row-major from the top) with column numbers below, and a ``^`` under the
    column of the last move."""
    rows = [board[i:i + columns] for i in range(0, len(board), columns)]
    width = len(str(columns))
    lines = [" ".join(cell.rjust(width) for cell in row) for row in rows]
    lines.append(" ".join(str(c).rjust(width) for c in range(1, columns + 1)))
    if mark_column is not None and 1 <= mark_column <= columns:
        lines.append(" ".join(("^" if c == mark_column else "").rjust(width) for c in range(1, columns + 1)).rstrip())
    return "\n".join(lines)


class Betsy(Game):
    name = "betsy"
    title = "Betsy"
    size_key = "n"
    size_metavar = "N"
    default_size = "5"
    size_help = "n columns and n + 3 rows, n from 1 to 16"
    example_sizes = ("3", "5", "8")
    draws_by_repetition = True
    notation = "c drops into column c, -c rotates column c"

    def parse_size(self, text: str | int) -> str:
        from harness.games.betsy import parse_n

        return str(parse_n(str(text)))

    def initial(self, size: str, options: RuleOptions | None = None) -> Any:
        from harness.games.betsy import initial_position

        return initial_position(int(self.parse_size(size)), _priority(options))  # type: ignore[arg-type]

    def position(self, size: str | int, player: str, board: str, options: RuleOptions | None = None) -> Any:
        from harness.games.betsy import Position as BetsyPosition

        return BetsyPosition.from_text(str(size), player, board, _priority(options))  # type: ignore[arg-type]

    def parse_move(self, text: str) -> int:
        from harness.games.betsy import parse_move

        return parse_move(text)

    def describe_move(self, move: int) -> str:
        return f"drops into column {move}" if move > 0 else f"rotates column {-move}"

    def move_kind(self, move: int) -> str:
        return "drop" if move > 0 else "rotate"

    def size_phrase(self, size: str) -> str:
        return f"n = {size}"

    def end_reason(self, position: Any) -> str | None:
        return None  # a rotation is always possible: Betsy ends by a line, repetition or the ply limit

    def columns(self, position: Any) -> int:
        return int(position.n)

    def evaluate(self, position: Any) -> int:
        from engines.evaluation import evaluate

        return int(evaluate(position))


class ConnectFour(Game):
    name = "connect4"
    title = "Connect Four"
    size_key = "size"
    size_metavar = "WxH"
    default_size = "8x8"
    size_help = "W columns x H rows, each from 4 to 12 (8x8, 7x6, ...)"
    example_sizes = ("7x6", "8x8")
    notation = "a column drops a disc into it"

    def parse_size(self, text: str | int) -> str:
        from harness.games.connect4 import parse_size, size_text

        return str(size_text(*parse_size(str(text))))

    def initial(self, size: str, options: RuleOptions | None = None) -> Any:
        from harness.games.connect4 import initial_position, parse_size

        return initial_position(*parse_size(size))

    def position(self, size: str | int, player: str, board: str, options: RuleOptions | None = None) -> Any:
        from harness.games.connect4 import Position as C4Position

        return C4Position.from_text(str(size), player, board)

    def parse_move(self, text: str) -> int:
        from harness.games.connect4 import parse_move

        return parse_move(text)

    def columns(self, position: Any) -> int:
        return int(position.width)

    def evaluate(self, position: Any) -> int:
        module: Any = importlib.import_module("engines.connect4_evaluation")
        return int(module.evaluate(position))


class KingsHorses(Game):
    name = "kings-horses"
    title = "All The King's Horses"
    size_key = "size"
    size_metavar = "N"
    default_size = "8"
    size_help = "N, the largest coordinate of the random start positions (3 to 1000; the board has no edge down or right)"
    example_sizes = ("8", "15", "30")
    has_draws = False
    win_phrase = "leaves the opponent no move"
    notation = "1 to 4 move your first knight, 5 to 8 your second"
    numbered_rows = True

    def parse_size(self, text: str | int) -> str:
        from harness.games.kings_horses import parse_size

        return str(parse_size(str(text)))

    def initial(self, size: str, options: RuleOptions | None = None) -> Any:
        """The knights in the band's far corners (the game has no fixed start: games start from
        random positions, see ``random_start``)."""
        from harness.games.kings_horses import Position as KHPosition

        n = int(self.parse_size(size))
        return KHPosition(((n, n - 2), (n - 2, n), (n, n), (n - 1, n - 1)), 0, n)

    def position(self, size: str | int, player: str, board: str, options: RuleOptions | None = None) -> Any:
        from harness.games.kings_horses import Position as KHPosition

        return KHPosition.from_text(str(size), player, board)

    def random_start(self, size: str, rng: Any) -> Any:
        """A random close race with coordinates in 1..size: the side to move has a move and its
        knights' lone-move count leads by -1 to 2. Far from that the count decides the game and
        any program converts it; close races are where play tells programs apart."""
        from harness.games.kings_horses import random_position, race_lead

        while True:
            position = random_position(int(self.parse_size(size)), rng)
            if -1 <= race_lead(position) <= 2:
                return position

    def parse_move(self, text: str) -> int:
        from harness.games.kings_horses import parse_move

        return parse_move(text)

    def describe_move(self, move: int) -> str:
        from harness.games.kings_horses import describe

        return describe(move)

    def move_kind(self, move: int) -> str:
        return "knight"

    def size_phrase(self, size: str) -> str:
        return f"coordinates 1..{size}"

    def position_phrase(self, size: str, player: str) -> str:
        from harness.games.kings_horses import PLAYERS, WORDS

        return f"{player} ({WORDS[PLAYERS.index(player)]}) to move"  # the board has no size; the sides have names

    def end_reason(self, position: Any) -> str | None:
        return None  # the side to move without a move has lost: winner() says so

    def render(self, position: Any, last_move: int | None = None) -> str:
        from harness.games.kings_horses import render

        return render(position, last_move)

    def columns(self, position: Any) -> int:
        return int(position.reach()[1])

    def picture(self, position: Any, start: Any) -> str:
        return str(position.grid(*start.reach()))  # knights move down and right too: the game's whole reach

    def move_column(self, move: int) -> int:
        return 0

    def argv(self, position: Any, seconds: str) -> list[str]:
        """``--move PLAYER b1r b1c b2r b2c w1r w1c w2r w2c``: the seed's command line (no time argument;
        the referee's clock still runs)."""
        return ["--move", *position.words()]

    def find_answer(self, position: Any, lines: Sequence[str]) -> Any:
        from harness.protocol import find_position_answer

        return find_position_answer(position, lines)

    def evaluate(self, position: Any) -> int:
        from engines.kings_horses_play import evaluate

        return int(evaluate(position))

    def suites(self) -> Any:
        raise NotImplementedError("All The King's Horses has its own validation (harness.validate_kings_horses)")


def _priority(options: RuleOptions | None) -> str:
    return "mover" if options is None else options.win_priority


GAMES: dict[str, Game] = {game.name: game for game in (Betsy(), ConnectFour(), KingsHorses())}
"""Every game, by name."""
GAME_NAMES: tuple[str, ...] = tuple(GAMES)


def get_game(name: str) -> Game:
    """The game called ``name``; PositionError listing the games otherwise."""
    game = GAMES.get(name)
    if game is None:
        raise PositionError(f"unknown game {name!r}: the games are {', '.join(GAMES)}")
    return game


def game_of(position: object) -> Game:
    """The game a position belongs to (by its module)."""
    module = type(position).__module__
    for game in GAMES.values():
        if module == f"harness.games.{game.name.replace('-', '_')}":
            return game
    raise TypeError(f"not a game position: {position!r}")


def move_list(position: Any) -> Iterator[tuple[int, str, int | None]]:
    """Every legal move with the board after it and the winner then (a colour or None)."""
    for move in position.legal_moves():
        child = position.after(move)
        yield move, child.board(), child.winner()

