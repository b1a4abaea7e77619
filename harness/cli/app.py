"""The ``arena`` command line: the app, its commands in the order help lists them, and the one place
where an error becomes one line ``arena: error: ...`` and exit status 2.

Each command lives in the module of its family (match.py: moves, match; tournament.py: tournament,
sprt; results.py: report, merge, games, replay, export, import; repro.py; play.py, solve.py, validate.py,
cluster.py); the options they share are declared once, in options.py.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Annotated

import typer

try:
    from typer._click import exceptions as click_exceptions
except ImportError:  # typer before 0.20 runs on click itself
    from click import exceptions as click_exceptions  # type: ignore[no-redef,import-not-found,unused-ignore]

from harness.cli import cluster, course, match, play, repro, results, solve, tournament, validate
from harness.cli.console import STOPPED, error_line, stop_on_signals
from harness.cli.options import PlainCommand
from harness.errors import HarnessError
from harness.games.errors import PositionError
from harness.text import visible

app = typer.Typer(
    name="arena",
    help="Betsy Arena: tournaments, validation and engines for Betsy, Connect Four and All The King's Horses.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's plain help: wraps at any width, never cuts an option's name
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("betsy-arena")
        except PackageNotFoundError:  # run from a checkout that was never installed
            number = "unknown (not installed)"
        typer.echo(f"arena {number}")
        raise typer.Exit(0)


@app.callback()
def _root(
    show_version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_show_version, help="Print arena's version and exit.")] = False,
) -> None:
    """Betsy Arena: tournaments, validation and engines for Betsy, Connect Four and All The King's Horses."""


app.command("moves", cls=PlainCommand, short_help="Every legal move of a position, and what it does.",
            context_settings={"ignore_unknown_options": True},  # `arena moves -1 ...`: N = -1, not an option
            )(match.moves_command)
app.command("match", cls=PlainCommand, short_help="Play games between two engines and show them.")(match.match_command)
app.command("solve", cls=PlainCommand,
            short_help="Exact scores of Connect Four positions (Pons's notation).")(solve.solve_command)
app.command("tournament", cls=PlainCommand,
            short_help="Run or resume a tournament from a YAML config.")(tournament.tournament_command)
app.command("report", cls=PlainCommand, short_help="A stored tournament's tables: text, JSON, CSV or pages.",
            context_settings={"allow_extra_args": True},  # `--csv DIR`: DIR arrives as an extra argument
            )(results.report_command)
app.command("merge", cls=PlainCommand,
            short_help="Join shares of one tournament played on several machines.")(results.merge_command)
app.command("sprt", cls=PlainCommand,
            short_help="Play pairs until a sequential test decides A is stronger.")(tournament.sprt_command)
app.command("play", cls=PlainCommand, short_help="Play against an engine in the terminal.")(play.play_command)
app.command("games", cls=PlainCommand, short_help="List the stored games.")(results.games_command)
app.command("replay", cls=PlainCommand, short_help="Step through a stored game.")(results.replay_command)
app.command("repro", cls=PlainCommand,
            short_help="Run a stored engine call again: what it did then, what it does now.")(repro.repro_command)
app.command("analyse", cls=PlainCommand,
            short_help="Find each stored game's losing move (proved where an oracle reaches).")(results.analyse_command)
app.command("export", cls=PlainCommand,
            short_help="Write stored games out: JSON Lines or game sheets.")(results.export_command)
app.command("import", cls=PlainCommand,
            short_help="Read exported games back into a results database.")(results.import_command)
app.command("validate", cls=PlainCommand,
            short_help="Check a student's program: protocol, rules, time, tactics.")(validate.validate_command)
app.command("class", cls=PlainCommand,
            short_help="Grade a class: a folder of submissions to a gradebook.")(course.class_command)

cluster_app = typer.Typer(
    name="cluster", no_args_is_help=True, rich_markup_mode=None, short_help="A dask cluster that admits only its own.",
    help="A dask cluster that admits only its own: certificates, a scheduler, workers (see docs/cluster.md).")
cluster_app.command("certs", cls=PlainCommand,
                    short_help="Write a new certificate set for a cluster.")(cluster.certs_command)
cluster_app.command("scheduler", cls=PlainCommand,
                    short_help="Run the cluster's scheduler (mutual TLS).")(cluster.scheduler_command)
cluster_app.command("worker", cls=PlainCommand,
                    short_help="Run a worker that plays the scheduler's games.")(cluster.worker_command)
app.add_typer(cluster_app)


def _given(argv: list[str], opts: list[str]) -> str | None:
    """The value given on the command line to an option spelled one of ``opts`` (the last one)."""
    found = None
    for index, arg in enumerate(argv):
        name, equals, value = arg.partition("=")
        if name in opts:
            found = value if equals else (argv[index + 1] if index + 1 < len(argv) else None)
    return found


def _usage_line(error: click_exceptions.UsageError, argv: list[str]) -> str:
    """A typer/click usage error as one line: what was wrong (with the value given), then the usage."""
    message = " ".join(error.format_message().split()).rstrip(".")
    param = getattr(error, "param", None)
    if isinstance(error, click_exceptions.BadParameter) and param is not None:
        opts = [opt for opt in getattr(param, "opts", []) if opt.startswith("-")]
        name = max(opts, key=len) if opts else (param.name or "value").upper()
        if isinstance(error, click_exceptions.MissingParameter):
            message = f"missing {param.param_type_name} {name}"
        else:
            value = _given(argv, opts) if opts else None
            detail = " ".join(error.message.split()).split(", unable to")[0].removeprefix("Value error, ")
            for words, sign in (("greater than or equal to", ">="), ("less than or equal to", "<="),
                                ("greater than", ">"), ("less than", "<")):
                detail = detail.replace(f"Input should be {words}", f"expected a number {sign}")
            detail = detail.replace("Input should be ", "expected ").rstrip(".")
            message = f"invalid {name}" + (f" {value!r}" if value is not None else "") + f": {detail}"
    message = message[:1].lower() + message[1:]
    context = error.ctx
    if context is None:
        return message
    arguments = [p for p in context.command.params if p.param_type_name == "argument"]
    usage = " ".join([context.command_path, "[OPTIONS]"]
                     + [(p.metavar or (p.name or "").upper()) + ("..." if p.nargs == -1 else "") for p in arguments])
    if getattr(context.command, "commands", None):
        usage += " COMMAND [ARGS]..."
    return f"{message}; usage: {usage} (see {context.command_path} --help)"


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: every error is one line ``arena: error: ...`` and exit status 2
    (typer's own usage errors included); help and normal runs are unchanged. Commands raise; this
    is the one place that turns what they raise into a line and an exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    handlers = stop_on_signals()
    try:
        status = app(prog_name="arena", args=args, standalone_mode=False)
    except click_exceptions.NoArgsIsHelpError as error:
        typer.echo(error.format_message())
        status = 2
    except click_exceptions.UsageError as error:
        typer.echo(error_line(_usage_line(error, args)), err=True)
        status = 2
    except click_exceptions.ClickException as error:
        typer.echo(f"arena: error: {visible(' '.join(error.format_message().split()))}", err=True)
        status = 2
    except (typer.Abort, KeyboardInterrupt):
        STOPPED.setdefault("signal", signal.SIGINT)
    except (HarnessError, PositionError) as error:
        typer.echo(error_line(str(error)), err=True)
        status = 2
    except Exception as error:  # a bug: still one line, with the way to see the traceback
        if os.environ.get("ARENA_TRACEBACK"):
            raise
        typer.echo(f"arena: internal error: {type(error).__name__}: {visible(' '.join(str(error).split()))} "
                   f"(rerun with ARENA_TRACEBACK=1 for the traceback, and please report it)", err=True)
        status = 1
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    if "signal" in STOPPED:  # typer turns KeyboardInterrupt into exit status 130 without a word
        if not STOPPED.get("told"):
            typer.echo("arena: interrupted", err=True)
        status = 128 + STOPPED["signal"]
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    main()
