#!/usr/bin/env python3
"""arena class at scale: a synthetic class of N programs, each stage's time and throughput.

    scripts/bench_class.py [--sizes 10,50,200] [--dask-from 200] [--workers K] [--time 0.1]

Each class is written by scripts/make_class.py (sound sample programs under student names, half of
them copies of a one-ply player, half random movers) and run by `arena class` at a fast time control
with the quick validation at one size. Printed per N: seconds and throughput of intake, validation,
probes, anchor games and league games, and the games of the Swiss league against those a round-robin
of the same class would need. Classes from --dask-from up play their games on a local dask cluster
(local:K). The figures at 1 s per move on a bigger machine follow from these (docs/class.md).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARENA = [str(ROOT / ".venv/bin/python"), "-m", "harness"]


def run_class(n: int, seconds: int, cluster: str | None, folder: Path) -> dict[str, object]:
    subprocess.run([sys.executable, str(ROOT / "scripts/make_class.py"), str(folder / "sub"), "--students", str(n),
                    "--only-sound"], check=True, capture_output=True)
    config = folder / "class.yaml"
    config.write_text(
        f"name: bench{n}\ngame: betsy\nn: 5\ntime: {seconds}\nsubmissions: sub\n"
        "validation: {quick: true, n: [5]}\nleague: {format: swiss, references: {random: 0, greedy: 370}}\n"
        "grading: {budget: 4, bands: [{name: below greedy}, {name: beats greedy, above: greedy}]}\n"
        "similarity: {positions: 10}\n" + (f"cluster: {cluster}\n" if cluster else ""))
    started = time.perf_counter()
    done = subprocess.run([*ARENA, "class", str(config), "--db", str(folder / "bench.sqlite"), "--json",
                           "--no-progress"], capture_output=True, text=True, cwd=folder)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"arena class failed for N = {n}: {done.stderr.strip().splitlines()[-1:]}")
    data = json.loads(done.stdout)
    data["wall"] = wall
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,50,200")
    parser.add_argument("--dask-from", type=int, default=200)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--time", type=int, default=1)
    args = parser.parse_args()
    print(f"arena class, synthetic classes, Betsy n = 5, {args.time:g} s per move, {os.cpu_count()} cores")
    header = (f"{'N':>4} {'where':>9} {'intake s':>9} {'valid. s':>9} {'prog/min':>9} {'anchor g':>9} "
              f"{'games/min':>9} {'league g':>9} {'games/min':>9} {'rounds':>6} {'swiss g':>8} {'RR g':>7} {'wall s':>7}")
    print(header)
    for n in (int(part) for part in args.sizes.split(",")):
        cluster = f"local:{args.workers}" if n >= args.dask_from else None
        with tempfile.TemporaryDirectory(prefix="bench-class-") as temporary:
            data = run_class(n, args.time, cluster, Path(temporary))
        seconds = data["stage_seconds"]
        games = data["stage_games"]
        assert isinstance(seconds, dict) and isinstance(games, dict)
        rounds = int(data["rounds"])  # type: ignore[call-overload]
        entrants = sum(1 for s in data["students"] if s["status"] == "ranked")  # type: ignore[union-attr,index]
        swiss_games = 2 * (entrants // 2) * rounds
        rr_games = entrants * (entrants - 1)

        def rate(count: int, spent: float) -> str:
            return f"{60 * count / spent:9.0f}" if spent > 0 else f"{'-':>9}"

        print(f"{n:>4} {('local:' + str(args.workers)) if cluster else 'pool':>9} {seconds['intake']:9.1f} "
              f"{seconds['validation']:9.1f} {rate(int(data['validated_now']), seconds['validation'])} "
              f"{games['anchors']:>9} {rate(games['anchors'], seconds['anchors'])} {games['league']:>9} "
              f"{rate(games['league'], seconds['league'])} {rounds:>6} {swiss_games:>8} {rr_games:>7} {data['wall']:7.0f}")
        sys.stdout.flush()
    print("Swiss g: the league's games (a pair per pairing per round); RR g: a round-robin's (a pair per pairing).")
    print(f"A round-robin of 200 needs {200 * 199} games; a Swiss league of 200 in {math.ceil(math.log2(200)) + 2} "
          f"rounds needs {200 * (math.ceil(math.log2(200)) + 2)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
