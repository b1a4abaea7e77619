"""All The King's Horses rules core: positions, legal moves, make/unmake and outcome.

The rules are those of docs/kings_horses.md. Squares are (row, column), both 1-based from the top-left
of a board without limit down and right. Each side has two knights; a move takes one of the mover's
knights by one of (-2, -1), (-1, -2), (-2, +1), (+1, -2) onto a square on the board that no knight
holds. The player to move without a move loses: there are no draws, and every game ends, since each
move brings a knight closer to the corner (row + column falls by 3 or by 1).

On the wire and in records, ``x`` is BLACK and ``o`` is WHITE (the seed's words are accepted too);
a position's board is its eight numbers ``b1r,b1c,b2r,b2c,w1r,w1c,w2r,w2c`` -- black's first and
second knights, then white's -- the order of the seed's command line. A move is a number 1..8: the
mover's knight ``(move - 1) // 4`` (0 is the first of its two) and direction ``(move - 1) % 4`` of
``DIRECTIONS``. The size of a game is the coordinate band its random start positions are drawn from
(``8``: every coordinate in 1..8); it does not limit the board.

Pure and light like the other rules cores: engines import it once per move.
"""

from __future__ import annotations

from harness.games.errors import PositionError as PositionError  # (re-exported)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

Move = int
Square = tuple[int, int]
Colour = int
"""0 for ``x`` (BLACK), 1 for ``o`` (WHITE)."""

PLAYERS = "xo"
WORDS = ("BLACK", "WHITE")
"""The seed's names of the sides: ``WORDS[colour]``."""
DIRECTIONS: tuple[Square, ...] = ((-2, -1), (-1, -2), (-2, 1), (1, -2))
"""Every knight move toward the upper-left, in move-number order."""
MIN_SIZE, MAX_SIZE = 3, 1000
"""The coordinate bands a game's size may name (the rules themselves have no limit)."""
MAX_COORDINATE = 10**6
"""Coordinates above this are refused (the rules have no limit; the solvers and the screen have)."""
DEFAULT_SIZE = 8


def lone_moves(row: int, col: int) -> int:
    """The most moves a knight alone on the board can still make from (row, col): every move takes
    row + col down by 1 or 3, and the longest paths end in the top-left 2 x 2, one step short of the
    corner when row and col agree modulo 3 (tests/test_games_kings_horses.py checks it by brute force)."""
    return max(0, row + col - 3 - (1 if (row - col) % 3 == 0 else 0))


def race_lead(position: Position) -> int:
    """The side to move's lone-move count minus its opponent's: with no knight ever in another's
    way, the side to move wins exactly when this is positive."""
    counts = [lone_moves(*position.knights[i]) + lone_moves(*position.knights[i + 1]) for i in (0, 2)]
    return counts[position.turn] - counts[1 - position.turn]


def parse_size(text: str) -> int:
    """A coordinate band ``N`` (``MIN_SIZE`` to ``MAX_SIZE``); PositionError naming the problem."""
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        raise PositionError(f"invalid size {text!r}: give N, the largest coordinate of the start positions, e.g. 8")
    value = int(text)
    if not MIN_SIZE <= value <= MAX_SIZE:
        raise PositionError(f"invalid size {text!r}: N from {MIN_SIZE} to {MAX_SIZE} is supported, e.g. 8 or 15")
    return value


def parse_player(text: str) -> Colour:
    """``x``/``BLACK`` -> 0, ``o``/``WHITE`` -> 1."""
    if text in ("x", "BLACK"):
        return 0
    if text in ("o", "WHITE"):
        return 1
    raise PositionError(f"invalid player {text!r}: use BLACK (x) or WHITE (o)")


def parse_move(text: str) -> Move:
    """A move number's text; its range and legality are the position's business."""
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise PositionError(f"invalid move {text!r}: a move is a number 1 to 8 (knight and direction)")
    return int(text)


def parse_squares(numbers: Sequence[str]) -> tuple[Square, Square, Square, Square]:
    """Eight coordinates as four squares (black's two, white's two); PositionError naming the problem."""
    if len(numbers) != 8:
        raise PositionError(f"expected 8 coordinates b1r b1c b2r b2c w1r w1c w2r w2c, got {len(numbers)}")
    values = []
    for index, text in enumerate(numbers):
        if not (text.isascii() and text.isdigit()) or len(text) > 7 or int(text) < 1 or int(text) > MAX_COORDINATE:
            raise PositionError(f"invalid coordinate {text!r} ({_NAMES[index]}): "
                                f"coordinates are whole numbers from 1 to {MAX_COORDINATE}, 1 at the top-left")
        values.append(int(text))
    squares = ((values[0], values[1]), (values[2], values[3]), (values[4], values[5]), (values[6], values[7]))
    for i in range(4):
        for j in range(i + 1, 4):
            if squares[i] == squares[j]:
                raise PositionError(f"two knights on one square: {_KNIGHTS[i]} and {_KNIGHTS[j]} are both on "
                                    f"row {squares[i][0]}, column {squares[i][1]}")
    return squares


_KNIGHTS = ("black's first knight", "black's second knight", "white's first knight", "white's second knight")
_NAMES = ("b1r", "b1c", "b2r", "b2c", "w1r", "w1c", "w2r", "w2c")


class Position:
    """A position: the four knights' squares (black's two, then white's) and the side to move.

    ``push``/``pop`` make and unmake moves in place; ``after`` returns a new position."""

    __slots__ = ("knights", "turn", "band", "in_game", "_history")

    def __init__(self, knights: Sequence[Square], turn: Colour, band: int | None = None) -> None:
        self.knights: list[Square] = [tuple(square) for square in knights]  # type: ignore[misc]
        self.turn = turn
        self.band = band if band is not None else max(max(square) for square in self.knights)
        """The coordinate band this position's game was drawn from (its size)."""
        self.in_game = band is not None
        """Whether the band was given (a position of a game of that size): it is drawn the size of
        every square the game can reach, not just its knights' (``extent``)."""
        self._history: list[tuple[int, Square]] = []

    @classmethod
    def from_text(cls, size: str | int | None, player: str, board: str) -> Position:
        """From the wire: size (a band, or None), ``x``/``o`` (or BLACK/WHITE) and the eight numbers
        separated by commas or spaces."""
        turn = parse_player(player)
        squares = parse_squares(board.replace(",", " ").split())
        band = None if size is None or str(size) == "" else parse_size(str(size))
        return cls(squares, turn, band)

    @classmethod
    def from_words(cls, words: Sequence[str], band: int | None = None) -> Position:
        """From the seed's command line words: ``PLAYER b1r b1c b2r b2c w1r w1c w2r w2c``."""
        if len(words) != 9:
            raise PositionError(f"expected PLAYER and 8 coordinates, got {len(words)} words")
        if words[0] not in WORDS:
            raise PositionError(f"invalid player {words[0]!r}: use BLACK or WHITE")
        return cls(parse_squares(words[1:]), WORDS.index(words[0]), band)

    def copy(self) -> Position:
        copied = Position(self.knights, self.turn, self.band)
        copied.in_game = self.in_game
        return copied

    @property
    def size_text(self) -> str:
        return str(self.band)

    @property
    def player(self) -> str:
        return PLAYERS[self.turn]

    @property
    def word(self) -> str:
        """BLACK or WHITE: the side to move in the seed's words."""
        return WORDS[self.turn]

    def board(self) -> str:
        """The eight numbers, comma-separated: ``b1r,b1c,b2r,b2c,w1r,w1c,w2r,w2c``."""
        return ",".join(str(v) for square in self.knights for v in square)

    def words(self) -> list[str]:
        """The seed's command line for this position: ``PLAYER b1r b1c ... w2c``."""
        return [self.word, *(str(v) for square in self.knights for v in square)]

    def line(self) -> str:
        return " ".join(self.words())

    def __repr__(self) -> str:
        return f"Position({self.line()})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.turn == other.turn and self.knights == other.knights

    def __hash__(self) -> int:
        return hash((self.turn, tuple(self.knights)))

    def key(self) -> int:
        """The same for positions that differ only in the order of a side's two knights."""
        b = tuple(sorted(self.knights[:2]))
        w = tuple(sorted(self.knights[2:]))
        return hash((self.turn, b, w))

    def same_as(self, other: Position) -> bool:
        """Equal up to the order of each side's two knights."""
        return (self.turn == other.turn and sorted(self.knights[:2]) == sorted(other.knights[:2])
                and sorted(self.knights[2:]) == sorted(other.knights[2:]))

    def target(self, move: Move) -> tuple[int, Square] | None:
        """(knight index 0..3, square) a move number leads to, if it is on the board; else None."""
        if not 1 <= move <= 8:
            return None
        index = 2 * self.turn + (move - 1) // 4
        dr, dc = DIRECTIONS[(move - 1) % 4]
        row, col = self.knights[index]
        if row + dr < 1 or col + dc < 1:
            return None
        return index, (row + dr, col + dc)

    def legal_moves(self) -> list[Move]:
        knights = self.knights
        found = []
        base = 2 * self.turn
        for slot in (0, 1):
            row, col = knights[base + slot]
            for d, (dr, dc) in enumerate(DIRECTIONS):
                r, c = row + dr, col + dc
                if r >= 1 and c >= 1 and (r, c) not in knights:
                    found.append(4 * slot + d + 1)
        return found

    def is_legal(self, move: Move) -> bool:
        found = self.target(move)
        return found is not None and found[1] not in self.knights

    def illegal_reason(self, move: Move) -> str | None:
        if not 1 <= move <= 8:
            return f"move {move} is out of range: moves are 1 to 8 (knight and direction)"
        index, square = 2 * self.turn + (move - 1) // 4, None
        found = self.target(move)
        origin = self.knights[index]
        if found is None:
            return f"move {move} takes the knight on {_square(origin)} off the board"
        square = found[1]
        if square in self.knights:
            return f"move {move} takes the knight on {_square(origin)} to {_square(square)}, which a knight holds"
        return None

    def push(self, move: Move) -> None:
        found = self.target(move)
        if found is None or found[1] in self.knights:
            raise ValueError(f"illegal move {move} in {self.line()}")
        index, square = found
        self._history.append((index, self.knights[index]))
        self.knights[index] = square
        self.turn ^= 1

    def pop(self) -> Move:
        index, square = self._history.pop()
        moved = self.knights[index]
        self.knights[index] = square
        self.turn ^= 1
        d = DIRECTIONS.index((moved[0] - square[0], moved[1] - square[1]))
        return 4 * (index % 2) + d + 1

    def after(self, move: Move) -> Position:
        child = self.copy()
        child.push(move)
        return child

    def move_to(self, other: Position) -> Move | None:
        """The legal move that gives ``other`` (up to the order of a side's knights), or None."""
        for move in self.legal_moves():
            if self.after(move).same_as(other):
                return move
        return None

    def moved(self, move: Move) -> tuple[Square, Square]:
        """(from, to) of a move."""
        found = self.target(move)
        assert found is not None
        return self.knights[found[0]], found[1]

    def winner(self) -> Colour | None:
        """The side to move loses when it has no move: the other side, or None while play goes on."""
        return None if self.legal_moves() else self.turn ^ 1

    def is_game_over(self) -> bool:
        return not self.legal_moves()

    def has_winning_move(self) -> bool:
        """Whether the side to move has a move that leaves the opponent without one."""
        for move in self.legal_moves():
            self.push(move)
            stuck = not self.legal_moves()
            self.pop()
            if stuck:
                return True
        return False

    def extent(self) -> tuple[int, int]:
        """(rows, columns) that show every knight (at least 4 x 4); for a position of a game, every
        square its game can reach, so that all its positions are drawn the same size. A knight
        goes down only by (+1, -2), two columns for a row, so from a start in 1..N no knight
        passes row or column N + (N - 1) // 2."""
        reach = self.band + (self.band - 1) // 2 if self.in_game else 0
        return (max(4, reach, max(r for r, _ in self.knights)),
                max(4, reach, max(c for _, c in self.knights)))

    def reach(self) -> tuple[int, int]:
        """(rows, columns) that show every knight in every position of a game from here (at least
        4 x 4): a knight goes down by one (+1, -2) or right by one (-2, +1) at a time, and no step
        raises row + 2 column or 2 row + column, so from (r, c) it never passes row (2r + c - 1) // 2
        or column (r + 2c - 1) // 2."""
        return (max(4, max((2 * r + c - 1) // 2 for r, c in self.knights)),
                max(4, max((r + 2 * c - 1) // 2 for r, c in self.knights)))

    def grid(self, rows: int | None = None, cols: int | None = None) -> str:
        """The board as rows of ``.``, ``x`` (black) and ``o`` (white), ``rows`` x ``cols`` (default:
        the extent), row-major from the top-left."""
        if rows is None or cols is None:
            rows, cols = self.extent()
        cells = ["."] * (rows * cols)
        for index, (r, c) in enumerate(self.knights):
            if r <= rows and c <= cols:
                cells[(r - 1) * cols + c - 1] = PLAYERS[index // 2]
        return "".join(cells)


def _square(square: Square) -> str:
    return f"({square[0]},{square[1]})"


def describe(move: Move) -> str:
    """What a move number does, without its position: ``knight 1 by (-2,+1)``."""
    if not 1 <= move <= 8:
        return f"move {move}"
    dr, dc = DIRECTIONS[(move - 1) % 4]
    return f"moves knight {(move - 1) // 4 + 1} by ({dr:+d},{dc:+d})"


def render(position: Position, last_move: Move | None = None, extent: tuple[int, int] | None = None) -> str:
    """The board for a terminal: black knights ``x``, white ``o``, row numbers on the left and column
    numbers below; with ``last_move`` (the move that led here) its knight's old square is ``*``."""
    rows, cols = extent or position.extent()
    cells = [list(position.grid(rows, cols)[r * cols:(r + 1) * cols]) for r in range(rows)]
    if last_move is not None and position._history:
        index, origin = position._history[-1]
        if origin[0] <= rows and origin[1] <= cols:
            cells[origin[0] - 1][origin[1] - 1] = "*"
    width = len(str(max(rows, cols)))
    lines = [f"{r + 1:>{width}} " + " ".join(cell.rjust(width) for cell in row) for r, row in enumerate(cells)]
    lines.append(" " * (width + 1) + " ".join(str(c).rjust(width) for c in range(1, cols + 1)))
    return "\n".join(lines)


def random_position(band: int, rng: object, mover: Colour | None = None, playable: bool = True) -> Position:
    """A position with every coordinate in 1..band, the side to move drawn too (unless given), in
    which the side to move has a move (unless not ``playable``). ``rng`` has ``randrange(n)``
    (harness.rng.Rng)."""
    while True:
        squares: list[Square] = []
        while len(squares) < 4:
            square = (rng.randrange(band) + 1, rng.randrange(band) + 1)  # type: ignore[attr-defined]
            if square not in squares:
                squares.append(square)
        turn = rng.randrange(2) if mover is None else mover  # type: ignore[attr-defined]
        position = Position(squares, turn, band)
        if not playable or position.legal_moves():
            return position
