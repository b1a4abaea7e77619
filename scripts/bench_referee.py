"""Benchmark the referee's overhead per engine call, without and with the sandbox.

Runs the random engine for one move, interleaved over many calls in the same run: a bare
`subprocess.run` of the argv; `harness.referee.ask` without the sandbox in a process that holds the
engine's limits itself, as a tournament's pool worker does (`referee`: the engine inherits them);
and `ask` inside the bubblewrap sandbox. Then, in a round of its own against bare calls, `ask`
without the sandbox for limits this process does not hold, as in `match`, `validate` or a cluster
worker (`prlimit`: the engine starts through `prlimit ... --`, one exec more). Prints the median and
mean wall time per call of each. Goals: referee / bare <= 1.05 (medians); sandboxed - bare <= 15 ms
(medians). Then what the sandbox's plan of a command (whose program, what to bind) costs at its
first call and, cached, at every later one.

Usage: .venv/bin/python scripts/bench_referee.py [--calls 100] [--n 5]
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.engines import builtin_engine  # noqa: E402
from harness.games.betsy import initial_position  # noqa: E402
from harness.protocol import Verdict, engine_argv  # noqa: E402
from harness.referee import Limits, ask, inherit_limits  # noqa: E402
from harness.programs import program_of  # noqa: E402
from harness.sandbox import plan_for, probe  # noqa: E402


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
    works, why = probe()
    if not works:
        sys.exit(f"bench_referee: the sandbox cannot run here: {why}")

    def bare() -> float:
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=env, check=True)
        return time.perf_counter() - start

    def refereed(limits: Limits) -> float:
        start = time.perf_counter()
        result = ask(spec.command, position, 1, limits)
        elapsed = time.perf_counter() - start
        assert result.verdict is Verdict.OK, result
        return elapsed

    inherit_limits(Limits())  # as a tournament's pool worker without the sandbox
    elsewhere = Limits(sandbox=False, file_bytes=(64 << 20) - 4096)  # limits this process does not hold
    # Two rounds, each rotating its own ways: prlimit's extra exec, run among the others, slows the
    # call after it (about 2 % on the referee's figure here).
    times = rotated({"bare": bare, "referee": lambda: refereed(Limits(sandbox=False)),
                     "sandboxed": lambda: refereed(Limits(sandbox=True))}, args.calls)
    with_prlimit = rotated({"bare": bare, "prlimit": lambda: refereed(elsewhere)}, args.calls)
    times["prlimit"] = with_prlimit["prlimit"]
    for label, values in times.items():
        print(f"{label:<10} median {statistics.median(values) * 1000:6.2f} ms   "
              f"mean {statistics.fmean(values) * 1000:6.2f} ms   ({len(values)} calls)")
    median = {label: statistics.median(values) for label, values in times.items()}
    mean = {label: statistics.fmean(values) for label, values in times.items()}
    print(f"referee / bare:   median {median['referee'] / median['bare']:.3f}, "
          f"mean {mean['referee'] / mean['bare']:.3f}   goal <= 1.05")
    own_bare = statistics.median(with_prlimit["bare"]), statistics.fmean(with_prlimit["bare"])
    print(f"prlimit / bare:   median {median['prlimit'] / own_bare[0]:.3f}, "
          f"mean {mean['prlimit'] / own_bare[1]:.3f}   (its own round's bare calls)")
    print(f"sandboxed - bare: median {(median['sandboxed'] - median['bare']) * 1000:+.2f} ms, "
          f"mean {(mean['sandboxed'] - mean['bare']) * 1000:+.2f} ms   goal <= +15 ms")
    plans(spec.command)


def rotated(runs: dict[str, Callable[[], float]], calls: int) -> dict[str, list[float]]:
    """Each way's wall times over ``calls`` rounds, the order rotated so that no way always runs
    right after another (after one warm-up call each)."""
    times: dict[str, list[float]] = {label: [] for label in runs}
    for run in runs.values():
        run()
    order = list(runs)
    for i in range(calls):
        for label in order[i % len(order):] + order[:i % len(order)]:
            times[label].append(runs[label]())
    return times


def plans(builtin: tuple[str, ...]) -> None:
    """What the sandbox decides per command (whose program, what to bind): once per command, then
    cached, so a move pays only the cached lookup."""
    with tempfile.TemporaryDirectory() as folder:
        student = Path(folder) / "ann" / "betsy.py"
        student.parent.mkdir()
        student.write_text("print('1 x')\n")
        figures = []
        for label, command in (("built-in", builtin), ("student", (sys.executable, str(student)))):
            first, cached = [], []
            for _ in range(50):
                program_of.cache_clear()
                plan_for.cache_clear()
                start = time.perf_counter()
                plan_for(command)
                first.append(time.perf_counter() - start)
                start = time.perf_counter()
                plan_for(command)
                cached.append(time.perf_counter() - start)
            figures.append(f"{label} {statistics.median(first) * 1000:.2f} ms first, "
                           f"{statistics.median(cached) * 1e6:.1f} us cached")
        print("sandbox plan per command: " + "; ".join(figures))


if __name__ == "__main__":
    main()
