"""``arena tournament`` (a round-robin from a YAML config) and ``arena sprt`` (a sequential test of two engines)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Optional

import typer

from harness.cli.cluster import parse_cluster_option
from harness.cli.console import echo, stopped, warn
from harness.cli.options import (
    BetsyNOption,
    ConfigSandboxOption,
    ReplayStallsOption,
    TimeScaleOption,
    FractionalTimeOption,
    GameOption,
    SandboxOption,
    SizeOption,
    TimeOption,
    board_size,
)
from harness.cli.results import analyse_games, print_report
from harness.errors import StoreError, UsageError
from harness.machine import fit_concurrency, usable_cores
from harness.referee.sandbox import SandboxMode


def setup_logging(log_file: Path, verbose: bool) -> None:
    """Log to a file beside the results, and to the console with -v; workers' logs go through the
    coordinator (multiprocessing-logging), so lines from parallel games never interleave."""
    import logging

    import multiprocessing_logging

    from harness.text import VisibleFormatter

    try:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        file_handler = logging.FileHandler(log_file, encoding="utf-8", delay=True)  # no log of a refused run
    except OSError as error:
        raise StoreError(
            f"cannot write the log {log_file} ({error.strerror or error}): the results database and its "
            f"log go in {log_file.parent}; give a --db in a folder you can write"
        ) from None
    root = logging.getLogger()
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    file_handler.setFormatter(VisibleFormatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
    root.addHandler(file_handler)
    if verbose:
        from tqdm.contrib.logging import _TqdmLoggingHandler  # type: ignore[attr-defined]

        console = _TqdmLoggingHandler()
        console.setFormatter(VisibleFormatter("%(levelname)s %(message)s"))
        root.addHandler(console)
    multiprocessing_logging.install_mp_handler()


def _fitted(concurrency: int | None) -> int:
    """Games at once for a command without a config: ``--concurrency`` (warned and capped above the
    CPUs arena may use here), else those CPUs."""
    if concurrency is None:
        return usable_cores()
    fitted, too_many = fit_concurrency(concurrency, "--concurrency", "games")
    if too_many:
        warn(too_many)
    return fitted


def _parse_rounds(text: str) -> tuple[int, int]:
    first, dash, last = text.strip().partition("-")
    try:
        bounds = (int(first), int(last) if dash else int(first))
    except ValueError:
        raise UsageError(f"invalid --rounds {text!r}: give FIRST-LAST (e.g. 51-100) or one round number") from None
    return bounds


def tournament_command(
    config: Annotated[Path, typer.Argument(help="Tournament config (YAML).")],
    db: Annotated[Optional[Path], typer.Option(help="Results database (default results/<name>.sqlite).")] = None,
    force_new: Annotated[
        bool, typer.Option("--force-new", help="Start a new tournament even if the config or an engine changed.")
    ] = False,
    concurrency: Annotated[Optional[int], typer.Option(help="Games at once (overrides the config).")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log each game to the console too.")] = False,
    progress: Annotated[Optional[bool], typer.Option(
        "--progress/--no-progress", show_default=False,
        help="Show the progress bar: games, live standings, the time left (default: when stderr is a "
             "terminal).")] = None,
    rounds: Annotated[Optional[str], typer.Option(
        help="Play only these rounds, FIRST-LAST (e.g. 51-100) or one round: splits a long tournament "
             "into shares with the same openings and game ids.")] = None,
    sandbox: ConfigSandboxOption = None,
    replay_stalls: ReplayStallsOption = None,
    time_scale: TimeScaleOption = None,
    analyse: Annotated[Optional[float], typer.Option(
        "--analyse", min=0.0, metavar="SECONDS",
        help="After the games, find each game's losing move with this many seconds per game (as arena analyse "
             "does; games already analysed are skipped).")] = None,
    cluster: Annotated[Optional[str], typer.Option(
        metavar="ADDRESS", help="Play the games on a dask cluster (overrides the config): tls://HOST:PORT, a running "
                                "scheduler with TLS, or local:K, K worker slots on this machine.")] = None,
    cluster_certs: Annotated[Optional[Path], typer.Option(
        "--cluster-certs", metavar="DIR", help="The cluster's certificate set, for tls:// (overrides cluster_certs).")] = None,
    insecure_cluster: Annotated[bool, typer.Option(
        "--insecure-cluster", help="Allow a tcp:// scheduler beyond this machine, without TLS: anyone who reaches it "
                                   "can run code here.")] = False,
) -> None:
    """Run (or resume) a tournament from a YAML config, then print its crosstable and ratings."""
    from harness.store.store import check_database
    from harness.progress import wanted
    from harness.store.store import log_path
    from harness.tournament.config import MAX_CONCURRENCY, load_config
    from harness.tournament.run import check_run, default_db_path, play_run, rounds_text

    if concurrency is not None and concurrency < 1:
        raise UsageError(f"invalid --concurrency {concurrency}: must be at least 1")
    if concurrency is not None and concurrency > MAX_CONCURRENCY:
        raise UsageError(f"invalid --concurrency {concurrency}: at most {MAX_CONCURRENCY} games at once")
    share = _parse_rounds(rounds) if rounds is not None else None
    loaded = load_config(config, concurrency)
    if sandbox is not None:
        loaded = dataclasses.replace(loaded, sandbox=sandbox)
    if replay_stalls is not None:
        loaded = dataclasses.replace(loaded, replay_stalls=replay_stalls)
    if time_scale is not None:
        from harness.match.settings import parse_time_scale, scaled

        loaded = dataclasses.replace(loaded, settings=scaled(loaded.settings, parse_time_scale(time_scale)))
    if cluster is not None:
        loaded = dataclasses.replace(loaded, cluster=parse_cluster_option(cluster))
    if cluster_certs is not None or insecure_cluster:
        certs_folder = str(cluster_certs.resolve()) if cluster_certs is not None else loaded.cluster_certs
        loaded = dataclasses.replace(loaded, cluster_certs=certs_folder, insecure_cluster=insecure_cluster)
    if loaded.cluster is None:  # a cluster's workers run as many games as their threads
        fitted, too_many = fit_concurrency(loaded.concurrency, "--concurrency" if concurrency else "concurrency",
                                           "games")
        if too_many:
            warn(too_many)
            loaded = dataclasses.replace(loaded, concurrency=fitted)
    run = check_run(loaded, share)  # the sandbox's warning is given when games start, after every other check
    db_path = db if db is not None else default_db_path(loaded)
    check_database(db_path, "--db")
    setup_logging(log_path(db_path), verbose)
    try:
        summary = play_run(run, db_path, force_new, progress=wanted(progress), on_warning=warn)
    except KeyboardInterrupt:
        raise stopped(f"interrupted: finished games are saved in {db_path}; rerun the same command to resume") from None
    scheduled = f"{summary.scheduled} scheduled" + (f" in rounds {rounds_text(share)}" if share else "")
    failed = f", {summary.failed} failed (see the log)" if summary.failed else ""
    echo(f"{summary.played} games played now, {summary.already_done} already in {db_path}, {scheduled}{failed}")
    if analyse is not None:
        try:
            echo(analyse_games(db_path, summary.tournament, analyse, False, wanted(progress)))
        except KeyboardInterrupt:
            raise stopped(f"interrupted: the games and the analyses done are saved in {db_path}; rerun to "
                          "analyse the rest") from None
    echo("")
    print_report(db_path, summary.tournament, "text")


def sprt_command(
    engine_a: Annotated[str, typer.Argument(help="The engine under test: a built-in name or a command.")],
    engine_b: Annotated[str, typer.Argument(help="The engine it is measured against.")],
    elo0: Annotated[float, typer.Option("--elo0", help="H0: ENGINE_A is this many Elo stronger (e.g. 0).")],
    elo1: Annotated[float, typer.Option("--elo1", help="H1: ENGINE_A is this many Elo stronger (e.g. 10).")],
    alpha: Annotated[float, typer.Option("--alpha", help="Chance of accepting H1 when H0 holds.")] = 0.05,
    beta: Annotated[float, typer.Option("--beta", help="Chance of accepting H0 when H1 holds.")] = 0.05,
    game: GameOption = "betsy",
    n: BetsyNOption = None,
    size: SizeOption = None,
    time: TimeOption = 1,
    allow_fractional_time: FractionalTimeOption = False,
    openings: Annotated[Optional[Path], typer.Option(
        "--openings", help="Openings file (SIZE PLAYER BOARD per line); default: random openings.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random openings.")] = 1,
    opening_plies: Annotated[int, typer.Option(
        "--opening-plies", min=0, max=1000, help="Plies of each random opening.")] = 2,
    db: Annotated[Optional[Path], typer.Option(
        "--db", help="Results database (default results/sprt-A-vs-B.sqlite).")] = None,
    max_pairs: Annotated[int, typer.Option(
        "--max-pairs", help="Stop without a decision after this many colour-swapped pairs.")] = 2000,
    concurrency: Annotated[Optional[int], typer.Option(
        help="Games at once (default: the number of cores).")] = None,
    sandbox: SandboxOption = SandboxMode.AUTO,
) -> None:
    """Play colour-swapped pairs until the pentanomial SPRT accepts H0 or H1 (resumable)."""
    from harness.match.settings import settings_from_flags
    from harness.store.store import check_database
    from harness.referee.engine_specs import check_games, resolve_engine
    from harness.referee.programs import check_layout
    from harness.store.store import log_path
    from harness.tournament import sprt
    from harness.tournament.run import check_run
    from harness.tournament.config import MAX_CONCURRENCY

    settings = settings_from_flags({"game": game, "time": time, "allow_fractional_time": allow_fractional_time})
    size_played = board_size(game, n, size)
    if not elo0 < elo1:
        raise UsageError(f"invalid --elo0 {elo0:g} --elo1 {elo1:g}: elo0 must be below elo1")
    for option, value in (("--alpha", alpha), ("--beta", beta)):
        if not 0 < value < 0.5:
            raise UsageError(f"invalid {option} {value:g}: give a probability between 0 and 0.5, e.g. 0.05")
    if not 1 <= max_pairs <= sprt.MAX_PAIRS:
        raise UsageError(f"invalid --max-pairs {max_pairs}: give 1 to {sprt.MAX_PAIRS}")
    if concurrency is not None and not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"invalid --concurrency {concurrency}: give 1 to {MAX_CONCURRENCY}")
    if openings is not None and not openings.is_file():
        raise UsageError(f"invalid --openings {openings}: no such file")
    first, second = resolve_engine(engine_a), resolve_engine(engine_b)
    check_games([first, second], game)
    check_layout([first, second])
    test = sprt.plan(
        first, second, settings, size_played, elo0=elo0, elo1=elo1,
        alpha=alpha, beta=beta, max_pairs=max_pairs, openings_file=openings, seed=seed, plies=opening_plies,
        concurrency=_fitted(concurrency), sandbox=sandbox, db=db)
    checked = check_run(test.config)  # once: the sandbox mode resolved, every batch a share of this run
    check_database(test.db, "--db")
    setup_logging(log_path(test.db), False)  # as a tournament's, beside its games
    a, b = test.names
    rules = test.config.settings.rules
    echo(f"SPRT {a} vs {b}: H0 elo = {elo0:g}, H1 elo = {elo1:g}, alpha {alpha:g}, beta {beta:g}; "
         f"{rules.title} {rules.size_phrase(test.config.sizes[0])}, {time:g} s per move; games in {test.db}")
    try:
        final = sprt.run(test, echo, on_warning=warn, checked=checked)
    except KeyboardInterrupt:
        raise stopped(f"interrupted: finished games are saved in {test.db}; rerun the same command to resume") from None
    for text in sprt.forfeit_warnings(final):
        warn(text)
    drawish = sprt.draw_warning(final)
    if drawish is not None:
        warn(drawish)
    echo(sprt.verdict(test, final))
