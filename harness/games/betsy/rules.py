"""Betsy rules core: positions, legal moves, make/unmake, lines and outcome.

Pure and fast: no I/O, no clock, no randomness, nothing heavy imported, because every engine process
imports this module once per move. The rules are those of docs/rules.md.

Representation. A board of ``n`` columns and ``n + 3`` rows is two bitboards in Python ints, one per
colour. Cell (column ``c``, height ``h``) -- ``c`` from 0 on the left, ``h`` from 0 at the bottom -- is
bit ``c * (n + 3) + h``, so each column is a contiguous run of bits with its bottom pebble lowest, and a
rotation is a shift inside that run. Column heights are kept beside the masks. Only the top ``n`` rows
(heights 3 .. n + 2) count for lines; their masks are precomputed per ``n``.

Moves are ints, as on the wire: ``c`` drops into column ``c`` (1-based), ``-c`` rotates column ``c``.
"""

from __future__ import annotations

# typing costs ~10 ms of import time, paid by every engine process on every move: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Literal, TypeAlias

    WinPriority: TypeAlias = Literal["mover", "blue"]

Move = int
"""``c`` (1..n) drops a pebble into column ``c``; ``-c`` rotates column ``c``."""
Bitboard = int
Colour = int
"""0 for blue (``x``), 1 for red (``o``)."""

BLUE: Colour = 0
RED: Colour = 1
PLAYERS = "xo"
"""``PLAYERS[colour]`` is the colour's letter on the wire."""
WIN_PRIORITIES: tuple[WinPriority, ...] = ("mover", "blue")
MAX_N = 16
"""The largest board size the harness accepts (``arena moves``/``match``/``validate``, configs, engines'
argv). The engines answer inside 1 s up to here and are checked at n = 3..12; far larger boards only
cost time (a board of n = 1000 takes minutes to set up)."""


def size_problem(n: int) -> str | None:
    """Why ``n`` is not a supported board size, or None."""
    if 1 <= n <= MAX_N:
        return None
    return f"board sizes from 1 to {MAX_N} are supported"


from harness.games.errors import PositionError as PositionError  # noqa: E402  (re-exported)


class Geometry:
    """Everything about a board size that does not depend on the pebbles: masks and line tables."""

    __slots__ = (
        "n", "height", "cells", "supply", "column_masks", "column_bits", "lines",
        "lines_by_cell", "lines_by_column", "string_to_bit",
    )

    def __init__(self, n: int) -> None:
        if n < 1:
            raise PositionError(f"board size n must be at least 1, got {n!r}")
        height = n + 3
        self.n = n
        self.height = height
        self.cells = n * height
        # Each colour owns n(n+3)/2 pebbles; n(n+3) is always even.
        self.supply = self.cells // 2
        self.column_bits: Bitboard = (1 << height) - 1
        """Mask of one column's bits, shifted down to bit 0."""
        self.column_masks: tuple[Bitboard, ...] = tuple(
            self.column_bits << (c * height) for c in range(n)
        )

        def bit(column: int, top_row: int) -> Bitboard:
            # top_row 0 is the top row of the board, i.e. height n + 2.
            return 1 << (column * height + height - 1 - top_row)

        rows = [sum(bit(c, r) for c in range(n)) for r in range(n)]
        columns = [sum(bit(c, r) for r in range(n)) for c in range(n)]
        diagonals = [sum(bit(i, i) for i in range(n)), sum(bit(n - 1 - i, i) for i in range(n))]
        self.lines: tuple[Bitboard, ...] = tuple(dict.fromkeys(rows + columns + diagonals))
        """Every winning line of the top n rows (n = 1 has one distinct line)."""
        self.lines_by_cell: tuple[tuple[Bitboard, ...], ...] = tuple(
            tuple(line for line in self.lines if line >> index & 1) for index in range(self.cells)
        )
        """Lines through each cell: the only lines a drop on that cell can complete."""
        self.lines_by_column: tuple[tuple[Bitboard, ...], ...] = tuple(
            tuple(line for line in self.lines if line & mask) for mask in self.column_masks
        )
        """Lines through each column: the only lines a rotation of that column can change."""
        self.string_to_bit: tuple[int, ...] = tuple(
            (i % n) * height + height - 1 - i // n for i in range(self.cells)
        )
        """Bit index of each character of the row-major, top-first board string."""


_GEOMETRIES: dict[int, Geometry] = {}


def geometry(n: int) -> Geometry:
    """The (cached) geometry of an ``n``-column board."""
    found = _GEOMETRIES.get(n)
    if found is None:
        found = _GEOMETRIES[n] = Geometry(n)
    return found


def parse_player(text: str) -> Colour:
    """``"x"`` -> BLUE, ``"o"`` -> RED."""
    if text == "x":
        return BLUE
    if text == "o":
        return RED
    raise PositionError(f"invalid player {text!r}: use x (blue) or o (red)")


def parse_n(text: str) -> int:
    """The board size from command-line text: a whole number from 1 to MAX_N."""
    # Plain ASCII digits only: int() would also take "1_0", " 3" or non-Latin digits.
    if not (text.isascii() and text.isdigit()) or not text.strip("0"):
        raise PositionError(f"invalid board size {text!r}: n must be a whole number >= 1")
    if len(text.lstrip("0")) > len(str(MAX_N)) or int(text) > MAX_N:  # no int() of 5000 digits
        raise PositionError(f"invalid board size {text!r}: {size_problem(MAX_N + 1)}")
    return int(text)


def parse_move(text: str) -> Move:
    """A move's text (``"3"``, ``"-2"``) as an int; range is checked by ``Position.is_legal``."""
    digits = text[1:] if text[:1] == "-" else text
    if not (digits.isascii() and digits.isdigit()):
        raise PositionError(
            f"invalid move {text!r}: use c to drop into column c, or -c to rotate column c"
        )
    return int(text)


def board_problem(n: int, board: str) -> str | None:
    """Why ``board`` is not a valid ``n``-column board, or None if it is."""
    g = geometry(n)
    if len(board) != g.cells:
        return (
            f"board has {len(board)} characters, expected {g.cells} for n = {n} "
            f"({n} columns x {g.height} rows)"
        )
    for index, char in enumerate(board):
        if char not in ".xo":
            return (
                f"bad character {char!r} at position {index + 1} (row {index // n + 1}, column "
                f"{index % n + 1}): use . (empty), x (blue) or o (red)"
            )
    for c in range(n):
        seen_empty_below = False
        for top_row in range(g.height - 1, -1, -1):
            char = board[top_row * n + c]
            if char == ".":
                seen_empty_below = True
            elif seen_empty_below:
                return (
                    f"floating pebble in column {c + 1}, row {top_row + 1} from the top: the cell "
                    f"below it is empty, but pebbles fall to the bottom of their column"
                )
    for letter, name in (("x", "blue"), ("o", "red")):
        count = board.count(letter)
        if count > g.supply:
            return (
                f"too many {name} pebbles: {count} {letter} on the board, but each colour has only "
                f"{g.supply} for n = {n}"
            )
    return None


class Outcome:
    """A finished game's winner and the line that decided it."""

    __slots__ = ("winner", "line")

    def __init__(self, winner: Colour, line: Bitboard) -> None:
        self.winner = winner
        """The colour that won."""
        self.line = line
        """One complete line of the winner (a bitboard)."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Outcome):
            return NotImplemented
        return (self.winner, self.line) == (other.winner, other.line)

    def __hash__(self) -> int:
        return hash((self.winner, self.line))

    def __repr__(self) -> str:
        return f"Outcome(winner={PLAYERS[self.winner]!r}, line={self.line:#x})"


class Position:
    """A Betsy position (board and side to move) with make/unmake.

    ``push`` trusts its move: callers check ``is_legal`` first (the referee does). Search uses
    ``push``/``pop``; ``copy`` is for boundaries.
    """

    __slots__ = ("geometry", "n", "masks", "heights", "turn", "win_priority", "_stack")

    def __init__(
        self,
        n: int,
        board: str | None = None,
        turn: Colour = BLUE,
        win_priority: WinPriority = "mover",
    ) -> None:
        g = geometry(n)
        self.geometry = g
        self.n = n
        self.masks: list[Bitboard] = [0, 0]
        """Bitboard of each colour's pebbles, indexed by Colour."""
        self.heights: list[int] = [0] * n
        """Number of pebbles in each column (0-based columns)."""
        self.turn: Colour = turn
        """Side to move."""
        if win_priority not in WIN_PRIORITIES:
            raise PositionError(f"invalid win priority {win_priority!r}: use mover or blue")
        self.win_priority: WinPriority = win_priority
        """Whose lines count first when one move completes lines of both colours."""
        self._stack: list[tuple[int, Bitboard, Bitboard, int]] = []
        if board is not None:
            problem = board_problem(n, board)
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
            self.heights = [(occupied & mask).bit_count() for mask in g.column_masks]

    @classmethod
    def from_text(
        cls, n: int | str, player: str, board: str, win_priority: WinPriority = "mover"
    ) -> Position:
        """Parse the wire form ``N PLAYER BOARD``; raises PositionError naming the problem."""
        size = parse_n(n) if isinstance(n, str) else n
        if size < 1:
            raise PositionError(f"invalid board size {n!r}: n must be a whole number >= 1")
        if size > MAX_N:
            raise PositionError(f"invalid board size {n!r}: {size_problem(size)}")
        return cls(size, board, parse_player(player), win_priority)

    def copy(self) -> Position:
        """An independent copy without the move stack."""
        other = Position.__new__(Position)
        other.geometry = self.geometry
        other.n = self.n
        other.masks = self.masks[:]
        other.heights = self.heights[:]
        other.turn = self.turn
        other.win_priority = self.win_priority
        other._stack = []
        return other

    # --- text -----------------------------------------------------------------------------------

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

    @property
    def player(self) -> str:
        """Side to move as its wire letter, ``x`` or ``o``."""
        return PLAYERS[self.turn]

    @property
    def size_text(self) -> str:
        """The size as the protocol's first argument: ``n``."""
        return str(self.n)

    def __repr__(self) -> str:
        return f"Position({self.n}, {self.board()!r}, {self.player!r})"

    def __str__(self) -> str:
        """The board drawn as rows, top first."""
        text = self.board()
        n = self.n
        return "\n".join(text[r * n:(r + 1) * n] for r in range(self.geometry.height))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.n == other.n and self.key() == other.key()

    def __hash__(self) -> int:
        return hash((self.n, self.key()))

    # --- state ----------------------------------------------------------------------------------

    def key(self) -> int:
        """An exact key of (board, side to move) for tables and repetition; unique per n."""
        x, o = self.masks
        return (((o << self.geometry.cells) | x) << 1) | self.turn

    def pebbles_in_hand(self, colour: Colour) -> int:
        """Pebbles ``colour`` can still drop."""
        return self.geometry.supply - self.masks[colour].bit_count()

    # --- moves ----------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Drops 1..n (where allowed) then rotations -1..-n (where allowed)."""
        heights = self.heights
        moves: list[Move] = []
        g = self.geometry
        if self.masks[self.turn].bit_count() < g.supply:
            top = g.height
            moves = [c + 1 for c in range(self.n) if heights[c] < top]
        moves += [-(c + 1) for c in range(self.n) if heights[c]]
        return moves

    def generate_legal_moves(self) -> Iterator[Move]:
        """Iterate over ``legal_moves()``."""
        return iter(self.legal_moves())

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` may be played here (range, full/empty column, pebbles in hand)."""
        if not isinstance(move, int) or isinstance(move, bool):
            return False
        if 1 <= move <= self.n:
            return (
                self.heights[move - 1] < self.geometry.height
                and self.masks[self.turn].bit_count() < self.geometry.supply
            )
        if 1 <= -move <= self.n:
            return self.heights[-move - 1] > 0
        return False

    def illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` is illegal here (one line), or None if it is legal."""
        n = self.n
        if isinstance(move, bool) or not isinstance(move, int):
            return f"move {move!r} is not a whole number"
        if move == 0 or abs(move) > n:
            return f"move {move} is out of range: use 1..{n} to drop or -1..-{n} to rotate"
        column = abs(move)
        if move > 0:
            if self.heights[column - 1] >= self.geometry.height:
                return f"cannot drop into column {column}: it is full"
            if self.masks[self.turn].bit_count() >= self.geometry.supply:
                return (
                    f"cannot drop: {self.player} has no pebbles in hand (all "
                    f"{self.geometry.supply} are on the board); rotate a column instead"
                )
            return None
        if self.heights[column - 1] == 0:
            return f"cannot rotate column {column}: it is empty"
        return None

    def push(self, move: Move) -> None:
        """Play a legal move (unchecked) and pass the turn."""
        g = self.geometry
        masks = self.masks
        if move > 0:
            c = move - 1
            h = self.heights[c]
            self._stack.append((c, masks[0], masks[1], h))
            masks[self.turn] |= 1 << (c * g.height + h)
            self.heights[c] = h + 1
        else:
            c = -move - 1
            x, o = masks
            self._stack.append((c, x, o, self.heights[c]))
            base = c * g.height
            column_mask = g.column_masks[c]
            top = 1 << (self.heights[c] - 1)
            xc = (x & column_mask) >> base
            oc = (o & column_mask) >> base
            # The bottom pebble leaves, the column falls one cell, the pebble goes back on top.
            if xc & 1:
                xc = (xc >> 1) | top
                oc >>= 1
            else:
                oc = (oc >> 1) | top
                xc >>= 1
            masks[0] = (x & ~column_mask) | (xc << base)
            masks[1] = (o & ~column_mask) | (oc << base)
        self.turn ^= 1

    def pop(self) -> Move:
        """Undo the last ``push``; returns the column index (0-based) it touched."""
        c, x, o, h = self._stack.pop()
        self.masks[0] = x
        self.masks[1] = o
        self.heights[c] = h
        self.turn ^= 1
        return c

    def after(self, move: Move) -> Position:
        """A new position with ``move`` played (checked); raises PositionError if illegal."""
        reason = self.illegal_reason(move)
        if reason is not None:
            raise PositionError(reason)
        child = self.copy()
        child.push(move)
        return child

    # --- lines and outcome ----------------------------------------------------------------------

    def has_line(self, colour: Colour) -> bool:
        """Whether ``colour`` has a complete line in the top n rows."""
        mask = self.masks[colour]
        for line in self.geometry.lines:
            if mask & line == line:
                return True
        return False

    def _first_line(self, colour: Colour, lines: tuple[Bitboard, ...]) -> Bitboard:
        mask = self.masks[colour]
        for line in lines:
            if mask & line == line:
                return line
        return 0

    def outcome(self) -> Outcome | None:
        """The winner of this position, if a line is complete, else None.

        Lines are judged as after the move that led here: under ``mover`` priority the side that just
        moved (the one not to move) is checked first; under ``blue``, blue is.
        """
        first = BLUE if self.win_priority == "blue" else self.turn ^ 1
        lines = self.geometry.lines
        for colour in (first, first ^ 1):
            line = self._first_line(colour, lines)
            if line:
                return Outcome(colour, line)
        return None

    def winner(self) -> Colour | None:
        """``outcome().winner``, or None."""
        outcome = self.outcome()
        return None if outcome is None else outcome.winner

    def has_winning_move(self) -> bool:
        """Whether the side to move has a move that wins at once (same answer as trying every
        move, much cheaper).

        A drop or rotation changes a single cell of any row or diagonal, and a column's line can only
        be completed by rotating a full column, so a win needs a line that already holds n - 1 of
        the mover's pebbles; only those lines' missing cells are examined.
        """
        g = self.geometry
        mover = self.turn
        if self.win_priority == "blue" and mover == RED or self.n == 1:
            return self._has_winning_move_by_trying()
        own = self.masks[mover]
        height = g.height
        heights = self.heights
        can_drop = own.bit_count() < g.supply
        occupied = self.masks[0] | self.masks[1]
        for line in g.lines:
            missing = line & ~own
            if missing & (missing - 1):
                continue  # two or more cells missing
            if not missing:
                return True  # already complete (not in a game in progress)
            index = missing.bit_length() - 1
            column, h = divmod(index, height)
            column_height = heights[column]
            if can_drop and h == column_height and not occupied & missing:
                return True  # drop onto the missing cell
            if column_height == 0 or h >= column_height:
                continue
            column_line = line & g.column_masks[column] == line
            if column_line:
                if column_height == height and self._rotation_wins(column):
                    return True
                continue
            # Rotating the column brings the pebble above (or, at the top, the bottom one) here.
            source = index + 1 if h + 1 < column_height else column * height
            if own >> source & 1:
                return True
        return False

    def opponent_has_winning_move(self) -> bool:
        """Whether the side not to move could win at once if it were its turn (a threat)."""
        self.turn ^= 1
        try:
            return self.has_winning_move()
        finally:
            self.turn ^= 1

    def _rotation_wins(self, column: int) -> bool:
        self.push(-(column + 1))
        winner = self.winner_after_push(-(column + 1))
        self.pop()
        return winner == self.turn

    def _has_winning_move_by_trying(self) -> bool:
        mover = self.turn
        for move in self.legal_moves():
            self.push(move)
            winner = self.winner_after_push(move)
            self.pop()
            if winner == mover:
                return True
        return False

    def winner_after_push(self, move: Move) -> Colour | None:
        """The winner right after ``push(move)``, checking only lines the move can have changed.

        Valid when the position before the move had no complete line (true in any game in
        progress); ``outcome()`` is the full check.
        """
        g = self.geometry
        mover = self.turn ^ 1
        if move > 0:
            c = move - 1
            index = c * g.height + self.heights[c] - 1
            lines = g.lines_by_cell[index]
            if not lines:
                return None
            mask = self.masks[mover]
            for line in lines:
                if mask & line == line:
                    # A drop adds only the mover's pebble, so only the mover can gain a line; under
                    # blue priority a simultaneous blue line is impossible here for the same reason.
                    return mover
            return None
        lines = g.lines_by_column[-move - 1]
        first = BLUE if self.win_priority == "blue" else mover
        mask = self.masks[first]
        for line in lines:
            if mask & line == line:
                return first
        mask = self.masks[first ^ 1]
        for line in lines:
            if mask & line == line:
                return first ^ 1
        return None


def initial_position(n: int, win_priority: WinPriority = "mover") -> Position:
    """The empty board with blue to move."""
    return Position(n, None, BLUE, win_priority)
