"""Benchmark the rules core and engine start-up.

Prints (1) move generation + push + outcome check + pop per second at n = 5 and n = 10 (with
`--game connect4`: 8x8 and 7x6), over random playouts, and (2) engine start-up: the median wall time
of the random engine from exec until it has printed its answer and exited (on the empty 5 or 8x8
board), against a bare `python -c pass`, over 20 runs each, interleaved. The engine is timed as the
referee runs built-ins (`python engines/random_mover.py ...`) and as `python -m engines.random_mover
...` (which adds runpy's imports). Goal: start-up <= 1.5x bare.

Usage: .venv/bin/python scripts/bench_rules.py [--game betsy|connect4] [--runs 20] [--seconds 2]
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines.protocol import Rng  # noqa: E402
from harness.games import betsy, connect4  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from engines.search.game import Game


def rules_throughput(n: int | tuple[int, int], seconds: float) -> tuple[float, int]:
    """Moves per second, each move: legal_moves() of the position, push, winner check, pop.

    Random playouts from the empty board (restarted at a win, a full board or after 200 plies); at
    every ply every legal move is pushed, checked for a winner and popped, then one is played.
    ``n`` is a Betsy size, or (width, height) for Connect Four.
    """
    initial_position: Callable[[], Game] = (
        (lambda: connect4.initial_position(*n)) if isinstance(n, tuple) else (lambda: betsy.initial_position(n))
    )
    rng = Rng(12345)
    position = initial_position()
    ops = 0
    plies = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        for _ in range(100):
            moves = position.legal_moves()
            if not moves:  # a full Connect Four board
                position = initial_position()
                plies = 0
                continue
            for move in moves:
                position.push(move)
                position.winner_after_push(move)
                position.pop()
            ops += len(moves)
            move = rng.choice(moves)
            position.push(move)
            plies += 1
            if position.winner_after_push(move) is not None or plies >= 200:
                position = initial_position()
                plies = 0
    elapsed = time.perf_counter() - start
    return ops / elapsed, ops


ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=ROOT, env=ENV
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("betsy", "connect4"), default="betsy")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()

    if args.game == "connect4":
        for size in ((8, 8), (7, 6)):
            rate, ops = rules_throughput(size, args.seconds)
            label = connect4.size_text(*size)
            print(f"rules {label:<4}: {rate:>10,.0f} moves/s (generate + push + winner check + pop; {ops:,} moves)")
    else:
        for n in (5, 10):
            rate, ops = rules_throughput(n, args.seconds)
            print(f"rules n={n:<2}: {rate:>10,.0f} moves/s (generate + push + winner check + pop; {ops:,} moves)")

    python = sys.executable
    compileall.compile_dir(ROOT / "harness", quiet=1)
    compileall.compile_dir(ROOT / "engines", quiet=1)
    position_args = ["8x8", "x", "." * 64, "1"] if args.game == "connect4" else ["5", "x", "." * (5 * 8), "1"]
    commands = {
        "bare python -c pass": [python, "-c", "pass"],
        "engines/random_mover.py": [python, str(ROOT / "engines" / "random_mover.py"), *position_args],
        "-m engines.random_mover": [python, "-m", "engines.random_mover", *position_args],
    }
    times: dict[str, list[float]] = {label: [] for label in commands}
    for argv in commands.values():  # warm the page cache
        wall(argv)
    for _ in range(args.runs):
        for label, argv in commands.items():
            times[label].append(wall(argv))
    medians = {label: statistics.median(values) * 1000 for label, values in times.items()}
    bare_ms = medians["bare python -c pass"]
    print(f"start-up (median of {args.runs}, exec until answer and exit; interpreter {python}):")
    for label, ms in medians.items():
        print(f"  {label:<24} {ms:6.1f} ms  ratio {ms / bare_ms:.2f}")
    print("  goal: engine <= 1.5x bare python")


if __name__ == "__main__":
    main()
