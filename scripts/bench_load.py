"""Verdicts that are facts about the program: the same programs validated on an idle machine and again
beside busy loops, every category's status compared.

Validates each program (the built-in engines, the strongest engine, the example, the sample students
with real mistakes, and busy programs that compute most of their time or into the grace) with
``arena validate PROGRAM --quick --games 0 --json``, first with the machine as it is, then with
``--hogs`` busy loops (``yes``, each in a session of its own so that no scheduler groups them into one,
started here and killed by pid). Prints each program's statuses in both runs and, per run, the calls
run again because the machine starved them; exit status 1 if any category's status differs.

With ``--slowed``, the second run is a machine slowed on purpose instead: the validations bound to one
core (``taskset -c 0``) beside the busy loops bound to the same core, with ``--time-scale auto`` in both
runs: the calibrated clock must give the same verdicts.

Usage: .venv/bin/python scripts/bench_load.py [--hogs 2] [--slowed] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUDENTS = ROOT / "tests" / "fake_engines" / "students"
PROGRAMS = {
    "random": "engines/random_mover.py",
    "greedy": "engines/greedy.py",
    "alphabeta": "engines/alphabeta.py",
    "mcts_alphabeta": "engines/mcts_alphabeta.py",
    "strongest": "scripts/betsy.py",
    "example": "docs/examples/betsy/betsy.py",
    **{path.stem: str(path.relative_to(ROOT)) for path in sorted(STUDENTS.glob("*.py"))
       if not path.name.startswith("_")},
}
CATEGORIES = ("protocol", "rules", "time", "robustness", "tactics")


def validate(path: str, prefix: list[str], extra: list[str]) -> tuple[dict[str, str], int, float]:
    """The statuses of one validation, the calls run again, and its wall time."""
    started = time.monotonic()
    done = subprocess.run([*prefix, str(ROOT / "scripts" / "arena"), "validate", f"python3 {path}", "--quick", "--games",
                           "0", "--json", *extra], capture_output=True, text=True, cwd=ROOT)
    seconds = time.monotonic() - started
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"bench_load: {path}: no JSON report (exit {done.returncode}): {done.stderr.strip()[-300:]}")
    statuses = {name: report["categories"][name]["status"] for name in CATEGORIES}
    rerun = sum(1 for check in report["categories"]["time"]["checks"] if check["id"] == "calls-run-again")
    return statuses, rerun, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=2, help="busy loops beside the second run (default 2)")
    parser.add_argument("--only", nargs="*", default=None, help="program names to run (default: all)")
    parser.add_argument("--slowed", action="store_true", help="second run on one core beside the loops, both runs "
                                                               "with --time-scale auto")
    args = parser.parse_args()
    extra = ["--time-scale", "auto"] if args.slowed else []
    pin = ["taskset", "-c", "0"] if args.slowed else []
    names = args.only or list(PROGRAMS)
    idle = {}
    print(f"{len(names)} programs, {os.cpu_count()} CPUs; first run: the machine as it is")
    for name in names:
        idle[name] = validate(PROGRAMS[name], [], extra)
        print(f"  {name:28} {' '.join(f'{s:10}' for s in idle[name][0].values())} {idle[name][2]:6.1f} s")
    hogs = [subprocess.Popen([*pin, "yes"], stdout=subprocess.DEVNULL, start_new_session=True) for _ in range(args.hogs)]
    loaded = {}
    try:
        time.sleep(0.5)
        print(f"second run: beside {args.hogs} busy loops (yes > /dev/null){', all on core 0' if pin else ''}, "
              f"load {os.getloadavg()[0]:.1f}")
        for name in names:
            loaded[name] = validate(PROGRAMS[name], pin, extra)
            print(f"  {name:28} {' '.join(f'{s:10}' for s in loaded[name][0].values())} {loaded[name][2]:6.1f} s"
                  + (f"  ({loaded[name][1]} starved calls run again)" if loaded[name][1] else ""))
    finally:
        for hog in hogs:
            os.kill(hog.pid, signal.SIGKILL)
            hog.wait()
    flips = [(name, category, idle[name][0][category], loaded[name][0][category])
             for name in names for category in CATEGORIES if idle[name][0][category] != loaded[name][0][category]]
    print(f"categories compared: {len(names) * len(CATEGORIES)}; flips idle vs loaded: {len(flips)}")
    for name, category, before, after in flips:
        print(f"  FLIP {name} {category}: {before} idle, {after} loaded")
    sys.exit(1 if flips else 0)


if __name__ == "__main__":
    main()
