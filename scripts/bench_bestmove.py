"""Benchmark the All The King's Horses solver (engines/kings_horses_solver.py) by coordinate band.

For each band (coordinates in 1..8, 1..15, 1..30) it solves a sample of random valid positions (random
mover, four distinct squares) with a fresh Solver per position (the honest measure: the command line
starts afresh for every move) and prints mean, median, p99 and max wall milliseconds and the count;
positions still unsolved after ``--timeout`` seconds are counted apart (never as solved). The row
``1..15 mixed`` samples deliberately intermixed close races: all four knights within a 6 x 6 box and the
side to move ahead by 0 or 1 in the sum of lone counts, where blocking decides.

``--plain N`` also times a plain memoised minimax (defined here, independent of the solver) on the first
N positions of the 1..15 band, each abandoned after ``--plain-timeout`` seconds, and prints the
speed-up on the positions both finished and the bound it gives when the abandoned ones are counted at
their timeout. ``--exhaustive N`` solves N random positions in 1..8 (fresh solver each) and prints the
slowest ones.

The solver reads the corner table (engines/kings_horses_table.py) when one is built in the table
directory (the largest there); the first line says which. ``--build`` first builds the builder's
default table (row + col <= 24: about a minute and 1.5 GB, once per machine) unless one at least as
large is there; ``--no-corner`` measures the search alone.

Usage: .venv/bin/python scripts/bench_bestmove.py [--samples 200] [--samples30 40] [--seed 1]
       [--timeout 60] [--plain 20] [--plain-timeout 10] [--exhaustive 0] [--build | --no-corner]
"""

from __future__ import annotations

import argparse
import random
import signal
import statistics
import sys
import time
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines import kings_horses_table  # noqa: E402
from engines.kings_horses_solver import PLAYERS, Solver, lone_moves  # noqa: E402

Sq = tuple[int, int]
Position = tuple[str, tuple[Sq, Sq], tuple[Sq, Sq]]
STEPS = ((-2, -1), (-1, -2), (-2, 1), (1, -2))


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


def timed(fn, timeout: float) -> float | None:  # type: ignore[no-untyped-def]
    """Seconds fn() took, or None when it ran past timeout."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    try:
        fn()
    except _Timeout:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return time.perf_counter() - start


def random_position(rng: random.Random, low: int, high: int) -> Position:
    squares: list[Sq] = []
    while len(squares) < 4:
        sq = (rng.randint(low, high), rng.randint(low, high))
        if sq not in squares:
            squares.append(sq)
    return rng.choice(PLAYERS), (squares[0], squares[1]), (squares[2], squares[3])


def mixed_position(rng: random.Random, high: int) -> Position:
    """Four knights in one 6 x 6 box, the mover's lone-count sum ahead of the opponent's by 0 or 1."""
    while True:
        r0, c0 = rng.randint(1, high - 5), rng.randint(1, high - 5)
        mover, black, white = random_position(rng, 0, 5)
        black = tuple((r + r0, c + c0) for r, c in black)  # type: ignore[assignment]
        white = tuple((r + r0, c + c0) for r, c in white)  # type: ignore[assignment]
        diff = sum(lone_moves(*sq) for sq in black) - sum(lone_moves(*sq) for sq in white)
        if (diff if mover == "BLACK" else -diff) in (0, 1):
            return mover, black, white


def plain_solve(mover: str, black: tuple[Sq, Sq], white: tuple[Sq, Sq]) -> bool:
    """Plain memoised minimax (the baseline): does the mover win?"""
    memo: dict[tuple[tuple[Sq, ...], tuple[Sq, ...]], bool] = {}
    sys.setrecursionlimit(100_000)

    def wins(mine: tuple[Sq, ...], theirs: tuple[Sq, ...]) -> bool:
        key = (mine, theirs)
        if key in memo:
            return memo[key]
        taken = {*mine, *theirs}
        result = False
        for slot in (0, 1):
            row, col = mine[slot]
            for dr, dc in STEPS:
                q = (row + dr, col + dc)
                if q[0] >= 1 and q[1] >= 1 and q not in taken:
                    after = tuple(sorted((q, mine[1 - slot])))
                    if not wins(theirs, after):
                        result = True
                        break
            if result:
                break
        memo[key] = result
        return result

    mine, theirs = (black, white) if mover == "BLACK" else (white, black)
    return wins(tuple(sorted(mine)), tuple(sorted(theirs)))


CORNER: bool = True
"""Whether the solver may read the corner table (``--no-corner`` turns it off)."""


def solve_fresh(position: Position) -> bool:
    return Solver(corner=CORNER).mover_wins(*position)


def row(name: str, times: list[float], unsolved: int) -> str:
    ms = sorted(t * 1000 for t in times)
    if not ms:
        return f"{name:<12} {'-':>9} {'-':>9} {'-':>9} {'-':>10} {0:>6} {unsolved:>9}"
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    return (f"{name:<12} {statistics.fmean(ms):>9.1f} {statistics.median(ms):>9.1f} {p99:>9.1f} {ms[-1]:>10.1f} "
            f"{len(ms):>6} {unsolved:>9}")


def band(positions: list[Position], timeout: float) -> tuple[list[float], int, list[tuple[float, Position]]]:
    times, unsolved, slow = [], 0, []
    for position in positions:
        took = timed(lambda: solve_fresh(position), timeout)
        if took is None:
            unsolved += 1
        else:
            times.append(took)
            slow.append((took, position))
    slow.sort(reverse=True)
    return times, unsolved, slow[:3]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="positions per band 1..8 and 1..15 (default 200)")
    parser.add_argument("--samples30", type=int, default=40, help="positions in the band 1..30 (default 40)")
    parser.add_argument("--mixed", type=int, default=40, help="intermixed positions in 1..15 (default 40)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a position counts as unsolved")
    parser.add_argument("--plain", type=int, default=20, help="1..15 positions to time the plain minimax on")
    parser.add_argument("--plain-timeout", type=float, default=10.0)
    parser.add_argument("--exhaustive", type=int, default=0, help="random positions in 1..8 for the worst-case check")
    corner = parser.add_mutually_exclusive_group()
    corner.add_argument("--build", action="store_true", help="build the row + col <= 24 corner table first if missing")
    corner.add_argument("--no-corner", action="store_true", help="search every position (ignore any corner table)")
    args = parser.parse_args()
    global CORNER
    CORNER = not args.no_corner
    table = kings_horses_table.default_table() if CORNER else None
    if CORNER and args.build and (table is None or table.limit < kings_horses_table.DEFAULT_SUM):
        start = time.perf_counter()
        path = kings_horses_table.build()
        print(f"built {path} in {time.perf_counter() - start:.1f} s")
        table = kings_horses_table.default_table()
    if table is not None:
        print(f"corner table: row + col <= {table.limit} ({kings_horses_table.table_path(table.limit)})")
    else:
        print("corner table: none (search only" + (")" if args.no_corner else "; --build builds one)"))

    rng = random.Random(args.seed)
    bands = [
        ("1..8", [random_position(rng, 1, 8) for _ in range(args.samples)]),
        ("1..15", [random_position(rng, 1, 15) for _ in range(args.samples)]),
        ("1..15 mixed", [mixed_position(rng, 15) for _ in range(args.mixed)]),
        ("1..30", [random_position(rng, 1, 30) for _ in range(args.samples30)]),
    ]
    print(f"fresh Solver per position, timeout {args.timeout:g} s, seed {args.seed}")
    print(f"{'band':<12} {'mean ms':>9} {'median':>9} {'p99':>9} {'max ms':>10} {'count':>6} {'unsolved':>9}")
    slowest = []
    for name, positions in bands:
        times, unsolved, slow = band(positions, args.timeout)
        print(row(name, times, unsolved), flush=True)
        slowest += [(name, t, p) for t, p in slow]
    print("slowest per band:")
    for name, took, position in slowest:
        print(f"  {name:<12} {took * 1000:>10.1f} ms  {position}")

    if args.plain:
        sample = bands[1][1][: args.plain]
        ours_total = plain_total = 0.0
        both = plain_out = 0
        bound_plain = bound_ours = 0.0
        for position in sample:
            ours = timed(lambda: solve_fresh(position), args.timeout)
            plain = timed(lambda: plain_solve(*position), args.plain_timeout)
            if ours is None:
                continue
            bound_ours += ours
            bound_plain += plain if plain is not None else args.plain_timeout
            if plain is None:
                plain_out += 1
            else:
                both += 1
                ours_total += ours
                plain_total += plain
        print(f"plain memoised minimax on {len(sample)} positions of 1..15 (timeout {args.plain_timeout:g} s each):")
        if both:
            print(f"  {both} finished by both: plain {plain_total:.2f} s, solver {ours_total:.2f} s, "
                  f"speed-up {plain_total / max(ours_total, 1e-9):.0f}x")
        print(f"  {plain_out} abandoned by the plain minimax; counting those at the timeout, speed-up >= "
              f"{bound_plain / max(bound_ours, 1e-9):.0f}x")

    if args.exhaustive:
        positions = [random_position(rng, 1, 8) for _ in range(args.exhaustive)]
        times, unsolved, slow = band(positions, args.timeout)
        print(f"worst-case check, {args.exhaustive} random positions in 1..8:")
        print(row("1..8 check", times, unsolved))
        over = sum(t > 0.05 for t in times)
        print(f"  over 50 ms: {over}; slowest: " + "; ".join(f"{t * 1000:.0f} ms {p}" for t, p in slow))
    return 0


if __name__ == "__main__":
    sys.exit(main())
