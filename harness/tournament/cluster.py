"""Games on a dask.distributed cluster: the coordinator keeps the schedule and the database, workers play.

``--cluster tls://HOST:PORT`` uses a running dask scheduler with mutual TLS (every peer's certificate
checked against the cluster's CA: ``cluster_certs``, made by ``arena cluster certs``); ``tcp://`` is
allowed on loopback, elsewhere only with ``--insecure-cluster``. ``--cluster local:K`` starts a local
cluster of K worker slots on 127.0.0.1, with credentials that exist only in its processes.

Each game is one task running executor.play_scheduled on a worker, with the referee and the sandbox mode
resolved there. Before a game the worker checks the engines' files against the coordinator's
SHA-256; a mismatch fails that game as a harness failure (not stored, retried by a rerun), never as
a forfeit. The task returns plain data (JSON bytes, never a pickle), and the coordinator believes
none of it: the record is rebuilt with every type checked and replayed through the rules
(harness.match.verify) before it is stored. A refused result bans its worker for the run and the game is
played again on another. dask reruns the tasks of a lost worker elsewhere; the coordinator saves each
game once.

dask is imported only here and only when a cluster is used: engines and the CLI never pay for it.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import HarnessError
from harness.tournament.address import ADDRESS_HELP as ADDRESS_HELP
from harness.tournament.address import LOCAL_HOST as LOCAL_HOST
from harness.tournament.address import MAX_LOCAL_SLOTS as MAX_LOCAL_SLOTS
from harness.tournament.address import ClusterAddress as ClusterAddress
from harness.tournament.address import is_loopback as is_loopback
from harness.tournament.address import parse_cluster as parse_cluster
from harness.tournament.executor import Failed, Finished, Warn, play_scheduled
from harness.tournament.executor import Job as Job
from harness.tournament.executor import expected_hashes as expected_hashes
from harness.referee.sandbox import SandboxMode

if TYPE_CHECKING:
    from distributed import Client, Security

    from harness.tournament.cluster_certs import CertSet
    from harness.referee.engine_specs import EngineSpec
    from harness.match.match import GameRecord
    from harness.tournament.schedule import ScheduledGame
    from harness.match.settings import GameSettings

log = logging.getLogger("arena.cluster")

CONNECT_SECONDS = 10.0
"""How long to try reaching a scheduler before giving up, unless dask's own setting is given in the
environment (DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT, e.g. 30s)."""
MAX_REPLY_BYTES = 64 << 20
"""Largest reply a worker may send for one game (a record of 10,000 plies with its fault is far less)."""
MAX_REPLY_LOGS = 1000
"""Most log lines a worker's reply may carry for one game; more refuses the reply."""
MAX_TEXT = 2000
"""Longest line of a worker's text (a failure, a warning, a log line) that the coordinator keeps."""
MAX_REFUSALS = 3
"""Results of one game refused before it is counted as failed (each refusal bans its worker, so only
a worker the scheduler cannot name could be asked again)."""
_WINDOW_REFRESH_SECONDS = 2.0
class ClusterError(HarnessError):
    """A cluster that cannot be used: unreachable scheduler, lost connection, an address refused."""


class WorkerMismatch(HarnessError):
    """A worker cannot play a game as the coordinator would: an engine file missing or different there,
    or a sandbox it cannot provide. The game is a harness failure, not the engine's forfeit."""


@dataclass(frozen=True)
class Access:
    """How to reach a cluster: the address, the credentials it needs, and what to warn of on every run."""

    address: ClusterAddress
    certs: CertSet | None = None
    """The checked certificate set of a ``tls://`` cluster."""
    warning: str | None = None
    """For ``--insecure-cluster``: what it gives up, said on every run."""


def check_access(address: ClusterAddress, certs: str | Path | None = None, insecure: bool = False) -> Access:
    """Refuse (ClusterError, one line with the fix) an address that would let strangers in: a
    ``tls://`` one without a complete certificate set, a ``tcp://`` one beyond loopback unless
    ``insecure``. ``certs`` is the folder of the set (cluster_certs); ``local:K`` needs none."""
    from harness.tournament.cluster_certs import CertsError, check_certs

    if address.scheme == "local":
        return Access(address)
    if address.scheme == "tls":
        if certs is None:
            raise ClusterError(
                f"--cluster {address} needs the cluster's certificates: give cluster_certs: DIR in the config or "
                f"--cluster-certs DIR (the folder made by: arena cluster certs DIR)")
        try:
            return Access(address, check_certs(Path(certs)))
        except CertsError as error:
            raise ClusterError(str(error)) from None
    rest = str(address.scheduler).split("://", 1)[1]
    if certs is not None:
        raise ClusterError(f"--cluster {address} does not use TLS, but cluster certificates are given ({certs}); "
                           f"give the scheduler's TLS address, tls://{rest}")
    if is_loopback(str(address.host)):
        return Access(address)
    if not insecure:
        raise ClusterError(
            f"--cluster {address} has no TLS: anyone who can reach the scheduler can join it and run code on this "
            f"machine; use tls://{rest} with cluster_certs (see docs/cluster.md), or accept that with --insecure-cluster")
    return Access(address, warning=(
        f"--insecure-cluster: {address} is used without TLS: anyone who can reach the scheduler can join it as a "
        f"worker and run code on this machine; use tls://{rest} with cluster_certs (see docs/cluster.md)"))


def local_layout(slots: int, cores: int | None = None) -> tuple[int, int]:
    """(worker processes, threads each) for ``slots`` games at once: the most processes up to the
    number of cores that share the slots evenly (a game's worker mostly waits on its engine)."""
    most = max(1, min(slots, cores or os.cpu_count() or 1))
    processes = max(d for d in range(1, most + 1) if slots % d == 0)
    return processes, slots // processes


# --- the worker's side ------------------------------------------------------------------------------


def check_programs(engines: Sequence[EngineSpec], hashes: Mapping[str, str | None], where: str) -> dict[str, str | None]:
    """Refuse to play when an engine's command or program file is missing here or differs from the
    coordinator's (by SHA-256); WorkerMismatch names the engine, the file and the fix. Returns the
    SHA-256 found here of each program file."""
    from harness.referee.referee import resolve_interpreter
    from harness.store.store import file_sha256

    fix = "every worker needs the engines at the same absolute paths as the coordinator (see docs/cluster.md)"
    found_hashes: dict[str, str | None] = {}
    for engine in engines:
        runner = resolve_interpreter(engine.command[:1])[0]  # python3: the worker's own interpreter, as the referee runs it
        if os.sep not in runner:
            runner = shutil.which(runner) or runner
        if not (os.path.isfile(runner) and os.access(runner, os.X_OK)):
            raise WorkerMismatch(f"engine {engine.name!r}: {runner} is missing or not executable on {where}; {fix}")
        if engine.program is None:
            continue
        expected = hashes.get(engine.program)
        found = found_hashes[engine.program] = file_sha256(engine.program)
        if found is None:
            raise WorkerMismatch(f"engine {engine.name!r}: {engine.program} is missing on {where}; {fix}")
        if found != expected:
            raise WorkerMismatch(
                f"engine {engine.name!r}: {engine.program} on {where} differs from the coordinator's (SHA-256 "
                f"{found[:12]}... there, {(expected or '?')[:12]}... on the coordinator); copy the same file "
                f"to every worker"
            )
    return found_hashes


class _GameLogs(logging.Handler):
    """On a worker: the harness's log lines, kept per thread (one game each) to send back as text."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.games: dict[int, list[list[Any]]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        kept = self.games.get(threading.get_ident())
        if kept is not None and len(kept) < MAX_REPLY_LOGS:
            kept.append([record.name, record.levelno, record.getMessage()])


_LOGS: _GameLogs | None = None
_LOGS_LOCK = threading.Lock()


@contextmanager
def _game_logs() -> Iterator[list[list[Any]]]:
    global _LOGS
    with _LOGS_LOCK:
        if _LOGS is None:
            _LOGS = _GameLogs()
            harness_log = logging.getLogger("arena")
            harness_log.addHandler(_LOGS)
            harness_log.setLevel(logging.DEBUG)
            harness_log.propagate = False  # the coordinator logs them; the worker's own log stays dask's
    kept: list[list[Any]] = []
    _LOGS.games[threading.get_ident()] = kept
    try:
        yield kept
    finally:
        _LOGS.games.pop(threading.get_ident(), None)


def dask_setup(worker: object) -> None:
    """Preload of a local cluster's workers: they leave Ctrl-C (sent to the terminal's whole process
    group) to the coordinator, which closes the cluster, as the local pool's workers do."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return f"worker {get_worker().address}"
    except (ImportError, ValueError):
        return f"host {os.uname().nodename}"


def play_checked(scheduled: ScheduledGame, x: EngineSpec, o: EngineSpec, job: Job) -> bytes:
    """One game on a worker: check the engines' files, resolve the sandbox here, play it as the local
    pool does. The reply is JSON bytes (the record, or why it could not be played, the program
    hashes found here, the game's log lines): plain data that runs nothing where it is read, and no
    exception to be pickled back."""
    from harness.referee import sandbox as sandbox

    reply: dict[str, Any] = {"record": None, "failure": None, "warning": None, "hashes": {}, "logs": []}
    where = _worker_name()
    try:
        reply["hashes"] = check_programs((x, o), dict(job.hashes), where)
        try:
            confined, warning = sandbox.resolve(job.sandbox)
        except sandbox.SandboxUnavailable as error:
            raise WorkerMismatch(f"{where}: {error}") from None
        with _game_logs() as logs:
            record = play_scheduled(scheduled, x, o, job.settings, job.limits(confined))
        reply["record"] = record.to_json()
        reply["logs"] = logs
        if warning is not None and job.sandbox is not SandboxMode.OFF:
            reply["warning"] = f"{where}: {warning}"
    except HarnessError as error:
        reply["failure"] = str(error)
    except Exception as error:  # a harness bug on this worker: said in one line, never raised to be pickled
        reply["failure"] = f"{where}: {type(error).__name__}: {error}"
    return json.dumps(reply).encode()


# --- the coordinator's side -------------------------------------------------------------------------


@dataclass
class Reply:
    """A worker's reply to one game, read and checked here: either the game's record, or why the
    worker could not play it."""

    record: GameRecord | None
    failure: str | None = None
    """One line: why the worker could not play the game (an engine file differs there, ...)."""
    warning: str | None = None
    """The sandbox's fallback warning on that worker (``auto`` without bwrap)."""
    logs: tuple[logging.LogRecord, ...] = ()
    """The harness's log lines of the game on the worker, logged again here."""


def worker_text(value: object) -> str:
    """A worker's text as one line of safe text (harness.text.visible), cut at MAX_TEXT characters."""
    from harness.text import visible

    shown = visible(str(value))
    return shown if len(shown) <= MAX_TEXT else f"{shown[:MAX_TEXT]}... ({len(shown) - MAX_TEXT} more characters)"


def read_reply(payload: object, scheduled: ScheduledGame, settings: GameSettings,
               hashes: Mapping[str, str | None]) -> Reply:
    """A worker's reply, believed only after checking: JSON of the expected shape, the program hashes
    the worker found equal to ``hashes`` (the coordinator's, for this game's engines), and the record
    the scheduled ``game`` under ``settings`` whose moves give its end (harness.match.verify).

    Raises RecordRefused, naming the first problem, for anything else."""
    from harness.store.records import record_from_data
    from harness.match.verify import RecordRefused, check_scheduled, shown

    if not isinstance(payload, bytes):
        raise RecordRefused(f"the reply is {type(payload).__name__}, not the JSON bytes a worker sends")
    if len(payload) > MAX_REPLY_BYTES:
        raise RecordRefused(f"the reply is {len(payload)} bytes, more than {MAX_REPLY_BYTES}")
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        raise RecordRefused("the reply is not JSON") from None
    if not isinstance(data, dict) or set(data) != {"record", "failure", "warning", "hashes", "logs"}:
        raise RecordRefused("the reply is not an object with record, failure, warning, hashes and logs")
    warning, failure = data["warning"], data["failure"]
    for name, value in (("failure", failure), ("warning", warning)):
        if value is not None and not isinstance(value, str):
            raise RecordRefused(f"the reply's {name} is {type(value).__name__}, not text")
    logs = data["logs"]
    if not (isinstance(logs, list) and len(logs) <= MAX_REPLY_LOGS and all(
            isinstance(line, list) and len(line) == 3 and isinstance(line[0], str) and isinstance(line[2], str)
            and isinstance(line[1], int) and not isinstance(line[1], bool) for line in logs)):
        raise RecordRefused(f"the reply's logs are not a list of at most {MAX_REPLY_LOGS} [name, level, text] lines")
    if failure is not None:
        if data["record"] is not None:
            raise RecordRefused("the reply has both a record and a failure")
        return Reply(None, worker_text(failure))
    found = data["hashes"]
    if found != dict(hashes):
        raise RecordRefused(f"the engines' program files it reports ({_hashes_text(found)}) are not the coordinator's "
                            f"({_hashes_text(hashes)})")
    if not isinstance(data["record"], dict):
        raise RecordRefused(f"the reply's record is {shown(data['record'])}, not a game record")
    record = record_from_data(data["record"])
    check_scheduled(record, scheduled, settings)
    return Reply(record, None, None if warning is None else worker_text(warning),
                 tuple(_log_record(*line) for line in logs))


def _hashes_text(hashes: object) -> str:
    if not isinstance(hashes, Mapping):
        return f"a {type(hashes).__name__}"
    return ", ".join(f"{worker_text(path)} {str(sha)[:12] if isinstance(sha, str) else sha}"
                     for path, sha in sorted(hashes.items(), key=str)) or "none"


def _log_record(name: str, level: int, text: str) -> logging.LogRecord:
    """A worker's log line as a record of the coordinator's ``arena`` log (its own name kept only there)."""
    name = name if name == "arena" or name.startswith("arena.") else "arena.cluster"
    level = min(max(level, logging.DEBUG), logging.CRITICAL)
    return logging.LogRecord(worker_text(name), level, "", 0, worker_text(text), None, None)


@contextmanager
def connect(access: Access, timeout: float | None = None) -> Iterator[Client]:
    """A client of the scheduler at ``access.address`` (with its TLS credentials), or of a local
    cluster started (and closed) here. The client unpickles no result (``deserializers=['msgpack']``):
    what a task returns must be plain data."""
    import dask
    from distributed import Client, LocalCluster

    from harness.tournament.cluster_certs import security, temporary_security

    address = access.address
    seconds = connect_seconds() if timeout is None else timeout
    for noisy in ("distributed", "asyncio"):  # the tournament's log gets their warnings only
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if address.local_slots is not None:
        processes, threads = local_layout(address.local_slots)
        credentials = temporary_security()
        # Every port on 127.0.0.1, chosen free (no fixed 8787 to clash), and TLS with a certificate that
        # exists only in these processes: another user of this machine cannot join. The workers'
        # statistical profiler samples every thread every 10 ms: CPU the engines need. Their logs
        # would only clutter the terminal: the coordinator reports failed games itself.
        with dask.config.set({"distributed.worker.profile.enabled": False}):
            cluster = LocalCluster(
                n_workers=processes, threads_per_worker=threads, processes=True, host=LOCAL_HOST,
                scheduler_port=0, dashboard_address=f"{LOCAL_HOST}:0", protocol="tls://", security=credentials,
                silence_logs=logging.CRITICAL, preload=[__name__],
            )
        try:
            with Client(cluster, security=credentials, deserializers=["msgpack"], set_as_default=False) as client:
                yield client
        finally:
            cluster.close()
        return
    credentials_for: Security | None = security(access.certs) if access.certs is not None else None
    try:
        _probe(str(address.scheduler), seconds, credentials_for)
        client = Client(address.scheduler, timeout=seconds, set_as_default=False, security=credentials_for,
                        deserializers=["msgpack"])
    except Exception as error:  # refused, timed out, or a peer that is no dask scheduler (garbage frames)
        why = worker_text(" ".join(str(error).split()))
        if not isinstance(error, (OSError, TimeoutError)):
            why = f"{type(error).__name__}: {why}; is it a dask scheduler?"
        detail = "" if not why or why.startswith("Timed out") else f" ({why})"
        if address.scheme == "tls" and re.search(r"certificate|SSL|TLS", why):
            raise ClusterError(
                f"the dask scheduler at {address} and this machine do not accept each other's certificates{detail}; "
                f"use the certificate set the scheduler uses (cluster_certs, --cluster-certs)") from None
        raise ClusterError(
            f"cannot reach the dask scheduler at {address} within {seconds:g} s{detail}; start one there "
            f"(arena cluster scheduler) or check the address"
        ) from None
    with client:
        yield client


def _probe(address: str, seconds: float, credentials: Security | None) -> None:
    """Open and close one connection to the scheduler, handshake included: an address where no dask
    scheduler answers fails here, before a Client exists that would take seconds to tear down."""
    import asyncio

    from distributed import Security
    from distributed.comm.core import connect as open_comm

    arguments = (credentials or Security()).get_connection_args("client")

    async def probe() -> None:
        comm = await open_comm(address, timeout=seconds, **arguments)
        await comm.close()

    asyncio.run(probe())


def connect_seconds() -> float:
    """CONNECT_SECONDS, or the connect timeout given to dask in the environment."""
    given = os.environ.get("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT")
    if not given:
        return CONNECT_SECONDS
    from dask.utils import parse_timedelta

    try:
        return float(parse_timedelta(given, default="seconds"))
    except (ValueError, KeyError):
        raise ClusterError(
            f"invalid DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT {given!r}: give a duration such as 30s"
        ) from None


def _warm_up(job: Job) -> None:
    """On a worker: load what a game needs (the harness, the game's rules) before the first game."""
    import harness.tournament.executor  # noqa: F401

    job.settings.rules  # noqa: B018 - the property imports the game's module


def _workers(client: Client, known: dict[str, int]) -> dict[str, int]:
    """The cluster's workers and their slots now; workers that left or joined since ``known`` are logged."""
    now: dict[str, int] = dict(client.nthreads())
    for gone in sorted(set(known) - set(now)):
        log.warning("worker %s left the cluster; its games in progress are played again on the others", gone)
    for new in sorted(set(now) - set(known)):
        if known:
            log.info("worker %s joined the cluster with %d slots", new, now[new])
    return now


def _holder(client: Client, future: Any) -> str | None:
    """The worker holding a finished task's result (the one that computed it), as the scheduler knows it."""
    try:
        holders = client.who_has(future).get(future.key, ())
    except Exception:  # the scheduler's answer is only for the log line
        return None
    return str(sorted(holders)[0]) if holders else None


def play_on_cluster(
    access: Access,
    games: Sequence[ScheduledGame],
    specs: Mapping[str, EngineSpec],
    job: Job,
    finished: Finished,
    failed: Failed,
    warn: Warn,
    client: Client | None = None,
) -> None:
    """Play ``games`` on the cluster, calling ``finished`` once per game as each checked result
    arrives (or ``failed``, with why, for a game the cluster could not play). ``client``: one already
    connected (``connect``), kept by a caller that plays several batches; else one is made here.

    Twice the cluster's slots are in flight at a time, so the schedule stays here and workers that
    join later get work. A result for a game already finished (a task run twice) is dropped. A result
    that does not hold (``read_reply``) is refused: logged with its worker, which gets no more games
    of this run (dask's worker restrictions), and the game is played again on another worker, or
    counted as failed when no other is left.
    """
    from concurrent.futures import CancelledError

    from distributed import as_completed

    if access.warning is not None:
        warn(access.warning)
    address = access.address
    coordinator_hashes = dict(job.hashes)
    with (nullcontext(client) if client is not None else connect(access)) as client:
        try:
            client.run(_warm_up, job)
        except Exception as error:  # a worker without the harness: a bare traceback would not say so
            why = worker_text(" ".join(str(error).split()))
            raise ClusterError(
                f"a worker of {address} cannot load the harness ({type(error).__name__}: {why}); "
                f"start the workers with the project's own environment (arena cluster worker ...), see docs/cluster.md"
            ) from None
        workers = _workers(client, {})
        slots = sum(workers.values())
        log.info("cluster %s: %d worker slots", address, slots)
        if slots == 0:
            warn(f"the scheduler at {address} has no workers yet; the games wait until one connects "
                 f"(arena cluster worker {address})")
        run = uuid.uuid4().hex[:8]
        todo: deque[ScheduledGame] = deque(games)
        in_flight: dict[Any, tuple[ScheduledGame, frozenset[str] | None]] = {}
        attempts: dict[str, int] = {}
        refusals: dict[str, int] = {}
        banned: set[str] = set()
        done: set[str] = set()
        told: set[str] = set()
        futures = as_completed(loop=client.loop)

        def submit(scheduled: ScheduledGame) -> None:
            only = None if not banned else frozenset(set(workers) - banned)
            if only is not None and not only:
                failed(scheduled, f"no worker is left to play it but ones whose results were refused "
                             f"({', '.join(sorted(banned))})")
                return
            attempts[scheduled.game_id] = attempt = attempts.get(scheduled.game_id, 0) + 1
            future = client.submit(play_checked, scheduled, specs[scheduled.x], specs[scheduled.o], job,
                                   key=f"arena-{run}-{scheduled.game_id}-{attempt}", pure=False,
                                   workers=None if only is None else sorted(only), allow_other_workers=False)
            in_flight[future] = (scheduled, only)
            futures.add(future)

        def submit_up_to(window: int) -> None:
            while len(in_flight) < window and todo:
                submit(todo.popleft())

        def refuse(future: Any, scheduled: ScheduledGame, why: str) -> None:
            worker = _holder(client, future)
            log.warning("game %s: refused the result from worker %s: %s; that worker gets no more games of this "
                        "run, and the game is played again on another", scheduled.game_id, worker or "(unknown)", why)
            if worker is not None and worker not in banned:
                banned.add(worker)
                warn(f"refused a result from worker {worker} ({why}); it gets no more games of this run")
            refusals[scheduled.game_id] = refusals.get(scheduled.game_id, 0) + 1
            if refusals[scheduled.game_id] >= MAX_REFUSALS:
                failed(scheduled, f"{MAX_REFUSALS} results refused, the last: {why}")
            else:
                todo.appendleft(scheduled)

        def restrand() -> None:
            """Games held for workers that have all left go back to the queue, for the others."""
            live = set(workers) - banned
            for future, (game, only) in list(in_flight.items()):
                if only is not None and not only & live and not future.done():
                    del in_flight[future]
                    future.cancel()
                    todo.appendleft(game)

        window = max(2, 2 * slots)
        refreshed = time.monotonic()
        submit_up_to(window)
        for future in futures:
            entry = in_flight.pop(future, None)
            if entry is None:
                continue  # cancelled here: its game is queued again
            scheduled = entry[0]
            try:
                payload = future.result()
            except CancelledError:
                raise ClusterError(
                    f"lost the dask scheduler at {address} (its tasks were cancelled); the games finished so far "
                    f"are saved: rerun the same command to resume"
                ) from None
            except Exception as error:  # a game that killed its workers too often, or a reply not plain data
                why = worker_text(f"{type(error).__name__}: {' '.join(str(error).split())}")
                if _holder(client, future) is not None:  # a finished task whose result could not be read
                    refuse(future, scheduled, f"a reply that is not plain data ({why})")
                else:
                    failed(scheduled, why)
            else:
                from harness.match.verify import RecordRefused

                try:
                    reply = read_reply(payload, scheduled, job.settings,
                                       {path: sha for path, sha in coordinator_hashes.items()
                                        if path in (specs[scheduled.x].program, specs[scheduled.o].program)})
                except RecordRefused as error:
                    refuse(future, scheduled, worker_text(error))
                else:
                    if reply.warning is not None and reply.warning not in told:
                        told.add(reply.warning)
                        warn(reply.warning)
                    if reply.record is None:
                        failed(scheduled, str(reply.failure))
                    elif scheduled.game_id in done:
                        log.debug("%s: a second result dropped", scheduled.game_id)
                    else:
                        done.add(scheduled.game_id)
                        for record in reply.logs:
                            logger = logging.getLogger(record.name)
                            if logger.isEnabledFor(record.levelno):
                                logger.handle(record)
                        finished(scheduled, reply.record)
            future.release()
            if time.monotonic() - refreshed > _WINDOW_REFRESH_SECONDS:
                workers = _workers(client, workers)
                if banned:
                    restrand()
                window, refreshed = max(2, 2 * sum(n for w, n in workers.items() if w not in banned)), time.monotonic()
            submit_up_to(window)
