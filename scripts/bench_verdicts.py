#!/usr/bin/env python3
"""Does `arena validate` blame only what a program proves? Repeated quick validations of sample students.

    scripts/bench_verdicts.py [--random 100] [--unseeded 100] [--greedy 20] [--off-by-one 5] [--jobs 1]

Each run is `arena validate PROGRAM --quick --games 0 --json` (the default sizes 3, 5, 8; one second
per move). The programs: tests/fake_engines/students/random_legal.py (a random legal move, its generator
seeded by the position), random_unseeded.py (a uniformly random legal move drawn afresh at every call:
the mover the last pebble's chance figure is about), greedy_student.py (a sound one-ply player) and
last_pebble_off_by_one.py (the one-ply player with its supply count one short). Printed per program:
the runs, how many failed rules and protocol, how many asked a last-pebble twin, how many failed rules
with minimal pairs proved (``basis: proved``: docs/verdicts.md), and the smallest chance figure seen.
Exit status 1 when a random mover or the one-ply player failed rules or protocol in any run, or the
off-by-one was not failed on rules with its pairs proved in every run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STUDENTS = ROOT / "tests" / "fake_engines" / "students"
ARENA = [str(ROOT / ".venv/bin/python"), "-m", "harness"]


COUNTS = ("runs", "rules_failed", "protocol_failed", "twins_asked", "proved")
"""What the runs of one program are counted by (``twins_asked``: some last-pebble twin was asked, as a
first answer was a rotation; ``proved``: failed on rules by a last-pebble diagnosis with its pairs)."""


def outcome(report: dict[str, Any]) -> dict[str, Any]:
    """One validation report's figures: rules and protocol failed, twins asked, a proved supply count
    (a failed rules check with ``basis`` proved and its pairs), and the chance figures of its checks."""
    checks = [check for category in report["categories"].values() for check in category["checks"]]
    rules = report["categories"]["rules"]
    proved = any(check["status"] == "fail" and check.get("basis") == "proved" and check.get("pairs")
                 for check in rules["checks"])
    return {
        "rules_failed": rules["status"] == "fail",
        "protocol_failed": report["categories"]["protocol"]["status"] == "fail",
        "twins_asked": any(pair["twin_answers"] for check in checks for pair in check.get("pairs") or []),
        "proved": proved,
        "chances": sorted({check["chance"] for check in checks if check.get("chance") is not None}),
    }


def validate(program: Path) -> tuple[dict[str, Any], float]:
    """One quick validation of ``program`` (no games): its figures and its wall time."""
    started = time.perf_counter()
    done = subprocess.run([*ARENA, "validate", f"python3 {program}", "--quick", "--games", "0", "--json",
                           "--quiet"], capture_output=True, text=True, cwd=ROOT)
    if done.returncode not in (0, 1):
        raise SystemExit(f"arena validate {program.name} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return outcome(json.loads(done.stdout)), time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=100, help="runs of random_legal.py (seeded by the position)")
    parser.add_argument("--unseeded", type=int, default=100, help="runs of random_unseeded.py (fresh at every call)")
    parser.add_argument("--greedy", type=int, default=20, help="runs of greedy_student.py")
    parser.add_argument("--off-by-one", type=int, default=5, help="runs of last_pebble_off_by_one.py")
    parser.add_argument("--jobs", type=int, default=1, help="validations run at once (each runs 2 calls at once)")
    args = parser.parse_args()
    programs = {"random_legal.py": args.random, "random_unseeded.py": args.unseeded, "greedy_student.py": args.greedy,
                "last_pebble_off_by_one.py": args.off_by_one}
    tasks = [name for name, runs in programs.items() for _ in range(runs)]
    tallies = {name: dict.fromkeys(COUNTS, 0) for name, runs in programs.items() if runs}
    chances: dict[str, list[float]] = {name: [] for name in tallies}
    seconds = dict.fromkeys(tallies, 0.0)
    print(f"arena validate --quick --games 0, sizes 3, 5, 8; {len(tasks)} runs, {args.jobs} at a time")
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name, (found, spent) in zip(tasks, pool.map(lambda name: validate(STUDENTS / name), tasks)):
            tallies[name]["runs"] += 1
            for count in COUNTS[1:]:
                tallies[name][count] += found[count]
            chances[name] += found["chances"]
            seconds[name] += spent
    print(f"{'program':<26} {'runs':>5} {'rules fail':>10} {'protocol fail':>13} {'twins asked':>11} "
          f"{'proved':>6} {'least chance':>12} {'s/run':>6}")
    for name, tally in tallies.items():
        least = f"{min(chances[name]):.2g}" if chances[name] else "-"
        print(f"{name:<26} {tally['runs']:>5} {tally['rules_failed']:>10} {tally['protocol_failed']:>13} "
              f"{tally['twins_asked']:>11} {tally['proved']:>6} {least:>12} {seconds[name] / tally['runs']:6.1f}")
    wrong = [name for name, tally in tallies.items() if name != "last_pebble_off_by_one.py"
             and (tally["rules_failed"] or tally["protocol_failed"])]
    off = tallies.get("last_pebble_off_by_one.py")
    if off is not None and off["proved"] < off["runs"]:
        wrong.append("last_pebble_off_by_one.py")
    if wrong:
        print(f"FAIL: {', '.join(wrong)}")
        return 1
    print("OK: no rules or protocol failure for the random movers and the one-ply player; the off-by-one failed "
          "on rules with its minimal pairs proved in every run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
