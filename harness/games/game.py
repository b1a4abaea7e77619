"""The ``Game`` interface: everything above the rules (referee, match, schedule, tournament, store,
report, validate, the CLI) reaches a game's rules through it, never through a game module directly.

A game is named in configs (``game: connect4``) and on the command line (``--game connect4``). Its
size is text everywhere above the rules -- ``"5"`` for Betsy (n), ``"8x8"`` for Connect Four (WxH) --
because that is how it travels on the wire (the protocol's first argument) and in records.

Each game is a subclass in its own package (``harness.games.<game>.game``) holding every way it
differs from the others, as attributes and hooks; ``harness.games.registry`` lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from harness.games.wire import Answer, find_answer

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from typing_extensions import Self

    from harness.games.suites import Suites
    from harness.rng import Rng

Move = int
"""A move as the wire writes it: a signed whole number (its meaning is the game's)."""


class Position(Protocol):
    """What the harness uses of a game's position (``betsy.Position``, ``connect4.Position``, ...)."""

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

    def pop(self) -> int: ...

    def after(self, move: int) -> Self: ...

    def winner(self) -> int | None: ...

    def has_winning_move(self) -> bool:
        """Whether the side to move has a move that wins at once."""
        ...

    def copy(self) -> Self: ...


P = TypeVar("P", bound=Position)
"""A game's position type."""
M = TypeVar("M", bound=int)
"""A game's move type (every game's moves are whole numbers on the wire)."""

PLAYERS = "xo"
"""Every game's two sides on the wire: ``x`` moves first, ``o`` second."""

class Oracle(Generic[P]):
    """An exact judge of a game's positions, for the analysis of finished games (harness.analysis).

    ``score`` answers for the side to move: above 0 won (the larger, the sooner), 0 drawn, below 0 lost
    (the more negative, the sooner); None when it cannot settle the position by ``deadline`` (a
    time.monotonic() value). Positions handed to it are never over (no winner, a legal move)."""

    title = ""
    """What proves the values, in a report's words: ``the n = 3 tables``."""

    def score(self, position: P, deadline: float) -> int | None:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the oracle holds open (a table file)."""


class OracleUnavailable(Exception):
    """A game's exact oracle exists for this size but not on this machine; the message says why and
    how to get it."""


class RuleOptions:
    """A game's rule options, passed to ``initial``/``position`` (Betsy's win priority)."""

    __slots__ = ("win_priority",)

    def __init__(self, win_priority: str = "mover") -> None:
        self.win_priority = win_priority


class Game(Generic[P, M]):
    """One game's rules as the harness sees them. Subclasses fill in the game-specific parts."""

    name = ""
    """The name in configs and on the command line."""
    title = ""
    """The name in reports."""
    size_key = "size"
    """How the size is called on the command line, in configs and config fingerprints (``n`` for Betsy)."""
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
    numbered_rows = False
    """Whether drawn boards number their rows too (a game whose positions name squares by row)."""
    win_priorities: tuple[str, ...] = ("mover",)
    """The values the rule option ``win_priority`` may take in this game (Betsy: ``mover``, ``blue``)."""
    notation = "a column drops a disc into it"
    """How moves are written, in a few words for a person at the terminal."""
    full_board_verdict = ""
    """What a person at the terminal is told when the board fills up ("" for the usual draw line)."""
    shading_note = ""
    """What the shaded cells of a drawn board are ("": boards are not shaded)."""
    answer_form = "MOVE NEWBOARD"
    """The answer line the validator asks for, in the protocol's words."""
    reference_elo: dict[str, float] = {}
    """The built-in opponents' Elo in this game, for the validator's strength estimate."""
    validation_seconds = 1
    """``arena validate``'s default time per move."""
    own_validation = False
    """Whether ``arena validate`` checks this game with its own validator (harness.validate.<game>), which
    draws its own positions (no sizes asked), instead of the generic one over ``suites()``."""
    stores_n = False
    """Whether records carry the size as the number ``n`` too, and the games table's ``n`` column holds it
    (Betsy, as before games were plugins, so that existing results resume; 0 there for other games)."""

    # --- sizes and positions -------------------------------------------------------------------

    def parse_size(self, text: str | int) -> str:
        """The canonical size text; raises PositionError naming the problem."""
        raise NotImplementedError

    def initial(self, size: str, options: RuleOptions | None = None) -> P:
        """The start position of a game of this size."""
        raise NotImplementedError

    def position(self, size: str | int, player: str, board: str, options: RuleOptions | None = None) -> P:
        """A checked position from its wire form; raises PositionError naming the problem."""
        raise NotImplementedError

    def parse_move(self, text: str) -> M:
        """A move's text as an int (legality is the position's business)."""
        raise NotImplementedError

    def random_start(self, size: str, rng: Rng) -> P | None:
        """A random start position for games without a fixed one; None: openings are random plies
        from ``initial``."""
        return None

    def sizes(self, text: str) -> tuple[str, ...]:
        """Sizes separated by commas (``3,5,8`` or ``7x6,8x8``), each checked, duplicates dropped."""
        found = [self.parse_size(part.strip()) for part in text.split(",")]
        return tuple(dict.fromkeys(found))

    def size_seed(self, size: str) -> int:
        """The (canonical) size as the number that seeds random openings: a one-number size itself."""
        return int(size)

    # --- stored forms (as before games were plugins, so that existing results resume) -------------

    def legacy_n(self, size: str) -> int | None:
        """The size as the number ``n`` of records and of the games table (``stores_n``); None for a
        game that stores none, or a size that is not a whole number."""
        if self.stores_n and size.isascii() and size.isdigit() and len(size) < 6:
            return int(size)
        return None

    def fingerprint_sizes(self, sizes: Sequence[str]) -> dict[str, list[str] | list[int]]:
        """The sizes as a config fingerprint lists them: ``{"size": ["8x8"]}``, Betsy ``{"n": [5]}``."""
        return {self.size_key: list(sizes)}

    def game_id_prefix(self, size: str) -> str:
        """The first part of a game id: the size (Betsy: ``n5``)."""
        return size

    # --- words ---------------------------------------------------------------------------------

    def describe_move(self, move: M) -> str:
        """What a move does, as a verb phrase: ``drops into column 3``."""
        return f"drops into column {move}"

    def move_kind(self, move: M) -> str:
        """A one-word kind of move for tables: ``drop`` or ``rotate``."""
        return "drop"

    def size_phrase(self, size: str) -> str:
        """The size in prose: ``n = 5`` or ``8x8``."""
        return size

    def sizes_phrase(self, sizes: Sequence[str]) -> str:
        """Several sizes in a report's title line: ``n = 3, 5``, ``7x6, 8x8``."""
        return ", ".join(sizes)

    def count_phrase(self, count: int) -> str:
        """A number of games of this game: ``12 connect4 games`` (Betsy: ``12 games``)."""
        return f"{count} {self.name} game{'' if count == 1 else 's'}"

    def position_phrase(self, size: str, player: str) -> str:
        """A position's size and side to move in prose, for reports: ``n = 5, x to move``."""
        return f"{self.size_phrase(size)}, {player} to move"

    def end_reason(self, position: P) -> str | None:
        """Why a position without a winner is over (a full board), or None if play goes on."""
        return None if position.legal_moves() else "the board is full"

    # --- drawn boards ----------------------------------------------------------------------------

    def render(self, position: P, last_move: M | None = None) -> str:
        """The board drawn for a terminal, with column numbers and the last move marked."""
        return render_grid(position.board(), self.columns(position), last_move_column(last_move))

    def columns(self, position: P) -> int:
        raise NotImplementedError

    def picture(self, position: P, start: P) -> str:
        """``position`` as a grid of ``.``, ``x`` and ``o``, ``columns(start)`` wide, for drawn boards
        (every frame of a game from ``start`` has the same shape)."""
        return position.board()

    def move_column(self, move: M) -> int:
        """The column a move is marked under in drawn boards (0: none)."""
        return abs(move)

    def shaded_rows(self, columns: int) -> int:
        """How many top rows of a drawn board ``columns`` wide are shaded (where lines count); 0: none."""
        return 0

    # --- engines -------------------------------------------------------------------------------

    def argv(self, position: P, seconds: str) -> list[str]:
        """The protocol's arguments after the program: ``SIZE PLAYER BOARD SECONDS``."""
        return [position.size_text, position.player, position.board(), seconds]

    def find_answer(self, position: P, lines: Sequence[str]) -> Answer | None:
        """The engine's answer in its output lines, or None (harness.games.wire)."""
        return find_answer(lines)

    def evaluate(self, position: P) -> int:
        """The searches' static evaluation for the side to move (the engines' own)."""
        raise NotImplementedError

    def start_oracle(self) -> Callable[[P], str | None] | None:
        """A judge of start positions: who (``x`` or ``o``) wins one with perfect play, None when it
        cannot say in time; None for a game without an exact solver."""
        return None

    def oracle(self, size: str, options: RuleOptions | None = None) -> Oracle[P] | None:
        """The exact judge of this size's positions (harness.analysis proves losing moves with it), or
        None when there is none; OracleUnavailable when there is one but it cannot be used here."""
        return None

    assessment_margin = 100
    """How many points of the searches' evaluation a move may fall short of the best one before an
    assessment (where no oracle reaches) calls it the losing move."""

    def assessment_evaluation(self) -> Callable[[P], int] | None:
        """The static evaluation of the strongest search, for assessments where no oracle reaches (its
        positions must implement engines.search.game.Game); None: this game is never assessed."""
        return None

    # --- validation ------------------------------------------------------------------------------

    def suites(self) -> Suites[P]:
        """What ``arena validate`` asks a program about in this game (harness.games.suites.Suites)."""
        raise NotImplementedError(f"{self.title} has its own validation")

    def __repr__(self) -> str:
        return f"<game {self.name}>"


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


def move_list(position: Position) -> Iterator[tuple[int, str, int | None]]:
    """Every legal move with the board after it and the winner then (a colour or None)."""
    for move in position.legal_moves():
        child = position.after(move)
        yield move, child.board(), child.winner()
