"""The Betsy alpha-beta search on the native core (engines/native/betsy_search.c).

``NativeAlphaBeta`` is ``AlphaBeta`` with its root and recursive worker in C: the same rules, the same
evaluation (built from the same ``Weights``), the same move order, pruning, reductions, repetition
draws and transposition-table policy (an exact key, depth-preferred replacement, cleared when
``table_limit`` entries are full), so a fixed-depth search returns the same value, best move and node
count as the Python one (tests/test_native_betsy.py). Iterative deepening, root ordering, limits
and results stay in ``AlphaBeta.iterate``; one C call searches one depth.

``searcher`` is what engines call: the native searcher for a Betsy position when the core is built
and loaded (``engines.native.load``), else the Python ``AlphaBeta`` as before. Import this module
only where a search starts: it loads the core's module.
"""

from __future__ import annotations

from engines.evaluation import Weights, make_evaluator
from engines.native import load
from engines.search.alphabeta import _CHECK_EVERY, WIN_BOUND, AlphaBeta, SearchStopped
from harness.games.betsy import Position
from harness.games.betsy.rules import MAX_N

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

    from engines.search.game import Game



def library() -> ModuleType | None:
    """The core's module (engines.native._betsy_search), or None (not built, stale, or ARENA_PURE=1)."""
    return load("betsy_search")


def evaluation_tables(weights: Weights, n: int) -> list[int]:
    """The integers ``make_evaluator(weights)`` derives for boards of size ``n``, in the order
    ``betsy_new`` reads them (the same roundings, done here once)."""
    supply = n * (n + 3) // 2
    open_values = [0 if k == 0 else round(weights.base ** k) for k in range(n + 1)]
    blocked = [round(weights.blocked * v) for v in open_values]
    stack = [round(weights.stack * v) for v in open_values]
    ring_line = round(weights.ring * open_values[n - 1])
    flags = [1 if weights.ring else 0, ring_line, 1 if weights.stack else 0, round(weights.tempo)]
    hand = [round(weights.hand * d) for d in range(-supply, supply + 1)]
    return open_values + blocked + stack + flags + hand


class Core:
    """One native context: a board size's geometry and evaluation, and the search's table, killers
    and history, in a handle that frees them when it goes."""

    def __init__(self, lib: ModuleType, n: int, weights: Weights, blue_priority: bool,
                 table_limit: int) -> None:
        self.lib = lib
        self.n = n
        self.cells = n * (n + 3)
        self.nbytes = (2 * self.cells + 1 + 7) // 8
        if not 1 <= n <= MAX_N:
            raise ValueError(f"the native Betsy core holds boards of n = 1 to {MAX_N}, not {n}")
        tables = evaluation_tables(weights, n)
        handle = lib.new(n, int(blue_priority), tables, table_limit)
        if handle is None:
            raise MemoryError(f"the native Betsy core could not set up n = {n}")
        self.handle: object = handle

    def encode(self, key: int) -> bytes:
        """A Python position key (Position.key()) as the core reads it."""
        return key.to_bytes(self.nbytes, "little")


class NativeAlphaBeta(AlphaBeta):
    """``AlphaBeta`` for Betsy with the root and the recursion in C (see the module docstring)."""

    __slots__ = ("core", "win_priority")

    def __init__(self, lib: ModuleType, position: Position, weights: Weights, table_limit: int = 2_000_000,
                 contempt: int = 0, evaluate: Callable[[Any], int] | None = None) -> None:
        super().__init__(evaluate or make_evaluator(weights), table_limit, contempt)
        self.core = Core(lib, position.n, weights, position.win_priority == "blue", table_limit)
        self.win_priority = position.win_priority

    def _check(self, game: Game) -> None:
        if not isinstance(game, Position) or game.n != self.core.n or game.win_priority != self.win_priority:
            raise ValueError("a native Betsy searcher searches positions of the size and win priority "
                             "it was made for")

    def _sync_path(self) -> None:
        core = self.core
        keys = b"".join(core.encode(key) for key in self.path)
        core.lib.set_path(core.handle, keys, len(self.path), core.nbytes)

    def _limits(self) -> list[int]:
        """The limits list the core's searches take: nodes and next_check are written back into it."""
        return [self.nodes, self._next_check, -1 if self.max_nodes is None else self.max_nodes,
                          self.contempt, self._root_turn, int(self.reductions), self.root_margin]

    def _root(
        self, game: Game, depth: int, moves: list[int], previous_best: int
    ) -> tuple[int, int, list[int], dict[int, int]]:
        self._check(game)
        core = self.core
        ordered = [previous_best] + [m for m in moves if m != previous_best]
        key = game.key()
        self._sync_path()
        io = self._limits()
        stopped, out, found = core.lib.root(core.handle, core.encode(key), depth, ordered, io,
                                            -1.0 if self.deadline is None else self.deadline)
        self.nodes, self._next_check = io[0], io[1]
        if stopped:
            self._partial = (out[2], out[3], out[4])
            raise SearchStopped
        self.path.discard(key)
        scores = dict(zip(ordered, found))
        reordered = sorted(ordered, key=lambda m: -scores[m])
        return out[0], out[1], reordered, scores

    def wins_within(self, game: Game, depth: int, deadline: float | None = None) -> bool | None:
        self._check(game)
        core = self.core
        self.path = set()
        self._root_turn = game.turn
        self.deadline, self.max_nodes = deadline, None
        self._next_check = self.nodes + _CHECK_EVERY
        self._sync_path()
        io = self._limits()
        stopped, score = core.lib.negamax(core.handle, core.encode(game.key()), depth, WIN_BOUND, WIN_BOUND + 1,
                                          0, io, -1.0 if deadline is None else deadline)
        self.nodes, self._next_check = io[0], io[1]
        return None if stopped else score > WIN_BOUND

    def _table_move(self, game: Game) -> int:
        """The best move the core's table holds for ``game``'s position, or 0 for none (the principal
        variation is AlphaBeta's, read from this table)."""
        core = self.core
        move: int = core.lib.table_move(core.handle, core.encode(game.key()))
        return move


def searcher(position: object, evaluation: Callable[[Any], int], weights: Weights, contempt: int = 0) -> AlphaBeta:
    """An alpha-beta searcher for ``position``: the native one for a Betsy position when the core is
    loaded, else the Python one. ``evaluation`` must be ``make_evaluator(weights)`` (the Python
    path's evaluation; the core builds the same from ``weights``)."""
    if isinstance(position, Position) and 1 <= position.n <= MAX_N:
        lib = library()
        if lib is not None:
            try:
                return NativeAlphaBeta(lib, position, weights, contempt=contempt, evaluate=evaluation)
            except MemoryError:
                pass  # no memory for the core's tables: the Python search needs less to start
    return AlphaBeta(evaluation, contempt=contempt)
