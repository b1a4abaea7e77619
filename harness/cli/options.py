"""The options several commands share, declared once; how help names their values; what they mean.

Where a command's option differs from the shared one (its own help), the command declares its own.
The tests of a game's name that the CLI still makes are the small functions below (``has_n_option``,
``has_win_priority``, ``draws_own_positions``): each is one place a game hook can replace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperCommand

from harness.cli.console import warn as print_warning
from harness.errors import UsageError
from harness.games.errors import PositionError
from harness.games.registry import GAMES, Game, get_game
from harness.referee.sandbox import SandboxMode

# --- how help shows options -------------------------------------------------------------------

VALUE_NAMES = {
    "--game": "GAME", "--n": "N", "--size": "SIZE", "--time": "SECONDS", "--grace": "SECONDS", "--games": "K",
    "--max-plies": "PLIES", "--opening-plies": "PLIES", "--win-priority": "mover|blue", "--start-file": "FILE",
    "--openings": "FILE", "--seed": "S", "--sandbox": "auto|required|off", "--max-file-mb": "MIB",
    "--max-processes": "K", "--concurrency": "K", "--time-scale": "auto|X", "--db": "PATH", "--rounds": "FIRST-LAST",
    "--tournament": "K",
    "--elo0": "ELO", "--elo1": "ELO", "--alpha": "P", "--beta": "P", "--max-pairs": "K", "--engine": "ENGINE",
    "--human": "x|o", "--result": "RESULT", "--format": "jsonl|text", "--html": "FILE", "--host": "ADDRESS",
    "--port": "PORT", "--nthreads": "K",
}
"""What the help calls an option's value, where its declaration gives no metavar: a plain word."""


class PlainCommand(TyperCommand):
    """A command whose --help reads well at any width: click's two columns, which wrap and never cut
    a name; values named by plain words (SECONDS, FILE, K) and arguments in upper case, in the usage
    line too."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = _value_name(param) + ("..." if param.nargs == -1 else "")
                pieces.append(name if param.required or name.startswith("[") else f"[{name}]")
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            text = record[1].replace("  [required]", "").replace("[required]", "")
            if param.param_type_name == "argument":
                arguments.append((_value_name(param).strip("[]"), text))
            else:
                names = ", ".join(sorted(param.opts, key=len)) + "".join(f" / {name}" for name in param.secondary_opts)
                value = "" if getattr(param, "is_flag", False) or getattr(param, "count", False) else _value_name(param)
                options.append((f"{names} {value}".rstrip(), text))
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _value_name(param: Any) -> str:
    if param.metavar is not None:
        return str(param.metavar)
    if param.param_type_name == "argument":
        return str(param.name).upper()
    return VALUE_NAMES.get(max(param.opts, key=len), str(param.name).upper())


# --- the games' differences the CLI asks about (each a hook of the game's Game) --------------------

def _rules(game: str) -> Game | None:
    """The game called ``game``, or None for a name that is not one (refused where the game is read)."""
    return GAMES.get(game)


def has_n_option(game: str) -> bool:
    """Whether ``game`` takes --n, its legacy size key (Betsy's board size; every game takes --size)."""
    rules = _rules(game)
    return rules is not None and rules.size_key == "n"


def has_win_priority(game: str) -> bool:
    """Whether ``game`` has the --win-priority rule option (a choice of whose lines count first)."""
    rules = _rules(game)
    return rules is not None and len(rules.win_priorities) > 1


def draws_own_positions(game: str) -> bool:
    """Whether ``arena validate`` draws its own positions for ``game`` (All The King's Horses): no
    sizes to give, its own time per position by default, and its own validator."""
    rules = _rules(game)
    return rules is not None and rules.own_validation


def validation_seconds(game: str) -> int:
    """The seconds per move ``arena validate`` gives by default."""
    rules = _rules(game)
    return 1 if rules is None else rules.validation_seconds


# --- shared options -------------------------------------------------------------------------------

GameOption = Annotated[str, typer.Option(
    "--game", help="The game: betsy, connect4 or kings-horses.", show_default=True)]
SIZE_HELP = "Board size: " + ", ".join(
    f"{'n' if has_n_option(rules.name) else rules.size_metavar} for {rules.name} (default {rules.default_size})"
    for rules in GAMES.values()) + "."
"""Each game's size and its default, from the games' table."""
SizeOption = Annotated[Optional[str], typer.Option("--size", help=SIZE_HELP, show_default=False)]
BetsyNOption = Annotated[Optional[int], typer.Option("--n", help="Betsy's board size n (default 5); or --size.")]
TimeOption = Annotated[float, typer.Option("--time", help="Seconds per move.")]
FractionalTimeOption = Annotated[bool, typer.Option(
    "--allow-fractional-time", help="Pass fractional SECONDS (e.g. 0.5) to the engines.")]
MaxPliesOption = Annotated[int, typer.Option("--max-plies", help="Draw after this many moves.")]
WinPriorityOption = Annotated[str, typer.Option(
    help="Betsy: whose lines count first when a move completes both: mover or blue.")]
JsonObjectOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
ProgressOption = Annotated[Optional[bool], typer.Option(
    "--progress/--no-progress", show_default=False,
    help="Show progress on stderr: a total and the time left (default: when stderr is a terminal).")]
SandboxOption = Annotated[SandboxMode, typer.Option(
    "--sandbox", case_sensitive=False,
    help="Run engines in the bubblewrap sandbox: auto (when it works here, else warn), required, or off.")]
ConfigSandboxOption = Annotated[Optional[SandboxMode], typer.Option(
    "--sandbox", case_sensitive=False,
    help="Overrides the config's sandbox: auto (when bwrap works here, else warn), required, or off.")]
"""``--sandbox`` of a command run from a config (tournament, class): None keeps the config's."""
TimeScaleOption = Annotated[Optional[str], typer.Option(
    "--time-scale", metavar="auto|X",
    help="Multiply every time limit by X, or by this machine's measured speed against the reference (auto: a "
         "short fixed search; see docs/referee.md): a slower machine gives the same work in its time.")]
"""``--time-scale``: None keeps the config's (1 without a config)."""
ReplayStallsOption = Annotated[Optional[bool], typer.Option(
    "--replay-stalls/--no-replay-stalls", show_default=False,
    help="Overrides the config's replay_stalls: run a call the machine starved (its own time left, its wall time "
         "spent waiting for a CPU) again alone before any verdict (see docs/referee.md).")]
"""``--replay-stalls`` of a tournament: None keeps the config's."""
MaxFileOption = Annotated[int, typer.Option(
    "--max-file-mb", min=1, max=4096, help="Largest file an engine may write, in MiB.")]
MaxProcessesOption = Annotated[int, typer.Option(
    "--max-processes", min=1, max=4096, help="Processes and threads an engine may run at once (sandbox).")]
ResultsArgument = Annotated[Path, typer.Argument(help="Results database.")]
TournamentFilterOption = Annotated[Optional[int], typer.Option("--tournament", help="Only this tournament's games.")]


# --- what the shared options mean -----------------------------------------------------------------

def use_sandbox(mode: SandboxMode, warn: bool = True) -> bool:
    """Resolve the sandbox mode here (``required`` without bwrap is an error); print its warning
    (auto without bwrap, or off) on stderr unless ``warn`` is false."""
    from harness.referee import sandbox

    confined, warning = sandbox.resolve(mode)
    if warning is not None and warn:
        print_warning(warning)
    return confined


def size_refused(option: str, value: str | int, error: PositionError) -> UsageError:
    """A size the rules refused, said for the option: the rules' reason without their own prefix."""
    shown = repr(value) if isinstance(value, str) else str(value)
    return UsageError(f"invalid {option} {shown}: {str(error).partition(': ')[2] or error}")


def board_size(game: str, n: int | None, size: str | None) -> str:
    """The board size from --n (Betsy) or --size (any game), checked; the game's default if neither."""
    rules = get_game(game)
    if n is not None and size is not None:
        raise UsageError("give the board size once, as --n or --size")
    if n is not None and not has_n_option(game):
        raise UsageError(f"invalid --n {n}: a Betsy option; give {rules.title}'s size as --size "
                         f"(e.g. --size {rules.default_size})")
    option, value = ("--n", n) if n is not None else ("--size", size)
    if value is None:
        return rules.default_size
    try:
        return rules.parse_size(value)
    except PositionError as error:
        raise size_refused(option, value, error) from None


def board_sizes(game: str, n: str | None, size: str | None) -> tuple[str, ...]:
    """Board sizes from --n (Betsy) or --size (any game), separated by commas, each checked by the
    game; the game's example sizes if neither is given."""
    rules = get_game(game)
    if n is not None and size is not None:
        raise UsageError("give the board sizes once, as --n or --size")
    if n is not None and not has_n_option(game):
        raise UsageError(f"invalid --n {n!r}: a Betsy option; give {rules.title}'s sizes as --size "
                         f"(e.g. --size {','.join(rules.example_sizes)})")
    option, text = ("--n", n) if n is not None else ("--size", size)
    if text is None:
        return rules.example_sizes
    if n is not None and not all(part.strip().isascii() and part.strip().isdigit() and int(part) >= 1
                                 for part in n.split(",")):
        raise UsageError(f"invalid --n {n!r}: give board sizes >= 1 separated by commas, "
                         f"e.g. {','.join(rules.example_sizes)}")
    try:
        return rules.sizes(text)
    except PositionError as error:
        raise size_refused(option, text, error) from None
