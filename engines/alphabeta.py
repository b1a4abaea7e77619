"""Alpha-beta engine: iterative-deepening PVS (engines/search/alphabeta.py) with engines.evaluation
for Betsy and engines.connect4_evaluation for Connect Four.

``python -m engines.alphabeta N PLAYER BOARD SECONDS [--depth D] [--nodes N] [--seed S] [--info]``
(N is ``WxH`` for Connect Four)

It prints the best move of each completed iteration (so a kill at the deadline still finds an
answer) and exits by about 0.9 x the limit, counting its own start-up.

In a Connect Four endgame (engines.connect4_endgame: at most ENDGAME_EMPTY empty cells) the exact
solver has the first ``NATIVE_ENDGAME_SHARE`` (``ENDGAME_SHARE`` in Python; engines.connect4_endgame)
of the time: a move proved to keep the position's value (won or drawn), or a lost position's longest
loss, is played at once; otherwise the search decides among the moves the solver did not prove
worse than another.
Measured against homework at 8x8 as o (50 openings of the strength config, in-process, 0.3 s per
move): 32/50 without the solver, 36 and 43/50 (two runs) with it.
"""

from __future__ import annotations

if __name__ == "__main__" and not __package__:  # run as a file: import engines.* from the project root
    import os
    import sys

    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import sys
import time

from engines.evaluation import evaluate
from engines.protocol import Request, Rng, print_answer, process_age, run
from engines.search.alphabeta import AlphaBeta, SearchResult
from harness.games.betsy import Move, Position

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from typing import Any

    from engines.protocol import AnyPosition

OPTIONS = {"depth": int, "nodes": int, "info": bool, "contempt": int}
TIME_FRACTION = 0.9
"""Answer by this fraction of the limit, counted from process start."""
EXIT_MARGIN = 0.03
"""Seconds kept for printing and interpreter exit."""


def answer_deadline(seconds: float, started: float, startup: float) -> float:
    """time.monotonic() value by which the engine should have answered."""
    return started - startup + TIME_FRACTION * seconds - EXIT_MARGIN


CONTEMPT = 20
"""A draw by repetition counts as this much below level for the engine (see AlphaBeta.contempt)."""


def evaluation_for(position: AnyPosition) -> Callable[[Any], int]:
    """The static evaluation for the position's game (Connect Four's is imported only when needed)."""
    if isinstance(position, Position):
        return evaluate
    from engines.connect4_evaluation import evaluate as connect4_evaluate

    return connect4_evaluate


def searcher_for(position: AnyPosition, contempt: int = CONTEMPT) -> AlphaBeta:
    """The engine's searcher for ``position``: on the native core when it is built (the same answers:
    engines/search/native_betsy.py, engines/search/native_connect4.py), else the Python AlphaBeta."""
    if isinstance(position, Position):
        from engines.evaluation import DEFAULT_WEIGHTS
        from engines.search.native_betsy import searcher as native_betsy

        return native_betsy(position, evaluate, DEFAULT_WEIGHTS, contempt)
    from engines.search.native_connect4 import searcher as native_connect4

    return native_connect4(position, evaluation_for(position), contempt)


def choose_move(
    position: AnyPosition,
    deadline: float | None = None,
    max_depth: int = 64,
    max_nodes: int | None = None,
    on_iteration: object = None,
    rng: Rng | None = None,
    contempt: int = CONTEMPT,
    avoid: Collection[Move] = (),
) -> SearchResult:
    """Search ``position`` until the deadline, depth or node limit; the last completed iteration.

    ``rng`` shuffles the root moves first, which breaks ties between equal moves at random (the
    search keeps the first of equal moves); without it the choice is deterministic. The moves of
    ``avoid`` are not searched (unless they are all the legal moves).
    """
    searcher = searcher_for(position, contempt)
    if rng is not None:
        def shuffled(_game: object, moves: list[Move]) -> list[Move]:
            moves = moves[:]
            for i in range(len(moves) - 1, 0, -1):
                j = rng.randrange(i + 1)
                moves[i], moves[j] = moves[j], moves[i]
            return moves

        searcher.order_root = shuffled
    avoid_at_root(searcher, avoid)
    return deepen(searcher, position, deadline, max_depth, max_nodes, on_iteration)


def avoid_at_root(searcher: AlphaBeta, avoid: Collection[Move]) -> None:
    """Leave the moves of ``avoid`` out of ``searcher``'s root (after its ``order_root``, if any),
    unless they are all the legal moves."""
    if not avoid:
        return
    order = searcher.order_root

    def kept(game: Any, moves: list[Move]) -> list[Move]:
        if order is not None:
            moves = order(game, moves)
        rest = [move for move in moves if move not in avoid]
        return rest or moves

    searcher.order_root = kept


def deepen(
    searcher: AlphaBeta,
    position: AnyPosition,
    deadline: float | None,
    max_depth: int = 64,
    max_nodes: int | None = None,
    on_iteration: object = None,
) -> SearchResult:
    """Iterate ``searcher`` to the deadline, depth or node limit; never start a depth that cannot
    finish in time. Returns the last completed iteration."""
    result = None
    previous_seconds = 0.0
    for result in searcher.iterate(position, max_depth, deadline, max_nodes):
        if callable(on_iteration):
            on_iteration(result)
        if deadline is not None:
            spent = result.seconds - previous_seconds
            previous_seconds = result.seconds
            # A stopped depth still yields its best move once the previous best is searched, which
            # takes a fraction of the depth: start the next one unless even that cannot finish.
            if time.monotonic() + 0.5 * spent >= deadline:
                break
    assert result is not None
    return result


def info_core(position: AnyPosition) -> None:
    """``info core native``, or ``info core python (why)``, on stderr: what the searches of
    ``position``'s game run on (a module the sandbox cannot read, say, shows here)."""
    from engines.native import describe

    names = ("betsy_search",) if isinstance(position, Position) else ("connect4_search", "connect4_solver")
    print(f"info core {describe(names)}", file=sys.stderr, flush=True)


def _info(result: SearchResult) -> None:
    rate = result.nodes / result.seconds if result.seconds > 0 else 0.0
    print(
        f"info depth {result.depth}{' (partial)' if result.partial else ''} score {result.score} "
        f"nodes {result.nodes} nps {rate:.0f} "
        f"time {result.seconds:.3f} pv {' '.join(map(str, result.pv))}",
        file=sys.stderr, flush=True,
    )


def _choose(request: Request) -> Move:
    from engines.protocol import STARTED

    deadline = answer_deadline(request.seconds, STARTED, process_age(STARTED))
    position = request.position
    info = bool(request.options.get("info"))
    if info:
        info_core(position)

    def report(result: SearchResult) -> None:
        print_answer(position, result.move)  # anytime: the best move so far
        if info:
            _info(result)

    depth = int(request.options.get("depth", 64))
    nodes = request.options.get("nodes")
    if isinstance(position, Position) and "depth" not in request.options and "nodes" not in request.options:
        from engines.tablebase import probe

        known = probe(position)  # small boards are solved: play the exact move
        if known is not None:
            return known
    avoid: frozenset[Move] = frozenset()
    if not isinstance(position, Position) and "depth" not in request.options and "nodes" not in request.options:
        from engines.connect4_endgame import endgame_first

        proof = endgame_first(position, deadline)
        if proof.move is not None:
            return proof.move
        avoid = proof.avoid
    contempt = int(request.options.get("contempt", CONTEMPT))
    result = choose_move(
        position, deadline, depth, None if nodes is None else int(nodes), report, Rng(request.seed),
        contempt, avoid,
    )
    return result.move


OPTION_HELP = {
    "depth": ("D", "search at most D plies deep (given, it skips Betsy's n = 3 tables)"),
    "nodes": ("K", "stop after about K nodes; depth 1 always completes (skips the tables)"),
    "seed": ("S", "seed of the tie-break between equally good moves (a whole number)"),
    "contempt": ("C", f"a draw by repetition counts C points below level (default {CONTEMPT})"),
    "info": ("", "print what the search runs on (native or python, and why), then depth,\n"
                 "score, nodes, nodes/s, time and principal variation of each completed\n"
                 "depth on stderr"),
}
SUMMARY = (
    "Iterative-deepening alpha-beta search; prints the best move of each completed\n"
    "depth and answers by 0.9 x SECONDS. Betsy's n = 3 is played from exact tables\n"
    "when built; Connect Four is evaluated by threats and centre discs."
)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    return run("alphabeta", _choose, argv, OPTIONS, OPTION_HELP, SUMMARY)


if __name__ == "__main__":
    raise SystemExit(main())
