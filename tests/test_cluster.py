"""Tournaments on a dask cluster: a local cluster (fast), and a real `dask scheduler` with two
`dask worker` processes on 127.0.0.1 (slow), one of them killed mid-tournament."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import cluster
from harness.cluster import ClusterAddress, WorkerMismatch, check_programs, local_layout, parse_cluster
from harness.config import TournamentConfig, load_config
from harness.engines import EngineSpec
from harness.schedule import schedule
from harness.store import Store, file_sha256
from harness.tournament import run_tournament
from tests.conftest import ROOT, run_program

ARENA = str(Path(sys.executable).parent / "arena")
DASK = str(Path(sys.executable).parent / "dask")
FAKES = ROOT / "tests" / "fake_engines"

SEEDED = """
name: seeded
n: [3]
time: 1
rounds: {rounds}
max_plies: 12
openings: {{plies: 2, seed: 7}}
concurrency: 2
engines:
  - {{name: rnd, builtin: random, options: {{seed: 1}}}}
  - {{name: grd, builtin: greedy, options: {{seed: 2}}}}
"""
"""Seeded engines: the same game, wherever it is played, has the same moves."""


def seeded(tmp_path: Path, rounds: int, where: str | None = None) -> TournamentConfig:
    path = tmp_path / "seeded.yaml"
    path.write_text(SEEDED.format(rounds=rounds))
    config = load_config(path)
    return config if where is None else dataclasses.replace(config, cluster=parse_cluster(where))


def stored(db: Path) -> dict[str, tuple[str, list[tuple[int, str]]]]:
    """Every stored game: id -> (result, [(move, board) ...])."""
    with Store(db, read_only=True) as store:
        rows = store.game_rows()
        return {row.key: (row.result, [(m.move or 0, m.board or "") for m in store.game_record(row.id).moves])
                for row in rows}


# --- addresses and the worker's checks ---------------------------------------------------------------


def test_cluster_addresses_parse_to_a_scheduler_or_local_slots() -> None:
    assert parse_cluster("tcp://10.1.2.3:8786") == ClusterAddress(scheduler="tcp://10.1.2.3:8786")
    assert parse_cluster("tcp://[::1]:8786") == ClusterAddress(scheduler="tcp://[::1]:8786")
    assert parse_cluster("local:16") == ClusterAddress(local_slots=16)
    assert str(parse_cluster("local:16")) == "local:16"
    with pytest.raises(ValueError, match=r"expected tcp://HOST:PORT .*, got 'tcp://host:'"):
        parse_cluster("tcp://host:")


def test_local_slots_spread_over_at_most_one_process_per_core() -> None:
    assert local_layout(16, cores=2) == (2, 8)
    assert local_layout(3, cores=2) == (1, 3)
    assert local_layout(1, cores=8) == (1, 1)
    assert local_layout(6, cores=4) == (3, 2)
    assert local_layout(4, cores=8) == (4, 1)


def engine_file(tmp_path: Path, text: str = "print('1 x')\n") -> EngineSpec:
    program = tmp_path / "engine.py"
    program.write_text(text)
    return EngineSpec("mine", (sys.executable, str(program)), str(program))


def test_worker_accepts_engine_files_that_match_the_coordinators(tmp_path: Path) -> None:
    engine = engine_file(tmp_path)
    check_programs([engine], dict(cluster.expected_hashes([engine])), "worker tcp://w:1")


def test_worker_refuses_an_engine_file_that_differs_naming_it(tmp_path: Path) -> None:
    engine = engine_file(tmp_path)
    hashes = dict(cluster.expected_hashes([engine]))
    Path(str(engine.program)).write_text("print('2 x')\n")
    found = file_sha256(engine.program)
    assert found is not None
    with pytest.raises(WorkerMismatch) as info:
        check_programs([engine], hashes, "worker tcp://w:1")
    assert str(info.value) == (
        f"engine 'mine': {engine.program} on worker tcp://w:1 differs from the coordinator's (SHA-256 {found[:12]}... "
        f"there, {str(hashes[str(engine.program)])[:12]}... on the coordinator); copy the same file to every worker"
    )


def test_worker_refuses_a_missing_engine_file_or_interpreter(tmp_path: Path) -> None:
    engine = engine_file(tmp_path)
    hashes = dict(cluster.expected_hashes([engine]))
    fix = "every worker needs the engines at the same absolute paths as the coordinator (see docs/cluster.md)"
    Path(str(engine.program)).unlink()
    with pytest.raises(WorkerMismatch) as info:
        check_programs([engine], hashes, "worker tcp://w:1")
    assert str(info.value) == f"engine 'mine': {engine.program} is missing on worker tcp://w:1; {fix}"
    gone = dataclasses.replace(engine, command=("/nonexistent/python3", str(engine.program)))
    with pytest.raises(WorkerMismatch) as info:
        check_programs([gone], hashes, "worker tcp://w:1")
    assert str(info.value) == (
        f"engine 'mine': /nonexistent/python3 is missing or not executable on worker tcp://w:1; {fix}")


def test_dask_is_imported_only_when_a_cluster_is_used(python: str) -> None:
    code = ("import sys, harness.cli, harness.config, harness.tournament, harness.cluster, engines.protocol; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'distributed', 'tornado'}))")
    result = run_program([python, "-c", code])
    assert (result.returncode, result.stdout) == (0, "[]\n"), result.stderr


@pytest.mark.parametrize("flavour", ["sh", "c"])
def test_the_benchmarks_sleepy_engine_answers_legally(flavour: str, tmp_path: Path) -> None:
    from harness.games.registry import get_game

    from scripts.bench_cluster import ENGINE_SCRIPT, compile_engine

    engine = ENGINE_SCRIPT
    if flavour == "c":
        compiled = compile_engine(tmp_path)
        if compiled is None:
            pytest.skip("no C compiler (cc) to build scripts/sleepy_connect4.c")
        engine = compiled
    rules = get_game("connect4")
    column_1_full = rules.initial("7x6")
    for _ in range(6):
        column_1_full = column_1_full.after(1)
    for position, expected in ((rules.initial("7x6"), 1), (column_1_full, 2)):
        result = run_program([str(engine), "0", "7x6", position.player, position.board(), "1"])
        assert result.returncode == 0, result.stderr
        move, after = result.stdout.split()
        assert int(move) == expected
        assert position.after(expected).board() == after


# --- a local cluster ---------------------------------------------------------------------------------


def test_local_cluster_stores_every_game_once_with_the_moves_the_local_pool_plays(tmp_path: Path) -> None:
    pool_db, cluster_db = tmp_path / "pool.sqlite", tmp_path / "cluster.sqlite"
    games: list[str] = []
    on_cluster = run_tournament(seeded(tmp_path, 1, "local:2"), cluster_db, progress=False,
                                on_game=lambda game, record: games.append(game.game_id))
    in_pool = run_tournament(seeded(tmp_path, 1), pool_db, progress=False)
    assert (on_cluster.played, on_cluster.failed, on_cluster.scheduled) == (2, 0, 2)
    assert sorted(games) == sorted(game.game_id for game in schedule(seeded(tmp_path, 1)))
    assert stored(cluster_db) == stored(pool_db)
    assert {name: (s.wins, s.draws, s.losses) for name, s in on_cluster.standings.items()} == \
        {name: (s.wins, s.draws, s.losses) for name, s in in_pool.standings.items()}


def test_an_engine_file_that_differs_on_the_worker_fails_its_games_without_a_forfeit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = seeded(tmp_path, 1, "local:1")
    wrong = "0" * 64
    monkeypatch.setattr(cluster, "expected_hashes", lambda engines: tuple((str(e.program), wrong) for e in engines))
    warnings: list[str] = []
    db = tmp_path / "r.sqlite"
    summary = run_tournament(config, db, progress=False, on_warning=warnings.append)
    assert (summary.played, summary.failed) == (0, 2)
    assert stored(db) == {}
    # Each game stops at its x engine's file (rnd plays x in game a, grd in game b): one warning for each.
    assert len(warnings) == 2
    for warning, engine in zip(sorted(warnings, key=lambda text: "'grd'" in text), config.engines):
        assert warning.startswith(f"a game was not played: engine {engine.name!r}: {engine.program} on worker tcp://")
        sha = file_sha256(engine.program)
        assert warning.endswith(f"(SHA-256 {str(sha)[:12]}... there, 000000000000... on the coordinator); copy the "
                                f"same file to every worker")

    monkeypatch.undo()  # the coordinator's true hashes: the failed games are played by a rerun
    again = run_tournament(config, db, progress=False)
    assert (again.already_done, again.played, again.failed) == (0, 2, 0)
    assert sorted(stored(db)) == sorted(game.game_id for game in schedule(config))


def test_bad_cluster_address_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "seeded.yaml"
    config.write_text(SEEDED.format(rounds=1))
    result = run_program([ARENA, "tournament", str(config), "--db", str(tmp_path / "r.sqlite"), "--cluster", "host:8786"])
    assert result.returncode == 2
    assert result.stderr == (
        "arena: error: invalid --cluster: expected tcp://HOST:PORT (a running dask scheduler) or local:K (a cluster "
        "of K worker slots on this machine, 1 to 256), got 'host:8786'\n")
    assert not (tmp_path / "r.sqlite").exists()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_scheduler_is_one_line_and_exit_2_after_the_timeout(tmp_path: Path) -> None:
    config = tmp_path / "seeded.yaml"
    config.write_text(SEEDED.format(rounds=1))
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    env = dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="2s")
    start = time.monotonic()
    result = subprocess.run([ARENA, "tournament", str(config), "--db", str(tmp_path / "r.sqlite"), "--cluster", address,
                             "--no-progress"], capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        f"arena: error: cannot reach the dask scheduler at {address} within 2 s; start one there (dask scheduler) "
        f"or check the address\n")
    assert time.monotonic() - start < 50


# --- a real scheduler and two workers ----------------------------------------------------------------


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End a process started here and everything in its session (it leads one)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=10)


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A `dask scheduler` and two `dask worker` processes (one slot each) on 127.0.0.1, free ports:
    (the scheduler's address, the workers)."""
    from distributed import Client

    loopback = ["--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"]
    info = tmp_path / "scheduler.json"
    logs = tmp_path / "dask.log"
    with open(logs, "wb") as log:
        processes = [subprocess.Popen([DASK, "scheduler", "--port", "0", "--scheduler-file", str(info), *loopback],
                                      stdout=log, stderr=log, start_new_session=True, cwd=tmp_path)]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        with open(logs, "ab") as log:
            workers = [subprocess.Popen([DASK, "worker", address, "--nworkers", "1", "--nthreads", "1", *loopback],
                                        stdout=log, stderr=log, start_new_session=True, cwd=tmp_path)
                       for _ in range(2)]
        processes += workers
        with Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=90)
        yield address, workers
    finally:
        for process in reversed(processes):
            _stop(process)


def count_games(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as connection:
            return int(connection.execute("SELECT count(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def wait_for_games(db: Path, count: int, process: subprocess.Popen[str]) -> int:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if db.exists() and (done := count_games(db)) >= count:
            return done
        time.sleep(0.05)
    pytest.fail(f"fewer than {count} games stored in time")


@pytest.mark.slow
def test_real_cluster_resumes_after_the_coordinator_and_a_worker_are_killed_storing_each_game_once(
    tmp_path: Path, dask_cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    address, workers = dask_cluster
    config = tmp_path / "slow.yaml"
    config.write_text(f"""
name: slow
n: [3]
time: 2
rounds: 5
max_plies: 8
openings: {{plies: 2, seed: 3}}
sandbox: 'off'
engines:
  - {{name: s1, command: python3 {FAKES / 'slow_random.py'} 0.15}}
  - {{name: s2, command: python3 {FAKES / 'slow_random.py'} 0.15}}
""")
    db = tmp_path / "k.sqlite"
    argv = [ARENA, "tournament", str(config), "--db", str(db), "--cluster", address, "--no-progress"]

    first = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True, cwd=tmp_path)
    try:
        wait_for_games(db, 2, first)
        first.send_signal(signal.SIGKILL)  # the coordinator dies: finished games stay, games in flight are lost
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait(timeout=10)
    killed_at = count_games(db)
    assert 2 <= killed_at < 10

    second = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        wait_for_games(db, killed_at + 1, second)
        os.killpg(workers[0].pid, signal.SIGKILL)  # a machine dies mid-game: its game runs again on the other
        out, err = second.communicate(timeout=180)
    finally:
        if second.poll() is None:
            second.kill()
            second.wait(timeout=10)
    assert second.returncode == 0, err
    assert out.splitlines()[0] == f"{10 - killed_at} games played now, {killed_at} already in {db}, 10 scheduled"
    with sqlite3.connect(db) as connection:
        ids = [row[0] for row in connection.execute("SELECT game_id FROM games")]
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        orphans = connection.execute("SELECT count(*) FROM moves WHERE game NOT IN (SELECT id FROM games)").fetchone()[0]
        plies = connection.execute("SELECT sum(plies) FROM games").fetchone()[0]
        moves = connection.execute("SELECT count(*) FROM moves").fetchone()[0]
    assert sorted(ids) == sorted(game.game_id for game in schedule(load_config(config)))
    assert len(ids) == len(set(ids)) == 10
    assert orphans == 0 and plies == moves
    assert workers[0].poll() is not None
    log = db.with_suffix(".log").read_text()
    assert "left the cluster; its games in progress are played again on the others" in log
