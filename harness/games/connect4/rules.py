"""Connect Four rules core: positions, legal moves, make/unmake, fours and outcome.

Pure and fast like ``harness.games.betsy.rules``: no I/O, no clock, no randomness, nothing heavy imported,
because every engine process imports it once per move. The rules are those of docs/rules.md
("Connect Four"): ``W`` columns x ``H`` rows (4 to 12 each), ``x`` moves first, a move is a 1-based
column, four in a row in any direction wins, a full board is a draw.

Representation (Pascal Pons's layout). Each colour is a bitboard in a Python int. Cell (column ``c``,
height ``h``) -- ``c`` from 0 on the left, ``h`` from 0 at the bottom -- is bit ``c * (H + 1) + h``:
each column is a run of ``H`` bits plus one always-empty sentinel bit above it, so a shift by 1
(vertical), ``H + 1`` (horizontal), ``H`` and ``H + 2`` (the diagonals) never carries a line from
one column's top into the next column's bottom. Four in a row is ``m = b & (b >> s); m & (m >> 2s)``.
"""

from __future__ import annotations

# typing costs ~10 ms of import time, paid by every engine process on every move: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

Move = int
"""A column, 1 (leftmost) to W."""
Bitboard = int
Colour = int
"""0 for ``x`` (moves first), 1 for ``o``."""

PLAYER_X: Colour = 0
PLAYER_O: Colour = 1
PLAYERS = "xo"
"""``PLAYERS[colour]`` is the colour's letter on the wire."""
MIN_SIZE = 4
MAX_SIZE = 12
"""Widths and heights from MIN_SIZE to MAX_SIZE are supported."""
DEFAULT_SIZE = (8, 8)
"""The seed's frame: 8 columns x 8 rows."""

from harness.games.errors import PositionError as PositionError  # noqa: E402  (re-exported)


def size_text(width: int, height: int) -> str:
    """The wire form of a board size, ``"8x8"`` (columns x rows)."""
    return f"{width}x{height}"


def size_problem(width: int, height: int) -> str | None:
    """Why ``width`` x ``height`` is not a supported size, or None."""
    if MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE:
        return None
    return f"width and height from {MIN_SIZE} to {MAX_SIZE} are supported, e.g. 8x8 or 7x6"


def parse_size(text: str) -> tuple[int, int]:
    """``"WxH"`` (columns x rows, ASCII digits) as ``(W, H)``; raises PositionError naming the problem."""
    width_text, sep, height_text = text.partition("x")
    for part in (width_text, height_text):
        # Plain ASCII digits only: int() would also take "1_0", " 8" or non-Latin digits.
        if not sep or not (part.isascii() and part.isdigit()):
            raise PositionError(f"invalid board size {text!r}: use WxH, columns x rows, e.g. 8x8 or 7x6")
    if len(width_text.lstrip("0")) > 2 or len(height_text.lstrip("0")) > 2:  # no int() of 5000 digits
        raise PositionError(f"invalid board size {text!r}: {size_problem(0, 0)}")
    width, height = int(width_text), int(height_text)
    problem = size_problem(width, height)
    if problem is not None:
        raise PositionError(f"invalid board size {text!r}: {problem}")
    return width, height


def parse_player(text: str) -> Colour:
    """``"x"`` -> X, ``"o"`` -> O."""
    if text == "x":
        return PLAYER_X
    if text == "o":
        return PLAYER_O
    raise PositionError(f"invalid player {text!r}: use x (moves first) or o")


def parse_move(text: str) -> Move:
    """A move's text (``"3"``) as a column number; its range is checked by ``Position.is_legal``."""
    if not (text.isascii() and text.isdigit()) or not text.strip("0") or len(text) > 9:
        raise PositionError(f"invalid move {text!r}: give a column number, 1 for the leftmost column")
    return int(text)


class Geometry:
    """Everything about a board size that does not depend on the discs: masks and tables."""

    __slots__ = (
        "width", "height", "stride", "cells", "bottom", "board_mask", "top_row", "column_masks",
        "string_to_bit", "odd_rows", "moves_by_full", "threats",
    )

    def __init__(self, width: int, height: int) -> None:
        problem = size_problem(width, height)
        if problem is not None:
            raise PositionError(f"invalid board size {size_text(width, height)!r}: {problem}")
        stride = height + 1
        self.width = width
        self.height = height
        self.stride = stride
        """Bits per column: the column's cells and its sentinel."""
        self.cells = width * height
        self.bottom: Bitboard = sum(1 << (c * stride) for c in range(width))
        """The bottom cell of every column."""
        self.board_mask: Bitboard = self.bottom * ((1 << height) - 1)
        """Every cell of the board (no sentinels)."""
        self.top_row: Bitboard = self.bottom << (height - 1)
        """The top cell of every column: a column is full when its top cell is occupied."""
        self.column_masks: tuple[Bitboard, ...] = tuple(((1 << height) - 1) << (c * stride) for c in range(width))
        self.string_to_bit: tuple[int, ...] = tuple(
            (i % width) * stride + height - 1 - i // width for i in range(self.cells)
        )
        """Bit index of each character of the row-major, top-first board string."""
        self.odd_rows: Bitboard = sum(self.bottom << h for h in range(0, height, 2))
        """Rows 1, 3, 5, ... counted from the bottom: where x's threats count in the endgame."""
        self.moves_by_full: dict[Bitboard, list[Move]] = {}
        """The legal moves by the occupied cells of the top row (filled as met)."""
        self.threats: dict[Bitboard, Bitboard] = {}
        """``winning_cells`` by discs (filled as met, at most ``THREAT_CACHE`` entries)."""


_GEOMETRIES: dict[tuple[int, int], Geometry] = {}


def geometry(width: int, height: int) -> Geometry:
    """The (cached) geometry of a ``width`` x ``height`` board."""
    found = _GEOMETRIES.get((width, height))
    if found is None:
        found = _GEOMETRIES[(width, height)] = Geometry(width, height)
    return found


def four_in_a_row(discs: Bitboard, stride: int) -> Bitboard:
    """The lowest cells of every four in a row of ``discs``, OR-ed over the four directions
    (0 if there is none); each set bit starts a four going up, right, or diagonally right."""
    found = 0
    for shift in (1, stride, stride - 1, stride + 1):
        pairs = discs & (discs >> shift)
        found |= pairs & (pairs >> 2 * shift)
    return found


def _first_four(discs: Bitboard, stride: int) -> Bitboard:
    """One four in a row of ``discs`` as a bitboard of its four cells, or 0."""
    for shift in (1, stride, stride - 1, stride + 1):
        pairs = discs & (discs >> shift)
        starts = pairs & (pairs >> 2 * shift)
        if starts:
            start = starts & -starts
            return start | start << shift | start << 2 * shift | start << 3 * shift
    return 0


THREAT_CACHE = 1 << 18
"""Most entries a geometry's ``threats`` cache holds before it starts again (about 30 MB)."""


def winning_cells(discs: Bitboard, g: Geometry) -> Bitboard:
    """Every cell of the board that would complete a four of ``discs`` (occupied or not).

    Cached by ``discs``: a search asks again and again for the same discs (a drop changes one
    colour's discs only, so siblings share the other's), and a dictionary lookup costs a fraction of
    the shifts.
    """
    threats = g.threats
    found = threats.get(discs)
    if found is None:
        if len(threats) >= THREAT_CACHE:
            threats.clear()
        found = threats[discs] = _winning_cells(discs, g.stride) & g.board_mask
    return found


def _winning_cells(discs: Bitboard, s: int) -> Bitboard:
    """``winning_cells`` before masking: also sets bits outside the board."""
    # Vertical: only the cell above three in a column.
    found = (discs << 1) & (discs << 2) & (discs << 3)
    for shift in (s, s - 1, s + 1):
        # The cell is the 1st or 4th of its four (three on one side), or the 2nd or 3rd (two on one
        # side, one on the other).
        up1 = discs << shift
        up2 = up1 << shift
        down1 = discs >> shift
        down2 = down1 >> shift
        found |= up1 & up2 & ((up2 << shift) | down1) | down1 & down2 & (up1 | (down2 >> shift))
    return found


def board_problem(width: int, height: int, board: str) -> str | None:
    """Why ``board`` is not a valid ``width`` x ``height`` board, or None if it is."""
    g = geometry(width, height)
    if len(board) != g.cells:
        return (
            f"board has {len(board)} characters, expected {g.cells} for {size_text(width, height)} "
            f"({width} columns x {height} rows)"
        )
    for index, char in enumerate(board):
        if char not in ".xo":
            return (
                f"bad character {char!r} at position {index + 1} (row {index // width + 1}, column "
                f"{index % width + 1}): use . (empty), x or o"
            )
    for c in range(width):
        seen_empty_below = False
        for row in range(height - 1, -1, -1):
            char = board[row * width + c]
            if char == ".":
                seen_empty_below = True
            elif seen_empty_below:
                return (
                    f"floating disc in column {c + 1}, row {row + 1} from the top: the cell below it "
                    f"is empty, but discs fall to the bottom of their column"
                )
    xs, os_ = board.count("x"), board.count("o")
    if os_ > xs:
        return (
            f"too many o discs: {os_} o and {xs} x on the board, but x moves first, so o never has "
            f"more discs than x"
        )
    if xs > os_ + 1:
        return (
            f"too many x discs: {xs} x and {os_} o on the board, but the players take turns, so x "
            f"has at most one disc more than o"
        )
    masks = [0, 0]
    for index, char in enumerate(board):
        if char != ".":
            masks[char == "o"] |= 1 << g.string_to_bit[index]
    fours = [bool(four_in_a_row(mask, g.stride)) for mask in masks]
    if fours[0] and fours[1]:
        return "both x and o have four in a row, but the game ends at the first four"
    last = PLAYER_X if xs > os_ else PLAYER_O
    if fours[last ^ 1]:
        return (
            f"{PLAYERS[last ^ 1]} has four in a row, but {PLAYERS[last]} moved last ({xs} x, {os_} o): "
            f"the game ends at the first four"
        )
    return None


class Outcome:
    """A finished game's winner and the four that decided it."""

    __slots__ = ("winner", "line")

    def __init__(self, winner: Colour, line: Bitboard) -> None:
        self.winner = winner
        """The colour that won."""
        self.line = line
        """One four in a row of the winner (a bitboard)."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Outcome):
            return NotImplemented
        return (self.winner, self.line) == (other.winner, other.line)

    def __hash__(self) -> int:
        return hash((self.winner, self.line))

    def __repr__(self) -> str:
        return f"Outcome(winner={PLAYERS[self.winner]!r}, line={self.line:#x})"


class Position:
    """A Connect Four position (board and side to move) with make/unmake.

    ``push`` trusts its move: callers check ``is_legal`` first (the referee does). Search uses
    ``push``/``pop``; ``copy`` is for boundaries.
    """

    __slots__ = ("geometry", "width", "height", "masks", "tops", "turn", "_stack")

    def __init__(self, width: int, height: int, board: str | None = None, turn: Colour | None = None) -> None:
        g = geometry(width, height)
        self.geometry = g
        self.width = width
        self.height = height
        self.masks: list[Bitboard] = [0, 0]
        """Bitboard of each colour's discs, indexed by Colour."""
        self.tops: list[Bitboard] = [1 << (c * g.stride) for c in range(width)]
        """The cell (a one-bit bitboard) the next disc of each column lands on (0-based columns); a
        full column's is its sentinel."""
        self._stack: list[int] = []
        """0-based columns of the pushed moves."""
        if board is not None:
            problem = board_problem(width, height, board)
            if problem is not None:
                raise PositionError(problem)
            x = o = 0
            for index, char in enumerate(board):
                if char == "x":
                    x |= 1 << g.string_to_bit[index]
                elif char == "o":
                    o |= 1 << g.string_to_bit[index]
            self.masks = [x, o]
            occupied = x | o
            self.tops = [(occupied & mask) + (1 << (c * g.stride)) for c, mask in enumerate(g.column_masks)]
        xs, os_ = self.masks[0].bit_count(), self.masks[1].bit_count()
        to_move = PLAYER_X if xs == os_ else PLAYER_O
        if turn is not None and turn != to_move:
            raise PositionError(_turn_problem(PLAYERS[turn] if turn in (PLAYER_X, PLAYER_O) else turn, xs, os_))
        self.turn: Colour = to_move
        """Side to move: x when both colours have as many discs, else o."""

    @classmethod
    def from_text(cls, size: str | tuple[int, int], player: str, board: str) -> Position:
        """Parse the wire form ``WxH PLAYER BOARD``; raises PositionError naming the problem."""
        width, height = parse_size(size) if isinstance(size, str) else size
        problem = size_problem(width, height)
        if problem is not None:
            raise PositionError(f"invalid board size {size_text(width, height)!r}: {problem}")
        return cls(width, height, board, parse_player(player))

    def copy(self) -> Position:
        """An independent copy without the move stack."""
        other = Position.__new__(Position)
        other.geometry = self.geometry
        other.width = self.width
        other.height = self.height
        other.masks = self.masks[:]
        other.tops = self.tops[:]
        other.turn = self.turn
        other._stack = []
        return other

    # --- text -----------------------------------------------------------------------------------

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)``."""
        return (self.width, self.height)

    @property
    def size_text(self) -> str:
        """The size as on the wire, ``"8x8"``."""
        return size_text(self.width, self.height)

    @property
    def player(self) -> str:
        """Side to move as its wire letter, ``x`` or ``o``."""
        return PLAYERS[self.turn]

    @property
    def heights(self) -> list[int]:
        """Number of discs in each column (0-based columns)."""
        stride = self.geometry.stride
        return [top.bit_length() - 1 - c * stride for c, top in enumerate(self.tops)]

    @property
    def plies(self) -> int:
        """Discs on the board: the number of moves played from the empty board."""
        return (self.masks[0] | self.masks[1]).bit_count()

    def board(self) -> str:
        """The board as the wire string: row-major from the top row, ``.``/``x``/``o``."""
        x, o = self.masks
        chars = []
        for index in self.geometry.string_to_bit:
            if x >> index & 1:
                chars.append("x")
            elif o >> index & 1:
                chars.append("o")
            else:
                chars.append(".")
        return "".join(chars)

    def __repr__(self) -> str:
        return f"Position({self.width}, {self.height}, {self.board()!r})"

    def __str__(self) -> str:
        """The board drawn as rows, top first."""
        text = self.board()
        width = self.width
        return "\n".join(text[r * width:(r + 1) * width] for r in range(self.height))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.size == other.size and self.key() == other.key()

    def __hash__(self) -> int:
        return hash((self.width, self.height, self.key()))

    # --- state ----------------------------------------------------------------------------------

    def key(self) -> int:
        """An exact key of the position for tables; unique per size.

        x's discs plus a marker bit above each column's top disc (``occupied + bottom``): the markers
        give the heights, hence o's discs, and the disc count gives the side to move.
        """
        x, o = self.masks
        return x + (x | o) + self.geometry.bottom

    def is_full(self) -> bool:
        """Whether every cell holds a disc (a draw unless the last disc made a four)."""
        return (self.masks[0] | self.masks[1]) == self.geometry.board_mask

    # --- moves ----------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """The columns that are not full, ascending (a won position is not checked: see outcome())."""
        masks = self.masks
        g = self.geometry
        full = (masks[0] | masks[1]) & g.top_row
        moves = g.moves_by_full.get(full)
        if moves is None:
            stride = g.stride
            moves = g.moves_by_full[full] = [c + 1 for c in range(self.width) if not full >> (c * stride + self.height - 1) & 1]
        return moves[:]

    def generate_legal_moves(self) -> Iterator[Move]:
        """Iterate over ``legal_moves()``."""
        return iter(self.legal_moves())

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is a column of the board that is not full."""
        if not isinstance(move, int) or isinstance(move, bool):
            return False
        return 1 <= move <= self.width and bool(self.tops[move - 1] & self.geometry.board_mask)

    def illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` is illegal here (one line), or None if it is legal."""
        if isinstance(move, bool) or not isinstance(move, int):
            return f"move {move!r} is not a whole number"
        if not 1 <= move <= self.width:
            return f"column {move} does not exist: columns are 1 to {self.width}"
        if not self.tops[move - 1] & self.geometry.board_mask:
            return f"column {move} is full"
        return None

    def push(self, move: Move) -> None:
        """Drop the mover's disc into column ``move`` (unchecked) and pass the turn."""
        c = move - 1
        tops = self.tops
        cell = tops[c]
        self.masks[self.turn] |= cell
        tops[c] = cell << 1
        self._stack.append(c)
        self.turn ^= 1

    def pop(self) -> Move:
        """Undo the last ``push``; returns its move."""
        c = self._stack.pop()
        tops = self.tops
        cell = tops[c] >> 1
        tops[c] = cell
        self.turn ^= 1
        self.masks[self.turn] ^= cell
        return c + 1

    def after(self, move: Move) -> Position:
        """A new position with ``move`` played (checked); raises PositionError if illegal."""
        reason = self.illegal_reason(move)
        if reason is not None:
            raise PositionError(reason)
        child = self.copy()
        child.push(move)
        return child

    # --- fours and outcome ----------------------------------------------------------------------

    def has_four(self, colour: Colour) -> bool:
        """Whether ``colour`` has four in a row."""
        return bool(four_in_a_row(self.masks[colour], self.geometry.stride))

    def outcome(self) -> Outcome | None:
        """The winner, if a colour has four in a row (the side that moved last is looked at first),
        else None; a full board without a four is a draw, see ``is_full``."""
        stride = self.geometry.stride
        for colour in (self.turn ^ 1, self.turn):
            line = _first_four(self.masks[colour], stride)
            if line:
                return Outcome(colour, line)
        return None

    def winner(self) -> Colour | None:
        """``outcome().winner``, or None."""
        outcome = self.outcome()
        return None if outcome is None else outcome.winner

    def is_game_over(self) -> bool:
        """Whether a colour has four in a row or the board is full."""
        return self.is_full() or self.outcome() is not None

    def winner_after_push(self, move: Move) -> Colour | None:
        """The winner right after ``push(move)``: the mover if it now has four in a row, else None.

        The new disc (the top one of column ``move``) wins exactly when it lands on a cell that
        completes a four of the mover's other discs: one cached ``winning_cells`` lookup, shared by
        every move of the same position. Valid when the position before the move had no four of
        the mover (true in any valid position).
        """
        mover = self.turn ^ 1
        discs = self.masks[mover]
        g = self.geometry
        cell = self.tops[move - 1] >> 1
        if not discs & cell:  # not the mover's disc: push(move) was not the last move
            return mover if four_in_a_row(discs, g.stride) else None
        return mover if winning_cells(discs ^ cell, g) & cell else None

    def playable_cells(self) -> Bitboard:
        """The cell a disc dropped into each non-full column would land on."""
        g = self.geometry
        # Adding the bottom row sets the first empty bit of each column; a full column carries
        # into its sentinel, outside the board.
        return ((self.masks[0] | self.masks[1]) + g.bottom) & g.board_mask

    def winning_cells(self, colour: Colour) -> Bitboard:
        """The empty cells where a disc of ``colour`` would complete a four (playable now or not)."""
        masks = self.masks
        return winning_cells(masks[colour], self.geometry) & ~(masks[0] | masks[1])

    def winning_moves(self) -> list[Move]:
        """The columns where the side to move completes a four at once, ascending."""
        cells = self.winning_cells(self.turn) & self.playable_cells()
        stride = self.geometry.stride
        return [c + 1 for c in range(self.width) if cells >> (c * stride) & ((1 << stride) - 1)]

    def has_winning_move(self) -> bool:
        """Whether the side to move can complete a four at once (by bitboard, no moves tried)."""
        g = self.geometry
        masks = self.masks
        # occupied + bottom: the first empty cell of each column (a full column's sentinel).
        return bool(winning_cells(masks[self.turn], g) & ((masks[0] | masks[1]) + g.bottom))

    def opponent_has_winning_move(self) -> bool:
        """Whether the side not to move could complete a four at once if it were its turn (a threat)."""
        g = self.geometry
        masks = self.masks
        return bool(winning_cells(masks[self.turn ^ 1], g) & ((masks[0] | masks[1]) + g.bottom))


def _turn_problem(player: str | int, xs: int, os_: int) -> str:
    """The message for a side to move that the disc counts contradict."""
    if xs == os_:
        return (
            f"invalid player {player!r} for this board: x and o have {xs} discs each, so it is x's turn "
            f"(x moves first)"
        )
    return f"invalid player {player!r} for this board: x has one disc more than o ({xs} to {os_}), so it is o's turn"


def initial_position(width: int = DEFAULT_SIZE[0], height: int = DEFAULT_SIZE[1]) -> Position:
    """The empty board with x to move."""
    return Position(width, height)
