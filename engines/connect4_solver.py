"""Exact Connect Four solver on W x H boards (4 <= W, H <= 12) in Pascal Pons's notation and score.

A position is the string of 1-based columns played from the empty board, first player first. Its
score, for the side to move, is 0 for a draw, ``k`` when the side to move wins with its k-th last
disc at best (1 with its last disc; on even boards ``W*H/2 + 1 - s`` for a win with its s-th disc)
and ``-k`` when the opponent does. Boards are Python ints in Pons's layout: column ``c`` is bits
``c*(H+1) .. c*(H+1)+H-1`` plus one empty sentinel bit on top.

The search is Pons's: negamax with alpha-beta in null windows that narrow ``[min, max]``, a
transposition table of bounds keyed by ``position + mask``, only non-losing moves, moves ordered by
the winning cells they create and then centre first.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from harness.games.errors import PositionError

MIN_SIZE, MAX_SIZE = 4, 12


@dataclass(frozen=True)
class State:
    """A position to solve: bitboards in Pons's layout, from the side to move's point of view."""

    width: int
    height: int
    current: int
    """Discs of the side to move."""
    mask: int
    """All discs."""
    moves: int
    """Number of discs played."""


def _check_size(width: int, height: int) -> None:
    if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
        raise PositionError(f"board {width}x{height} is not supported: width and height must be in {MIN_SIZE}..{MAX_SIZE}")


def winning_cells(discs: int, empty: int, height: int) -> int:
    """Empty cells (a subset of ``empty``) where one more disc makes four in a row with ``discs``."""
    r = (discs << 1) & (discs << 2) & (discs << 3)
    for d in (height + 1, height, height + 2):
        q = (discs << d) & (discs << 2 * d)
        r |= q & (discs << 3 * d)
        r |= q & (discs >> d)
        q = (discs >> d) & (discs >> 2 * d)
        r |= q & (discs << d)
        r |= q & (discs >> 3 * d)
    return r & empty


def from_columns(columns: Sequence[int], width: int = 7, height: int = 6) -> State:
    """The position after playing ``columns`` (1-based); raises PositionError naming the bad move."""
    _check_size(width, height)
    h1 = height + 1
    board = ((1 << (width * h1)) - 1) // ((1 << h1) - 1) * ((1 << height) - 1)
    current = mask = 0
    moves = 0
    text = "".join(str(c) for c in columns)
    for index, column in enumerate(columns):
        if not 1 <= column <= width:
            raise PositionError(f"column {column} (move {index + 1} of {text!r}) is out of range 1..{width}")
        top = 1 << ((column - 1) * h1 + height - 1)
        if mask & top:
            raise PositionError(f"column {column} (move {index + 1} of {text!r}) is full: it holds {height} discs")
        move = (mask + (1 << ((column - 1) * h1))) & (((1 << height) - 1) << ((column - 1) * h1))
        if winning_cells(current, move, height):
            if index + 1 < len(columns):
                raise PositionError(
                    f"move {index + 1} of {text!r} (column {column}) wins the game, so the moves after it are not legal")
            raise PositionError(f"move {index + 1} of {text!r} (column {column}) wins the game: a finished position has no score")
        current ^= mask
        mask |= move
        moves += 1
    if moves == width * height:
        raise PositionError(f"{text!r} fills the board: a finished position (a draw) has no score")
    del board
    return State(width, height, current, mask, moves)


def parse_moves(text: str, width: int = 7, height: int = 6) -> State:
    """Parse Pons's notation (one digit per move, columns 1..width) into a position to solve."""
    _check_size(width, height)
    for index, char in enumerate(text):
        if char not in "0123456789":
            raise PositionError(f"invalid character {char!r} at index {index} of {text!r}: moves are column digits 1..{width}")
    return from_columns([int(char) for char in text], width, height)


class Solver:
    """Exact solver for one board size; its transposition table persists between positions.

    ``nodes`` counts the positions the search visits (negamax calls) since the last ``reset``.
    """

    def __init__(self, width: int = 7, height: int = 6, table_size: int = 1 << 21) -> None:
        _check_size(width, height)
        self.width, self.height = width, height
        self.table_size = table_size
        self.nodes = 0
        self._table: dict[int, int] = {}
        self._negamax = self._build()

    def reset(self) -> None:
        """Forget the transposition table and the node count."""
        self._table.clear()
        self.nodes = 0

    def solve(self, state: State) -> int:
        """The exact score of ``state`` for the side to move."""
        if (state.width, state.height) != (self.width, self.height):
            raise PositionError(f"a {state.width}x{state.height} position given to a {self.width}x{self.height} solver")
        w, h = self.width, self.height
        size = w * h
        h1 = h + 1
        bottom = ((1 << (w * h1)) - 1) // ((1 << h1) - 1)
        board = bottom * ((1 << h) - 1)
        current, mask, moves = state.current, state.mask, state.moves
        empty = board & ~mask
        if winning_cells(current, (mask + bottom) & board, h):
            return (size + 1 - moves) // 2
        opponent_wins = winning_cells(current ^ mask, empty, h)
        low, high = -((size - moves) // 2), (size + 1 - moves) // 2
        negamax = self._negamax
        while low < high:
            mid = low + (high - low) // 2
            if mid <= 0 and int(low / 2) < mid:
                mid = int(low / 2)
            elif mid >= 0 and int(high / 2) > mid:
                mid = int(high / 2)
            score = negamax(current, mask, moves, mid, mid + 1, opponent_wins)
            if score <= mid:
                high = score
            else:
                low = score
        return low

    def _build(self):  # type: ignore[no-untyped-def]
        """The search as a closure over the board's constants (no attribute look-ups inside)."""
        w, h = self.width, self.height
        size = w * h
        h1, h2, h0 = h + 1, h + 2, h
        bottom = ((1 << (w * h1)) - 1) // ((1 << h1) - 1)
        board = bottom * ((1 << h) - 1)
        order = sorted(range(w), key=lambda c: (abs(2 * c - (w - 1)), c))
        columns = [(((1 << h) - 1) << (c * h1), w - rank) for rank, c in enumerate(order)]
        table = self._table
        table_get = table.get
        table_size = self.table_size
        solver = self
        # Table values: upper bound u stored as u + OFFSET_UPPER, lower bound l as l + OFFSET_LOWER.
        max_score = (size + 1) // 2
        upper_offset = 0
        lower_offset = 4 * max_score
        split = 2 * max_score

        def negamax(current: int, mask: int, moves: int, alpha: int, beta: int, opp_wins: int) -> int:
            # Precondition: the side to move cannot win at once; opp_wins = the opponent's winning cells.
            solver.nodes += 1
            possible = (mask + bottom) & board
            forced = possible & opp_wins
            if forced:
                if forced & (forced - 1):
                    return -((size - moves) // 2)
                possible = forced
            nxt = possible & ~(opp_wins >> 1)
            if not nxt:
                return -((size - moves) // 2)
            if moves >= size - 2:
                return 0
            low = -((size - 2 - moves) // 2)
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
            high = (size - 1 - moves) // 2
            key = current + mask
            value = table_get(key)
            if value is not None:
                if value > split:
                    low = value - lower_offset
                    if alpha < low:
                        alpha = low
                        if alpha >= beta:
                            return alpha
                else:
                    high = value - upper_offset
            if beta > high:
                beta = high
                if alpha >= beta:
                    return beta
            children = []
            for column_mask, priority in columns:
                move = nxt & column_mask
                if move:
                    p = current | move
                    r = (p << 1) & (p << 2) & (p << 3)
                    q = (p << h1) & (p << 2 * h1)
                    r |= q & (p << 3 * h1)
                    r |= q & (p >> h1)
                    q = (p >> h1) & (p >> 2 * h1)
                    r |= q & (p << h1)
                    r |= q & (p >> 3 * h1)
                    q = (p << h0) & (p << 2 * h0)
                    r |= q & (p << 3 * h0)
                    r |= q & (p >> h0)
                    q = (p >> h0) & (p >> 2 * h0)
                    r |= q & (p << h0)
                    r |= q & (p >> 3 * h0)
                    q = (p << h2) & (p << 2 * h2)
                    r |= q & (p << 3 * h2)
                    r |= q & (p >> h2)
                    q = (p >> h2) & (p >> 2 * h2)
                    r |= q & (p << h2)
                    r |= q & (p >> 3 * h2)
                    r &= board & ~(mask | move)
                    children.append((r.bit_count() * 16 + priority, move, r))
            children.sort(reverse=True)
            opponent = current ^ mask
            for _, move, r in children:
                score = -negamax(opponent, mask | move, moves + 1, -beta, -alpha, r)
                if score >= beta:
                    if len(table) >= table_size:
                        table.clear()
                    table[key] = score + lower_offset
                    return score
                if score > alpha:
                    alpha = score
            if len(table) >= table_size:
                table.clear()
            table[key] = alpha + upper_offset
            return alpha

        return negamax


def solve(state: State) -> int:
    """The exact score of ``state`` for the side to move (a fresh Solver; use one Solver for many)."""
    return Solver(state.width, state.height).solve(state)


def solve_lines(lines: Iterable[str], width: int = 7, height: int = 6) -> Iterator[str]:
    """Solve ``POSITION [SCORE]`` lines, yielding ``POSITION SCORE`` as in Pons's files."""
    solver = Solver(width, height)
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) > 2:
            raise PositionError(f"line {number}: expected 'POSITION [SCORE]', got {line.strip()!r}")
        try:
            state = parse_moves(fields[0], width, height)
        except PositionError as error:
            raise PositionError(f"line {number}: {error}") from None
        yield f"{fields[0]} {solver.solve(state)}"
