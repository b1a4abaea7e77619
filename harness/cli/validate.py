"""``arena validate``: a student's program checked against the protocol, the rules, the clock and our engines."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from harness.cli.console import echo, warn
from harness.cli.options import (
    GameOption,
    JsonObjectOption,
    MaxFileOption,
    MaxProcessesOption,
    SandboxOption,
    board_sizes,
    TimeScaleOption,
    draws_own_positions,
    use_sandbox,
    validation_seconds,
)
from harness.errors import UsageError
from harness.referee.sandbox import SandboxMode

MAX_VALIDATE_GAMES = 100
"""Most games `arena validate` plays against each reference engine."""


def validate_command(
    program: Annotated[str, typer.Argument(help="The program: a command (python3 path/betsy.py) or a path.")],
    game: GameOption = "betsy",
    time: Annotated[Optional[float], typer.Option(
        "--time", help="Seconds per move given to the program (whole, unless --allow-fractional-time; default 1, "
                       "and 10 per position for kings-horses).")] = None,
    allow_fractional_time: Annotated[
        bool, typer.Option("--allow-fractional-time", help="Pass fractional SECONDS (e.g. 0.5) to the program, as match does.")
    ] = False,
    n: Annotated[Optional[str], typer.Option(
        "--n", help="Betsy's board sizes for the rules checks, e.g. 3,5,8 (default 3,5,8).")] = None,
    size: Annotated[Optional[str], typer.Option(
        "--size", help="Board sizes for the rules checks: n for Betsy, WxH for Connect Four, separated by "
                       "commas (default: 3,5,8 or 7x6,8x8).")] = None,
    games: Annotated[
        Optional[int], typer.Option("--games", help="Games against each reference engine (default 2; 1 with --quick).")
    ] = None,
    quick: Annotated[bool, typer.Option(
        "--quick", help="A reduced suite: about 35 s for a program that uses its full second, against about "
                        "110 s for the whole suite.")] = False,
    as_json: JsonObjectOption = False,
    html: Annotated[Optional[Path], typer.Option("--html", help="Also write a self-contained HTML report.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show warnings in full.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar on stderr.")] = False,
    progress: Annotated[bool, typer.Option(
        "--progress", help="Show the progress bar on stderr even when it is not a terminal.")] = False,
    concurrency: Annotated[Optional[int], typer.Option(
        min=1, max=16, help="Programs run at once (default: 2, or 1 on a one-core machine).")] = None,
    sandbox: SandboxOption = SandboxMode.AUTO,
    max_file_mb: MaxFileOption = 64,
    max_processes: MaxProcessesOption = 64,
    time_scale: TimeScaleOption = None,
    replay_stalls: Annotated[bool, typer.Option(
        "--replay-stalls/--no-replay-stalls",
        help="Run a call the machine starved (its own time left, its wall time spent waiting for a CPU) again alone "
             "before any verdict (see docs/referee.md).")] = True,
) -> None:
    """Check a student's program against the protocol, the rules, the clock and our engines.

    Exit status: 0 when protocol, rules, time and robustness pass; 1 otherwise; 2 for usage errors.
    """
    from harness.match.settings import parse_time_scale, settings_from_flags
    from harness.outputs import check_file, write_kept, write_text
    from harness.referee.engine_specs import command_engine, program_command, refuse_link
    from harness.referee.programs import check_layout
    from harness.validate.render import render_html, render_text
    from harness.validate.validator import ValidationSettings, validate

    seconds = time if time is not None else validation_seconds(game)
    play = settings_from_flags({"game": game, "time": seconds, "allow_fractional_time": allow_fractional_time,
                                "time_scale": parse_time_scale(time_scale) if time_scale is not None else 1.0})
    own_positions = draws_own_positions(game)
    if own_positions and (n is not None or size is not None):
        option, value = ("--n", n) if n is not None else ("--size", size)
        raise UsageError(f"invalid {option} {value}: {game} validation draws its own positions "
                         "(coordinates 1..8, 1..15 and 1..30); leave it out")
    sizes = () if own_positions else board_sizes(game, n, size)
    if games is not None and not 0 <= games <= MAX_VALIDATE_GAMES:
        raise UsageError(f"invalid --games {games}: give 0 to {MAX_VALIDATE_GAMES} games per reference engine")
    if html is not None:
        check_file(html, "--html")
    count = games if games is not None else (1 if quick else 2)
    settings = ValidationSettings(play, sizes=sizes, games=count, quick=quick,
                        concurrency=_concurrency(concurrency),
                        file_bytes=max_file_mb << 20, processes=max_processes, replay_stalls=replay_stalls)
    command = program_command(program)  # a path holding a quote or a space is the file itself
    path = Path(program)
    # A program that is missing or cannot be run is a bad argument: one line, nothing is run.
    if " " not in program.strip() and path.suffix == ".py" and path.is_file() and not os.access(path, os.X_OK):
        refuse_link(program, program, os.path.join(os.getcwd(), program))
        raise UsageError(f"{path.resolve()} is not executable; run chmod +x {path}, or validate 'python3 {program}' "
                         "instead")
    engine = command_engine(command, name=program)
    check_layout([engine])
    settings = dataclasses.replace(settings, sandbox=use_sandbox(sandbox))

    from harness.progress import bar as progress_bar
    from harness.progress import wanted
    from harness.validate.progress import validation_steps

    # A step per check on stderr, in every output mode (stdout stays the report alone).
    show = not quiet and wanted(True if progress else None)
    bar = progress_bar(validation_steps(settings) if show else None, "validating", "check", show)

    def step(text: str) -> None:
        bar.set_postfix_str(text, refresh=False)
        bar.update(1)

    try:
        if own_positions:
            from harness.validate.kings_horses import validate_kings_horses

            report = validate_kings_horses(program, engine, settings, None, step)
        else:
            report = validate(program, engine, settings, None, step)
    finally:
        bar.close()
    if as_json:  # the verdict first: an --html that cannot be written at the end loses nothing
        typer.echo(json.dumps(report.to_json()))
    else:
        echo(render_text(report, verbose), lines=True)
    if html is not None:
        page = render_html(report, Path(engine.program).parent if engine.program else None)
        write_kept(lambda target: write_text(target, page), html, "arena-validate.html", "--html")
        if not as_json:
            echo()
            echo(f"HTML report: {html}")
    raise typer.Exit(0 if report.passed else 1)


def _concurrency(asked: int | None) -> int:
    """Calls at once: ``--concurrency`` (warned and capped above the CPUs arena may use here), else two
    or the CPUs, whichever is fewer."""
    from harness.machine import fit_concurrency, usable_cores

    if asked is None:
        return min(2, usable_cores())
    fitted, too_many = fit_concurrency(asked, "--concurrency")
    if too_many:
        warn(too_many)
    return fitted
