"""Benchmark the Connect Four solver on Pascal Pons's six 7 x 6 test sets.

For each chosen set it solves the positions in order with one Solver (its table of
``LONG_TABLE_SIZE`` entries, kept between positions until it holds more than a move's: ``tidy``, as
``solve_lines`` and ``arena solve`` do), by each path of ``--paths`` (``native``: the C core,
engines/native/connect4_solver.c; ``python``: the pure-Python search), one row per set and path, and
prints: positions solved, mismatches against the file's scores (must be 0), mean and max wall ms per
position (parse + solve), mean wall ms of the solve alone, mean CPU ms, positions per second, and
nodes per wall second and per CPU second (the one to read on a busy machine). The files are read here as the reference; the solver
never reads them. Goals of the Python search (means): End-Easy < 0.5 ms, Middle-Easy < 2 ms,
Middle-Medium < 300 ms; of the native core (issue 43: within 2x of Pons's published means), End-Easy
<= 10 us, Middle-Easy <= 75 us, Middle-Medium <= 6.5 ms, Begin-Easy <= 0.5 ms, Begin-Medium
<= 200 ms, Begin-Hard <= 11 s, and >= 8 M nodes/s.

``--timeout`` stops a set after that many seconds (between positions); ``--position-timeout``
abandons a single position after that many seconds (counted as timed out, not as solved).

``--position WxH:COLUMNS`` solves instead one position of any size (its 1-based columns, comma-separated,
from the empty board) by each path of ``--paths``, a fresh Solver each, and prints its score, nodes, wall
and CPU seconds and nodes per CPU second (the scores must agree). docs/connect4.md has a 12 x 12 one.

``--by-depth 0,2,4,...`` measures instead what a position costs by the number of discs played: for
each depth, ``--per-depth`` positions reached by random play from the empty 7 x 6 board (seeded,
games not over), each solved by a fresh Solver, with ``--position-timeout`` (default 60 s); it
prints the median and the slowest time, and how many did not finish. docs/connect4.md has the table.

Usage: .venv/bin/python scripts/bench_solver.py [--sets End-Easy,Middle-Easy] [--limit K]
       [--timeout SECONDS] [--position-timeout SECONDS] [--data DIR] [--paths native,python]
       .venv/bin/python scripts/bench_solver.py --position 12x12:10,9,6,... [--paths native,python]
       .venv/bin/python scripts/bench_solver.py --by-depth 0,4,8,12,16,20,24 [--per-depth K]
       [--position-timeout SECONDS] [--seed S]
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

from engines.connect4_solver import LONG_TABLE_SIZE, Solver, parse_moves  # noqa: E402

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


def bench_set(path: Path, limit: int | None, timeout: float | None, position_timeout: float | None,
              native: bool = False) -> dict[str, float]:
    """Solve one file's positions; the figures for its row of the table."""
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    if limit is not None:
        lines = lines[:limit]
    solver = Solver(7, 6, LONG_TABLE_SIZE, native=native)
    solved = mismatches = timed_out = 0
    wall_total = cpu_total = worst = solve_total = 0.0
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
            state = parse_moves(moves, 7, 6)
            solve_start = time.perf_counter()
            solver.tidy()
            score = solver.solve(state)
            solve_total += time.perf_counter() - solve_start
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
        "mean_ms": 1000 * wall_total / max(solved, 1), "solve_ms": 1000 * solve_total / max(solved, 1), "max_ms": 1000 * worst,
        "cpu_ms": 1000 * cpu_total / max(solved, 1), "per_s": solved / wall_total if wall_total else 0.0,
        "nodes_s": nodes / wall_total if wall_total else 0.0,
        "cpu_nodes_s": nodes / cpu_total if cpu_total else 0.0,
    }


def random_positions(depth: int, count: int, seed: int) -> list[str]:
    """``count`` positions of ``depth`` discs reached by random play on 7 x 6 in which neither side
    has a playable winning cell (random play soon leaves one, and such a position is solved at
    once: these are the quiet positions a person would ask about)."""
    import random

    from engines.connect4_solver import from_columns, winning_cells

    rng = random.Random(f"{seed}:{depth}")
    probe = Solver(7, 6)
    bottom, board = probe._bottom, probe._board
    found: list[str] = []
    for _ in range(1000 * count):  # fewer when there are fewer distinct positions (one of 0 discs)
        if len(found) == count:
            break
        moves: list[int] = []
        heights = [0] * 7
        while len(moves) < depth:
            move = rng.choice([c for c in range(1, 8) if heights[c - 1] < 6])
            heights[move - 1] += 1
            moves.append(move)
            state = from_columns(moves, 7, 6)
            playable = (state.mask + bottom) & board
            if (winning_cells(state.current, board & ~state.mask, 6) & playable
                    or winning_cells(state.current ^ state.mask, board & ~state.mask, 6) & playable):
                break
        else:
            text = "".join(str(move) for move in moves)
            if text not in found:
                found.append(text)
    return found


def bench_depths(depths: list[int], per_depth: int, position_timeout: float, seed: int) -> int:
    """Time ``per_depth`` random positions at each depth; print one row per depth: the median and
    slowest wall time (a position stopped at the timeout counts as slower than it), the median
    nodes of those solved (the same on any machine) and the node rate."""
    print(f"{'discs':>5} {'positions':>9} {'solved':>6} {'median s':>9} {'slowest s':>9} {'median nodes':>12} "
          f"{'nodes/s':>9}")
    for depth in depths:
        times, counts, nodes, stopped = [], [], 0, 0
        for text in random_positions(depth, per_depth, seed):
            solver = Solver(7, 6)
            start = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, position_timeout)
            try:
                solver.solve(parse_moves(text, 7, 6))
            except PositionTimeout:
                stopped += 1
                times.append(float("inf"))
                continue
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            times.append(time.perf_counter() - start)
            counts.append(solver.nodes)
            nodes += solver.nodes
        times.sort()
        counts.sort()
        finite = [t for t in times if t != float("inf")]
        median = times[len(times) // 2]
        shown = lambda t: f">{position_timeout:g}" if t == float("inf") else f"{t:.3f}"  # noqa: E731
        rate = nodes / sum(finite) if finite and sum(finite) else 0.0
        median_nodes = f"{counts[len(counts) // 2]:,}" if counts else "-"
        print(f"{depth:>5} {len(times):>9} {len(finite):>6} {shown(median):>9} {shown(times[-1]):>9} "
              f"{median_nodes:>12} {rate:>9,.0f}", flush=True)
    return 0


def bench_position(spec: str, paths: list[str]) -> int:
    """Solve the position ``WxH:COLUMNS`` by each path; one row each. Status 1 when the scores differ."""
    from engines.connect4_solver import PositionError, from_columns

    size, _, columns = spec.partition(":")
    try:
        width, height = (int(part) for part in size.split("x"))
        state = from_columns([int(part) for part in columns.split(",") if part.strip()], width, height)
    except (ValueError, PositionError) as error:
        print(f"bench_solver.py: error: invalid --position {spec!r} ({error}); give WxH:COLUMNS, "
              "e.g. 12x12:6,7,6", file=sys.stderr)
        return 2
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    print(f"{width}x{height}, {state.moves} discs played")
    print(f"{'path':<6} {'score':>5} {'nodes':>12} {'wall s':>8} {'cpu s':>8} {'nodes/cpu-s':>12}")
    scores = set()
    for path in paths:
        solver = Solver(width, height, LONG_TABLE_SIZE, native=path == "native")
        wall_start, cpu_start = time.perf_counter(), time.process_time()
        score = solver.solve(state)
        wall, cpu = time.perf_counter() - wall_start, time.process_time() - cpu_start
        scores.add(score)
        print(f"{path:<6} {score:>5} {solver.nodes:>12,} {wall:>8.3f} {cpu:>8.3f} {solver.nodes / max(cpu, 1e-9):>12,.0f}",
              flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if len(scores) == 1 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(DEFAULT_SETS), help=f"comma-separated, of: {', '.join(SETS)}")
    parser.add_argument("--limit", type=int, help="only the first K positions of each set")
    parser.add_argument("--timeout", type=float, help="seconds per set; the set stops after the position running then")
    parser.add_argument("--position-timeout", type=float, help="seconds per position; slower positions are skipped")
    parser.add_argument("--data", type=Path, default=DATA,
                        help=f"directory of Pons's Test_L*_R* files (default {DATA}: the full sets beside the "
                             f"repository, else the samples in tests/data/pons)")
    parser.add_argument("--paths", default="native,python",
                        help="comma-separated, of: native (the C core), python (the pure-Python search)")
    parser.add_argument("--position", help="WxH:COLUMNS: solve this one position instead (columns 1-based, comma-separated)")
    parser.add_argument("--by-depth", help="comma-separated disc counts: time random positions of each instead")
    parser.add_argument("--per-depth", type=int, default=5, help="positions per depth with --by-depth")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random positions with --by-depth")
    args = parser.parse_args(argv)
    if args.by_depth:
        signal.signal(signal.SIGALRM, _alarm)
        print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
        depths = [int(part) for part in args.by_depth.split(",")]
        status = bench_depths(depths, args.per_depth, args.position_timeout or 60.0, args.seed)
        print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return status
    paths = [path.strip() for path in args.paths.split(",") if path.strip()]
    if not paths or any(path not in ("native", "python") for path in paths):
        parser.error(f"invalid --paths {args.paths!r}; give native, python or native,python")
    if "native" in paths and not Solver(7, 6).native:
        parser.error("the native core is not built (or ARENA_PURE is set): run .venv/bin/python engines/native/build.py, "
                     "or give --paths python")
    if args.position:
        return bench_position(args.position, paths)
    names = [name.strip() for name in args.sets.split(",") if name.strip()]
    unknown = [name for name in names if name not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(SETS)}")
    signal.signal(signal.SIGALRM, _alarm)
    print(f"data: {args.data}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    header = f"{'set':<14} {'file':<10} {'path':<6} {'positions':>11} {'timed out':>9} {'mismatch':>8} " \
             f"{'mean ms':>9} {'solve ms':>9} " \
             f"{'max ms':>9} {'cpu ms':>9} {'pos/s':>9} {'nodes/s':>11} {'nodes/cpu-s':>11}"
    print(header)
    failed = False
    for name in names:
        for path in paths:
            row = bench_set(args.data / SETS[name], args.limit, args.timeout, args.position_timeout, path == "native")
            failed |= row["mismatches"] > 0
            print(f"{name:<14} {SETS[name]:<10} {path:<6} {row['positions']:>5}/{row['of']:<5} {row['timed_out']:>9} "
                  f"{row['mismatches']:>8} {row['mean_ms']:>9.3f} {row['solve_ms']:>9.4f} {row['max_ms']:>9.1f} {row['cpu_ms']:>9.3f} "
                  f"{row['per_s']:>9.1f} {row['nodes_s']:>11,.0f} {row['cpu_nodes_s']:>11,.0f}", flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
