"""Benchmark the alpha-beta engine: search speed and depth reached under the clock.

For a fixed set of positions at n = 5 and n = 8 (deterministic random playouts of 4 to 24 plies), it
prints (1) nodes per second of the search, in-process, 1 s per position; (2) the depth of the last
completed iteration when the engine runs as a program under the protocol with 1 s and 5 s limits, as
the referee runs it. A node is a position the search visits (each move it makes, as in the usual
count of negamax calls); the horizon's check for a winning move is not counted. Goal: >= 200k
nodes/s at n = 5.

Usage: .venv/bin/python scripts/bench_engines.py [--sizes 5,8] [--limits 1,5] [--positions 4]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines.evaluation import evaluate  # noqa: E402
from engines.protocol import Rng  # noqa: E402
from engines.search.alphabeta import AlphaBeta  # noqa: E402
from harness.games.betsy import Position, initial_position  # noqa: E402

PLIES = (4, 10, 16, 24, 8, 20)


def positions(n: int, count: int) -> list[Position]:
    """Deterministic positions: random playouts (seeded) that have not ended."""
    found = []
    seed = 1
    while len(found) < count:
        rng = Rng(seed * 7919 + n)
        seed += 1
        position = initial_position(n)
        for _ in range(PLIES[len(found) % len(PLIES)]):
            position.push(rng.choice(position.legal_moves()))
            if position.winner() is not None:
                break
        else:
            found.append(position)
    return found


def nodes_per_second(n: int, count: int, seconds: float) -> tuple[float, int]:
    total_nodes = 0
    total_time = 0.0
    for position in positions(n, count):
        searcher = AlphaBeta(evaluate)
        start = time.perf_counter()
        deadline = time.monotonic() + seconds
        last = None
        for last in searcher.iterate(position, 64, deadline):
            pass
        total_time += time.perf_counter() - start
        total_nodes += searcher.nodes
    return total_nodes / total_time, total_nodes


def depth_under_protocol(position: Position, limit: int) -> tuple[int, float]:
    argv = [sys.executable, str(ROOT / "engines" / "alphabeta.py"), str(position.n), position.player,
            position.board(), str(limit), "--info"]
    start = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    depths = [int(m) for m in re.findall(r"info depth (\d+)", result.stderr)]
    return (depths[-1] if depths else 0), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5,8")
    parser.add_argument("--limits", default="1,5")
    parser.add_argument("--positions", type=int, default=4)
    args = parser.parse_args()
    sizes = [int(text) for text in args.sizes.split(",")]
    limits = [int(text) for text in args.limits.split(",")]
    for n in sizes:
        rate, nodes = nodes_per_second(n, args.positions, 1.0)
        print(f"n={n}: {rate:,.0f} nodes/s ({nodes:,} nodes over {args.positions} positions, 1 s each)")
    for n in sizes:
        for limit in limits:
            runs = [depth_under_protocol(p, limit) for p in positions(n, args.positions)]
            depths = [depth for depth, _ in runs]
            walls = [wall for _, wall in runs]
            print(f"n={n}, {limit} s/move: depth {min(depths)}-{max(depths)} "
                  f"(median {statistics.median(depths)}), wall max {max(walls):.2f} s of {limit} s")
    print("goal: >= 200,000 nodes/s at n = 5")


if __name__ == "__main__":
    main()
