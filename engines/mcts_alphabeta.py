"""MCTS-assisted alpha-beta: alpha-beta is the backbone, MCTS breaks its ties.

``python -m engines.mcts_alphabeta N PLAYER BOARD SECONDS [--seed S] [--info] [--mcts-share F]
[--playouts K] [--depth D]`` (N is ``WxH`` for Connect Four)

With ``--seed``, ``--playouts`` and ``--depth`` the move is reproducible: nothing then depends on
the clock (unless the time limit cuts the search short).

0. In Betsy, when the board is nearly its own mirror image with the colours exchanged (as it is
   against a program that copies each move on the other side), ``mirror_win`` first looks for a
   win in a few moves against such an opponent, which alpha-beta's best-reply model misses; a
   move it finds is played if a short search shows no forced win for the opponent after it.
1. Alpha-beta (the same search as engines.alphabeta) searches first, for all but ``MCTS_SHARE``
   of the time; every root move within ``MARGIN`` of the best gets an exact score.
2. If it proved a result, or only one move is within the margin, its move is played: there is
   nothing for MCTS to decide.
3. In Betsy, of the moves alpha-beta cannot separate, those that leave the opponent the fewest safe
   replies are kept (``trap_counts``: replies after which a short search proves a win); if one
   remains, it is played.
4. Otherwise MCTS (engines/search/mcts.py) searches the rest of the time from the root, restricted
   to the moves still tied: solver backups prove short wins and losses, playouts
   with decisive and anti-decisive moves estimate long-range prospects. Its most visited move that
   it has not proven lost is played (alpha-beta's move when visits tie).

In a Connect Four endgame the exact solver goes first, as in engines.alphabeta.

Both searches evaluate with alpha-beta's evaluation plus column rings (``RING``) and column runs
in the making (``STACK``), and alpha-beta searches with a higher contempt (``CONTEMPT``); the
alpha-beta engine keeps its own settings. In Connect Four both use engines.connect4_evaluation.

Measured against alpha-beta alone at n = 5 (200-game runs, 1 s per move; README), MCTS helps only
where alpha-beta is truly indifferent: giving it 30% of the time before alpha-beta (root order and
the choice within 8 points) cost about a ply and 48 Elo; letting it choose within 8 points after
alpha-beta cost 122 Elo (the first player stopped converting won positions: a few points of
evaluation at the horizon are real). Hence the margin of 1 point: exact ties only.
"""

from __future__ import annotations

if __name__ == "__main__" and not __package__:  # run as a file: import engines.* from the project root
    import os
    import sys

    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import sys
import time

from engines.alphabeta import answer_deadline, avoid_at_root, deepen, info_core
from engines.evaluation import Weights, make_evaluator
from engines.protocol import Request, Rng, print_answer, process_age, run
from engines.search.alphabeta import WIN_BOUND, AlphaBeta, SearchResult
from engines.search.mcts import LOST, MCTS, WON
from harness.games.betsy import Move, Position

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from typing import Any

    from engines.protocol import AnyPosition

OPTIONS = {"info": bool, "mcts_share": float, "depth": int, "playouts": int}
RING = 2.0
"""Weight of the evaluation's column-ring term (engines.evaluation.ring_value). Self-play at n = 5,
4000 nodes per move, 200 games (scripts/tune_evaluation.py): ring 1 against none +244 Elo
[+190, +309]; against ring 1, ring 2 +14 [-29, +57], ring 3 +5, ring 0.5 -23. At n = 8, ring 1
against none 62/120 (4 wins, 116 draws, 0 losses)."""
CONTEMPT = 150
"""A draw by repetition counts as this much below level for the hybrid (alpha-beta's is 20): it
plays on unless every other move looks clearly worse. An engine sees only the board, so settling
for a repetition is how it draws games it should win against a weaker opponent (one draw in 100
games against greedy with 20). Self-play with ring 2 (200 games, 4000 nodes per move): contempt
150 against 20 +3 Elo [-42, +49] at n = 5 (26 draws instead of 37; 60: +5), level at n = 8
(120 games, all drawn)."""
STACK = 1.0
"""Weight of the evaluation's stack term (engines.evaluation.stack_value): column runs still being
built. Without it the hybrid let a program that drops into one column every move build a column
line (n = 5: after x 1, o 2, x 1, o 2, x 1 it answered 2 at 2 s, not the block in column 1); with it
it blocks at 1, 2 and 4 s. Self-play at n = 5, 4000 nodes per move, 200 games (ring 2, contempt 150
both): stack 1 against none +19 Elo [-27, +66] (+98 =15 -87)."""
WEIGHTS = Weights(ring=RING, stack=STACK)
evaluate = make_evaluator(WEIGHTS)
"""The hybrid's evaluation: the alpha-beta engine's, plus column rings and stacks."""
MCTS_SHARE = 0.1
"""Share of the time budget kept for MCTS after alpha-beta."""
TRAP_DEPTH = 3
"""Betsy: how deep ``trap_counts`` looks for the mover's forced win after each opponent reply."""
TRAP_SHARE = 0.5
"""Betsy: the share of MCTS's time ``trap_counts`` may take first (MCTS gets the rest)."""
MIRROR_MOVES = 4
"""Betsy: how many own moves ``mirror_win`` looks ahead against a mirroring opponent."""
MIRROR_SHARE = 0.3
"""Betsy: the share of the time ``mirror_win`` may take before alpha-beta starts."""
MIRROR_PEBBLES = 2
"""Betsy: ``mirror_win`` looks only at boards holding at least this many pebbles per column (2n in
all). A board of k pebbles is at most k cells off its mirror image, so early in a game every board
is near one by chance: over 40 games between two hybrid versions at n = 5 (1 s) the probe ran on
132 positions of fewer than 8 pebbles, about 30 ms each, and found a win in none; at n = 8 it ran
on the first move or two of each game and took 182 ms each time (mostly its whole share)."""
MIRROR_SAFE_DEPTH = 5
"""Betsy: ``mirror_win`` plays a move only if a search this deep finds no forced win for the
opponent after it."""
MARGIN = 1
"""Root moves scoring within this many points of the best get exact scores; those scoring less
than ``MARGIN`` below the best (exact ties, with 1) are the ones MCTS chooses among."""


def _searcher(position: AnyPosition, evaluation: Callable[[Any], int], contempt: int = 0) -> AlphaBeta:
    """Alpha-beta for ``position``: on the native core when it is built (the same answers,
    engines/search/native_betsy.py for Betsy, engines/search/native_connect4.py for Connect Four),
    else in Python."""
    if isinstance(position, Position):
        if evaluation is evaluate:
            from engines.search.native_betsy import searcher

            return searcher(position, evaluation, WEIGHTS, contempt)
        return AlphaBeta(evaluation, contempt=contempt)
    from engines.search.native_connect4 import searcher as native_connect4

    return native_connect4(position, evaluation, contempt)


def choose_move(
    position: AnyPosition,
    deadline: float,
    rng: Rng,
    mcts_share: float = MCTS_SHARE,
    max_depth: int = 64,
    on_iteration: object = None,
    playouts: int | None = None,
    avoid: Collection[Move] = (),
) -> tuple[Move, SearchResult, dict[Move, tuple[int, float, int]]]:
    """The hybrid's move, alpha-beta's last iteration and MCTS's root statistics (empty when
    MCTS did not run). The moves of ``avoid`` are not searched (unless they are all the legal moves).

    Alpha-beta stops at ``mcts_share`` of the time before the deadline, unless ``playouts`` is
    given: then MCTS runs exactly that many playouts (capped by the deadline only) and alpha-beta
    may use the whole time (a ``max_depth`` makes the move independent of the clock).
    """
    now = time.monotonic()
    if isinstance(position, Position) and playouts is None:
        probe = mirror_win(position, MIRROR_MOVES, now + MIRROR_SHARE * max(0.0, deadline - now))
        if probe is not None:
            return probe, SearchResult(probe, 0, 0, 0, time.monotonic() - now, [probe]), {}
        now = time.monotonic()
    evaluation: Callable[[Any], int] = evaluate
    if not isinstance(position, Position):
        from engines.connect4_evaluation import evaluate as evaluation
    searcher = _searcher(position, evaluation, CONTEMPT)
    searcher.root_margin = MARGIN
    avoid_at_root(searcher, avoid)
    ab_deadline = deadline if playouts is not None else now + max(0.0, deadline - now) * (1 - mcts_share)
    result = deepen(searcher, position, ab_deadline, max_depth, None, on_iteration)
    if result.is_proven or len(searcher.root_scores) < 2:
        return result.move, result, {}
    scores = searcher.root_scores
    best_score = scores.get(result.move, result.score)
    if best_score < max(scores.values()):
        return result.move, result, {}  # a cut-short deeper iteration overruled the last full one
    near = [move for move, score in scores.items() if score > best_score - MARGIN and score > -WIN_BOUND]
    if len(near) < 2:
        return result.move, result, {}
    if isinstance(position, Position):
        now = time.monotonic()
        traps = trap_counts(position, near, evaluation, now + TRAP_SHARE * max(0.0, deadline - now))
        if traps is not None:
            most = max(traps.values())
            near = [move for move in near if traps[move] == most]
            if len(near) == 1:
                return near[0], result, {}
    mcts = MCTS(evaluation, rng)
    if playouts is not None:
        mcts.run(position, deadline, max_playouts=playouts, root_moves=near)
    else:
        mcts.run(position, deadline, root_moves=near)
    stats = mcts.root_statistics(position)
    won = [move for move in near if stats[move][2] == WON]
    if won:
        return won[0], result, stats
    alive = [move for move in near if stats[move][2] != LOST]
    if not alive:
        return result.move, result, stats
    best = max(alive, key=lambda move: (stats[move][0], move == result.move))
    return best, result, stats


_SWAP = str.maketrans("xo", "ox")


def asymmetry(board: str, n: int, middle: bool = False) -> int:
    """How far ``board`` is from its mirror image with the colours exchanged (column c against
    column n + 1 - c, x against o): the cells off the middle column whose mirror cell does not
    hold the other colour (or, for an empty cell, is not empty), each pair counted once; with
    ``middle``, also the middle column's pebbles (a pebble there is never its own image)."""
    rows = [board[r * n:(r + 1) * n] for r in range(len(board) // n)]
    count = sum(row[c] != row[n - 1 - c].translate(_SWAP) for row in rows for c in range(n // 2))
    if middle and n % 2:
        count += sum(row[n // 2] != "." for row in rows)
    return count


def mirror_win(position: Position, moves: int, deadline: float) -> Move | None:
    """A move that wins within ``moves`` own moves against an opponent who mirrors, or None.

    Only when the board holds at least ``MIRROR_PEBBLES`` x n pebbles and is nearly its own mirror
    image (``asymmetry`` at most 2), as it is after every reply of a program that copies each move
    on the other side of the board; in games between searching engines that is rare (1.6% of
    positions after ply 10 at n = 5). The model of the opponent: it answers with a reply that leaves
    the board most mirror-like, and a line counts only if it wins after every such reply. Alpha-beta
    assumes the best reply instead, and so misses these wins: at n = 5 a game betsy drew by
    repetition against the mirror program still had a win in 4 moves against it for ten plies
    (docs/design.md). The move is played only if a ``MIRROR_SAFE_DEPTH``-ply search finds no forced
    win for the opponent after it. None if the position has a win at once (the search plays it) or
    ``deadline`` comes first.
    """
    n = position.n
    board = position.board()
    if (board.count(".") > len(board) - MIRROR_PEBBLES * n or asymmetry(board, n) > 2
            or position.has_winning_move()):
        return None
    mover = position.turn
    known: dict[tuple[str, int], bool] = {}

    def replies(after: Position) -> list[Position]:
        """The positions after the modelled replies (those leaving the board most mirror-like)."""
        scored = [(asymmetry(then.board(), n, middle=True), then) for then in map(after.after, after.legal_moves())]
        least = min(score for score, _ in scored)
        return [then for score, then in scored if score == least]

    def holds(after: Position, left: int) -> bool:
        """Every modelled reply to the move that led to ``after`` still loses within ``left`` own moves."""
        for then in replies(after):
            if then.winner() is not None or not wins(then, left):
                return False
        return True

    def wins(p: Position, left: int) -> bool:
        key = (p.board(), left)
        found = known.get(key)
        if found is None:
            if time.monotonic() >= deadline:
                raise TimeoutError
            found = False
            for move in p.legal_moves():
                after = p.after(move)
                winner = after.winner()
                if winner == mover or (winner is None and left > 1 and holds(after, left - 1)):
                    found = True
                    break
            known[key] = found
        return found

    try:
        for left in range(1, moves):
            for move in position.legal_moves():
                after = position.after(move)
                if after.winner() is None and holds(after, left):
                    if _searcher(after, evaluate).wins_within(after, MIRROR_SAFE_DEPTH, deadline) is False:
                        return move
    except TimeoutError:
        return None
    return None


def trap_counts(position: AnyPosition, moves: list[Move], evaluation: Callable[[Any], int],
                deadline: float) -> dict[Move, int] | None:
    """For each of ``moves``: how many of the opponent's replies lose by force, that is, after
    which the mover has a win that a ``TRAP_DEPTH``-ply search proves (or that lose at once).
    None if ``deadline`` comes first.

    Among moves alpha-beta scores exactly alike, the one that leaves the opponent fewest safe
    replies is the better practical choice: against a perfect opponent they are worth the same,
    and any other opponent may miss the one defence. At n = 5, from a position of a game betsy drew
    by repetition against the mirror program (red to move after x 1, o 5, x 1, o 5, x 1, o 5, x 1,
    o 1, x 5, o 5, x 1, o 2, x 4, o 4, x 2, o 4, x 2, o -1, x -5), drops 1, 5 and 2 tie at depth 9
    (the last depth completed in the second); after 5, 9 of the 10 replies lose by force, after 1
    and 2 none, and MCTS chose 1.
    """
    searcher = _searcher(position, evaluation)
    searcher.reductions = False  # a reduced line could hide the win
    mover = position.turn
    counts: dict[Move, int] = {}
    for move in moves:
        position.push(move)
        count = 0
        for reply in position.legal_moves():
            position.push(reply)
            winner = position.winner_after_push(reply)
            if winner is not None:
                wins: bool | None = winner == mover
            elif time.monotonic() < deadline:
                wins = searcher.wins_within(position, TRAP_DEPTH, deadline)
            else:
                wins = None
            position.pop()
            if wins is None:
                position.pop()
                return None
            count += wins
        position.pop()
        counts[move] = count
    return counts


def _choose(request: Request) -> Move:
    from engines.protocol import STARTED

    position = request.position
    deadline = answer_deadline(request.seconds, STARTED, process_age(STARTED))
    info = bool(request.options.get("info"))
    if info:
        info_core(position)

    def report(result: SearchResult) -> None:
        print_answer(position, result.move)
        if info:
            print(f"info depth {result.depth} score {result.score} nodes {result.nodes} "
                  f"pv {' '.join(map(str, result.pv))}", file=sys.stderr, flush=True)

    if isinstance(position, Position) and "depth" not in request.options and "playouts" not in request.options:
        from engines.tablebase import probe

        known = probe(position)  # small boards are solved: play the exact move
        if known is not None:
            return known
    avoid: frozenset[Move] = frozenset()
    if not isinstance(position, Position) and "depth" not in request.options and "playouts" not in request.options:
        from engines.connect4_endgame import endgame_first

        proof = endgame_first(position, deadline)
        if proof.move is not None:
            return proof.move
        avoid = proof.avoid
    share = float(request.options.get("mcts_share", MCTS_SHARE))
    playouts = request.options.get("playouts")
    move, _result, stats = choose_move(
        position, deadline, Rng(request.seed), share, int(request.options.get("depth", 64)), report,
        None if playouts is None else int(playouts), avoid,
    )
    if info:
        visits = sum(v for v, _, _ in stats.values())
        print(f"info mcts playouts {visits} chosen {move}", file=sys.stderr, flush=True)
    return move


OPTION_HELP = {
    "seed": ("S", "seed of MCTS's playouts (a whole number)"),
    "playouts": ("K", "MCTS runs exactly K playouts and alpha-beta may use the whole time;\n"
                      "with --depth and --seed the move does not depend on the clock\n"
                      "(skips the n = 3 tables)"),
    "mcts_share": ("F", f"share of the time left to MCTS after alpha-beta (default {MCTS_SHARE:g})"),
    "depth": ("D", "alpha-beta searches at most D plies deep (skips the n = 3 tables)"),
    "info": ("", "print what the search runs on (native or python, and why), each completed\n"
                 "depth's score, nodes and principal variation, and MCTS's playouts, on stderr"),
}
SUMMARY = (
    "Alpha-beta search, with Monte Carlo tree search choosing among the moves it finds\n"
    "exactly tied; prints the best move found so far and answers by 0.9 x SECONDS.\n"
    "Against a board kept mirror-symmetric it first looks for the win the mirroring allows.\n"
    "Betsy's n = 3 is played from exact tables when built."
)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    return run("mcts_alphabeta", _choose, argv, OPTIONS, OPTION_HELP, SUMMARY)


if __name__ == "__main__":
    raise SystemExit(main())
