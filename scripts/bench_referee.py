"""Benchmark the referee's overhead per engine call.

Runs the random engine for one move through `harness.referee.ask` and through a bare
`subprocess.run` of the same argv, interleaved, over many calls in the same run, and prints the median
and mean wall time per call of each and their ratio. Goal: ratio <= 1.05.

Usage: .venv/bin/python scripts/bench_referee.py [--calls 100] [--n 5]
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

from harness.engines import builtin_engine  # noqa: E402
from harness.games.betsy import initial_position  # noqa: E402
from harness.protocol import Verdict, engine_argv  # noqa: E402
from harness.referee import Limits, ask  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--n", type=int, default=5)
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "harness", quiet=1)
    compileall.compile_dir(ROOT / "engines", quiet=1)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

    spec = builtin_engine("random")
    position = initial_position(args.n)
    argv = engine_argv(spec.command, position, 1)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    limits = Limits()

    def bare() -> float:
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=env, check=True)
        return time.perf_counter() - start

    def refereed() -> float:
        start = time.perf_counter()
        result = ask(spec.command, position, 1, limits)
        elapsed = time.perf_counter() - start
        assert result.verdict is Verdict.OK, result
        return elapsed

    bare(), refereed()  # warm caches
    bare_times, referee_times = [], []
    for i in range(args.calls):
        # Alternate the order so that neither side always runs right after the other.
        if i % 2:
            bare_times.append(bare())
            referee_times.append(refereed())
        else:
            referee_times.append(refereed())
            bare_times.append(bare())
    for label, values in (("subprocess.run", bare_times), ("referee.ask", referee_times)):
        print(f"{label:<15} median {statistics.median(values) * 1000:6.2f} ms   "
              f"mean {statistics.fmean(values) * 1000:6.2f} ms   ({len(values)} calls)")
    ratio = statistics.median(referee_times) / statistics.median(bare_times)
    mean_ratio = statistics.fmean(referee_times) / statistics.fmean(bare_times)
    print(f"ratio (referee / bare): median {ratio:.3f}, mean {mean_ratio:.3f}   goal <= 1.05")


if __name__ == "__main__":
    main()
