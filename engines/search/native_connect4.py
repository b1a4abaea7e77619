"""The Connect Four alpha-beta search on the native core (engines/native/connect4_search.c).

``NativeAlphaBeta`` is ``AlphaBeta`` with its root and recursive worker in C: the same rules
(harness.games.connect4), the same evaluation (engines.connect4_evaluation.evaluate, its integer
weights passed from that module), the same move order, pruning, reductions and transposition-table
policy (an exact key, depth-preferred replacement, cleared when ``table_limit`` entries are full), so a
fixed-depth search returns the same value, best move, root scores, principal variation and node count
as the Python one (tests/test_native_connect4.py). Iterative deepening, root ordering, limits and
results stay in ``AlphaBeta.iterate``; one C call searches one depth.

Every supported size (4x4 to 12x12) is searched natively: the core holds a board in 64 bits, 128, or
three 64-bit words (10x12 to 12x12, up to 156 bits), and takes each board as a Python int.

``searcher`` is what engines call: the native searcher for a Connect Four position with the searches'
evaluation when the core is built and loaded (``engines.native.load``), else the Python ``AlphaBeta``
as before. Import this module only where a search starts: it loads the core's module.
"""

from __future__ import annotations

from engines import connect4_evaluation
from engines.native import load
from engines.search.alphabeta import _CHECK_EVERY, WIN_BOUND, AlphaBeta, SearchStopped
from harness.games.connect4 import MAX_SIZE, MIN_SIZE, Position

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

    from engines.search.game import Game

MAX_BITS = 192
"""The largest board the core holds, in bits (columns x (rows + 1)): more than 12x12's 156."""


def library() -> ModuleType | None:
    """The core's module (engines.native._connect4_search), or None (not built, stale, or ARENA_PURE=1)."""
    return load("connect4_search")


def fits(width: int, height: int) -> bool:
    """Whether the core holds a ``width`` x ``height`` board: every size from 4x4 to 12x12."""
    return MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE and width * (height + 1) <= MAX_BITS


def weights() -> list[int]:
    """The evaluation's integer weights in the order ``c4s_new`` reads them: CENTRE, THREAT,
    WEAK_THREAT, then FREE's four bonuses (engines.connect4_evaluation)."""
    e = connect4_evaluation
    return [e.CENTRE, e.THREAT, e.WEAK_THREAT, *e.FREE]


class Core:
    """One native context: a board size's geometry and the evaluation's weights, and the search's
    table, killers and history, in a handle that frees them when it goes."""

    def __init__(self, lib: ModuleType, width: int, height: int, table_limit: int) -> None:
        self.lib = lib
        self.size = (width, height)
        if not fits(width, height):
            raise ValueError(f"the native Connect Four search holds boards of {MIN_SIZE}x{MIN_SIZE} to "
                             f"{MAX_SIZE}x{MAX_SIZE}, not {width}x{height}")
        handle = lib.new(width, height, weights(), table_limit)
        if handle is None:
            raise MemoryError(f"the native Connect Four search could not set up {width}x{height}")
        self.handle: object = handle


class NativeAlphaBeta(AlphaBeta):
    """``AlphaBeta`` for Connect Four with the root and the recursion in C (see the module docstring)."""

    __slots__ = ("core",)

    def __init__(self, lib: ModuleType, position: Position, table_limit: int = 2_000_000, contempt: int = 0,
                 evaluate: Callable[[Any], int] | None = None) -> None:
        super().__init__(evaluate or connect4_evaluation.evaluate, table_limit, contempt)
        self.core = Core(lib, position.width, position.height, table_limit)

    def _board(self, game: Game) -> tuple[int, int]:
        """The position's discs as the core takes them: x's, then o's."""
        if not isinstance(game, Position) or game.size != self.core.size:
            raise ValueError("a native Connect Four searcher searches positions of the size it was made for")
        return game.masks

    def _sync_path(self) -> None:
        self.core.lib.set_path(self.core.handle, list(self.path))

    def _limits(self) -> list[int]:
        """The limits list the core's searches take: nodes and next_check are written back into it."""
        return [self.nodes, self._next_check, -1 if self.max_nodes is None else self.max_nodes,
                self.contempt, self._root_turn, int(self.reductions), self.root_margin]

    def _root(
        self, game: Game, depth: int, moves: list[int], previous_best: int
    ) -> tuple[int, int, list[int], dict[int, int]]:
        board = self._board(game)
        core = self.core
        ordered = [previous_best] + [m for m in moves if m != previous_best]
        self._sync_path()
        io = self._limits()
        stopped, out, found = core.lib.root(core.handle, *board, depth, ordered, io,
                                            -1.0 if self.deadline is None else self.deadline)
        self.nodes, self._next_check = io[0], io[1]
        if stopped:
            self._partial = (out[2], out[3], out[4])
            raise SearchStopped
        self.path.discard(game.key())  # as AlphaBeta._root leaves it
        scores = dict(zip(ordered, found))
        reordered = sorted(ordered, key=lambda m: -scores[m])
        return out[0], out[1], reordered, scores

    def wins_within(self, game: Game, depth: int, deadline: float | None = None) -> bool | None:
        board = self._board(game)
        core = self.core
        self.path = set()
        self._root_turn = game.turn
        self.deadline, self.max_nodes = deadline, None
        self._next_check = self.nodes + _CHECK_EVERY
        self._sync_path()
        io = self._limits()
        stopped, score = core.lib.negamax(core.handle, *board, depth, WIN_BOUND, WIN_BOUND + 1, 0, io,
                                          -1.0 if deadline is None else deadline)
        self.nodes, self._next_check = io[0], io[1]
        return None if stopped else score > WIN_BOUND

    def _table_move(self, game: Game) -> int:
        """The best move the core's table holds for ``game``'s position, or 0 for none (the principal
        variation is AlphaBeta's, read from this table)."""
        move: int = self.core.lib.table_move(self.core.handle, *self._board(game))
        return move


def searcher(position: object, evaluation: Callable[[Any], int], contempt: int = 0) -> AlphaBeta:
    """An alpha-beta searcher for ``position``: the native one for a Connect Four position (of any
    size) with ``evaluation`` the searches' (connect4_evaluation.evaluate) when the core is loaded;
    else the Python one."""
    if (isinstance(position, Position) and evaluation is connect4_evaluation.evaluate
            and fits(position.width, position.height)):
        lib = library()
        if lib is not None:
            try:
                return NativeAlphaBeta(lib, position, contempt=contempt, evaluate=evaluation)
            except MemoryError:
                pass  # no memory for the core's tables: the Python search needs less to start
    return AlphaBeta(evaluation, contempt=contempt)
