"""MCTS-assisted alpha-beta: alpha-beta is the backbone, MCTS sees past its horizon.

``python -m engines.mcts_alphabeta N PLAYER BOARD SECONDS [--seed S] [--info] [--mcts-share F]
[--playouts K] [--depth D]``

With ``--seed``, ``--playouts`` and ``--depth`` the move is reproducible: nothing then depends on
the clock (unless the time limit cuts the search short).

1. MCTS (engines/search/mcts.py) runs for a share of the time: solver backups prove short wins and
   losses, playouts with decisive and anti-decisive moves estimate long-range prospects.
2. A root move MCTS proved winning is played at once.
3. Alpha-beta (the same search as engines.alphabeta) searches the rest of the time, root moves
   ordered by MCTS visits; every root move within ``MARGIN`` of the best gets an exact score.
4. Among the moves alpha-beta cannot separate within the margin (and that it has not proven lost),
   the one with the best MCTS reward is played: alpha-beta keeps the choice tactically safe to its
   depth, MCTS chooses by what lies beyond it.
"""

from __future__ import annotations

if __name__ == "__main__" and not __package__:  # run as a file: import engines.* from the project root
    import os
    import sys

    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import sys
import time

from engines.alphabeta import CONTEMPT, answer_deadline, deepen
from engines.evaluation import evaluate
from engines.protocol import Request, Rng, print_answer, process_age, run
from engines.search.alphabeta import WIN_BOUND, AlphaBeta, SearchResult
from engines.search.mcts import MCTS, WON
from harness.games.betsy import Move, Position

OPTIONS = {"info": bool, "mcts_share": float, "depth": int, "playouts": int}
MCTS_SHARE = 0.3
"""Share of the time budget given to MCTS before alpha-beta."""
MARGIN = 8
"""Alpha-beta scores within this many points of the best are treated as equal."""


def choose_move(
    position: Position,
    deadline: float,
    rng: Rng,
    mcts_share: float = MCTS_SHARE,
    max_depth: int = 64,
    on_iteration: object = None,
    playouts: int | None = None,
) -> tuple[Move, SearchResult | None, dict[Move, tuple[int, float, int]]]:
    """The hybrid's move, the last alpha-beta iteration (None if MCTS proved a win) and MCTS's stats.

    MCTS runs for ``mcts_share`` of the time, or for exactly ``playouts`` playouts if given (then
    capped by the deadline only).
    """
    now = time.monotonic()
    mcts = MCTS(evaluate, rng)
    if playouts is not None:
        mcts.run(position, deadline, max_playouts=playouts)
    else:
        mcts.run(position, now + max(0.0, deadline - now) * mcts_share)
    stats = mcts.root_statistics(position)
    proven = [move for move, (_, _, proof) in stats.items() if proof == WON]
    if proven:
        return proven[0], None, stats

    searcher = AlphaBeta(evaluate, contempt=CONTEMPT)
    searcher.root_margin = MARGIN
    searcher.order_root = lambda _game, moves: sorted(moves, key=lambda m: -stats.get(m, (0, 0.0, 0))[0])
    result = deepen(searcher, position, deadline, max_depth, None, on_iteration)
    if result.is_proven or len(searcher.root_scores) < 2:
        return result.move, result, stats
    near = [move for move, score in searcher.root_scores.items()
            if score >= result.score - MARGIN and score > -WIN_BOUND]
    if len(near) < 2:
        return result.move, result, stats
    best = max(near, key=lambda move: (stats.get(move, (0, 0.0, 0))[1], move == result.move))
    return best, result, stats


def _choose(request: Request) -> Move:
    from engines.protocol import STARTED

    position = request.position
    deadline = answer_deadline(request.seconds, STARTED, process_age(STARTED))
    info = bool(request.options.get("info"))

    def report(result: SearchResult) -> None:
        print_answer(position, result.move)
        if info:
            print(f"info depth {result.depth} score {result.score} nodes {result.nodes} "
                  f"pv {' '.join(map(str, result.pv))}", file=sys.stderr, flush=True)

    if "depth" not in request.options and "playouts" not in request.options:
        from engines.tablebase import probe

        known = probe(position)  # small boards are solved: play the exact move
        if known is not None:
            return known
    share = float(request.options.get("mcts_share", MCTS_SHARE))
    playouts = request.options.get("playouts")
    move, _result, stats = choose_move(
        position, deadline, Rng(request.seed), share, int(request.options.get("depth", 64)), report,
        None if playouts is None else int(playouts),
    )
    if info:
        visits = sum(v for v, _, _ in stats.values())
        print(f"info mcts playouts {visits} chosen {move}", file=sys.stderr, flush=True)
    return move


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    return run("mcts_alphabeta", _choose, argv, OPTIONS)


if __name__ == "__main__":
    raise SystemExit(main())
