"""Drive a tournament: schedule, play games in a local process pool, store each result as it comes.

Each worker process plays whole games (every move through the referee); the coordinating process
writes each finished game to SQLite in one transaction, so killing the harness at any moment loses
at most the games in progress, and a rerun plays only what is missing. With a cluster address in the
config, the games run on a dask cluster instead (harness/cluster.py), stored here the same way.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from harness import sandbox
from harness.sandbox import SandboxMode
from harness.config import TournamentConfig
from harness.errors import UsageError
from harness.engines import EngineSpec
from harness.match import GameRecord, Standing, play_game, score_for_x
from harness.referee import Limits, inherit_limits, remove_scratch, stop_calls
from harness.settings import GameSettings
from harness.schedule import ScheduledGame, check_schedule_size, schedule, start_position
from harness.store import Store, damaged
from harness.verify import shown

if TYPE_CHECKING:
    from tqdm import tqdm

log = logging.getLogger("arena.tournament")


@dataclass
class RunSummary:
    """What one run of a tournament did."""

    tournament: int
    db_path: Path
    scheduled: int
    already_done: int
    played: int = 0
    failed: int = 0
    """Games that could not be played because of a harness error (logged; a rerun retries them)."""
    interrupted: bool = False
    standings: dict[str, Standing] = field(default_factory=dict)


@dataclass(frozen=True)
class _Settings:
    game: GameSettings
    limits: Limits


def default_db_path(config: TournamentConfig) -> Path:
    return Path("results") / f"{config.name}.sqlite"


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


def _play(game: ScheduledGame, x: EngineSpec, o: EngineSpec, settings: _Settings) -> GameRecord:
    log.debug("start %s: %s (x) vs %s (o), %s", game.game_id, x.name, o.name,
              settings.game.rules.size_phrase(game.size))
    record = play_game(
        x, o, settings.game, game.size, start=start_position(game, settings.game), limits=settings.limits,
    )
    if record.fault is not None:
        log.warning("%s: %s", game.game_id, record.reason)
    return record


def standings_text(standings: dict[str, Standing]) -> str:
    ranked = sorted(standings.items(), key=lambda item: -item[1].points)
    return "  ".join(f"{name} {s.wins}-{s.draws}-{s.losses}" for name, s in ranked)


def rounds_text(rounds: tuple[int, int]) -> str:
    """``2-3``, or ``2`` for a single round."""
    return str(rounds[0]) if rounds[0] == rounds[1] else f"{rounds[0]}-{rounds[1]}"


def check_rounds(config: TournamentConfig, rounds: tuple[int, int] | None) -> None:
    """Refuse a share of rounds that is empty or outside the config's rounds, and a run that would
    schedule too many games (harness.schedule.MAX_SCHEDULED_GAMES)."""
    if rounds is not None:
        first, last = rounds
        if not 1 <= first <= last <= config.rounds:
            raise UsageError(
                f"invalid --rounds {rounds_text(rounds)}: the config has rounds 1-{config.rounds}; "
                f"give FIRST-LAST with 1 <= FIRST <= LAST <= {config.rounds}"
            )
    check_schedule_size(config, rounds)


def run_tournament(
    config: TournamentConfig,
    db_path: Path | None = None,
    force_new: bool = False,
    progress: bool = True,
    on_game: Callable[[ScheduledGame, GameRecord], None] | None = None,
    rounds: tuple[int, int] | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> RunSummary:
    """Play every scheduled game not yet in the database; returns what was done.

    ``rounds`` (first, last), 1-based and inclusive, plays only those rounds: a long tournament can
    be split across runs or machines, each playing a share of the same schedule (same openings and
    game ids as the whole), and each share is resumable on its own.
    """
    check_rounds(config, rounds)
    if config.cluster is not None:  # refused before the database is touched
        from harness import cluster

        cluster.check_access(config.cluster, config.cluster_certs, config.insecure_cluster)
    path = Path(db_path) if db_path is not None else default_db_path(config)
    store = Store(path)
    try:
        tournament = store.open_tournament(config, force_new)
        games = schedule(config, rounds)  # only the share's rounds are listed
        done = store.done_game_ids(tournament)
        todo = [game for game in games if game.game_id not in done]
        summary = RunSummary(tournament, path, len(games), len(games) - len(todo))
        summary.standings = {engine.name: Standing() for engine in config.engines}
        for stored in store.games(tournament):
            for name in (stored.x, stored.o):
                if name not in summary.standings:
                    raise damaged(path, f"game {shown(stored.game_id)} of tournament {config.name!r}: engine "
                                        f"{shown(name)} is not one of its engines")
            summary.standings[stored.x].add(score_for_x(stored.result))
            summary.standings[stored.o].add(1 - score_for_x(stored.result))
        log.info("tournament %r (#%d) in %s: %d games scheduled, %d already played",
                 config.name, tournament, path, len(games), summary.already_done)
        if todo:
            _run_games(config, store, tournament, todo, summary, progress, on_game, on_warning)
        return summary
    finally:
        store.close()


def _run_games(
    config: TournamentConfig,
    store: Store,
    tournament: int,
    todo: list[ScheduledGame],
    summary: RunSummary,
    progress: bool,
    on_game: Callable[[ScheduledGame, GameRecord], None] | None,
    on_warning: Callable[[str], None] | None = None,
) -> None:
    if config.cluster is not None:
        _run_on_cluster(config, store, tournament, todo, summary, progress, on_game, on_warning)
        return
    specs = {engine.name: engine for engine in config.engines}
    confined, warning = sandbox.resolve(config.sandbox)
    if warning is not None:
        log.warning("%s", warning)
        if on_warning is not None:
            on_warning(warning)
    settings = _Settings(
        config.settings,
        config.settings.limits(sandbox=confined, file_bytes=config.max_file_mb << 20,
                               processes=config.max_processes),
    )
    bar = _progress_bar(summary, progress)
    pending = list(todo)
    restarts = 0
    try:
        while pending:
            workers = max(1, min(config.concurrency, len(pending)))
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(settings.limits,))
            futures: dict[Future[GameRecord], ScheduledGame] = {}
            try:
                for game in pending:
                    futures[pool.submit(_play, game, specs[game.x], specs[game.o], settings)] = game
                waiting = set(futures)
                while waiting:
                    finished, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                    for future in finished:
                        game = futures[future]
                        try:
                            record = future.result()
                        except BrokenProcessPool:
                            continue  # replayed below with a fresh pool
                        except Exception:  # a harness bug must not stop the tournament
                            log.exception("game %s failed in the harness; a rerun retries it", game.game_id)
                            summary.failed += 1
                            pending.remove(game)
                            continue
                        pending.remove(game)
                        _finished(store, tournament, game, record, summary, on_game, bar)
            except BrokenProcessPool:
                pass
            except KeyboardInterrupt:
                summary.interrupted = True
                _stop_pool(pool)
                raise
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
            if pending:
                restarts += 1
                log.error("a worker process died; restarting the pool for %d games (restart %d)",
                          len(pending), restarts)
                if restarts > 3:
                    summary.failed += len(pending)
                    log.error("giving up after %d pool restarts; a rerun retries the rest", restarts - 1)
                    break
    finally:
        bar.close()


def _progress_bar(summary: RunSummary, progress: bool) -> tqdm[NoReturn]:
    from tqdm import tqdm

    return tqdm(
        total=summary.scheduled, initial=summary.already_done, disable=not progress,
        unit="game", dynamic_ncols=True, file=sys.stderr,
    )


def _finished(
    store: Store,
    tournament: int,
    game: ScheduledGame,
    record: GameRecord,
    summary: RunSummary,
    on_game: Callable[[ScheduledGame, GameRecord], None] | None,
    bar: tqdm[NoReturn],
) -> None:
    """Store a finished game and count it, once: a game already in the store is not counted again."""
    if not store.save_game(tournament, game, record):
        log.warning("%s: already in the database; this result is dropped", game.game_id)
        return
    summary.played += 1
    score = score_for_x(record.result)
    summary.standings[game.x].add(score)
    summary.standings[game.o].add(1 - score)
    log.info("%s: %s (%s)", game.game_id, record.result, record.reason)
    if on_game is not None:
        on_game(game, record)
    bar.update(1)
    bar.set_postfix_str(standings_text(summary.standings), refresh=False)


def _run_on_cluster(
    config: TournamentConfig,
    store: Store,
    tournament: int,
    todo: list[ScheduledGame],
    summary: RunSummary,
    progress: bool,
    on_game: Callable[[ScheduledGame, GameRecord], None] | None,
    on_warning: Callable[[str], None] | None,
) -> None:
    """Play ``todo`` on the config's dask cluster; each result is stored here as it arrives."""
    from harness import cluster

    assert config.cluster is not None
    told: set[str] = set()

    def warn(message: str) -> None:
        log.warning("%s", message)
        if on_warning is not None and message not in told:
            told.add(message)
            on_warning(message)

    def failed(game: ScheduledGame, why: str) -> None:
        log.error("game %s not played: %s; a rerun retries it", game.game_id, why)
        summary.failed += 1
        if on_warning is not None and why not in told:
            told.add(why)
            on_warning(f"a game was not played: {why}")

    if config.sandbox is SandboxMode.OFF:  # workers warn only of a fallback of auto
        warn(str(sandbox.resolve(SandboxMode.OFF)[1]))
    access = cluster.check_access(config.cluster, config.cluster_certs, config.insecure_cluster)
    job = cluster.Job(config.settings, config.sandbox, config.max_file_mb << 20, config.max_processes,
                      cluster.expected_hashes(config.engines))
    specs = {engine.name: engine for engine in config.engines}
    bar = _progress_bar(summary, progress)
    try:
        cluster.play_on_cluster(
            access, todo, specs, job,
            lambda game, record: _finished(store, tournament, game, record, summary, on_game, bar),
            failed, warn,
        )
    except KeyboardInterrupt:
        summary.interrupted = True
        raise
    finally:
        bar.close()


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Terminate the workers now (each kills its engine call first); their games are replayed later."""
    processes = getattr(pool, "_processes", None) or {}  # no public API to stop running tasks
    for process in list(processes.values()):
        try:
            process.terminate()
        except (OSError, AttributeError):
            pass
