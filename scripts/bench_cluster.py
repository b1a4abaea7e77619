"""Benchmark tournaments on a dask cluster: games per hour against worker slots, and the cluster's
per-game overhead against the local process pool.

Each game is Connect Four 7x6 between two copies of scripts/sleepy_connect4.c (compiled with cc into
a temporary folder; scripts/sleepy_connect4.sh when there is no cc), which sleeps 50 ms per move and
then answers legally. It costs about 0.5 ms of CPU per call (the shell script about 4 ms: at 16
slots, 320 calls a second, that alone is well over a core of this 2-core machine), so the figures
measure the harness (the coordinator, dask, the workers and the referee), not the engine. For each slot count K
(1, 2, 4, 8, 16 by default) a tournament of 16 games per slot runs on ``--cluster local:K``, timed
from the moment the cluster is up (its workers started and loaded) to the last stored game, and
then in the local process pool at concurrency K, timed whole. Goal: the cluster at least 0.9 x linear (K times its
rate at one slot) up to 16 slots. The pool's figures beside it show what this machine allows; the
difference of the seconds per game of the two, times the slots, is the cluster's overhead per game.
The last column is the CPU time this process (the coordinator, with the local cluster's scheduler)
spends per game on the cluster, over the same span.
The sandbox is off (it is the same on both sides and would only add its own start-up per move).

Usage: .venv/bin/python scripts/bench_cluster.py [--slots 1,2,4,8,16] [--games-per-slot 16] [--delay 0.05]
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.tournament.cluster import parse_cluster  # noqa: E402
from harness.tournament.config import TournamentConfig, load_config  # noqa: E402
from harness.tournament.run import run_tournament  # noqa: E402

ENGINE_SOURCE = ROOT / "scripts" / "sleepy_connect4.c"
ENGINE_SCRIPT = ROOT / "scripts" / "sleepy_connect4.sh"
MAX_PLIES = 12


class _ClusterUp(logging.Handler):
    """Notes when the tournament's cluster reports its slots (the end of its start-up)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.at: float | None = None
        self.cpu: float | None = None
        """This process's CPU seconds then."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == "arena.cluster" and "worker slots" in record.getMessage():
            self.at, self.cpu = time.monotonic(), _cpu()


def compile_engine(folder: Path) -> Path | None:
    """sleepy_connect4.c compiled into ``folder``; None when there is no C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    binary = folder / "sleepy_connect4"
    subprocess.run([compiler, "-O2", "-o", str(binary), str(ENGINE_SOURCE)], check=True)
    return binary


def build_engine(folder: Path) -> Path:
    """The compiled C engine, or the shell script when there is no C compiler."""
    binary = compile_engine(folder)
    if binary is None:
        print("bench_cluster: no C compiler; using sleepy_connect4.sh (about 4 ms of CPU per call)")
        # A copy: a program in scripts/, a folder of the project's own programs, is refused.
        return Path(shutil.copy(ENGINE_SCRIPT, folder / ENGINE_SCRIPT.name))
    return binary


def config_for(folder: Path, engine: Path, games: int, delay: float) -> TournamentConfig:
    path = folder / "bench.yaml"
    path.write_text(
        f"name: bench\ngame: connect4\nsize: 7x6\ntime: 1\nmax_plies: {MAX_PLIES}\nrounds: {max(1, games // 2)}\n"
        f"openings: {{plies: 2, seed: 1}}\nsandbox: 'off'\nengines:\n"
        f"  - {{name: a, command: {engine} {delay}}}\n  - {{name: b, command: {engine} {delay}}}\n"
    )
    return load_config(path)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(config: TournamentConfig, db: Path, up: _ClusterUp) -> tuple[int, float, float]:
    """(games played, seconds from the cluster being up, or from the start for the local pool, CPU
    seconds of this process over the same span: the coordinator, with a local cluster's scheduler)."""
    up.at = up.cpu = None
    start, cpu = time.monotonic(), _cpu()
    summary = run_tournament(config, db, progress=False, on_warning=lambda message: None)
    end, cpu_end = time.monotonic(), _cpu()
    if summary.failed or summary.played != summary.scheduled:
        sys.exit(f"bench_cluster: {summary.failed} games failed, {summary.played} of {summary.scheduled} played")
    return (summary.played, end - (up.at if up.at is not None else start),
            cpu_end - (up.cpu if up.cpu is not None else cpu))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", default="1,2,4,8,16", help="slot counts, comma-separated")
    parser.add_argument("--games-per-slot", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.05, help="the engine's sleep per move, seconds")
    args = parser.parse_args()
    slot_counts = [int(part) for part in args.slots.split(",")]
    up = _ClusterUp()
    harness_log = logging.getLogger("arena")
    harness_log.setLevel(logging.INFO)
    harness_log.addHandler(up)
    harness_log.propagate = False

    cluster_rates: dict[int, float] = {}
    pool_rates: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        folder = Path(tmp)
        engine = build_engine(folder)
        print(f"Connect Four 7x6, {MAX_PLIES} plies at most, engine sleeps {args.delay * 1000:.0f} ms per move; "
              f"{args.games_per_slot} games per slot\n")
        print(f"{'':>13}{'cluster (local:K)':^30}  {'local process pool':^30}".rstrip())
        print(f"{'slots':>5}  {'games':>5}  {'games/hour':>10}  {'x linear':>8}  {'s/game':>8}  "
              f"{'games/hour':>10}  {'x linear':>8}  {'s/game':>8}  {'cluster overhead/game':>21}  "
              f"{'coordinator CPU/game':>20}")
        for slots in slot_counts:
            config = config_for(folder, engine, args.games_per_slot * slots, args.delay)
            games, on_cluster, own_cpu = run(
                dataclasses.replace(config, cluster=parse_cluster(f"local:{slots}")), folder / f"cluster{slots}.sqlite", up)
            _, in_pool, _ = run(dataclasses.replace(config, concurrency=slots), folder / f"pool{slots}.sqlite", up)
            cluster_rates[slots] = games / on_cluster * 3600
            pool_rates[slots] = games / in_pool * 3600
            first = slot_counts[0]
            cluster_linear = cluster_rates[first] / first * slots
            pool_linear = pool_rates[first] / first * slots
            overhead = (on_cluster - in_pool) / games * slots * 1000
            print(f"{slots:>5}  {games:>5}  {cluster_rates[slots]:>10.0f}  {cluster_rates[slots] / cluster_linear:>8.2f}  "
                  f"{on_cluster / games:>8.3f}  {pool_rates[slots]:>10.0f}  {pool_rates[slots] / pool_linear:>8.2f}  "
                  f"{in_pool / games:>8.3f}  {overhead:>18.0f} ms  {own_cpu / games * 1000:>17.1f} ms")


if __name__ == "__main__":
    main()
