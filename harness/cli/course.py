"""``arena class``: a folder of submissions to a gradebook, a leaderboard and a class page."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from harness.cli.cluster import parse_cluster_option
from harness.cli.console import echo, stopped, warn
from harness.cli.options import ConfigSandboxOption, TimeScaleOption


def class_command(
    config: Annotated[Path, typer.Argument(help="Class config (YAML), e.g. configs/class.yaml.")],
    db: Annotated[Optional[Path], typer.Option(help="Results database (default results/<name>.sqlite).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object: a record per student.")] = False,
    csv: Annotated[Optional[Path], typer.Option(
        "--csv", help="Write the gradebook CSV here (default: beside the database, <name>.gradebook.csv).")] = None,
    html: Annotated[Optional[Path], typer.Option("--html", metavar="DIR", help="Write the class page into DIR.")] = None,
    freeze: Annotated[bool, typer.Option(
        "--freeze", help="Freeze the submissions now, as the deadline does: later changes are not graded.")] = False,
    concurrency: Annotated[Optional[int], typer.Option(
        min=1, max=256, help="Programs run at once (overrides the config).")] = None,
    sandbox: ConfigSandboxOption = None,
    time_scale: TimeScaleOption = None,
    cluster: Annotated[Optional[str], typer.Option(
        metavar="ADDRESS", help="Play the games on a dask cluster (overrides the config): tls://HOST:PORT or "
                                "local:K.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log each game to the console too.")] = False,
    progress: Annotated[Optional[bool], typer.Option(
        "--progress/--no-progress", show_default=False,
        help="Show each stage's progress bar on stderr (default: when stderr is a terminal).")] = None,
) -> None:
    """Grade a class: intake, validation, a league with the reference engines as anchors, grades.

    Resumable: a rerun validates only new submissions and plays only games not stored. Exit status:
    0 when the run finished every stage, 1 when some games could not be played (rerun to retry), 2
    for usage errors.
    """
    from harness.cli.tournament import setup_logging
    from harness.course.config import load_class_config
    from harness.course.gradebook import leaderboard, to_csv, to_json
    from harness.course.run import default_db_path, run_class
    from harness.outputs import check_file, check_folder, write_kept, write_text
    from harness.progress import wanted
    from harness.store.store import check_database, log_path

    loaded = load_class_config(config, concurrency)
    if sandbox is not None:
        loaded = dataclasses.replace(loaded, sandbox=sandbox)
    if time_scale is not None:
        from harness.match.settings import parse_time_scale, scaled

        loaded = dataclasses.replace(loaded, settings=scaled(loaded.settings, parse_time_scale(time_scale)))
    if cluster is not None:
        loaded = dataclasses.replace(loaded, cluster=parse_cluster_option(cluster))
    from harness.machine import fit_concurrency

    fitted, too_many = fit_concurrency(loaded.concurrency, "--concurrency" if concurrency else "concurrency",
                                       "programs")
    if too_many:  # validations and probes run here even when a cluster plays the games
        warn(too_many)
        loaded = dataclasses.replace(loaded, concurrency=fitted)
    db_path = db if db is not None else default_db_path(loaded)
    check_database(db_path, "--db")
    csv_path = csv if csv is not None else db_path.with_name(db_path.stem + ".gradebook.csv")
    check_file(csv_path, "--csv", "gradebook.csv")
    if html is not None:
        check_folder(html, "--html")
    setup_logging(log_path(db_path), verbose)
    try:
        run = run_class(loaded, db_path, freeze=freeze, progress=wanted(progress),
                        show=lambda text: echo(text, err=True), warn=warn)
    except KeyboardInterrupt:
        raise stopped(f"interrupted: finished work is saved in {db_path}; rerun the same command to resume") from None
    write_kept(lambda target: write_text(target, to_csv(run)), csv_path, "arena-class-gradebook.csv", "--csv")
    if html is not None:
        from harness.course.page import write_class_page

        write_class_page(run, html)
    if as_json:
        typer.echo(json.dumps(to_json(run)))
    else:
        echo(leaderboard(run), lines=True)
        echo()
        echo(f"gradebook: {csv_path}" + (f"; class page: {html / 'index.html'}" if html is not None else ""))
    if run.failed_games:
        warn(f"{run.failed_games} games could not be played (see {log_path(db_path)}); rerun to retry them")
        raise typer.Exit(1)

