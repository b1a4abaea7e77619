"""Where a tournament's games are played: one Job and one play_scheduled for every executor.

The local process pool is here; the dask cluster (harness.tournament.cluster) runs the same
play_scheduled on its workers with the same Job. Both report through the same callbacks: ``finished``
once per game with its record, ``failed`` with why for a game that could not be played (a rerun
retries it), ``warn`` for what the operator should know. The coordinator (harness.tournament.run)
stores and counts; an executor only plays.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from harness.match.match import GameRecord, Overloaded, play_game
from harness.match.settings import GameSettings
from harness.referee import sandbox as sandbox
from harness.referee.engine_specs import EngineSpec
from harness.referee.referee import Limits, inherit_limits, remove_scratch, stop_calls
from harness.referee.sandbox import SandboxMode
from harness.store.store import file_sha256
from harness.tournament.schedule import ScheduledGame, start_position

log = logging.getLogger("arena.tournament")

Finished = Callable[[ScheduledGame, GameRecord], None]
"""Called once per game played, with its record."""
Failed = Callable[[ScheduledGame, str], None]
"""Called once per game that could not be played, with why (one line)."""
Warn = Callable[[str], None]
"""Called with what the operator should know (a sandbox fallback, an insecure cluster)."""

OVERLOADED_TRIES = 2
"""Times a game is played while the machine starves its calls (match.Overloaded) before it is left for
a rerun: the second time at the end of the run, one game at a time."""
MAX_POOL_RESTARTS = 3
"""Times the local pool is started again after a worker process died, before the rest fails."""


@dataclass(frozen=True)
class Job:
    """What every game of a tournament needs where it is played, besides the game and its two engines."""

    settings: GameSettings
    sandbox: SandboxMode
    """Resolved where the games run: ``auto`` falls back there (with a warning), ``required`` refuses."""
    file_bytes: int
    processes: int
    hashes: tuple[tuple[str, str | None], ...]
    """(program file, the coordinator's SHA-256) of every engine."""
    replay_stalls: bool = True
    """Run a starved call again alone (harness.referee.referee.starved_of) before any verdict on it."""

    def limits(self, confined: bool) -> Limits:
        """The referee's limits of every engine call, with the sandbox as resolved (``confined``)."""
        return Limits(sandbox=confined, file_bytes=self.file_bytes, processes=self.processes,
                      replay_stalls=self.replay_stalls)


def expected_hashes(engines: Sequence[EngineSpec]) -> tuple[tuple[str, str | None], ...]:
    """The SHA-256 of each engine's program file here, as the store records it."""
    return tuple((engine.program, file_sha256(engine.program)) for engine in engines if engine.program is not None)


def play_scheduled(scheduled: ScheduledGame, x: EngineSpec, o: EngineSpec, settings: GameSettings,
                   limits: Limits) -> GameRecord:
    """Play one scheduled game from its start position, every move through the referee."""
    log.debug("start %s: %s (x) vs %s (o), %s", scheduled.game_id, x.name, o.name, settings.rules.size_phrase(scheduled.size))
    record = play_game(x, o, settings, scheduled.size, start=start_position(scheduled, settings), limits=limits)
    if record.fault is not None:
        log.warning("%s: %s", scheduled.game_id, record.reason)
    return record


# --- the local process pool ---------------------------------------------------------------------


def _init_worker(limits: Limits) -> None:
    """Workers leave Ctrl-C to the coordinator, and die (killing their engine) if it dies. Without
    the sandbox a worker holds its engines' limits itself: they inherit them (referee.inherit_limits)."""
    if not limits.sandbox:
        inherit_limits(limits)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _terminate_worker)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):
            pass


def _terminate_worker(signum: int, frame: object) -> None:
    stop_calls()
    sandbox.remove_staged()
    remove_scratch()
    os._exit(1)


def play_locally(games: Sequence[ScheduledGame], specs: Mapping[str, EngineSpec], job: Job, confined: bool,
                 concurrency: int, finished: Finished, failed: Failed, warn: Warn) -> None:
    """Play ``games`` in a pool of ``concurrency`` worker processes here, each game whole in one
    worker. A worker that dies takes only its games in progress: the pool starts again for the rest
    (at most MAX_POOL_RESTARTS times). Ctrl-C stops the workers (each kills its engine call) and is
    raised on. ``confined``: ``job.sandbox`` as resolved by the caller (harness.tournament.run.check_run)."""
    limits = job.limits(confined)
    pending = list(games)
    later: list[ScheduledGame] = []
    """Games stopped because the machine starved a call (match.Overloaded), played again at the end."""
    overloaded: dict[str, int] = {}
    restarts = 0
    alone = False
    while pending or later:
        if not pending:
            pending, later, alone = later, [], True
        workers = 1 if alone else max(1, min(concurrency, len(pending)))
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(limits,))
        futures: dict[Future[GameRecord], ScheduledGame] = {}
        try:
            for scheduled in pending:
                future = pool.submit(play_scheduled, scheduled, specs[scheduled.x], specs[scheduled.o], job.settings, limits)
                futures[future] = scheduled
            waiting = set(futures)
            while waiting:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                for future in done:
                    scheduled = futures[future]
                    try:
                        record = future.result()
                    except BrokenProcessPool:
                        continue  # played again below with a fresh pool
                    except Overloaded as error:  # not the engines' doing: played again later, once
                        pending.remove(scheduled)
                        if overloaded.get(scheduled.game_id, 0) < OVERLOADED_TRIES - 1:
                            overloaded[scheduled.game_id] = overloaded.get(scheduled.game_id, 0) + 1
                            later.append(scheduled)
                        else:
                            failed(scheduled, str(error))
                        continue
                    except Exception as error:  # a harness bug must not stop the tournament
                        log.exception("game %s failed in the harness; a rerun retries it", scheduled.game_id)
                        pending.remove(scheduled)
                        failed(scheduled, f"{type(error).__name__}: {error}")
                        continue
                    pending.remove(scheduled)
                    finished(scheduled, record)
        except BrokenProcessPool:
            pass
        except KeyboardInterrupt:
            _stop_pool(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        if pending:
            restarts += 1
            log.error("a worker process died; restarting the pool for %d games (restart %d)", len(pending), restarts)
            if restarts > MAX_POOL_RESTARTS:
                log.error("giving up after %d pool restarts; a rerun retries the rest", restarts - 1)
                for scheduled in pending:
                    failed(scheduled, f"its worker process died {restarts} times")
                return


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Terminate the workers now (each kills its engine call first); their games are replayed later."""
    processes = getattr(pool, "_processes", None) or {}  # no public API to stop running tasks
    for process in list(processes.values()):
        try:
            process.terminate()
        except (OSError, AttributeError):
            pass
