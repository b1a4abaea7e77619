"""Tournaments on a dask cluster: a local cluster (fast); who may reach a cluster (certificates,
addresses, listening sockets); what a worker's reply must be; and real `arena cluster scheduler` and
`arena cluster worker` processes with TLS on 127.0.0.1: strangers that cannot join, a worker that
forges results, a worker and the coordinator killed mid-tournament (slow)."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import pickle
import re
import shutil
import signal
import socket
import stat
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from harness import cluster
from harness.cluster import (
    Access, ClusterAddress, ClusterError, WorkerMismatch, check_access, check_programs, connect, local_layout, parse_cluster,
    read_reply,
)
from harness.cluster_certs import CertSet, CertsError, check_certs
from harness.cluster_nodes import listen_host, route_host
from harness.config import TournamentConfig, load_config
from harness.engines import EngineSpec
from harness.sandbox import SandboxMode
from harness.schedule import ScheduledGame, schedule
from harness.store import Store, file_sha256
from harness.tournament import run_tournament
from harness.verify import RecordRefused
from tests.conftest import ROOT, assert_nothing_left, cannot_run_here, live_descendants, run_program

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
    assert parse_cluster("tls://head.example:8786") == ClusterAddress(scheduler="tls://head.example:8786")
    assert parse_cluster("local:16") == ClusterAddress(local_slots=16)
    assert str(parse_cluster("local:16")) == "local:16"
    tls = parse_cluster("tls://[::1]:8786")
    assert (tls.scheme, tls.host, tls.port) == ("tls", "::1", 8786)
    assert (parse_cluster("local:2").scheme, parse_cluster("local:2").host) == ("local", None)
    for wrong in ("tcp://host:", "tls://[10.0.0.1]:8786", "ucx://host:8786", "tls://host:0"):
        with pytest.raises(ValueError, match=r"^expected tls://HOST:PORT .*, got "):
            parse_cluster(wrong)


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
            cannot_run_here("no C compiler (cc) to build scripts/sleepy_connect4.c (scripts/test installs gcc when it can)")
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
        assert warning.startswith(f"a game was not played: engine {engine.name!r}: {engine.program} on worker tls://127.0.0.1:")
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
        "arena: error: invalid --cluster: expected tls://HOST:PORT (a running dask scheduler with TLS), tcp://HOST:PORT "
        "(one without: loopback only, unless --insecure-cluster) or local:K (a cluster of K worker slots on this machine, "
        "1 to 256), got 'host:8786'\n")
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
        f"arena: error: cannot reach the dask scheduler at {address} within 2 s; start one there (arena cluster "
        f"scheduler) or check the address\n")
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


@dataclasses.dataclass
class Node:
    """An `arena cluster scheduler` or `arena cluster worker` process started here."""

    process: subprocess.Popen[bytes]
    address: str
    """Where it listens for dask (tls://127.0.0.1:PORT), as it printed."""
    http: str
    """Its HTTP endpoint, as it printed."""
    output: Path


READY = re.compile(r"listening at (?P<address>tls://\S+)[\s\S]*HTTP endpoint \(health, metrics\) at (?P<http>http://\S+),")
"""What an `arena cluster` node prints once it listens (and, for a worker, has joined)."""
DASK_WORKER_READY = re.compile(r"Start worker at:\s+(?P<address>tls://\S+)[\s\S]*Registered to:")


def start_node(argv: list[str], output: Path, env: dict[str, str] | None = None, ready: re.Pattern[str] = READY) -> Node:
    """Start a node in a session of its own and wait until it says where it listens."""
    with open(output, "wb") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        found = ready.search(output.read_text())
        if found:
            return Node(process, found["address"], found.groupdict().get("http") or "", output)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    _stop(process)
    pytest.fail(f"{' '.join(argv[1:3])} did not start: {output.read_text()}")


@dataclasses.dataclass
class TlsCluster:
    certs: Path
    scheduler: Node
    workers: list[Node]

    @property
    def address(self) -> str:
        return self.scheduler.address

    def worker_addresses(self) -> set[str]:
        """The workers the scheduler has taken in, asked with the cluster's certificate."""
        from distributed import Client

        from harness.cluster_certs import security

        with Client(self.address, security=security(check_certs(self.certs)), timeout=30, set_as_default=False) as client:
            return set(client.nthreads())


@contextmanager
def tls_cluster(folder: Path, workers: int) -> Iterator[TlsCluster]:
    """A real `arena cluster scheduler` and ``workers`` `arena cluster worker` processes (one slot each)
    with a new certificate set, on 127.0.0.1, free ports."""
    certs = make_certs(folder / "certs")
    nodes: list[Node] = []
    try:
        nodes.append(start_node([ARENA, "cluster", "scheduler", "--certs", str(certs), "--port", "0"],
                                folder / "scheduler.out"))
        for index in range(workers):
            nodes.append(start_node([ARENA, "cluster", "worker", nodes[0].address, "--certs", str(certs), "--nthreads", "1"],
                                    folder / f"worker{index}.out"))
        yield TlsCluster(certs, nodes[0], nodes[1:])
    finally:
        for node in reversed(nodes):
            _stop(node.process)


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[TlsCluster]:
    """A scheduler and two workers with TLS on 127.0.0.1 (see tls_cluster)."""
    with tls_cluster(tmp_path, 2) as nodes:
        assert nodes.worker_addresses() == {worker.address for worker in nodes.workers}
        yield nodes


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
    tmp_path: Path, dask_cluster: TlsCluster
) -> None:
    address, workers = dask_cluster.address, [worker.process for worker in dask_cluster.workers]
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
    argv = [ARENA, "tournament", str(config), "--db", str(db), "--cluster", address, "--cluster-certs",
            str(dask_cluster.certs), "--no-progress"]

    before = set(live_descendants())  # the scheduler and the workers
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
    assert_nothing_left(before)  # no engine of either coordinator or of the killed worker runs on
    log = db.with_name(db.name + ".log").read_text()
    assert "left the cluster; its games in progress are played again on the others" in log


# --- who may reach a cluster ------------------------------------------------------------------------


def make_certs(folder: Path) -> Path:
    result = run_program([ARENA, "cluster", "certs", str(folder)])
    assert result.returncode == 0, result.stderr
    return folder


def test_cluster_certs_writes_a_private_set_and_says_what_each_file_is_for(tmp_path: Path) -> None:
    folder = tmp_path / "certs"
    result = run_program([ARENA, "cluster", "certs", str(folder)])
    assert (result.returncode, result.stderr) == (0, "")
    ca, cert, key = folder / "ca.pem", folder / "node.pem", folder / "node.key"
    width = len(str(cert))
    assert result.stdout.splitlines() == [
        f"wrote a cluster certificate set to {folder} (a folder only you can read):",
        f"  {str(ca):<{width}}  the cluster's CA certificate: every node accepts only peers whose certificate it signed",
        f"  {str(cert):<{width}}  the certificate every node presents (scheduler, workers, arena tournament), signed by the CA",
        f"  {str(key):<{width}}  its private key (0600): whoever holds it can join the cluster and run code on every node",
        "Copy the folder to every machine of the cluster (scheduler, workers, and where arena tournament runs), readable "
        "only by the user who runs arena there. The CA's private key is not kept: to shut a machine out, make a new set "
        "(--force) and copy it everywhere.",
    ]
    assert sorted(path.name for path in folder.iterdir()) == ["ca.pem", "node.key", "node.pem"]
    assert (stat.S_IMODE(folder.stat().st_mode), stat.S_IMODE(key.stat().st_mode)) == (0o700, 0o600)
    assert check_certs(folder) == CertSet(folder, ca, cert, key)

    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    again = run_program([ARENA, "cluster", "certs", str(folder)])
    assert (again.returncode, again.stdout) == (2, "")
    assert again.stderr == (f"arena: error: {folder} already holds a certificate set (ca.pem, node.key, node.pem); keep "
                            f"it, or replace it with --force (then copy the new set to every machine of the cluster)\n")
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before
    forced = run_program([ARENA, "cluster", "certs", str(folder), "--force"])
    assert forced.returncode == 0, forced.stderr
    assert ca.read_bytes() != before["ca.pem"] and key.read_bytes() != before["node.key"]
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_cluster_certs_refuses_a_folder_holding_other_files_and_leaves_its_mode(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    mode = stat.S_IMODE(tmp_path.stat().st_mode)
    result = run_program([ARENA, "cluster", "certs", str(tmp_path)])
    assert (result.returncode, result.stderr) == (
        2, f"arena: error: {tmp_path} holds other files (notes.txt); give a new or empty folder for the certificates\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt"]
    assert stat.S_IMODE(tmp_path.stat().st_mode) == mode


def test_a_certificate_set_that_is_incomplete_readable_or_mixed_is_refused_with_the_fix(tmp_path: Path) -> None:
    folder = make_certs(tmp_path / "certs")
    other = make_certs(tmp_path / "other")
    with pytest.raises(CertsError) as info:
        check_certs(tmp_path / "none")
    assert str(info.value) == (f"cluster_certs: no certificate folder at {tmp_path / 'none'}; make a set with: arena "
                               f"cluster certs {tmp_path / 'none'}, or copy the set made for the cluster there")
    (folder / "node.key").chmod(0o644)
    with pytest.raises(CertsError) as info:
        check_certs(folder, "--certs")
    assert str(info.value) == (f"--certs: {folder / 'node.key'} can be read by other users (mode 0644); chmod 600 "
                               f"{folder / 'node.key'}")
    (folder / "node.key").chmod(0o600)
    shutil.copy(other / "node.pem", folder / "node.pem")
    with pytest.raises(CertsError) as info:
        check_certs(folder)
    assert str(info.value) == (f"cluster_certs: {folder / 'node.pem'} was not signed by {folder / 'ca.pem'} (files of "
                               f"two sets); copy the whole folder of one set")
    shutil.copy(other / "ca.pem", folder / "ca.pem")
    with pytest.raises(CertsError) as info:
        check_certs(folder)
    assert str(info.value) == (f"cluster_certs: {folder / 'node.key'} is not the key of {folder / 'node.pem'} (files "
                               f"of two sets); copy the whole folder of one set")
    (other / "node.key").unlink()
    with pytest.raises(CertsError) as info:
        check_certs(other)
    assert str(info.value) == (f"cluster_certs: {other} has no node.key (an incomplete set); make a set with: arena "
                               f"cluster certs {other}, or copy the whole set made for the cluster there")


def test_tcp_is_allowed_on_loopback_only_and_tls_needs_the_certificates(tmp_path: Path) -> None:
    for loopback in ("tcp://127.0.0.1:8786", "tcp://localhost:8786", "tcp://[::1]:8786", "tcp://127.8.9.10:1"):
        assert check_access(parse_cluster(loopback)) == Access(parse_cluster(loopback))
    assert check_access(parse_cluster("local:2")) == Access(parse_cluster("local:2"))
    with pytest.raises(ClusterError) as info:
        check_access(parse_cluster("tcp://10.0.0.5:8786"))
    assert str(info.value) == (
        "--cluster tcp://10.0.0.5:8786 has no TLS: anyone who can reach the scheduler can join it and run code on this "
        "machine; use tls://10.0.0.5:8786 with cluster_certs (see docs/cluster.md), or accept that with --insecure-cluster")
    assert check_access(parse_cluster("tcp://10.0.0.5:8786"), insecure=True).warning == (
        "--insecure-cluster: tcp://10.0.0.5:8786 is used without TLS: anyone who can reach the scheduler can join it as "
        "a worker and run code on this machine; use tls://10.0.0.5:8786 with cluster_certs (see docs/cluster.md)")
    with pytest.raises(ClusterError) as info:
        check_access(parse_cluster("tls://head.example:8786"))
    assert str(info.value) == (
        "--cluster tls://head.example:8786 needs the cluster's certificates: give cluster_certs: DIR in the config or "
        "--cluster-certs DIR (the folder made by: arena cluster certs DIR)")
    folder = make_certs(tmp_path / "certs")
    assert check_access(parse_cluster("tls://head.example:8786"), folder).certs == check_certs(folder)
    with pytest.raises(ClusterError) as info:
        check_access(parse_cluster("tcp://127.0.0.1:8786"), folder)
    assert str(info.value) == (f"--cluster tcp://127.0.0.1:8786 does not use TLS, but cluster certificates are given "
                               f"({folder}); give the scheduler's TLS address, tls://127.0.0.1:8786")


def test_a_tcp_scheduler_beyond_loopback_is_refused_before_anything_is_written_and_warns_when_allowed(
    tmp_path: Path,
) -> None:
    config = tmp_path / "seeded.yaml"
    config.write_text(SEEDED.format(rounds=1))
    db = tmp_path / "r.sqlite"
    argv = [ARENA, "tournament", str(config), "--db", str(db), "--cluster", "tcp://192.0.2.1:8786", "--no-progress"]
    refused = run_program(argv)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        "arena: error: --cluster tcp://192.0.2.1:8786 has no TLS: anyone who can reach the scheduler can join it and run "
        "code on this machine; use tls://192.0.2.1:8786 with cluster_certs (see docs/cluster.md), or accept that with "
        "--insecure-cluster\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["seeded.yaml"]
    env = dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="2s")
    allowed = subprocess.run([*argv, "--insecure-cluster"], capture_output=True, text=True, timeout=60, env=env,
                             cwd=tmp_path)
    lines = allowed.stderr.splitlines()
    assert lines[0] == (
        "arena: warning: --insecure-cluster: tcp://192.0.2.1:8786 is used without TLS: anyone who can reach the "
        "scheduler can join it as a worker and run code on this machine; use tls://192.0.2.1:8786 with cluster_certs "
        "(see docs/cluster.md)")
    assert allowed.returncode == 2
    assert lines[1].startswith("arena: error: cannot reach the dask scheduler at tcp://192.0.2.1:8786 within 2 s")


def test_cluster_certs_in_a_config_resolve_against_its_folder_and_an_incomplete_set_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "league").mkdir()
    config = tmp_path / "league" / "seeded.yaml"
    config.write_text(SEEDED.format(rounds=1) + "cluster: tls://127.0.0.1:9\ncluster_certs: certs\n")
    assert load_config(config).cluster_certs == str(tmp_path / "league" / "certs")
    folder = make_certs(tmp_path / "league" / "certs")
    (folder / "ca.pem").unlink()
    db = tmp_path / "r.sqlite"
    result = run_program([ARENA, "tournament", str(config), "--db", str(db), "--no-progress"])
    assert (result.returncode, result.stderr) == (
        2, f"arena: error: cluster_certs: {folder} has no ca.pem (an incomplete set); make a set with: arena cluster "
           f"certs {folder}, or copy the whole set made for the cluster there\n")
    assert not db.exists() and not db.with_name(db.name + ".log").exists()
    elsewhere = make_certs(tmp_path / "elsewhere")
    given = subprocess.run([ARENA, "tournament", str(config), "--db", str(db), "--no-progress", "--cluster-certs",
                            "elsewhere"], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                           env=dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="1s"))
    assert given.returncode == 2  # the set given on the command line (relative to here) is used: only the scheduler is missing
    assert given.stderr.startswith("arena: error: cannot reach the dask scheduler at tls://127.0.0.1:9 within 1 s")
    assert elsewhere.is_dir()


def test_nodes_never_listen_on_every_interface() -> None:
    for wildcard in ("0.0.0.0", "::", "[::]", ""):
        with pytest.raises(ClusterError) as info:
            listen_host(wildcard)
        assert str(info.value).startswith(f"invalid --host {wildcard!r}: that listens on every interface; give the ")
    assert (listen_host("127.0.0.1"), listen_host("[::1]"), listen_host("head.example")) == (
        "127.0.0.1", "::1", "head.example")
    assert route_host(parse_cluster("tls://127.0.0.1:8786")) == "127.0.0.1"
    assert route_host(parse_cluster("tls://localhost:8786")) == "127.0.0.1"
    assert route_host(parse_cluster("tls://[::1]:8786")) == "::1"
    import psutil

    try:
        towards = route_host(parse_cluster("tls://192.0.2.1:8786"))  # TEST-NET-1: the route only, nothing is sent
    except ClusterError:
        pytest.skip("no route off this machine")
    ours = {address.address for addresses in psutil.net_if_addrs().values() for address in addresses}
    assert towards in ours and towards not in ("0.0.0.0", "::")


def test_cluster_scheduler_refuses_to_listen_on_every_interface(tmp_path: Path) -> None:
    folder = make_certs(tmp_path / "certs")
    result = run_program([ARENA, "cluster", "scheduler", "--certs", str(folder), "--host", "0.0.0.0"])
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "arena: error: invalid --host '0.0.0.0': that listens on every interface; give the address of the interface "
        "the cluster uses (e.g. --host 10.0.0.5), or 127.0.0.1 for this machine only\n")


def test_a_node_that_cannot_listen_where_told_says_so_in_one_line(tmp_path: Path) -> None:
    folder = make_certs(tmp_path / "certs")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for node in (["scheduler"], ["worker", "tls://127.0.0.1:8786"]):
            result = run_program([ARENA, "cluster", *node, "--certs", str(folder), "--port", str(port)])
            assert (result.returncode, result.stdout, result.stderr) == (
                2, "", f"arena: error: cannot listen at tls://127.0.0.1:{port} (Address already in use); give another "
                       f"--port, or the address of an interface of this machine as --host\n"), node
    result = run_program([ARENA, "cluster", "worker", "tls://127.0.0.1:8786", "--certs", str(folder), "--host", "192.0.2.123"])
    assert (result.returncode, result.stderr) == (
        2, "arena: error: cannot listen at tls://192.0.2.123:0 (Cannot assign requested address); give another --port, "
           "or the address of an interface of this machine as --host\n")


def test_cluster_worker_joins_only_a_tls_scheduler(tmp_path: Path) -> None:
    folder = make_certs(tmp_path / "certs")
    for address in ("local:2", "tcp://127.0.0.1:8786"):
        result = run_program([ARENA, "cluster", "worker", address, "--certs", str(folder)])
        assert (result.returncode, result.stdout, result.stderr) == (
            2, "", f"arena: error: invalid scheduler address {address}: a worker joins a TLS scheduler, tls://HOST:PORT\n")
    result = run_program([ARENA, "cluster", "worker", "tls://127.0.0.1:8786", "--certs", str(tmp_path / "none")])
    assert (result.returncode, result.stderr) == (
        2, f"arena: error: --certs: no certificate folder at {tmp_path / 'none'}; make a set with: arena cluster certs "
           f"{tmp_path / 'none'}, or copy the set made for the cluster there\n")


def test_a_local_cluster_speaks_tls_on_loopback_with_credentials_no_one_else_has() -> None:
    from distributed import Client, Security

    with connect(Access(parse_cluster("local:2"))) as client:
        scheduler = client.scheduler.address
        assert scheduler.startswith("tls://127.0.0.1:")
        assert all(worker.startswith("tls://127.0.0.1:") for worker in client.nthreads())
        for stranger in ({"address": scheduler.replace("tls://", "tcp://")},
                         {"address": scheduler, "security": Security.temporary()}):
            with pytest.raises((OSError, TimeoutError)):
                Client(**stranger, timeout=2, set_as_default=False)  # type: ignore[arg-type]


# --- what a worker's reply must be --------------------------------------------------------------------


@pytest.fixture(scope="module")
def honest_reply(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, ScheduledGame, TournamentConfig]:
    """A real game played by the worker's task, here: (its reply, the scheduled game, the config)."""
    config = seeded(tmp_path_factory.mktemp("reply"), 1)
    game = schedule(config)[0]
    specs = {engine.name: engine for engine in config.engines}
    job = cluster.Job(config.settings, SandboxMode.OFF, 1 << 20, 16, cluster.expected_hashes(config.engines))
    return cluster.play_checked(game, specs[game.x], specs[game.o], job), game, config


def forged(reply: bytes, change: Callable[[dict[str, Any]], object]) -> bytes:
    data = json.loads(reply)
    change(data)
    return json.dumps(data).encode()


def test_an_honest_reply_is_believed_with_its_log_lines(honest_reply: tuple[bytes, ScheduledGame, TournamentConfig]) -> None:
    payload, game, config = honest_reply
    data = json.loads(payload)
    assert sorted(data) == ["failure", "hashes", "logs", "record", "warning"]
    assert data["hashes"] == dict(cluster.expected_hashes(config.engines))
    read = read_reply(payload, game, config.settings, data["hashes"])
    assert read.failure is None and read.record is not None
    assert read.record.to_json() == data["record"]
    assert [(line.name, line.levelno, line.getMessage()) for line in read.logs] == [tuple(line) for line in data["logs"]]
    assert read.logs and read.logs[0].getMessage().startswith(f"start {game.game_id}: ")


def test_forged_replies_are_refused_naming_what_is_wrong(honest_reply: tuple[bytes, ScheduledGame, TournamentConfig]) -> None:
    payload, game, config = honest_reply
    hashes = json.loads(payload)["hashes"]

    def refused(reply: object) -> str:
        with pytest.raises(RecordRefused) as info:
            read_reply(reply, game, config.settings, hashes)
        return str(info.value)

    def no_moves(data: dict[str, Any]) -> None:
        data["record"].update(moves=[], plies=0, result="1-0", winner="x", termination="line", reason="x wins by a line")

    def flipped(data: dict[str, Any]) -> None:
        data["record"].update(result="0-1" if data["record"]["result"] == "1-0" else "1-0")

    record = json.loads(payload)["record"]
    assert refused(forged(payload, no_moves)) == "no moves: a game ends only by a move or a forfeit"
    assert refused(forged(payload, flipped)).startswith(f"the record says {'0-1' if record['result'] == '1-0' else '1-0'} (")
    assert refused(forged(payload, lambda data: data["record"].update(x=game.o))) == (
        f"x is {game.o!r}, but game {game.game_id} has {game.x!r}")
    assert refused(forged(payload, lambda data: data["record"]["moves"][0].update(engine="intruder"))) == (
        f"ply 1: engine 'intruder' moved for x, which {game.x!r} plays")
    wrong = {path: "0" * 64 for path in hashes}
    assert refused(forged(payload, lambda data: data.update(hashes=wrong))) == (
        f"the engines' program files it reports ({', '.join(f'{p} 000000000000' for p in sorted(wrong))}) are not the "
        f"coordinator's ({', '.join(f'{p} {h[:12]}' for p, h in sorted(hashes.items()))})")
    assert refused(forged(payload, lambda data: data["hashes"].popitem())).startswith("the engines' program files it reports")
    assert refused(pickle.dumps(payload)) == "the reply is not JSON"
    assert refused(bytearray(payload)) == (
        "the reply is bytearray, not the JSON bytes a worker sends")
    assert refused(b"\x80not json") == "the reply is not JSON"
    assert refused(b"[" * 100_000) == "the reply is not JSON"
    assert refused(forged(payload, lambda data: data.update(extra=1))) == (
        "the reply is not an object with record, failure, warning, hashes and logs")
    assert refused(forged(payload, lambda data: data.update(failure="no"))) == "the reply has both a record and a failure"
    assert refused(forged(payload, lambda data: data.update(warning=["x"]))) == "the reply's warning is list, not text"
    assert refused(forged(payload, lambda data: data.update(logs=[["arena", "INFO", "x"]]))) == (
        f"the reply's logs are not a list of at most {cluster.MAX_REPLY_LOGS} [name, level, text] lines")
    assert refused(forged(payload, lambda data: data.update(record=None))) == "the reply's record is null, not a game record"


def test_a_workers_failure_and_text_reach_the_coordinator_as_one_printable_line(
    honest_reply: tuple[bytes, ScheduledGame, TournamentConfig],
) -> None:
    payload, game, config = honest_reply
    failure = forged(payload, lambda data: data.update(record=None, failure="engine 'rnd': \x1b]0;owned\x07 differs\nthere"))
    read = read_reply(failure, game, config.settings, {})
    assert (read.record, read.failure) == (None, "engine 'rnd': \\x1b]0;owned\\x07 differs\\nthere")
    long = read_reply(forged(payload, lambda data: data.update(record=None, failure="y" * 5000)), game, config.settings, {})
    assert long.failure == "y" * cluster.MAX_TEXT + f"... ({5000 - cluster.MAX_TEXT} more characters)"
    logs = [["os", 99, "\x1b[2Jcleared"], ["arena.match", 5, "quiet"]]
    read = read_reply(forged(payload, lambda data: data.update(logs=logs)), game, config.settings,
                      json.loads(payload)["hashes"])
    assert [(line.name, line.levelno, line.getMessage()) for line in read.logs] == [
        ("arena.cluster", logging.CRITICAL, "\\x1b[2Jcleared"), ("arena.match", logging.DEBUG, "quiet")]


# --- a real TLS cluster: who joins, where it listens, and a worker that lies -----------------------------------


def listening(pid: int) -> set[tuple[str, int]]:
    """Every (address, port) a process listens at, as the kernel has it."""
    import psutil

    return {(c.laddr.ip, c.laddr.port) for c in psutil.Process(pid).net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN}


def host_port(url: str) -> tuple[str, int]:
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    return host, int(port)


def test_scheduler_and_worker_listen_only_at_their_addresses_with_tls(tmp_path: Path) -> None:
    with tls_cluster(tmp_path, 1) as nodes:
        for node in (nodes.scheduler, *nodes.workers):
            assert node.address.startswith("tls://127.0.0.1:") and node.http.startswith("http://127.0.0.1:")
            assert listening(node.process.pid) == {host_port(node.address), host_port(node.http)}
        assert nodes.worker_addresses() == {nodes.workers[0].address}


def test_a_worker_of_a_scheduler_on_the_network_listens_at_its_own_address_on_that_network(tmp_path: Path) -> None:
    import psutil

    ours = sorted(address.address for addresses in psutil.net_if_addrs().values() for address in addresses
                  if address.family == socket.AF_INET and not address.address.startswith("127."))
    if not ours:
        pytest.skip("this machine has no IPv4 address beyond loopback")
    certs = make_certs(tmp_path / "certs")
    scheduler = start_node([ARENA, "cluster", "scheduler", "--certs", str(certs), "--host", ours[0], "--port", "0"],
                           tmp_path / "scheduler.out")
    try:
        worker = start_node([ARENA, "cluster", "worker", scheduler.address, "--certs", str(certs), "--nthreads", "1"],
                            tmp_path / "worker.out")
        try:
            assert scheduler.address.startswith(f"tls://{ours[0]}:") and worker.address.startswith(f"tls://{ours[0]}:")
            assert listening(scheduler.process.pid) == {host_port(scheduler.address), host_port(scheduler.http)}
            assert listening(worker.process.pid) == {host_port(worker.address), host_port(worker.http)}
            assert host_port(worker.http)[0] == "127.0.0.1"
        finally:
            _stop(worker.process)
    finally:
        _stop(scheduler.process)


def test_workers_without_the_clusters_certificates_cannot_join_and_get_no_game(tmp_path: Path) -> None:
    env = dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="3s")
    with tls_cluster(tmp_path, 1) as nodes:
        honest = {nodes.workers[0].address}
        loopback = ["--no-nanny", "--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0", "--nthreads", "1",
                    "--death-timeout", "5"]
        # No certificates at all: dask cannot even open a TLS connection.
        plain = subprocess.run([DASK, "worker", nodes.address, *loopback], capture_output=True, text=True, timeout=120,
                               env=env, cwd=tmp_path)
        assert plain.returncode == 1
        assert "TypeError: TLS expects a `ssl_context` argument of type ssl.SSLContext" in plain.stderr
        assert "RuntimeError: Worker failed to start." in plain.stderr
        # Plain TCP to the TLS port: the scheduler only speaks TLS.
        tcp = subprocess.run([DASK, "worker", nodes.address.replace("tls://", "tcp://"), *loopback], capture_output=True,
                             text=True, timeout=120, env=env, cwd=tmp_path)
        assert tcp.returncode == 1 and "Timed out starting worker" in tcp.stderr
        assert "[SSL: WRONG_VERSION_NUMBER]" in nodes.scheduler.output.read_text()
        # A certificate set of another CA: the scheduler refuses the handshake.
        other = make_certs(tmp_path / "other")
        stranger = subprocess.run([ARENA, "cluster", "worker", nodes.address, "--certs", str(other)], capture_output=True,
                                  text=True, timeout=120, env=env, cwd=tmp_path)
        assert (stranger.returncode, stranger.stdout) == (2, "")
        assert stranger.stderr == (
            f"arena: error: the worker could not join the scheduler at {nodes.address} within 3 s; check that the "
            f"scheduler runs there, that this machine may listen at 127.0.0.1 (--host), and that the certificates are "
            f"the set the scheduler uses\n")
        assert "TLS handshake failed" in nodes.scheduler.output.read_text()
        assert "[SSL: TLSV1_ALERT_UNKNOWN_CA]" in nodes.scheduler.output.read_text()
        # A coordinator with that set is refused too.
        config = tmp_path / "seeded.yaml"
        config.write_text(SEEDED.format(rounds=1))
        coordinator = subprocess.run([ARENA, "tournament", str(config), "--db", str(tmp_path / "r.sqlite"), "--cluster",
                                      nodes.address, "--cluster-certs", str(other), "--no-progress"],
                                     capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
        assert (coordinator.returncode, coordinator.stdout) == (2, "")
        assert coordinator.stderr.startswith(f"arena: error: the dask scheduler at {nodes.address} and this machine do "
                                             f"not accept each other's certificates (")
        assert coordinator.stderr.endswith("; use the certificate set the scheduler uses (cluster_certs, --cluster-certs)\n")
        # None of them joined, so no game can reach them.
        assert nodes.worker_addresses() == honest


FORGERIES = {
    "pickle": "a reply that is not plain data (TypeError: Data serialized with pickle but only able to deserialize "
              "data with ['msgpack'])",
    "no-moves": "no moves: a game ends only by a move or a forfeit",
    "flipped": "the record says ",
    "other-engine": "x is ",
    "wrong-hashes": "the engines' program files it reports (",
}
"""What the coordinator says of each forgery of tests/fake_engines/hostile/forging_worker.py (the start of it)."""


@pytest.mark.slow
def test_a_worker_that_forges_results_is_refused_and_its_games_are_played_again_on_an_honest_one(tmp_path: Path) -> None:
    config = tmp_path / "seeded.yaml"
    config.write_text(SEEDED.format(rounds=3))
    pool_db, db = tmp_path / "pool.sqlite", tmp_path / "cluster.sqlite"
    run_tournament(load_config(config), pool_db, progress=False)
    note, mark = tmp_path / "forged.txt", tmp_path / "pickle-ran.txt"
    env = dict(os.environ, ARENA_FORGE=",".join(FORGERIES), ARENA_FORGE_NOTE=str(note), ARENA_FORGE_MARK=str(mark))
    with tls_cluster(tmp_path, 1) as nodes:
        certs = nodes.certs
        forger = start_node([DASK, "worker", nodes.address, "--tls-ca-file", str(certs / "ca.pem"), "--tls-cert",
                             str(certs / "node.pem"), "--tls-key", str(certs / "node.key"), "--no-nanny", "--host",
                             "127.0.0.1", "--nthreads", "2", "--dashboard-address", "127.0.0.1:0", "--preload",
                             str(FAKES / "hostile" / "forging_worker.py"), "--name", "forger"],
                            tmp_path / "forger.out", env, DASK_WORKER_READY)
        try:
            rogue = forger.address
            assert nodes.worker_addresses() == {nodes.workers[0].address, rogue}
            argv = [ARENA, "tournament", str(config), "--db", str(db), "--cluster", nodes.address, "--cluster-certs",
                    str(certs), "--no-progress"]
            result = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path)
            assert result.returncode == 0, result.stderr
            assert result.stdout.splitlines()[0] == f"6 games played now, 0 already in {db}, 6 scheduled"
            calls = [line.split() for line in note.read_text().splitlines()]
            assert calls and {address for address, _ in calls} == {rogue}
            # One warning on the terminal for the worker, one log line per refused reply, each saying why.
            warnings = [line for line in result.stderr.splitlines() if "refused a result" in line]
            assert len(warnings) == 1 and warnings[0].startswith(f"arena: warning: refused a result from worker {rogue} (")
            assert warnings[0].endswith("); it gets no more games of this run")
            log = db.with_name(db.name + ".log").read_text().splitlines()
            refusals = [line for line in log if f"refused the result from worker {rogue}: " in line]
            assert len(refusals) == len(calls)
            for _, kind in calls:
                assert any(f"refused the result from worker {rogue}: {FORGERIES[kind]}" in line for line in refusals), kind
            assert all(line.endswith("that worker gets no more games of this run, and the game is played again on "
                                     "another") for line in refusals)
            # The database holds the honest games, each once: the ones the local pool plays.
            assert stored(db) == stored(pool_db)
            assert not mark.exists()  # the pickle was never loaded, here or on the scheduler

            # With no honest worker left, the games are counted as failed and nothing is stored.
            _stop(nodes.workers[0].process)
            deadline = time.monotonic() + 60
            while nodes.worker_addresses() != {rogue} and time.monotonic() < deadline:
                time.sleep(0.2)
            alone = tmp_path / "alone.sqlite"
            result = subprocess.run([*argv[:4], str(alone), *argv[5:]], capture_output=True, text=True, timeout=300,
                                    cwd=tmp_path)
            assert result.returncode == 0, result.stderr
            assert result.stdout.splitlines()[0] == (
                f"0 games played now, 0 already in {alone}, 6 scheduled, 6 failed (see the log)")
            assert (f"arena: warning: a game was not played: no worker is left to play it but ones whose results were "
                    f"refused ({rogue})") in result.stderr.splitlines()
            assert stored(alone) == {}
            assert not mark.exists()
        finally:
            _stop(forger.process)
