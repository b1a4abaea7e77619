"""Drive a tournament: schedule, play games in a local process pool, store each result as it comes.

Each worker process plays whole games (every move through the referee); the coordinating process
writes each finished game to SQLite in one transaction, so killing the harness at any moment loses
at most the games in progress, and a rerun plays only what is missing. With a cluster address in the
config, the games run on a dask cluster instead (harness/tournament/cluster.py), stored here the same way.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from harness.referee import sandbox as sandbox
from harness.referee.sandbox import SandboxMode
from harness.tournament.config import TournamentConfig
from harness.errors import UsageError
from harness.match.match import GameRecord, Standing, score_for_x
from harness.tournament.executor import Job, play_locally
from harness.tournament.schedule import ScheduledGame, check_schedule_size, schedule
from harness.store.store import EngineEntry, Store, TournamentEntry, damaged
from harness.match.verify import shown

if TYPE_CHECKING:
    from tqdm import tqdm

    from harness.tournament.cluster import Access

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


def tournament_entry(config: TournamentConfig) -> TournamentEntry:
    """What the store records of ``config``: its name, fingerprint, file and engines."""
    return TournamentEntry(config.name, config.fingerprint(), config.path or "",
                           tuple(EngineEntry(e.name, e.display_command, e.program) for e in config.engines))


def default_db_path(config: TournamentConfig) -> Path:
    return Path("results") / f"{config.name}.sqlite"


def standings_text(standings: dict[str, Standing]) -> str:
    ranked = sorted(standings.items(), key=lambda item: -item[1].points)
    return "  ".join(f"{name} {s.wins}-{s.draws}-{s.losses}" for name, s in ranked)


def rounds_text(rounds: tuple[int, int]) -> str:
    """``2-3``, or ``2`` for a single round."""
    return str(rounds[0]) if rounds[0] == rounds[1] else f"{rounds[0]}-{rounds[1]}"


@dataclass(frozen=True)
class CheckedRun:
    """A run of a tournament whose every check passed (``check_run``), ready to play."""

    config: TournamentConfig
    rounds: tuple[int, int] | None
    """The share of rounds (first, last), 1-based and inclusive; None: all."""
    access: Access | None
    """How to reach the config's cluster, checked; None for the local pool."""
    confined: bool | None
    """The sandbox mode resolved here (True: engines run in bwrap); None on a remote cluster, where each
    worker resolves its own."""
    sandbox_warning: str | None
    """What to tell the operator of the sandbox when games start (auto without bwrap, or off)."""


def check_run(config: TournamentConfig, rounds: tuple[int, int] | None = None) -> CheckedRun:
    """Every check of a run before anything is written: the share of rounds and the schedule's size
    (``check_rounds``), the cluster's access, the sandbox mode (``required`` without bwrap is an error)."""
    check_rounds(config, rounds)
    access: Access | None = None
    if config.cluster is not None:
        from harness.tournament import cluster as cluster

        access = cluster.check_access(config.cluster, config.cluster_certs, config.insecure_cluster)
    confined: bool | None = None
    warning: str | None = None
    if config.cluster is None or config.cluster.scheduler is None:  # on a scheduler, each worker resolves its own
        confined, warning = sandbox.resolve(config.sandbox)
    elif config.sandbox is SandboxMode.OFF:  # workers warn only of a fallback of auto
        warning = sandbox.resolve(SandboxMode.OFF)[1]
    return CheckedRun(config, rounds, access, confined, warning)


def check_rounds(config: TournamentConfig, rounds: tuple[int, int] | None) -> None:
    """Refuse a share of rounds that is empty or outside the config's rounds, and a run that would
    schedule too many games (harness.tournament.schedule.MAX_SCHEDULED_GAMES)."""
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
    return play_run(check_run(config, rounds), db_path, force_new, progress, on_game, on_warning)


def play_run(
    run: CheckedRun,
    db_path: Path | None = None,
    force_new: bool = False,
    progress: bool = True,
    on_game: Callable[[ScheduledGame, GameRecord], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> RunSummary:
    """``run_tournament`` for a run already checked (``check_run``), as the CLI checks it before it
    opens the log and the database."""
    config, rounds = run.config, run.rounds
    path = Path(db_path) if db_path is not None else default_db_path(config)
    store = Store(path)
    try:
        tournament = store.open_tournament(tournament_entry(config), force_new)
        games = schedule(config, rounds)  # only the share's rounds are listed
        done = store.done_game_ids(tournament)
        todo = [scheduled for scheduled in games if scheduled.game_id not in done]
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
            _run_games(run, store, tournament, todo, summary, progress, on_game, on_warning)
        return summary
    finally:
        store.close()


def _run_games(
    run: CheckedRun,
    store: Store,
    tournament: int,
    todo: list[ScheduledGame],
    summary: RunSummary,
    progress: bool,
    on_game: Callable[[ScheduledGame, GameRecord], None] | None,
    on_warning: Callable[[str], None] | None = None,
) -> None:
    """Play ``todo`` on the config's executor (the local pool, or its dask cluster); each result is
    stored here as it arrives, and both executors report through the same callbacks."""
    config = run.config
    told: set[str] = set()

    def warn(message: str) -> None:
        log.warning("%s", message)
        if on_warning is not None and message not in told:
            told.add(message)
            on_warning(message)

    def failed(scheduled: ScheduledGame, why: str) -> None:
        log.error("game %s not played: %s; a rerun retries it", scheduled.game_id, why)
        summary.failed += 1
        if on_warning is not None and why not in told:
            told.add(why)
            on_warning(f"a game was not played: {why}")

    specs = {engine.name: engine for engine in config.engines}
    bar = _progress_bar(summary, progress)

    def finished(scheduled: ScheduledGame, record: GameRecord) -> None:
        _finished(store, tournament, scheduled, record, summary, on_game, bar)

    try:
        if run.access is None:
            assert run.confined is not None  # resolved by check_run for the local pool
            if run.sandbox_warning is not None:
                warn(run.sandbox_warning)
            play_locally(todo, specs, _job(config, ()), run.confined, config.concurrency, finished, failed, warn)
        else:
            from harness.tournament import cluster as cluster

            if config.sandbox is SandboxMode.OFF and run.sandbox_warning is not None:  # workers warn only of auto's fallback
                warn(run.sandbox_warning)
            job = _job(config, cluster.expected_hashes(config.engines))  # workers check the files against these
            cluster.play_on_cluster(run.access, todo, specs, job, finished, failed, warn)
    except KeyboardInterrupt:
        summary.interrupted = True
        raise
    finally:
        bar.close()


def _job(config: TournamentConfig, hashes: tuple[tuple[str, str | None], ...]) -> Job:
    return Job(config.settings, config.sandbox, config.max_file_mb << 20, config.max_processes, hashes,
               config.replay_stalls)


def _progress_bar(summary: RunSummary, progress: bool) -> tqdm[NoReturn]:
    from tqdm import tqdm

    return tqdm(
        total=summary.scheduled, initial=summary.already_done, disable=not progress,
        unit="game", dynamic_ncols=True, file=sys.stderr,
    )


def _finished(
    store: Store,
    tournament: int,
    scheduled: ScheduledGame,
    record: GameRecord,
    summary: RunSummary,
    on_game: Callable[[ScheduledGame, GameRecord], None] | None,
    bar: tqdm[NoReturn],
) -> None:
    """Store a finished game and count it, once: a game already in the store is not counted again."""
    if store.save_record(tournament, scheduled.game_id, scheduled.pair_key, scheduled.round, record) is None:
        log.warning("%s: already in the database; this result is dropped", scheduled.game_id)
        return
    summary.played += 1
    score = score_for_x(record.result)
    summary.standings[scheduled.x].add(score)
    summary.standings[scheduled.o].add(1 - score)
    log.info("%s: %s (%s)", scheduled.game_id, record.result, record.reason)
    if on_game is not None:
        on_game(scheduled, record)
    bar.update(1)
    bar.set_postfix_str(standings_text(summary.standings), refresh=False)
