"""Exact Connect Four solver on W x H boards (4 <= W, H <= 12) in Pascal Pons's notation and score.

A position is the string of 1-based columns played from the empty board, first player first
(``parse_moves``; ``from_columns`` takes a list, for columns above 9). Its score, for the side to
move, is 0 for a draw, ``W*H/2 + 1 - s`` when the side to move wins with its s-th disc at best, and
the opposite when the opponent does. On odd boards, where the players have ceil and floor of W*H/2
discs, W*H/2 is read as the winner's own number of discs, as in Pons's code
(``(W*H + 1 - moves) // 2`` for a win with the next disc): a win with one's last disc scores 1.

Boards are Python ints in Pons's layout: column ``c`` is bits ``c*(H+1) .. c*(H+1)+H-1`` plus one
empty sentinel bit on top. The search is Pons's: negamax with alpha-beta in null windows that narrow
``[min, max]``, a transposition table of bounds keyed by ``position + mask``, only non-losing moves
(a forced block, never under an opponent's winning cell), moves ordered by the winning cells they
create and then centre first, and bounds from the number of discs left. The children's winning cells
are computed in one pass over lane-packed copies of the board and passed down, so a node never
recomputes its opponent's threats; a child whose table entry already refutes it cuts without a call.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
import time
from typing import Any

from harness.games.errors import PositionError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from harness.games.connect4 import Position

MIN_SIZE, MAX_SIZE = 4, 12
_CHECK_EVERY = 4096
"""Nodes between looks at the clock when a solve has a deadline."""
_SPREADS: dict[tuple[int, int], dict[int, tuple[int, int, tuple[tuple[int, int, int], ...]]]] = {}
"""Per board size, a memo of the children's lanes for each set of playable moves (see Solver._build)."""


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


def state_of(position: Position) -> State:
    """A Connect Four position (harness.games.connect4) as the solver takes it."""
    own, other = position.masks[position.turn], position.masks[position.turn ^ 1]
    return State(position.width, position.height, own, own | other, position.plies)


class OutOfBudget(Exception):
    """Raised by ``Solver.solve`` when its node or time budget ran out before the score was found."""


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


def _has_four(discs: int, height: int) -> bool:
    """Whether ``discs`` hold four in a row."""
    for d in (1, height + 1, height, height + 2):
        pairs = discs & (discs >> d)
        if pairs & (pairs >> 2 * d):
            return True
    return False


def from_columns(columns: Sequence[int], width: int = 7, height: int = 6) -> State:
    """The position after playing ``columns`` (1-based); raises PositionError naming the bad move."""
    _check_size(width, height)
    h1 = height + 1
    full = 1 << (height - 1)
    current = mask = 0
    for index, column in enumerate(columns):
        if not 1 <= column <= width:
            text = _text(columns)
            raise PositionError(f"column {column} (move {index + 1} of {text!r}) is out of range 1..{width}")
        base = (column - 1) * h1
        if mask & (full << base):
            text = _text(columns)
            raise PositionError(f"column {column} (move {index + 1} of {text!r}) is full: it holds {height} discs")
        current ^= mask
        mask |= mask + (1 << base)
    moves = len(columns)
    if _has_four(current ^ mask, height) or _has_four(current, height):
        _raise_first_win(columns, height)
    if moves == width * height:
        raise PositionError(f"{_text(columns)!r} fills the board: a finished position (a draw) has no score")
    return State(width, height, current, mask, moves)


def _text(columns: Sequence[int]) -> str:
    return "".join(str(c) for c in columns) if all(0 <= c <= 9 for c in columns) else ",".join(str(c) for c in columns)


def _raise_first_win(columns: Sequence[int], height: int) -> None:
    """Replay ``columns`` and raise for the first move that makes four in a row."""
    text = _text(columns)
    h1 = height + 1
    current = mask = 0
    for index, column in enumerate(columns):
        current ^= mask
        mask |= mask + (1 << ((column - 1) * h1))
        if _has_four(current ^ mask, height):
            if index + 1 < len(columns):
                raise PositionError(
                    f"move {index + 1} of {text!r} (column {column}) wins the game, so the moves after it are not legal")
            raise PositionError(f"move {index + 1} of {text!r} (column {column}) wins the game: a finished position has no score")


def parse_moves(text: str, width: int = 7, height: int = 6) -> State:
    """Parse Pons's notation (one digit per move, columns 1..9 at most) into a position to solve."""
    if not text.isascii() or not text.isdigit():
        for index, char in enumerate(text):
            if not ("0" <= char <= "9"):
                hint = f"1..{width}" if width <= 9 else "1..9 (from_columns takes columns above 9)"
                raise PositionError(f"invalid character {char!r} at index {index} of {text!r}: moves are column digits {hint}")
    return from_columns([ord(char) - 48 for char in text], width, height)


MOVE_TABLE_SIZE = 1 << 21
"""The table of a solver that has a move's time (the engines): about what the native core stores in
its first second of a Begin-Hard position (2.1 M entries), and a table grows (from 4,096 entries) no
further than its search needs (the native one, past 65,536 slots, straight to those of a full table)."""
LONG_TABLE_SIZE = 1 << 24
"""The table of a solver kept for many positions, each given seconds or as long as it takes
(``solve_lines``, ``arena solve``, the analysis oracle, the benchmark): Pons's size. Measured on Begin-Hard's first 24
positions (native, one solver): 2.48 G nodes with 1 << 21 entries, 1.91 G with 1 << 22, 1.53 G with
1 << 23, 1.19 G with 1 << 24 (mean CPU 17.1, 13.9, 11.4 and 9.7 s): a long proof that drops the
older half of a small table hundreds of times searches again what it dropped. Full, it takes 512 MB
native at 7 x 6 (1 GB for boards of more than 64 bits; while it doubles to that size, half as much
again), about 1.2 GB in the Python path's dict."""


class Solver:
    """Exact solver for one board size, reusable across positions.

    The transposition table (bounds keyed by ``position + mask``) is kept between calls; when it
    holds ``table_size`` entries its older half is dropped (``MOVE_TABLE_SIZE`` by default;
    ``LONG_TABLE_SIZE`` for a solver kept for many positions, with ``tidy`` between them). ``nodes`` counts the positions the
    search visits (negamax calls) since the solver was made or ``reset``.
    """

    def __init__(self, width: int = 7, height: int = 6, table_size: int = MOVE_TABLE_SIZE, native: bool = True) -> None:
        _check_size(width, height)
        self.width, self.height = width, height
        self.table_size = table_size
        self._table: dict[int, int] = {}
        self._native: _Native | None = _Native.make(width, height, table_size) if native else None
        h1 = height + 1
        self._bottom = ((1 << (width * h1)) - 1) // ((1 << h1) - 1)
        self._board = self._bottom * ((1 << height) - 1)
        self._root = [-1, 0]
        """(the discs of the position being solved, the root move that failed high in the current
        null-window search or 0), shared with the search."""
        self._root_move: int | None = None
        self._negamax, self._node_count, self._set_stop = self._build()
        self._nodes_before = 0
        self.bounds = (0, 0)
        """The score's bounds during a search: each null-window search narrows them to the score
        (for progress shown while a long search runs)."""

    @property
    def native(self) -> bool:
        """Whether the search runs in the native core (engines/native/connect4_solver.c): when it is
        built, ``native`` was not turned off and ARENA_PURE is not set (every supported size)."""
        return self._native is not None

    @property
    def root_move(self) -> int | None:
        """After ``solve``: a move (its 1-based column) that the search proved reaches the score it
        returned (the best move, for an exact score; a winning one for a won value; a move that keeps
        a draw for a drawn one), or None where the proof needed none (an immediate win, a bound
        read from the table) or the search was stopped. The same move on both paths."""
        if self._native is not None:
            column = int(self._native.lib.root_move(self._native.handle))
            return None if column < 0 else column + 1
        return self._root_move

    @property
    def nodes(self) -> int:
        """Positions visited since the solver was made or reset."""
        if self._native is not None:
            return self._native.nodes()
        return self._node_count() - self._nodes_before

    @property
    def table_entries(self) -> int:
        """Bounds held in the transposition table (at most ``table_size``, once it is 2 or more)."""
        return self._native.table_entries() if self._native is not None else len(self._table)

    def reset(self) -> None:
        """Forget the transposition table and the node count."""
        if self._native is not None:
            self._native.reset()
        self._table.clear()
        self._nodes_before = self._node_count()

    def tidy(self) -> None:
        """Between positions of a long run: empty a table that holds more than ``MOVE_TABLE_SIZE``
        entries (the node count is kept). What one proof stored seldom serves the next position, and
        a table grown to millions of stale entries makes every short proof after it read memory
        instead of cache: Pons's Middle-Medium set, one solver of ``LONG_TABLE_SIZE``, took 8.5 ms
        of CPU a position without this and 5.0 ms with it, in the same nodes; Begin-Hard's first 24
        positions searched 1.3% more nodes with it."""
        if self.table_entries > MOVE_TABLE_SIZE:
            if self._native is not None:
                self._native.clear()
            self._table.clear()

    def solve(self, state: State, max_nodes: int | None = None, deadline: float | None = None, *,
              low: int | None = None, high: int | None = None) -> int:
        """The exact score of ``state`` for the side to move.

        ``max_nodes`` (positions visited by this call) and ``deadline`` (a time.monotonic() value,
        looked at every few thousand nodes) bound the search: OutOfBudget when either runs out. A
        search stopped by an exception (OutOfBudget, a signal handler's timeout) leaves in the table
        only bounds proven before it, so the solver stays usable for the next position.

        ``low`` and ``high`` (low < high) ask less than the exact score, and cost fewer null-window
        searches: a result <= ``low`` says only that the score is <= ``low``, a result >= ``high`` that
        it is >= ``high``; between them it is exact. ``low=-1, high=1`` gives the value alone (won,
        drawn or lost: a weak solve, two null-window searches at most); ``low=v - 1, high=v`` asks
        only whether the score reaches ``v`` (one)."""
        window = (-_NO_LIMIT if low is None else low, _NO_LIMIT if high is None else high)
        if window[0] >= window[1]:
            raise ValueError(f"a window needs low < high, not {low} and {high}")
        if self._native is not None:
            self._check_state(state)
            return self._native.solve(self, state, max_nodes, deadline, window)
        if max_nodes is None and deadline is None:
            return self._solve(state, window)
        start = self._node_count()
        limit = None if max_nodes is None else start + max_nodes

        def stop() -> int:
            """The node count at which to look again; OutOfBudget when the budget is spent."""
            nodes = self._node_count()
            if (limit is not None and nodes >= limit) or (deadline is not None and time.monotonic() >= deadline):
                raise OutOfBudget
            upto = nodes + _CHECK_EVERY if deadline is not None else limit
            return upto if limit is None or upto is None else min(upto, limit)

        self._set_stop(stop(), stop)
        try:
            return self._solve(state, window)
        finally:
            self._set_stop(None, None)

    def _check_state(self, state: State) -> None:
        if state.width != self.width or state.height != self.height:
            raise PositionError(f"a {state.width}x{state.height} position given to a {self.width}x{self.height} solver")

    def _solve(self, state: State, window: tuple[int, int]) -> int:
        self._root_move = None
        self._check_state(state)
        size = self.width * self.height
        current, mask, moves = state.current, state.mask, state.moves
        if winning_cells(current, (mask + self._bottom) & self._board, self.height):
            return (size + 1 - moves) // 2
        opponent_wins = winning_cells(current ^ mask, self._board & ~mask, self.height)
        low, high = -((size - moves) // 2), (size + 1 - moves) // 2
        low, high = max(low, window[0]), min(high, window[1])  # the window (see solve)
        negamax = self._negamax
        root = self._root
        root[0] = moves
        # The last root move a search failed high with, and its score: it reaches the result if that
        # score does (a search can fail high on a bound alone, with no move).
        proved, proved_score = 0, low
        # Null-window searches narrow [low, high]; probing nearer 0 first finds draws and slow wins sooner.
        while low < high:
            self.bounds = (low, high)
            mid = low + (high - low) // 2
            if mid <= 0 and int(low / 2) < mid:
                mid = int(low / 2)
            elif mid >= 0 and int(high / 2) > mid:
                mid = int(high / 2)
            root[1] = 0
            score = negamax(current, mask, moves, mid, mid + 1, opponent_wins)
            if score <= mid:
                high = score
            else:
                low = score
                if root[1]:
                    proved, proved_score = root[1], score
        if proved and proved_score >= low:
            self._root_move = (proved.bit_length() - 1) // (self.height + 1) + 1
        return low

    def _build(self):  # type: ignore[no-untyped-def]
        """The search as a closure over the board's constants, so its hot loop reads only locals."""
        w, h = self.width, self.height
        size = w * h
        h0, h1, h2 = h, h + 1, h + 2
        h0x3, h1x3, h2x3 = 3 * h0, 3 * h1, 3 * h2
        bottom, board = self._bottom, self._board
        root = self._root
        column_masks = [((1 << h) - 1) << (c * h1) for c in range(w)]
        # Centre columns first; a column's priority breaks ties between equal threat counts.
        order = sorted(range(w), key=lambda c: (abs(2 * c - (w - 1)), c))
        priority = {c: w - rank for rank, c in enumerate(order)}
        # Threats of all children are computed at once: child i is one copy of the board in lane i,
        # far enough from its neighbours that no shift below carries bits from one lane into another.
        lane = w * h1 + 3 * h2
        # For a single child, each direction gets its own lane of the one board instead: multiplying
        # by up_k / down_k shifts a copy by k steps of that direction (plus a guard, undone at the end).
        guard = 3 * h2
        direction_lane = w * h1 + 2 * guard
        direction_lane2 = 2 * direction_lane
        steps = (1, h1, h0, h2)

        def shifter(k: int) -> int:
            return sum(1 << (j * direction_lane + guard + k * d) for j, d in enumerate(steps))

        up1, up2, up3, down1, down2, down3 = (shifter(k) for k in (1, 2, 3, -1, -2, -3))
        spreads = _SPREADS.setdefault((w, h), {})
        spreads_get = spreads.get
        spread_limit = 1 << 16
        table = self._table
        table_get = table.get
        table_size = self.table_size
        # Bounds share one table: an upper bound u is stored as u, a lower bound l as l + LOWER.
        lower = 4 * size
        split = 2 * size
        nodes = 0
        # A budget costs one comparison per node: at ``stop_at`` nodes, ``stopper`` raises or moves it on.
        never = 1 << 62
        stop_at = never
        stopper = None
        # By discs played: the score of losing at the opponent's next disc, and the bounds when neither
        # side can win at its next disc (both 0 with two cells or fewer left: a draw).
        losses = [-((size - n) // 2) for n in range(size)]
        lows = [-((size - 2 - n) // 2) if n < size - 2 else 0 for n in range(size)]
        highs = [(size - 1 - n) // 2 if n < size - 2 else 0 for n in range(size)]
        # Alpha from which every child fails low at its first bound unless it has no safe reply.
        next_win_only = [-lows[n + 1] if n + 1 < size - 2 else size for n in range(size)]

        def spread(possible: int) -> tuple[int, int, tuple[tuple[int, int, int], ...]]:
            """The moves of ``possible`` in lanes: (moves, one bit per lane, (move, priority, offset)...)."""
            moves_in_lanes = ones = 0
            entries = []
            for c in order:
                move = possible & column_masks[c]
                if move:
                    offset = len(entries) * lane
                    moves_in_lanes |= move << offset
                    ones |= 1 << offset
                    entries.append((move, priority[c], offset))
            if len(spreads) >= spread_limit:
                spreads.clear()
            result = spreads[possible] = (moves_in_lanes, ones, tuple(entries))
            return result

        def settle(key: int, mask: int, moves: int, alpha: int, children: list[tuple[int, int, int]]) -> int:
            """Where only a win with the mover's next disc reaches beta: look for one without recursing.

            It exists when a move leaves the opponent no reply that both parries every playable winning
            cell and stays off the cell under one; otherwise every child fails low at its first bound.
            """
            for _, move, threats in children:
                playable = ((mask | move) + bottom) & board
                forced = playable & threats
                if forced:
                    if forced & (forced - 1) or not forced & ~(threats >> 1):
                        break
                elif not playable & ~(threats >> 1):
                    break
            else:
                if len(table) >= table_size:
                    trim()
                table[key] = alpha
                return alpha
            score = -losses[moves + 1]
            if len(table) >= table_size:
                trim()
            table[key] = score + lower
            return score

        def trim() -> None:
            for old in list(islice(table, table_size // 2)):
                del table[old]

        def negamax(current: int, mask: int, moves: int, alpha: int, beta: int, opp_wins: int) -> int:
            # Precondition: the side to move cannot win at once; opp_wins = the opponent's winning cells.
            nonlocal nodes, stop_at
            nodes += 1
            if nodes >= stop_at:
                stop_at = stopper()
            possible = (mask + bottom) & board
            forced = possible & opp_wins
            if forced:
                if forced & (forced - 1):
                    return losses[moves]
                possible = forced
            # Never play right under a cell where the opponent would then win.
            possible &= ~(opp_wins >> 1)
            if not possible:
                return losses[moves]
            low = lows[moves]
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
            high = highs[moves]
            key = current + mask
            value = table_get(key)
            if value is not None:
                if value > split:
                    low = value - lower
                    if alpha < low:
                        alpha = low
                        if alpha >= beta:
                            return alpha
                else:
                    high = value
            if beta > high:
                beta = high
                if alpha >= beta:
                    return beta
            opponent = current ^ mask
            if possible & (possible - 1) == 0:
                # One move: its threats in one pass, the four directions side by side (see above).
                p = current | possible
                a = p * up1
                b = p * down1
                t = (a & p * up2) & (p * up3 | b) | (b & p * down2) & (p * down3 | a)
                t |= t >> direction_lane2
                t |= t >> direction_lane
                children = [(0, possible, (t >> guard) & (board ^ mask))]
                if alpha >= next_win_only[moves]:
                    return settle(key, mask, moves, alpha, children)
            else:
                lanes = spreads_get(possible)
                if lanes is None:
                    lanes = spread(possible)
                moves_in_lanes, ones, entries = lanes
                p = current * ones | moves_in_lanes
                r = (p << 1) & (p << 2) & (p << 3)
                a = p << h1
                b = p >> h1
                r |= (a & (a << h1)) & ((p << h1x3) | b) | (b & (b >> h1)) & ((p >> h1x3) | a)
                a = p << h0
                b = p >> h0
                r |= (a & (a << h0)) & ((p << h0x3) | b) | (b & (b >> h0)) & ((p >> h0x3) | a)
                a = p << h2
                b = p >> h2
                r |= (a & (a << h2)) & ((p << h2x3) | b) | (b & (b >> h2)) & ((p >> h2x3) | a)
                r &= (board ^ mask) * ones
                if alpha >= next_win_only[moves]:
                    return settle(key, mask, moves, alpha, [(0, move, (r >> offset) & board) for move, _, offset in entries])
                children = []
                child_keys = opponent + mask
                for move, rank, offset in entries:
                    threats = (r >> offset) & board
                    # A child whose stored upper bound already refutes it cuts here, without a call
                    # (a missing entry or a lower bound reads as at least ``lower``: never a cut).
                    value = -table_get(child_keys + move, lower)
                    if value >= beta:
                        if moves == root[0]:
                            root[1] = move
                        return value
                    children.append((threats.bit_count() * 16 + rank, move, threats))
                children.sort(reverse=True)
            for _, move, threats in children:
                score = -negamax(opponent, mask | move, moves + 1, -beta, -alpha, threats)
                if score >= beta:
                    if len(table) >= table_size:
                        trim()
                    table[key] = score + lower
                    if moves == root[0]:
                        root[1] = move
                    return score
                if score > alpha:
                    alpha = score
            if len(table) >= table_size:
                trim()
            table[key] = alpha
            return alpha

        def node_count() -> int:
            return nodes

        def set_stop(at: int | None, check: Any) -> None:
            nonlocal stop_at, stopper
            stop_at, stopper = (never if at is None else at), check

        return negamax, node_count, set_stop


def sign(score: int) -> int:
    """A score's value for the side to move: 1 won, 0 drawn, -1 lost."""
    return (score > 0) - (score < 0)


_OUT_OF_BUDGET = -1000
"""What the native core returns when its budget ran out (no score is that low)."""
_NO_LIMIT = 1 << 20
"""A window's side that asks nothing (scores are at most 12 x 12 / 2 + 1 in size)."""


def _timer_armed() -> bool:
    """Whether a timer signal may interrupt a search here: ITIMER_REAL armed, in the main thread."""
    import signal

    if not hasattr(signal, "getitimer") or signal.getitimer(signal.ITIMER_REAL)[0] == 0:
        return False
    import threading

    return threading.current_thread() is threading.main_thread()


class _Native:
    """One native solver (a handle from engines.native._connect4_solver, which frees it when it goes):
    its table and node count live in C; ``solve`` makes one call per position, the whole search in C."""

    def __init__(self, lib: Any, handle: object) -> None:
        self.lib, self.handle = lib, handle

    @classmethod
    def make(cls, width: int, height: int, table_size: int) -> _Native | None:
        """A native solver, or None: not built, or ARENA_PURE set."""
        from engines.native import load

        lib = load("connect4_solver")
        if lib is None:
            return None
        handle = lib.new(width, height, table_size)
        return None if handle is None else cls(lib, handle)

    def nodes(self) -> int:
        return int(self.lib.nodes(self.handle))

    def table_entries(self) -> int:
        return int(self.lib.table_entries(self.handle))

    def reset(self) -> None:
        self.lib.reset(self.handle)

    def clear(self) -> None:
        self.lib.clear(self.handle)

    def solve(self, solver: Solver, state: State, max_nodes: int | None, deadline: float | None,
              window: tuple[int, int]) -> int:
        """The score, or OutOfBudget. While a timer signal is armed (the engines' endgame timer, the
        progress of ``arena solve``), the search runs on a helper thread so that the handler runs on
        time in the main thread (reading ``bounds`` and ``nodes``); an exception it raises stops the
        search at its next look (every few thousand nodes), which keeps only proven bounds."""
        args = (self.handle, state.current, state.mask, state.moves, -1 if max_nodes is None else max(0, max_nodes),
                deadline is not None, 0.0 if deadline is None else deadline)
        if not _timer_armed():
            score = int(self.lib.solve(*args, False, *window))
        else:
            score = self._watched(solver, (*args, True, *window))
        if score == _OUT_OF_BUDGET:
            raise OutOfBudget
        return score

    def _watched(self, solver: Solver, args: tuple[Any, ...]) -> int:
        import signal
        import threading

        result: list[int] = []
        finished: list[bool] = []
        low, high, stop = self.lib.low, self.lib.high, self.lib.stop
        # The worker releases ``done`` when the search ends. (Not Thread.join: a join interrupted by a
        # handler's exception marks a live thread as stopped in Python 3.11.)
        done = threading.Lock()
        done.acquire()

        def search() -> None:
            try:
                result.append(int(self.lib.solve(*args)))
            finally:
                finished.append(True)  # before the release: a waiter that missed it still sees this
                done.release()

        worker = threading.Thread(target=search, daemon=True)
        stop(self.handle, False)
        # The worker starts with the timer's signal blocked (threads inherit the mask): the signal goes
        # to the main thread, and cannot interrupt the start itself.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        try:
            try:
                worker.start()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # a handler may raise from here on
            while not done.acquire(timeout=0.01):
                solver.bounds = (low(self.handle), high(self.handle))
        except BaseException:
            # The search must end before the solver is used or freed again, whatever else is raised.
            # A handler's exception may come just after ``done`` was taken (the search over, the lock
            # held here): so wait on ``finished``, never on the lock alone, which would wait forever.
            stop(self.handle, True)
            while worker.ident is not None and not finished:
                try:
                    done.acquire(timeout=0.01)
                except BaseException:
                    stop(self.handle, True)
            raise
        return result[0]


def solve(state: State) -> int:
    """The exact score of ``state`` for the side to move (a fresh Solver; use one Solver for many)."""
    return Solver(state.width, state.height, LONG_TABLE_SIZE).solve(state)


def parse_line(line: str, number: int, width: int = 7, height: int = 6) -> tuple[str, State] | None:
    """A ``POSITION [SCORE]`` line of Pons's files as (its position's text, its state); None for a
    blank line. PositionError names the line and the problem, never the line's text (the file may
    not be a file of positions)."""
    fields = line.split()
    if not fields:
        return None
    if len(fields) > 2:
        raise PositionError(f"line {number}: expected 'POSITION [SCORE]', got {len(fields)} words")
    bad = next((index for index, char in enumerate(fields[0]) if not "0" <= char <= "9"), None)
    if bad is not None:
        raise PositionError(f"line {number}: character {bad + 1} of the position is not a column digit "
                            f"(moves are column digits 1..{min(width, 9)})")
    try:
        return fields[0], parse_moves(fields[0], width, height)
    except PositionError as error:
        raise PositionError(f"line {number}: {error}") from None


def solve_lines(lines: Iterable[str], width: int = 7, height: int = 6) -> Iterator[str]:
    """Solve ``POSITION [SCORE]`` lines, yielding ``POSITION SCORE`` as in Pons's files."""
    solver = Solver(width, height, LONG_TABLE_SIZE)
    for number, line in enumerate(lines, 1):
        parsed = parse_line(line, number, width, height)
        if parsed is not None:
            solver.tidy()
            yield f"{parsed[0]} {solver.solve(parsed[1])}"
