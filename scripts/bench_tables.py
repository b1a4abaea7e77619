"""Benchmark what reading the exact tables costs an engine: each opens and checks its table at start-up.

Builds, with the code under test and in its format, the n = 3 Betsy table (mover priority) and the
All The King's Horses corner table (row + col <= 16) into a temporary folder, then prints (1) in this
process, the mean time of ``engines.tablebase.probe`` on the positions of random n = 3 playouts
(open the table, check its header, look up the position and its children, close) and of opening the
corner table (``Table(path)``: header checks and a map); (2) the median wall time, from exec until
exit, of ``engines/alphabeta.py`` answering an n = 3 position from the table and of
``scripts/bestmove.py`` answering a position inside the corner, against a bare ``python -c pass``,
over RUNS runs each, interleaved. ``--root`` times another checkout of the project the same way.

Usage: .venv/bin/python scripts/bench_tables.py [--runs 30] [--probes 2000] [--root DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--probes", type=int, default=2000)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the checkout to time (default: this one)")
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    folder = tempfile.mkdtemp(prefix="bench-tables-")
    os.environ["BETSY_TABLES"] = folder

    from engines import kings_horses_table
    from engines.protocol import Rng
    from engines.tablebase import build, probe
    from harness.games.betsy.rules import Position, initial_position

    build(3, "mover")
    corner = kings_horses_table.build(16)
    positions: list[Position] = []
    rng = Rng(1)
    while len(positions) < args.probes:
        position = initial_position(3)
        for _ in range(12):
            if position.winner() is not None:
                break
            positions.append(position.copy())
            position.push(rng.choice(position.legal_moves()))
    positions = positions[:args.probes]
    start = time.perf_counter()
    for position in positions:
        probe(position)
    probe_us = (time.perf_counter() - start) / len(positions) * 1e6
    start = time.perf_counter()
    for _ in range(args.probes):
        kings_horses_table.Table(corner)
    open_us = (time.perf_counter() - start) / args.probes * 1e6
    print(f"checkout {root}")
    print(f"in process: probe (open, check, look up, close) {probe_us:.1f} us per n = 3 position "
          f"({len(positions)}); corner table opened in {open_us:.1f} us")

    python = sys.executable
    env = dict(os.environ, PYTHONPATH=str(root))
    commands = {
        "bare python -c pass": [python, "-c", "pass"],
        "alphabeta.py, n = 3 from the table": [python, str(root / "engines" / "alphabeta.py"), "3", "x",
                                               "............o..xox", "1"],
        "bestmove.py, inside the corner": [python, str(root / "scripts" / "bestmove.py"), "BLACK", "5", "4", "3", "6",
                                           "6", "2", "2", "7"],
    }
    times: dict[str, list[float]] = {label: [] for label in commands}
    for argv in commands.values():  # warm the page cache and the bytecode
        subprocess.run(argv, capture_output=True, check=True, cwd=root, env=env)
    for _ in range(args.runs):
        for label, argv in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True, cwd=root, env=env)
            times[label].append(time.perf_counter() - start)
    print(f"start-up to exit (median of {args.runs}):")
    for label, values in times.items():
        print(f"  {label:<36} {statistics.median(values) * 1000:6.1f} ms")
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    os.rmdir(folder)


if __name__ == "__main__":
    main()
