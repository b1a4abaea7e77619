"""Benchmark the alpha-beta engine: search speed and depth reached under the clock.

For a fixed set of positions at n = 5 and n = 8 (deterministic random playouts of 4 to 24 plies;
with ``--game connect4``, 8x8 and 7x6 by default), it
prints (1) nodes per second of the search, in-process, 1 s per position (wall clock, and in
brackets per second of the process's CPU time, which a loaded machine does not lower); (2) the depth
of the last completed iteration when the engine runs as a program under the protocol with 1 s and 5 s
limits, as the referee runs it. A node is a position the search visits (each move it makes, as in
the usual count of negamax calls); the horizon's check for a winning move is not counted. Each
search runs twice, in Python and on the native core (engines/search/native_betsy.py,
engines/search/native_connect4.py), side by side; (3) the engine's start-up: the median wall and CPU
time of ``alphabeta --depth 1`` on the empty board (of the first size), Python and native, and of
another checkout's engine with ``--against``. Goals
(Betsy): >= 200k nodes/s in Python and >= 5 M nodes/s native at n = 5 and n = 8.

Usage: .venv/bin/python scripts/bench_engines.py [--game connect4] [--sizes 5,8] [--limits 1,5]
[--positions 4] [--runs 15] [--against CHECKOUT] [--startup-only]
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines.alphabeta import evaluation_for  # noqa: E402
from engines.protocol import Rng  # noqa: E402
from engines.search.alphabeta import AlphaBeta  # noqa: E402
from harness.games import betsy, connect4  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engines.protocol import AnyPosition

PLIES = (4, 10, 16, 24, 8, 20)


def empty_board(game: str, size: str) -> AnyPosition:
    """The empty board of ``size`` (Betsy's n, or Connect Four's WxH)."""
    if game == "connect4":
        return connect4.initial_position(*connect4.parse_size(size))
    return betsy.initial_position(int(size))


def _size_seed(game: str, size: str) -> int:
    if game == "connect4":
        width, height = connect4.parse_size(size)
        return width * 100 + height
    return int(size)


def positions(game: str, size: str, count: int) -> list[AnyPosition]:
    """Deterministic positions: random playouts (seeded) that have not ended (in Connect Four, nor
    hold a win at once for either side, which the search would find at depth 1)."""
    found = []
    seed = 1
    while len(found) < count:
        rng = Rng(seed * 7919 + _size_seed(game, size))
        seed += 1
        position = empty_board(game, size)
        for _ in range(PLIES[len(found) % len(PLIES)]):
            position.push(rng.choice(position.legal_moves()))
            if position.winner() is not None or not position.legal_moves():
                break
        else:
            if game == "betsy" or not (position.has_winning_move() or position.opponent_has_winning_move()):
                found.append(position)
    return found


def nodes_per_second(game: str, size: str, count: int, seconds: float,
                     native: bool = False) -> tuple[float, float, int]:
    """(nodes per wall second, nodes per CPU second, nodes) over ``count`` positions."""
    total_nodes = 0
    total_time = total_cpu = 0.0
    for position in positions(game, size, count):
        searcher = AlphaBeta(evaluation_for(position))
        if native and isinstance(position, betsy.Position):
            from engines.evaluation import DEFAULT_WEIGHTS
            from engines.search.native_betsy import searcher as native_betsy

            searcher = native_betsy(position, evaluation_for(position), DEFAULT_WEIGHTS)
        elif native:
            from engines.search.native_connect4 import searcher as native_connect4

            searcher = native_connect4(position, evaluation_for(position))
        if native and type(searcher) is AlphaBeta:
            raise SystemExit("the native core is not built: run .venv/bin/python engines/native/build.py")
        start, cpu = time.perf_counter(), time.process_time()
        deadline = time.monotonic() + seconds
        last = None
        for last in searcher.iterate(position, 64, deadline):
            pass
        total_time += time.perf_counter() - start
        total_cpu += time.process_time() - cpu
        total_nodes += searcher.nodes
    return total_nodes / total_time, total_nodes / total_cpu, total_nodes


def depth_under_protocol(position: AnyPosition, size: str, limit: int, pure: bool = False) -> tuple[int, float]:
    argv = [sys.executable, str(ROOT / "engines" / "alphabeta.py"), size, position.player,
            position.board(), str(limit), "--info"]
    if isinstance(position, connect4.Position):
        argv.append("--nodes=1000000000")  # the search alone: no endgame solver first
    start = time.perf_counter()
    env = dict(os.environ, ARENA_PURE="1" if pure else "0")
    result = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
    wall = time.perf_counter() - start
    depths = [int(m) for m in re.findall(r"info depth (\d+)", result.stderr)]
    return (depths[-1] if depths else 0), wall


def startup(game: str, size: str, runs: int, variants: list[tuple[str, Path, bool]]) -> dict[str, tuple[float, float]]:
    """Per variant (name, project root, pure), the median wall seconds and median CPU seconds (user +
    system, which a loaded machine does not stretch) of ``alphabeta --depth 1`` on the empty board, from
    exec to exit (modules byte-compiled first, as an installed project's are). The variants' runs are
    interleaved, so a change of load during the benchmark weighs on each alike."""
    position = empty_board(game, size)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    commands = {}
    for name, root, pure in variants:
        compileall.compile_dir(root / "harness", quiet=1)
        compileall.compile_dir(root / "engines", quiet=1)
        argv = [sys.executable, str(root / "engines" / "alphabeta.py"), size, position.player, position.board(),
                "1", "--depth", "1"]
        commands[name] = argv, {**env, "ARENA_PURE": "1" if pure else "0"}
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs + 1):  # the first warms the page cache
        for name, (argv, variant_env) in commands.items():
            start = time.perf_counter()
            process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=variant_env)
            _, status, usage = os.wait4(process.pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"{' '.join(argv)} failed")
            walls[name].append(time.perf_counter() - start)
            cpus[name].append(usage.ru_utime + usage.ru_stime)
    return {name: (statistics.median(walls[name][1:]), statistics.median(cpus[name][1:])) for name in commands}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("betsy", "connect4"), default="betsy")
    parser.add_argument("--sizes", default=None, help="default: 5,8 (Betsy) or 8x8,7x6 (Connect Four)")
    parser.add_argument("--limits", default="1,5")
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--runs", type=int, default=15, help="start-up runs per path (0: skip)")
    parser.add_argument("--against", type=Path, default=None, metavar="CHECKOUT",
                        help="also time the start-up of another checkout of the project (say, the version "
                             "before the native core: git worktree add /tmp/before a9556a5^)")
    parser.add_argument("--startup-only", action="store_true", help="time the start-up alone")
    args = parser.parse_args()
    sizes = (args.sizes or ("8x8,7x6" if args.game == "connect4" else "5,8")).split(",")
    label = "" if args.game == "connect4" else "n="
    limits = [int(text) for text in args.limits.split(",")]
    paths = [("python", True), ("native", False)]
    for size in [] if args.startup_only else sizes:
        for name, pure in paths:
            rate, cpu_rate, nodes = nodes_per_second(args.game, size, args.positions, 1.0, native=not pure)
            print(f"{label}{size}{' ' + name if name else ''}: {rate:,.0f} nodes/s ({cpu_rate:,.0f} per CPU s; "
                  f"{nodes:,} nodes over {args.positions} positions, 1 s each)")
    for size in [] if args.startup_only else sizes:
        for limit in limits:
            for name, pure in paths:
                runs = [depth_under_protocol(p, size, limit, pure) for p in positions(args.game, size, args.positions)]
                depths = [depth for depth, _ in runs]
                walls = [wall for _, wall in runs]
                print(f"{label}{size}{' ' + name if name else ''}, {limit} s/move: depth {min(depths)}-{max(depths)} "
                      f"(median {statistics.median(depths)}), wall max {max(walls):.2f} s of {limit} s")
    if args.runs:
        size = sizes[0]
        variants = [(name, ROOT, pure) for name, pure in paths]
        if args.against is not None:
            variants.insert(0, (f"{args.against}", args.against.resolve(), False))
        for name, (wall, cpu) in startup(args.game, size, args.runs, variants).items():
            print(f"{label}{size} {name} start-up, alphabeta --depth 1 on the empty board: {1000 * wall:.1f} ms "
                  f"({1000 * cpu:.1f} ms CPU; medians of {args.runs}, interleaved)")
    if args.game == "betsy":
        print("goals: >= 200,000 nodes/s in Python, >= 5,000,000 native, at n = 5 and n = 8")


if __name__ == "__main__":
    main()
