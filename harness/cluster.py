"""Games on a dask.distributed cluster: the coordinator keeps the schedule and the database, workers play.

``--cluster tcp://HOST:PORT`` uses a running dask scheduler; ``--cluster local:K`` starts a local
cluster of K worker slots (threads, spread over up to one process per core, bound to 127.0.0.1).
Each game is one task running tournament._play on a worker, with the referee and the sandbox mode
resolved there. Before a game the worker checks the engines' files against the coordinator's
SHA-256; a mismatch fails that game as a harness failure (not stored, retried by a rerun), never as
a forfeit. dask reruns the tasks of a lost worker elsewhere; the coordinator saves each game once.

dask is imported only here and only when a cluster is used: engines and the CLI never pay for it.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.errors import HarnessError
from harness.sandbox import SandboxMode

if TYPE_CHECKING:
    from distributed import Client

    from harness.engines import EngineSpec
    from harness.match import GameRecord
    from harness.schedule import ScheduledGame
    from harness.settings import GameSettings

log = logging.getLogger("arena.cluster")

MAX_LOCAL_SLOTS = 256
"""Most worker slots of a ``local:K`` cluster (as many as ``concurrency`` allows)."""
LOCAL_HOST = "127.0.0.1"
CONNECT_SECONDS = 10.0
"""How long to try reaching a scheduler before giving up, unless dask's own setting is given in the
environment (DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT, e.g. 30s)."""
_WINDOW_REFRESH_SECONDS = 2.0
_TCP = re.compile(r"tcp://(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]):(?P<port>[0-9]{1,5})")
_LOCAL = re.compile(r"local:(?P<slots>[0-9]{1,6})")
ADDRESS_HELP = (
    f"tcp://HOST:PORT (a running dask scheduler) or local:K (a cluster of K worker slots on this machine, "
    f"1 to {MAX_LOCAL_SLOTS})"
)


class ClusterError(HarnessError):
    """A cluster that cannot be used: unreachable scheduler, lost connection."""


class WorkerMismatch(HarnessError):
    """A worker cannot play a game as the coordinator would: an engine file missing or different there,
    or a sandbox it cannot provide. The game is a harness failure, not the engine's forfeit."""


@dataclass(frozen=True)
class ClusterAddress:
    """Where games run: a running scheduler (``tcp://HOST:PORT``) or a local cluster (``local:K``)."""

    scheduler: str | None = None
    """The scheduler's address, or None for a local cluster."""
    local_slots: int | None = None
    """Worker slots (games at once) of a local cluster."""

    def __str__(self) -> str:
        return self.scheduler if self.scheduler is not None else f"local:{self.local_slots}"


def parse_cluster(text: str) -> ClusterAddress:
    """``tcp://HOST:PORT`` or ``local:K``; ValueError (saying what is expected) for anything else."""
    value = text.strip()
    tcp = _TCP.fullmatch(value)
    if tcp is not None and 1 <= int(tcp["port"]) <= 65535:
        return ClusterAddress(scheduler=value)
    local = _LOCAL.fullmatch(value)
    if local is not None and 1 <= int(local["slots"]) <= MAX_LOCAL_SLOTS:
        return ClusterAddress(local_slots=int(local["slots"]))
    raise ValueError(f"expected {ADDRESS_HELP}, got {text!r}")


def local_layout(slots: int, cores: int | None = None) -> tuple[int, int]:
    """(worker processes, threads each) for ``slots`` games at once: the most processes up to the
    number of cores that share the slots evenly (a game's worker mostly waits on its engine)."""
    most = max(1, min(slots, cores or os.cpu_count() or 1))
    processes = max(d for d in range(1, most + 1) if slots % d == 0)
    return processes, slots // processes


# --- the worker's side ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """What every game of a tournament needs on a worker, besides the game and its two engines."""

    settings: GameSettings
    sandbox: SandboxMode
    """Resolved on the worker: ``auto`` falls back there (with a warning back), ``required`` refuses."""
    file_bytes: int
    processes: int
    hashes: tuple[tuple[str, str | None], ...]
    """(program file, the coordinator's SHA-256) of every engine."""


@dataclass
class Played:
    """A game played on a worker, with what the coordinator should log and tell about it."""

    record: GameRecord
    worker: str
    warning: str | None = None
    """The sandbox's fallback warning on that worker (``auto`` without bwrap)."""
    logs: list[logging.LogRecord] = field(default_factory=list)
    """The harness's log records of the game, logged again by the coordinator."""


def expected_hashes(engines: Sequence[EngineSpec]) -> tuple[tuple[str, str | None], ...]:
    """The SHA-256 of each engine's program file here, as the store records it."""
    from harness.store import file_sha256

    return tuple((engine.program, file_sha256(engine.program)) for engine in engines if engine.program is not None)


def check_programs(engines: Sequence[EngineSpec], hashes: Mapping[str, str | None], where: str) -> None:
    """Refuse to play when an engine's command or program file is missing here or differs from the
    coordinator's (by SHA-256); WorkerMismatch names the engine, the file and the fix."""
    from harness.referee import resolve_interpreter
    from harness.store import file_sha256

    fix = "every worker needs the engines at the same absolute paths as the coordinator (see docs/cluster.md)"
    for engine in engines:
        runner = resolve_interpreter(engine.command[:1])[0]  # python3: the worker's own interpreter, as the referee runs it
        if os.sep not in runner:
            runner = shutil.which(runner) or runner
        if not (os.path.isfile(runner) and os.access(runner, os.X_OK)):
            raise WorkerMismatch(f"engine {engine.name!r}: {runner} is missing or not executable on {where}; {fix}")
        if engine.program is None:
            continue
        expected = hashes.get(engine.program)
        found = file_sha256(engine.program)
        if found is None:
            raise WorkerMismatch(f"engine {engine.name!r}: {engine.program} is missing on {where}; {fix}")
        if found != expected:
            raise WorkerMismatch(
                f"engine {engine.name!r}: {engine.program} on {where} differs from the coordinator's (SHA-256 "
                f"{found[:12]}... there, {(expected or '?')[:12]}... on the coordinator); copy the same file "
                f"to every worker"
            )


class _GameLogs(logging.Handler):
    """On a worker: the harness's log records, kept per thread (one game each) to send back."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.games: dict[int, list[logging.LogRecord]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        kept = self.games.get(threading.get_ident())
        if kept is not None:
            record.msg, record.args = record.getMessage(), None  # plain text: arguments may not pickle
            record.exc_info = record.exc_text = None
            kept.append(record)


_LOGS: _GameLogs | None = None
_LOGS_LOCK = threading.Lock()


@contextmanager
def _game_logs() -> Iterator[list[logging.LogRecord]]:
    global _LOGS
    with _LOGS_LOCK:
        if _LOGS is None:
            _LOGS = _GameLogs()
            harness_log = logging.getLogger("arena")
            harness_log.addHandler(_LOGS)
            harness_log.setLevel(logging.DEBUG)
            harness_log.propagate = False  # the coordinator logs them; the worker's own log stays dask's
    kept: list[logging.LogRecord] = []
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


def play_checked(game: ScheduledGame, x: EngineSpec, o: EngineSpec, job: Job) -> Played:
    """One game on a worker: check the engines' files, resolve the sandbox here, play it as the local pool does."""
    from harness import sandbox
    from harness.tournament import _play, _Settings  # not at import: config imports this module

    where = _worker_name()
    check_programs((x, o), dict(job.hashes), where)
    try:
        confined, warning = sandbox.resolve(job.sandbox)
    except sandbox.SandboxUnavailable as error:
        raise WorkerMismatch(f"{where}: {error}") from None
    limits = job.settings.limits(sandbox=confined, file_bytes=job.file_bytes, processes=job.processes)
    with _game_logs() as logs:
        record = _play(game, x, o, _Settings(job.settings, limits))
    fallback = f"{where}: {warning}" if warning is not None and job.sandbox is not SandboxMode.OFF else None
    return Played(record, where, fallback, logs)


# --- the coordinator's side -------------------------------------------------------------------------


@contextmanager
def connect(address: ClusterAddress, timeout: float | None = None) -> Iterator[Client]:
    """A client of the scheduler at ``address``, or of a local cluster started (and closed) here."""
    import dask
    from distributed import Client, LocalCluster

    seconds = connect_seconds() if timeout is None else timeout
    for noisy in ("distributed", "asyncio"):  # the tournament's log gets their warnings only
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if address.local_slots is not None:
        processes, threads = local_layout(address.local_slots)
        # Every port on 127.0.0.1, chosen free (no fixed 8787 to clash). The workers' statistical
        # profiler samples every thread every 10 ms: CPU the engines need. Their logs would only
        # clutter the terminal: the coordinator reports failed games itself.
        with dask.config.set({"distributed.worker.profile.enabled": False}):
            cluster = LocalCluster(
                n_workers=processes, threads_per_worker=threads, processes=True, host=LOCAL_HOST,
                scheduler_port=0, dashboard_address=f"{LOCAL_HOST}:0", protocol="tcp://",
                silence_logs=logging.CRITICAL, preload=[__name__],
            )
        try:
            with Client(cluster, set_as_default=False) as client:
                yield client
        finally:
            cluster.close()
        return
    try:
        client = Client(address.scheduler, timeout=seconds, set_as_default=False)
    except (OSError, TimeoutError) as error:
        why = " ".join(str(error).split())
        detail = "" if not why or why.startswith("Timed out") else f" ({why})"
        raise ClusterError(
            f"cannot reach the dask scheduler at {address} within {seconds:g} s{detail}; start one there "
            f"(dask scheduler) or check the address"
        ) from None
    with client:
        yield client


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
    import harness.tournament  # noqa: F401

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


def play_on_cluster(
    address: ClusterAddress,
    games: Sequence[ScheduledGame],
    specs: Mapping[str, EngineSpec],
    job: Job,
    finished: Callable[[ScheduledGame, GameRecord], None],
    failed: Callable[[ScheduledGame, str], None],
    warn: Callable[[str], None],
) -> None:
    """Play ``games`` on the cluster, calling ``finished`` once per game as each result arrives (or
    ``failed``, with why, for a game the cluster could not play).

    Twice the cluster's slots are in flight at a time, so the schedule stays here and workers that
    join later get work. A result for a game already finished (a task run twice) is dropped.
    """
    from concurrent.futures import CancelledError

    from distributed import as_completed

    with connect(address) as client:
        try:
            client.run(_warm_up, job)
        except Exception as error:  # a worker without the harness: a bare traceback would not say so
            raise ClusterError(
                f"a worker of {address} cannot load the harness ({type(error).__name__}: {' '.join(str(error).split())}); "
                f"start the workers with the project's own environment (.venv/bin/dask worker ...), see docs/cluster.md"
            ) from None
        workers = _workers(client, {})
        slots = sum(workers.values())
        log.info("cluster %s: %d worker slots", address, slots)
        if slots == 0:
            warn(f"the scheduler at {address} has no workers yet; the games wait until one connects "
                 f"(dask worker {address})")
        run = uuid.uuid4().hex[:8]
        todo = iter(games)
        in_flight: dict[Any, ScheduledGame] = {}
        done: set[str] = set()
        told: set[str] = set()
        futures = as_completed(loop=client.loop)

        def submit_up_to(window: int) -> None:
            while len(in_flight) < window:
                game = next(todo, None)
                if game is None:
                    return
                future = client.submit(play_checked, game, specs[game.x], specs[game.o], job,
                                       key=f"arena-{run}-{game.game_id}", pure=False)
                in_flight[future] = game
                futures.add(future)

        window = max(2, 2 * slots)
        refreshed = time.monotonic()
        submit_up_to(window)
        for future in futures:
            game = in_flight.pop(future)
            try:
                played: Played = future.result()
            except CancelledError:
                raise ClusterError(
                    f"lost the dask scheduler at {address} (its tasks were cancelled); the games finished so far "
                    f"are saved: rerun the same command to resume"
                ) from None
            except HarnessError as error:
                failed(game, str(error))
            except Exception as error:  # a harness bug, or a game that killed its workers too often
                failed(game, f"{type(error).__name__}: {' '.join(str(error).split())}")
            else:
                if played.warning is not None and played.warning not in told:
                    told.add(played.warning)
                    warn(played.warning)
                if game.game_id in done:
                    log.debug("%s: a second result from %s dropped", game.game_id, played.worker)
                else:
                    done.add(game.game_id)
                    for record in played.logs:
                        logger = logging.getLogger(record.name)
                        if logger.isEnabledFor(record.levelno):
                            logger.handle(record)
                    finished(game, played.record)
            if time.monotonic() - refreshed > _WINDOW_REFRESH_SECONDS:
                workers = _workers(client, workers)
                window, refreshed = max(2, 2 * sum(workers.values())), time.monotonic()
            submit_up_to(window)
