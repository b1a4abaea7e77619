"""Benchmark the Connect Four solver on Pascal Pons's six 7 x 6 test sets.

For each chosen set it solves the positions in order with one Solver (its table kept between
positions, as a user of ``solve_lines`` would) and prints: positions solved, mismatches against the
file's scores (must be 0), mean and max wall ms per position (parse + solve), mean CPU ms, positions
per second and nodes per second. The files are read here as the reference; the solver never reads
them. Goals (means): End-Easy < 0.5 ms, Middle-Easy < 2 ms, Middle-Medium < 300 ms.

``--timeout`` stops a set after that many seconds (between positions); ``--position-timeout``
abandons a single position after that many seconds (counted as timed out, not as solved).

Usage: .venv/bin/python scripts/bench_solver.py [--sets End-Easy,Middle-Easy] [--limit K]
       [--timeout SECONDS] [--position-timeout SECONDS] [--data DIR]
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines.connect4_solver import Solver, parse_moves  # noqa: E402

SETS = {
    "End-Easy": "Test_L3_R1",
    "Middle-Easy": "Test_L2_R1",
    "Middle-Medium": "Test_L2_R2",
    "Begin-Easy": "Test_L1_R1",
    "Begin-Medium": "Test_L1_R2",
    "Begin-Hard": "Test_L1_R3",
}
"""Pons's names for his sets, and their files."""
DEFAULT_SETS = ("End-Easy", "Middle-Easy", "Middle-Medium", "Begin-Easy")
"""The sets that finish in minutes; Begin-Medium takes about half an hour, Begin-Hard far longer."""
FULL_DATA = ROOT.parent / "shared" / "data" / "connect4" / "pons"
"""The full sets, where they lie beside the repository; elsewhere the committed samples (tests/data/)."""
DATA = FULL_DATA if FULL_DATA.is_dir() else ROOT / "tests" / "data" / "pons"


class PositionTimeout(Exception):
    """Raised by the alarm when one position takes longer than --position-timeout."""


def _alarm(signum: int, frame: object) -> None:
    raise PositionTimeout


def bench_set(path: Path, limit: int | None, timeout: float | None, position_timeout: float | None) -> dict[str, float]:
    """Solve one file's positions; the figures for its row of the table."""
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    if limit is not None:
        lines = lines[:limit]
    solver = Solver(7, 6)
    solved = mismatches = timed_out = 0
    wall_total = cpu_total = worst = 0.0
    nodes = 0
    set_start = time.perf_counter()
    for moves, expected in lines:
        if timeout is not None and time.perf_counter() - set_start > timeout:
            break
        nodes_before = solver.nodes
        wall_start, cpu_start = time.perf_counter(), time.process_time()
        if position_timeout is not None:
            signal.setitimer(signal.ITIMER_REAL, position_timeout)
        try:
            score = solver.solve(parse_moves(moves, 7, 6))
        except PositionTimeout:
            timed_out += 1
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        wall = time.perf_counter() - wall_start
        cpu_total += time.process_time() - cpu_start
        wall_total += wall
        worst = max(worst, wall)
        nodes += solver.nodes - nodes_before
        solved += 1
        if score != int(expected):
            mismatches += 1
            print(f"  MISMATCH {moves}: solver {score}, file {expected}", flush=True)
    return {
        "positions": solved, "of": len(lines), "timed_out": timed_out, "mismatches": mismatches,
        "mean_ms": 1000 * wall_total / max(solved, 1), "max_ms": 1000 * worst,
        "cpu_ms": 1000 * cpu_total / max(solved, 1), "per_s": solved / wall_total if wall_total else 0.0,
        "nodes_s": nodes / wall_total if wall_total else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(DEFAULT_SETS), help=f"comma-separated, of: {', '.join(SETS)}")
    parser.add_argument("--limit", type=int, help="only the first K positions of each set")
    parser.add_argument("--timeout", type=float, help="seconds per set; the set stops after the position running then")
    parser.add_argument("--position-timeout", type=float, help="seconds per position; slower positions are skipped")
    parser.add_argument("--data", type=Path, default=DATA,
                        help=f"directory of Pons's Test_L*_R* files (default {DATA}: the full sets beside the "
                             f"repository, else the samples in tests/data/pons)")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.sets.split(",") if name.strip()]
    unknown = [name for name in names if name not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(SETS)}")
    signal.signal(signal.SIGALRM, _alarm)
    print(f"data: {args.data}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    header = f"{'set':<14} {'file':<10} {'positions':>11} {'timed out':>9} {'mismatch':>8} {'mean ms':>9} " \
             f"{'max ms':>9} {'cpu ms':>9} {'pos/s':>9} {'nodes/s':>9}"
    print(header)
    failed = False
    for name in names:
        row = bench_set(args.data / SETS[name], args.limit, args.timeout, args.position_timeout)
        failed |= row["mismatches"] > 0
        print(f"{name:<14} {SETS[name]:<10} {row['positions']:>5}/{row['of']:<5} {row['timed_out']:>9} "
              f"{row['mismatches']:>8} {row['mean_ms']:>9.3f} {row['max_ms']:>9.1f} {row['cpu_ms']:>9.3f} "
              f"{row['per_s']:>9.1f} {row['nodes_s']:>9,.0f}", flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
