"""Connect Four matches in-process with a node budget: alphabeta against greedy or homework from
every opening of two plies, with both colours.

The engine moves as engines/alphabeta.py does under the protocol: the exact solver first (at most
``connect4_endgame.ENDGAME_EMPTY`` empty cells, ``--solver-seconds`` per move), then the search,
among the moves the solver did not prove worse than another. The search stops after ``--nodes``
nodes instead of at the clock, so a game's moves do not depend on the machine's load (only the
solver's timer does). That makes it the way to compare versions of the engine: run the script from each version's
checkout (a git worktree), on a busy machine if need be. About 100,000 nodes are 0.25 s of search
at 8x8 on this machine.

Against these opponents the games are nearly deterministic (greedy breaks ties with a fixed seed,
homework has none), so one game per opening and colour says what a longer run would: W*W openings
(x's column, then o's), each played with the engine as x and as o.

Prints, for each node budget: the engine's score, per colour, and every game it did not win as
``COLOUR SEQUENCE RESULT`` (the engine's colour, the game in Pons's notation from the empty board:
one 1-based column per move, the engine's points).

Usage: .venv/bin/python scripts/bench_connect4_matches.py [--size 8x8] [--opponent greedy]
       [--nodes 100000[,200000...]] [--colours xo] [--openings FIRST:LAST] [--solver-seconds 0.4]
       [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines import alphabeta, greedy, homework  # noqa: E402
from engines.connect4_endgame import endgame  # noqa: E402
from engines.protocol import Rng  # noqa: E402
from harness.games.connect4.rules import Position, parse_size  # noqa: E402

OPPONENTS = ("greedy", "homework")
ENGINE_SEED = 11
"""Seed of the engine's tie-break (as --seed under the protocol)."""
GREEDY_SEED = 5
"""Seed of greedy's tie-break."""


def openings(width: int) -> list[tuple[int, int]]:
    """Every opening of two plies: (x's column, o's column), 1-based, x's column first."""
    return [(a, b) for a in range(1, width + 1) for b in range(1, width + 1)]


def engine_move(position: Position, nodes: int, solver_seconds: float) -> int:
    """Alphabeta's move with a node budget (see the module's doc)."""
    proof = endgame(position, time.monotonic() + solver_seconds)
    if proof.move is not None:
        return proof.move
    return alphabeta.choose_move(position, None, 64, nodes, None, Rng(ENGINE_SEED), alphabeta.CONTEMPT,
                                 proof.avoid).move


def opponent_move(position: Position, opponent: str) -> int:
    """Greedy's move (fixed tie-break seed) or homework's."""
    if opponent == "greedy":
        return greedy.choose_move(position, Rng(GREEDY_SEED))
    return homework.choose_move(position)[0]


def play(args: tuple[str, str, int, float, tuple[int, int], int]) -> tuple[int, str, float]:
    """One game from an opening; returns (the engine's colour, the game's moves, its points)."""
    size, opponent, nodes, solver_seconds, opening, colour = args
    position = Position(*parse_size(size))
    moves = list(opening)
    for move in opening:
        position.push(move)
    while True:
        if not position.legal_moves():
            return colour, "".join(map(str, moves)), 0.5
        mine = position.turn == colour
        move = engine_move(position, nodes, solver_seconds) if mine else opponent_move(position, opponent)
        position.push(move)
        moves.append(move)
        if position.winner_after_push(move) is not None:
            return colour, "".join(map(str, moves)), 1.0 if mine else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size", default="8x8", help="board size WxH (width up to 9)")
    parser.add_argument("--opponent", choices=OPPONENTS, default="greedy")
    parser.add_argument("--nodes", default="100000", help="node budgets per move, comma-separated")
    parser.add_argument("--colours", choices=("xo", "x", "o"), default="xo", help="the engine's colours")
    parser.add_argument("--openings", default=None, help="FIRST:LAST, a slice of the W*W openings")
    parser.add_argument("--solver-seconds", type=float, default=0.4)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    try:
        width, _height = parse_size(args.size)
        if width > 9:
            raise ValueError("one digit per move: at most 9 columns")
        budgets = [int(n) for n in args.nodes.split(",")]
        if min(budgets) < 1:
            raise ValueError("node budgets must be at least 1")
        chosen = openings(width)
        if args.openings:
            parts = args.openings.split(":")
            if len(parts) != 2 or not all(part.isdigit() for part in parts if part):
                raise ValueError(f"invalid --openings {args.openings!r}: use FIRST:LAST, e.g. 0:8")
            first, last = (int(part) if part else None for part in parts)
            chosen = chosen[first:last]
    except ValueError as error:
        print(f"bench_connect4_matches: {error}", file=sys.stderr)
        return 2
    colours = [{"x": 0, "o": 1}[c] for c in args.colours]
    for nodes in budgets:
        started = time.monotonic()
        games = [(args.size, args.opponent, nodes, args.solver_seconds, opening, colour)
                 for opening in chosen for colour in colours]
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            results = list(pool.map(play, games))
        points = {0: 0.0, 1: 0.0}
        counts = {0: 0, 1: 0}
        for colour, _moves, score in results:
            points[colour] += score
            counts[colour] += 1
        per_colour = ", ".join(f"{'xo'[c]} {points[c]:g}/{counts[c]}" for c in colours)
        print(f"{args.size} against {args.opponent}, {nodes} nodes: {sum(points.values()):g}/{len(results)} "
              f"({per_colour}) in {time.monotonic() - started:.0f} s", flush=True)
        for colour, moves, score in results:
            if score < 1:
                print(f"  {'xo'[colour]} {moves} {score:g}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
