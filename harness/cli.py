"""The ``arena`` command line: thin commands over the library; errors become one line and exit 2."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated, BinaryIO, Optional, TextIO, TypeVar

import typer
from typer.core import TyperCommand

try:
    from typer._click import exceptions as click_exceptions
except ImportError:  # typer before 0.20 runs on click itself
    from click import exceptions as click_exceptions  # type: ignore[no-redef,import-not-found,unused-ignore]

from harness.errors import HarnessError, StoreError, UsageError
from harness.games.errors import PositionError
from harness.games.registry import GAMES, PLAYERS, move_list
from harness.sandbox import SandboxMode
from harness.text import visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from harness.cluster import ClusterAddress
    from harness.games.registry import Game
    from harness.match import GameRecord, MoveRecord

app = typer.Typer(
    name="arena",
    help="Betsy Arena: tournaments, validation and engines for Betsy, Connect Four and All The King's Horses.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's plain help: wraps at any width, never cuts an option's name
    context_settings={"help_option_names": ["-h", "--help"]},
)

T = TypeVar("T")

VALUE_NAMES = {
    "--game": "GAME", "--n": "N", "--size": "SIZE", "--time": "SECONDS", "--grace": "SECONDS", "--games": "K",
    "--max-plies": "PLIES", "--opening-plies": "PLIES", "--win-priority": "mover|blue", "--start-file": "FILE",
    "--openings": "FILE", "--seed": "S", "--sandbox": "auto|required|off", "--max-file-mb": "MIB",
    "--max-processes": "K", "--concurrency": "K", "--db": "PATH", "--rounds": "FIRST-LAST", "--tournament": "K",
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

MAX_GAMES = 10_000
"""Most games one `arena match` plays."""
MAX_VALIDATE_GAMES = 100
"""Most games `arena validate` plays against each reference engine."""


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


def _fail(message: str) -> typer.Exit:
    typer.echo(f"arena: error: {_one_line(message)}", err=True)
    return typer.Exit(2)


def _one_line(message: str) -> str:
    """A message as one line, whatever it quotes shown safely (harness.text.visible)."""
    return visible(" ".join(message.splitlines()))


def _echo(text: str = "", err: bool = False, nl: bool = True, lines: bool = False) -> None:
    """Print one line, what it holds from programs, configs and files shown safely: controls and
    escape sequences as visible text; with ``lines``, a text of several lines (its newlines stay)."""
    typer.echo(visible(text, lines=lines), err=err, nl=nl)


def _guard(action: Callable[[], T]) -> T:
    """Run ``action``; a HarnessError or invalid position becomes one line on stderr and exit 2."""
    try:
        return action()
    except (HarnessError, PositionError) as error:
        raise _fail(str(error)) from None


GameOption = Annotated[str, typer.Option(
    "--game", help="The game: betsy, connect4 or kings-horses.", show_default=True)]
SIZE_HELP = "Board size: " + ", ".join(
    f"{'n' if game.name == 'betsy' else game.size_metavar} for {game.name} (default {game.default_size})"
    for game in GAMES.values()) + "."
"""Each game's size and its default, from the games' table."""
SizeOption = Annotated[Optional[str], typer.Option("--size", help=SIZE_HELP, show_default=False)]
BetsyNOption = Annotated[Optional[int], typer.Option("--n", help="Betsy's board size n (default 5); or --size.")]


def _rules(name: str) -> Game:
    from harness.games.registry import get_game

    return get_game(name)


def _parse_position(game: str, size: str, player: str, board: str, win_priority: str) -> Any:
    rules = _rules(game)
    if win_priority not in ("mover", "blue"):
        raise UsageError(f"invalid --win-priority {win_priority!r}: use mover or blue")
    if game != "betsy" and win_priority != "mover":
        raise UsageError(f"invalid --win-priority {win_priority!r}: a Betsy rule, {game} has no such option")
    from harness.games.registry import RuleOptions

    return rules.position(size, player, board, RuleOptions(win_priority))


@app.command(cls=PlainCommand, short_help="Every legal move of a position, and what it does.",
             context_settings={"ignore_unknown_options": True})  # `arena moves -1 ...`: N = -1, not an option
def moves(
    size: Annotated[str, typer.Argument(
        help="Board size: n for Betsy (n columns, n + 3 rows), WxH for Connect Four (e.g. 8x8).",
        show_default=False, metavar="SIZE")],
    player: Annotated[str, typer.Argument(help="Side to move: x (moves first) or o.")],
    board: Annotated[str, typer.Argument(help="Board, row-major from the top row, of . x o.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON list of {move, board, winner}.")
    ] = False,
    win_priority: Annotated[
        str, typer.Option(help="Betsy: whose lines count first when a move completes both: mover or blue.")
    ] = "mover",
    game: GameOption = "betsy",
) -> None:
    """List every legal move with its resulting board and what it does."""
    position = _guard(lambda: _parse_position(game, size, player, board, win_priority))
    rules = _rules(game)
    rows = []
    for move, child_board, winner in move_list(position):
        rows.append((move, child_board, None if winner is None else PLAYERS[winner]))
    if as_json:
        typer.echo(json.dumps([{"move": m, "board": b, "winner": w} for m, b, w in rows]))
        return
    already = position.winner()
    typer.echo(f"{rules.size_phrase(position.size_text)}, {position.player} to move, {len(rows)} legal moves")
    if already is not None and not rules.has_draws:
        typer.echo(f"note: {position.player} has no move here; {PLAYERS[already]} has won")
    elif already is not None:
        typer.echo(f"note: {PLAYERS[already]} already has a line here; the game is over")
    elif not rows:
        typer.echo(f"note: {rules.end_reason(position) or 'no legal move'}; the game is over")
    if not rows:
        return
    width = max(len(str(m)) for m, _, _ in rows)
    columns = len(str(rules.columns(position)))
    for move, child_board, winner_name in rows:
        effect = "game goes on" if winner_name is None else f"{winner_name} wins"
        what = (f"{rules.move_kind(move):<6} {abs(move):<{columns}}" if rules.has_draws
                else _knight_move(position, move))
        typer.echo(f"{move:>{width}}  {what}  {child_board}  {effect}")


def _knight_move(position: Any, move: int) -> str:
    """All The King's Horses: ``knight 2 (3,3) -> (2,1)``."""
    (r, c), (r2, c2) = position.moved(move)
    return f"knight {(move - 1) // 4 + 1} ({r},{c}) -> ({r2},{c2})"


ProgressOption = Annotated[Optional[bool], typer.Option(
    "--progress/--no-progress", show_default=False,
    help="Show progress on stderr: a total and the time left (default: when stderr is a terminal).")]
SandboxOption = Annotated[SandboxMode, typer.Option(
    "--sandbox", case_sensitive=False,
    help="Run engines in the bubblewrap sandbox: auto (when it works here, else warn), required, or off.")]
MaxFileOption = Annotated[int, typer.Option(
    "--max-file-mb", min=1, max=4096, help="Largest file an engine may write, in MiB.")]
MaxProcessesOption = Annotated[int, typer.Option(
    "--max-processes", min=1, max=4096, help="Processes and threads an engine may run at once (sandbox).")]


def _warn(message: str) -> None:
    typer.echo(f"arena: warning: {_one_line(message)}", err=True)


def _use_sandbox(mode: SandboxMode, warn: bool = True) -> bool:
    """Resolve the sandbox mode here (``required`` without bwrap is an error); print its warning
    (auto without bwrap, or off) on stderr unless ``warn`` is false."""
    from harness import sandbox

    confined, warning = _guard(lambda: sandbox.resolve(mode))
    if warning is not None and warn:
        _warn(warning)
    return confined


def _print_move(record: GameRecord, move: MoveRecord, position: Any) -> None:
    rules = _rules(record.game)
    seconds = f"{move.seconds:.2f} s"
    _echo(f"{move.ply:>4}. {move.player} {move.engine}: {rules.describe_move(move.move or 0)} ({seconds})")
    for warning in move.warnings:
        _echo(f"      warning: {warning}")
    for row in rules.render(position, move.move).splitlines():
        _echo("        " + row)


def _size_refused(option: str, value: str | int, error: PositionError) -> UsageError:
    """A size the rules refused, said for the option: the rules' reason without their own prefix."""
    shown = repr(value) if isinstance(value, str) else str(value)
    return UsageError(f"invalid {option} {shown}: {str(error).partition(': ')[2] or error}")


def _game_size(game: str, n: int | None, size: str | None) -> str:
    """The board size from --n (Betsy) or --size (any game), checked; the game's default if neither."""
    rules = _rules(game)
    if n is not None and size is not None:
        raise UsageError("give the board size once, as --n or --size")
    if n is not None:
        if game != "betsy":
            raise UsageError(f"invalid --n {n}: a Betsy option; give {rules.title}'s size as --size "
                             f"(e.g. --size {rules.default_size})")
        try:
            return rules.parse_size(str(n))
        except PositionError as error:
            raise _size_refused("--n", n, error) from None
    if size is None:
        return rules.default_size
    try:
        return rules.parse_size(size)
    except PositionError as error:
        raise _size_refused("--size", size, error) from None


def _match_starts(settings: Any, board_size: str, size_given: bool, start: tuple[str, str, str] | None,
                  start_file: Path | None, openings: Path | None, seed: int | None, plies: int) -> list[Any]:
    """The start positions of a match's games, in order (each played twice, colours swapped); empty
    for the empty board."""
    from harness.config import read_openings
    from harness.errors import ConfigError
    from harness.schedule import random_opening

    given = [name for name, value in (("--start", start), ("--start-file", start_file), ("--openings", openings),
                                      ("--seed", seed)) if value is not None]
    if len(given) > 1:
        raise UsageError(f"give at most one of {', '.join(given)}: each chooses the start positions")
    rules = settings.rules
    options = settings.options
    if start is not None:
        position = rules.position(*start, options)
        return [_playable(rules, position, "--start")]
    if start_file is not None or openings is not None:
        path = start_file if start_file is not None else openings
        option = "--start-file" if start_file is not None else "--openings"
        try:
            found = read_openings(path, rules)  # type: ignore[arg-type]
        except ConfigError as error:
            raise UsageError(f"invalid {option}: {error}") from None
        if size_given and board_size not in found:
            raise UsageError(f"invalid {option}: {path} holds no {rules.size_phrase(board_size)} position")
        sizes = [board_size] if size_given else list(found)
        positions = [rules.position(size, o.player, o.board, options) for size in sizes for o in found[size]]
        if option == "--start-file" and len(positions) != 1:
            raise UsageError(f"invalid --start-file: {path} holds {len(positions)} positions; give one, or use --openings")
        return positions
    if seed is None and not rules.has_draws:  # no fixed start (All The King's Horses): random ones
        seed = 1
    if seed is not None:
        return [rules.position(board_size, o.player, o.board, options)
                for o in (random_opening(board_size, plies, seed, k, rules) for k in range(MAX_OPENINGS))]
    return []


MAX_OPENINGS = 64
"""Random openings a match cycles through (games 2k+1 and 2k+2 play opening k mod this)."""


def _playable(rules: Game, position: Any, option: str) -> Any:
    if position.winner() is not None or rules.end_reason(position) is not None:
        raise UsageError(f"invalid {option}: the game is already over in this position")
    return position


@app.command(cls=PlainCommand, short_help="Play games between two engines and show them.")
def match(
    engine_x: Annotated[str, typer.Argument(help="x (moves first) in game 1: a built-in name or a command.")],
    engine_o: Annotated[str, typer.Argument(help="o in game 1: a built-in name or a command.")],
    game: GameOption = "betsy",
    n: BetsyNOption = None,
    size: SizeOption = None,
    time: Annotated[float, typer.Option("--time", help="Seconds per move.")] = 1,
    games: Annotated[int, typer.Option("--games", help="Games to play; colours alternate.")] = 1,
    max_plies: Annotated[int, typer.Option("--max-plies", help="Draw after this many moves.")] = 200,
    win_priority: Annotated[
        str, typer.Option(help="Betsy: whose lines count first when a move completes both: mover or blue.")
    ] = "mover",
    grace: Annotated[float, typer.Option(help="Seconds past the limit allowed for start-up and exit.")] = 0.5,
    allow_fractional_time: Annotated[
        bool, typer.Option("--allow-fractional-time", help="Pass fractional SECONDS (e.g. 0.5) to the engines.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one game record per line (JSON Lines).")] = False,
    start: Annotated[Optional[tuple[str, str, str]], typer.Option(
        "--start", metavar="SIZE PLAYER BOARD", help="Start every game from this position.")] = None,
    start_file: Annotated[Optional[Path], typer.Option(
        "--start-file", help="Start from the position in this file (one line: SIZE PLAYER BOARD).")] = None,
    openings: Annotated[Optional[Path], typer.Option(
        "--openings", help="Openings file (SIZE PLAYER BOARD per line): games 2k+1 and 2k+2 play opening k, "
                           "colours swapped, cycling through the file.")] = None,
    seed: Annotated[Optional[int], typer.Option(
        "--seed", help="Random openings from this seed (--opening-plies random moves), as tournaments have.")] = None,
    opening_plies: Annotated[int, typer.Option(
        "--opening-plies", min=0, max=1000, help="Plies of each random opening (with --seed).")] = 2,
    sandbox: SandboxOption = SandboxMode.AUTO,
    max_file_mb: MaxFileOption = 64,
    max_processes: MaxProcessesOption = 64,
    progress: Annotated[Optional[bool], typer.Option(
        "--progress/--no-progress", show_default=False,
        help="A bar of games played and the time left on stderr (default: with --games K over 1, when stderr "
             "is a terminal and the games do not go to it).")] = None,
) -> None:
    """Play games between two engines, showing the moves as they happen, or as JSON Lines."""
    from harness.engines import EngineSpec, check_games, resolve_engine
    from harness.match import play_game, score_for_x
    from harness.programs import check_layout
    from harness.settings import GameSettings, settings_from_flags

    def prepare() -> tuple[GameSettings, str, EngineSpec, EngineSpec]:
        settings = settings_from_flags({
            "game": game, "time": time, "allow_fractional_time": allow_fractional_time, "grace": grace,
            "max_plies": max_plies, "win_priority": win_priority,
        })
        board_size = _game_size(game, n, size)
        if games < 1:
            raise UsageError(f"invalid --games {games}: play at least one game")
        if games > MAX_GAMES:
            raise UsageError(f"invalid --games {games}: at most {MAX_GAMES} games")
        first, second = resolve_engine(engine_x), resolve_engine(engine_o)
        check_games([first, second], game)
        check_layout([first, second])
        return settings, board_size, first, second

    settings, board_size, first, second = _guard(prepare)
    starts = _guard(lambda: _match_starts(settings, board_size, n is not None or size is not None, start, start_file,
                                          openings, seed, opening_plies))
    limits = settings.limits(sandbox=_use_sandbox(sandbox), file_bytes=max_file_mb << 20,
                             processes=max_processes)
    rules = settings.rules
    scores = {0: 0.0, 1: 0.0}
    from harness.progress import bar as progress_bar

    # The moves speak on a terminal; a bar only where they go elsewhere (a file, a pipe, --json lines).
    show = progress if progress is not None else (games > 1 and sys.stderr.isatty() and not sys.stdout.isatty())
    played = progress_bar(games, "match", "game", show)
    for index in range(games):
        swap = index % 2 == 1
        x, o = (second, first) if swap else (first, second)
        if not as_json:
            shown = starts[(index // 2) % len(starts)].size_text if starts else board_size
            number = f"{index + 1}/{games}" if games > 1 else "1"
            _echo(f"game {number}: {x.name} (x) vs {o.name} (o), {rules.title} "
                       f"{rules.size_phrase(shown)}, {settings.time:g} s per move")
        opening = starts[(index // 2) % len(starts)] if starts else None
        record = play_game(x, o, settings, board_size, start=opening, limits=limits,
                           on_move=None if as_json else _print_move)
        blue = score_for_x(record.result)
        scores[0] += 1 - blue if swap else blue
        scores[1] += blue if swap else 1 - blue
        if as_json:
            typer.echo(json.dumps(record.to_json()))
        else:
            _echo(f"result: {record.result} ({record.reason})")
            if record.fault is not None:
                for line in record.fault.evidence_lines():
                    _echo(line)
        played.update(1)
    played.close()
    if not as_json and games > 1:
        _echo(f"score: {first.name} {scores[0]:g} - {scores[1]:g} {second.name}")


class SolvedGame(str, Enum):
    """The games ``arena solve`` solves."""

    CONNECT4 = "connect4"


@app.command(cls=PlainCommand, short_help="Exact scores of Connect Four positions (Pons's notation).")
def solve(
    positions: Annotated[Optional[Path], typer.Argument(
        metavar="[FILE]", help="File of positions in Pons's notation, one per line (a score after it is ignored); "
                               "default: standard input.", show_default=False)] = None,
    game: Annotated[SolvedGame, typer.Option(
        "--game", help="The game: connect4 only (the solver is Connect Four's).")] = SolvedGame.CONNECT4,
    size: Annotated[str, typer.Option(
        "--size", metavar="WxH", help="Board size WxH (width up to 9: one digit per move).")] = "7x6",
    timeout: Annotated[Optional[float], typer.Option(
        "--timeout", metavar="SECONDS", show_default=False,
        help="Give up a position after this many seconds and print POSITION unknown (default: no limit; a "
             "position with few discs can take hours: docs/connect4.md has the times).")] = None,
    progress: Annotated[Optional[bool], typer.Option(
        "--progress/--no-progress", show_default=False,
        help="Show a position's nodes, time and score bounds on stderr after 2 s (default: when stderr is a "
             "terminal).")] = None,
) -> None:
    """Solve Connect Four positions exactly: print POSITION SCORE lines in Pascal Pons's convention
    (0 draw; W*H/2 + 1 - s when the side to move wins with its s-th disc; negative when it loses),
    or POSITION unknown for one not solved within --timeout."""
    from harness.games.connect4 import parse_size

    def prepare() -> tuple[int, int]:
        try:
            width, height = parse_size(size)
        except PositionError as error:
            raise _size_refused("--size", size, error) from None
        if width > 9:
            raise UsageError(f"invalid --size {size!r}: Pons's notation has one digit per move, so widths up to 9")
        if timeout is not None and not 0 < timeout < float("inf"):
            raise UsageError(f"invalid --timeout {timeout:g}: give a number of seconds above 0, e.g. 60")
        if positions is not None and not positions.is_file():
            raise UsageError(f"no positions file at {positions}; check the path, or pipe positions in")
        return width, height

    width, height = _guard(prepare)
    from engines.connect4_solver import Solver, parse_line

    from harness.progress import Stopped, wanted, watched

    show = wanted(progress)
    solver = Solver(width, height)

    def solve_one(text: str, state: Any) -> str:
        before = solver.nodes
        discs = len(text)

        def describe(elapsed: float) -> str:
            nodes = solver.nodes - before
            low, high = solver.bounds
            return (f"solving {text or '(empty board)'} ({discs} disc{'' if discs == 1 else 's'} played): "
                    f"{nodes:,} nodes in {elapsed:.0f} s, score between {low:+d} and {high:+d}"
                    + ("" if timeout is not None else "; --timeout SECONDS bounds each position"))

        try:
            with watched(describe, show, timeout):
                return str(solver.solve(state))
        except Stopped:
            return "unknown"

    def run() -> None:
        where = str(positions or "standard input")
        try:
            source = positions.open(encoding="utf-8") if positions is not None else sys.stdin
        except OSError as error:
            raise UsageError(f"cannot read {positions}: {error.strerror or error}") from None
        try:
            for number, line in enumerate(_bounded_lines(source, where), 1):
                parsed = parse_line(line, number, width, height)
                if parsed is not None:
                    typer.echo(f"{parsed[0]} {solve_one(*parsed)}")
        except UnicodeDecodeError:
            raise UsageError(f"{where} is not text; give positions like 4453 one per line") from None
        finally:
            if positions is not None:
                source.close()

    _guard(run)


MAX_LINE = 4096
"""Longest line `arena solve` reads (a position has at most 81 moves)."""


def _bounded_lines(source: TextIO, where: str) -> Iterator[str]:
    """The lines of a text stream, each read only up to MAX_LINE characters: a longer one (a file
    that is not one of positions, /dev/zero) is refused in one line."""
    for number in itertools.count(1):
        line = source.readline(MAX_LINE + 2)
        if not line:
            return
        if len(line.rstrip("\r\n")) > MAX_LINE:
            raise UsageError(f"{where} line {number}: longer than {MAX_LINE:,} characters; give one position per line")
        yield line


def _setup_logging(log_file: Path, verbose: bool) -> None:
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


@contextlib.contextmanager
def _reading(db: Path) -> Iterator[None]:
    """A results database found damaged while reading it becomes one line naming it."""
    import sqlite3

    try:
        yield
    except (sqlite3.Error, UnicodeDecodeError, json.JSONDecodeError) as error:
        from harness.store import damaged

        raise damaged(db, error) from None


def _print_report(db: Path, tournament: int | None, fmt: str, html: Path | None = None,
                  csv_dir: Path | None = None, show_progress: bool = False) -> None:
    """Print the report, then write its pages and tables: a folder that cannot be written at the end
    gets a fallback folder (harness.outputs.write_kept), and the report printed is not lost."""
    from harness.errors import OutputError
    from harness.outputs import check_folder, write_kept
    from harness.report import build_report, render_text, to_csv, to_json, write_csv_tables
    from harness.report_html import write_html_report
    from harness.store import Store

    if not db.exists():
        raise UsageError(f"no results database at {db}; run 'arena tournament CONFIG' first or check the path")
    if html is not None:
        check_folder(html, "--html")
    if csv_dir is not None:
        check_folder(csv_dir, "--csv")
    failed: list[str] = []
    pages = None
    tables: list[Path] = []
    with _reading(db), Store(db, read_only=True) as store:
        chosen = tournament if tournament is not None else store.latest_tournament()
        if chosen is None:
            raise UsageError(f"{db} holds no tournament yet")
        if not store.has_tournament(chosen):
            raise UsageError(f"{db} has no tournament #{chosen}")
        report = build_report(store, chosen)
        if fmt == "json":
            typer.echo(json.dumps(to_json(report)))
        elif fmt == "csv":
            _echo(to_csv(report), nl=False, lines=True)
        else:
            _echo(render_text(report), lines=True)
        if html is not None:
            from harness.progress import bar as progress_bar

            def write_pages(folder: Path) -> Any:
                with progress_bar(report.games, "pages", "game", show_progress) as bar:
                    def page_done() -> None:
                        bar.update(1)

                    return write_html_report(store, chosen, report, folder, on_page=page_done)

            try:
                pages = write_kept(write_pages, html, "arena-report-html", "--html")
            except OutputError as error:
                failed.append(str(error))
    if csv_dir is not None:
        try:
            tables = write_kept(lambda folder: write_csv_tables(report, folder), csv_dir, "arena-report-csv", "--csv")
        except OutputError as error:
            failed.append(str(error))
    if fmt == "text" and pages is not None:
        _echo()
        _echo(f"HTML report: {pages.index} (and {pages.game_pages} game pages)")
    if fmt == "text" and tables:
        _echo()
        _echo(f"CSV tables: {', '.join(str(path) for path in tables)}")
    if failed:
        raise OutputError("; ".join(failed))


def _parse_cluster(text: str, what: str = "--cluster") -> ClusterAddress:
    from harness.cluster import parse_cluster

    try:
        return parse_cluster(text)
    except ValueError as error:
        raise UsageError(f"invalid {what}: {error}") from None


cluster_app = typer.Typer(
    name="cluster", no_args_is_help=True, rich_markup_mode=None, short_help="A dask cluster that admits only its own.",
    help="A dask cluster that admits only its own: certificates, a scheduler, workers (see docs/cluster.md).")
app.add_typer(cluster_app)
CertsOption = Annotated[Path, typer.Option(
    "--certs", metavar="DIR", help="The cluster's certificate set (made by arena cluster certs DIR).")]


@cluster_app.command("certs", cls=PlainCommand, short_help="Write a new certificate set for a cluster.")
def cluster_certs(
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="A new folder for the set (made 0700).")],
    force: Annotated[bool, typer.Option("--force", help="Replace a set already in DIR.")] = False,
) -> None:
    """Write a new certificate set for a cluster: a CA certificate, and the certificate and key every
    node presents. Copy the folder to every machine of the cluster."""
    from harness.cluster_certs import PURPOSES, write_certs

    made = _guard(lambda: write_certs(folder, force))
    typer.echo(f"wrote a cluster certificate set to {made.folder} (a folder only you can read):")
    width = max(len(str(path)) for path in (made.ca, made.cert, made.key))
    for path in (made.ca, made.cert, made.key):
        typer.echo(f"  {str(path):<{width}}  {PURPOSES[path.name]}")
    typer.echo("Copy the folder to every machine of the cluster (scheduler, workers, and where arena tournament runs), "
               "readable only by the user who runs arena there. The CA's private key is not kept: to shut a machine "
               "out, make a new set (--force) and copy it everywhere.")


@cluster_app.command("scheduler", cls=PlainCommand, short_help="Run the cluster's scheduler (mutual TLS).")
def cluster_scheduler(
    certs: CertsOption,
    host: Annotated[str, typer.Option(help="The address to listen at: this machine's address on the cluster's "
                                           "network (never every interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="The port to listen at (0: any free port).")] = 8786,
) -> None:
    """Run a dask scheduler with mutual TLS: only holders of the set's certificate can join it or use it."""
    from harness.cluster_certs import check_certs
    from harness.cluster_nodes import run_scheduler

    checked = _guard(lambda: check_certs(certs, "--certs"))

    def ready(address: str, http: str) -> None:
        typer.echo(f"scheduler listening at {address} (mutual TLS: certificates of {checked.folder})")
        typer.echo(f"HTTP endpoint (health, metrics) at {http}, this machine only")
        typer.echo(f"workers join with: arena cluster worker {address} --certs {checked.folder}")
        typer.echo("Ctrl-C stops it")

    _guard(lambda: run_scheduler(checked, host, port, ready))


@cluster_app.command("worker", cls=PlainCommand, short_help="Run a worker that plays the scheduler's games.")
def cluster_worker(
    address: Annotated[str, typer.Argument(help="The scheduler's address, tls://HOST:PORT.")],
    certs: CertsOption,
    host: Annotated[Optional[str], typer.Option(
        help="The address to listen at (default: this machine's address towards the scheduler; 127.0.0.1 for a "
             "scheduler on this machine).")] = None,
    port: Annotated[int, typer.Option(min=0, max=65535, help="The port to listen at (0: any free port).")] = 0,
    nthreads: Annotated[Optional[int], typer.Option(
        min=1, max=256, help="Games at once (default: the number of cores).")] = None,
) -> None:
    """Run a dask worker with mutual TLS that plays the games its scheduler hands out."""
    from harness.cluster_certs import check_certs
    from harness.cluster_nodes import run_worker

    scheduler = _guard(lambda: _parse_cluster(address, "ADDRESS"))
    checked = _guard(lambda: check_certs(certs, "--certs"))
    slots = nthreads or os.cpu_count() or 1

    def ready(listening: str, http: str) -> None:
        typer.echo(f"worker listening at {listening} with {slots} slots, joined the scheduler at {scheduler}")
        typer.echo(f"HTTP endpoint (health, metrics) at {http}, this machine only")
        typer.echo("Ctrl-C stops it")

    _guard(lambda: run_worker(scheduler, checked, host, port, slots, ready))


@app.command(cls=PlainCommand, short_help="Run or resume a tournament from a YAML config.")
def tournament(
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
    sandbox: Annotated[Optional[SandboxMode], typer.Option(
        "--sandbox", case_sensitive=False,
        help="Overrides the config's sandbox: auto (when bwrap works here, else warn), required, or off.")] = None,
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
    from harness.config import MAX_CONCURRENCY, load_config
    from harness.progress import wanted
    from harness.tournament import check_rounds, default_db_path, rounds_text, run_tournament

    if concurrency is not None and concurrency < 1:
        raise _fail(f"invalid --concurrency {concurrency}: must be at least 1")
    if concurrency is not None and concurrency > MAX_CONCURRENCY:
        raise _fail(f"invalid --concurrency {concurrency}: at most {MAX_CONCURRENCY} games at once")
    share = _guard(lambda: _parse_rounds(rounds)) if rounds is not None else None
    loaded = _guard(lambda: load_config(config, concurrency))
    if sandbox is not None:
        loaded = dataclasses.replace(loaded, sandbox=sandbox)
    if cluster is not None:
        loaded = dataclasses.replace(loaded, cluster=_guard(lambda: _parse_cluster(cluster)))
    if cluster_certs is not None or insecure_cluster:
        certs_folder = str(cluster_certs.resolve()) if cluster_certs is not None else loaded.cluster_certs
        loaded = dataclasses.replace(loaded, cluster_certs=certs_folder, insecure_cluster=insecure_cluster)
    _guard(lambda: check_rounds(loaded, share))
    if loaded.cluster is not None:
        from harness.cluster import check_access

        access_checked = loaded.cluster
        _guard(lambda: check_access(access_checked, loaded.cluster_certs, loaded.insecure_cluster))
    if loaded.cluster is None or loaded.cluster.scheduler is None:  # on a scheduler, each worker resolves its own
        _use_sandbox(loaded.sandbox, warn=False)  # warned when games start, after every other check
    db_path = db if db is not None else default_db_path(loaded)
    from harness.outputs import check_database
    from harness.store import log_path

    _guard(lambda: check_database(db_path, "--db"))
    _guard(lambda: _setup_logging(log_path(db_path), verbose))
    try:
        summary = _guard(lambda: run_tournament(loaded, db_path, force_new, progress=wanted(progress), rounds=share,
                                                on_warning=_warn))
    except KeyboardInterrupt:
        raise _stopped(f"interrupted: finished games are saved in {db_path}; rerun the same command to resume") from None
    scheduled = f"{summary.scheduled} scheduled" + (f" in rounds {rounds_text(share)}" if share else "")
    failed = f", {summary.failed} failed (see the log)" if summary.failed else ""
    _echo(f"{summary.played} games played now, {summary.already_done} already in {db_path}, {scheduled}{failed}")
    _echo("")
    _guard(lambda: _print_report(db_path, summary.tournament, "text"))


@app.command(cls=PlainCommand, short_help="A stored tournament's tables: text, JSON, CSV or pages.",
             context_settings={"allow_extra_args": True})  # `--csv DIR`: DIR arrives as an extra argument
def report(
    context: typer.Context,
    db: Annotated[Path, typer.Argument(help="Results database of a tournament.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    as_csv: Annotated[bool, typer.Option(
        "--csv", help="Print the ratings table as CSV; --csv DIR writes every table into DIR instead, one CSV "
                      "file each (ratings, crosstable, pairs, by_colour, faults, move_times).")] = False,
    html: Annotated[Optional[Path], typer.Option(
        "--html", metavar="DIR", help="Also write the report as pages into DIR (index.html, a replay per "
                                      "game); they work offline.")] = None,
    tournament_id: Annotated[
        Optional[int], typer.Option("--tournament", help="Tournament number in the database (default: latest).")
    ] = None,
    progress: ProgressOption = None,
) -> None:
    """Print a tournament's crosstable, ratings, faults and move times; write them as pages or CSV files."""
    extra = list(context.args)
    if extra and not as_csv:
        raise _fail(f"unexpected argument {extra[0]!r}: a folder for the CSV tables goes after --csv "
                    f"(arena report {db} --csv {extra[0]})")
    if len(extra) > 1:
        raise _fail(f"unexpected argument {extra[1]!r}: --csv takes one folder")
    csv_dir = Path(extra[0]) if extra else None
    if as_json and as_csv and csv_dir is None:
        raise _fail("give at most one of --json and --csv (or --csv DIR to write the tables to files)")
    fmt = "json" if as_json else "csv" if as_csv and csv_dir is None else "text"
    from harness.progress import wanted

    _guard(lambda: _print_report(db, tournament_id, fmt, html, csv_dir, wanted(progress)))


@app.command(cls=PlainCommand, short_help="Join shares of one tournament played on several machines.")
def merge(
    db: Annotated[Path, typer.Argument(help="Results database to add the games to (created if missing).")],
    sources: Annotated[list[Path], typer.Argument(help="Databases holding shares of the same tournament.")],
) -> None:
    """Add the games of each SOURCE's latest tournament to DB: shares of one tournament played on
    several machines (arena tournament --rounds) become one tournament to report. Each game is
    checked as arena import checks a line; a share with one refused game adds nothing."""
    from harness.admit import merge_share
    from harness.outputs import check_database, new_database
    from harness.store import Store

    def run() -> None:
        check_database(db, "DB")
        for source in sources:
            if not source.is_file():
                raise UsageError(f"no results database at {source}; check the path")
            if source.resolve() == db.resolve():
                raise UsageError(f"{source} is the database being merged into; give the shares to add")
        shares: list[tuple[Path, Store, int]] = []
        try:
            for source in sources:
                with _reading(source):
                    share = Store(source, read_only=True)
                    chosen = share.latest_tournament()
                if chosen is None:
                    share.close()
                    raise UsageError(f"{source} holds no tournament to merge")
                shares.append((source, share, chosen))
            with new_database(db) as made, Store(db, role="arena merge") as target:
                for source, share, chosen in shares:
                    with _reading(source):
                        name = share.tournament_info(chosen)["name"]
                        tournament, added, already = merge_share(target, share, chosen)
                    made.written = True
                    _echo(f"{source}: {added} games of tournament {name!r} added to {db} "
                          f"(#{tournament}), {already} already there")
        finally:
            for _, share, _ in shares:
                share.close()

    _guard(run)


RESULT_CHOICES = ("1-0", "0-1", "1/2-1/2", "draw", "win", "loss")


def _open_results(db: Path) -> Any:
    from harness.store import Store

    if not db.exists():
        raise UsageError(f"no results database at {db}; check the path")
    return Store(db, read_only=True)


@app.command(cls=PlainCommand, short_help="Play pairs until a sequential test decides A is stronger.")
def sprt(
    engine_a: Annotated[str, typer.Argument(help="The engine under test: a built-in name or a command.")],
    engine_b: Annotated[str, typer.Argument(help="The engine it is measured against.")],
    elo0: Annotated[float, typer.Option("--elo0", help="H0: ENGINE_A is this many Elo stronger (e.g. 0).")],
    elo1: Annotated[float, typer.Option("--elo1", help="H1: ENGINE_A is this many Elo stronger (e.g. 10).")],
    alpha: Annotated[float, typer.Option("--alpha", help="Chance of accepting H1 when H0 holds.")] = 0.05,
    beta: Annotated[float, typer.Option("--beta", help="Chance of accepting H0 when H1 holds.")] = 0.05,
    game: GameOption = "betsy",
    n: BetsyNOption = None,
    size: SizeOption = None,
    time: Annotated[float, typer.Option("--time", help="Seconds per move.")] = 1,
    allow_fractional_time: Annotated[
        bool, typer.Option("--allow-fractional-time", help="Pass fractional SECONDS (e.g. 0.5) to the engines.")
    ] = False,
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
    from harness import sprt_run
    from harness.config import MAX_CONCURRENCY
    from harness.engines import check_games, resolve_engine
    from harness.programs import check_layout
    from harness.settings import settings_from_flags

    def prepare() -> sprt_run.SprtPlan:
        settings = settings_from_flags({"game": game, "time": time, "allow_fractional_time": allow_fractional_time})
        board_size = _game_size(game, n, size)
        if not elo0 < elo1:
            raise UsageError(f"invalid --elo0 {elo0:g} --elo1 {elo1:g}: elo0 must be below elo1")
        for option, value in (("--alpha", alpha), ("--beta", beta)):
            if not 0 < value < 0.5:
                raise UsageError(f"invalid {option} {value:g}: give a probability between 0 and 0.5, e.g. 0.05")
        if not 1 <= max_pairs <= sprt_run.MAX_PAIRS:
            raise UsageError(f"invalid --max-pairs {max_pairs}: give 1 to {sprt_run.MAX_PAIRS}")
        if concurrency is not None and not 1 <= concurrency <= MAX_CONCURRENCY:
            raise UsageError(f"invalid --concurrency {concurrency}: give 1 to {MAX_CONCURRENCY}")
        if openings is not None and not openings.is_file():
            raise UsageError(f"invalid --openings {openings}: no such file")
        first, second = resolve_engine(engine_a), resolve_engine(engine_b)
        check_games([first, second], game)
        check_layout([first, second])
        return sprt_run.plan(
            first, second, settings, board_size, elo0=elo0, elo1=elo1,
            alpha=alpha, beta=beta, max_pairs=max_pairs, openings_file=openings, seed=seed, plies=opening_plies,
            concurrency=concurrency or max(1, os.cpu_count() or 1), sandbox=sandbox, db=db)

    test = _guard(prepare)
    _use_sandbox(sandbox, warn=False)
    from harness.outputs import check_database
    from harness.store import log_path

    _guard(lambda: check_database(test.db, "--db"))
    _guard(lambda: _setup_logging(log_path(test.db), False))  # as a tournament's, beside its games
    a, b = test.names
    _echo(f"SPRT {a} vs {b}: H0 elo = {elo0:g}, H1 elo = {elo1:g}, alpha {alpha:g}, beta {beta:g}; "
               f"{test.config.settings.rules.title} {test.config.settings.rules.size_phrase(test.config.sizes[0])}, "
               f"{time:g} s per move; games in {test.db}")
    try:
        final = _guard(lambda: sprt_run.run(test, _echo, on_warning=_warn))
    except KeyboardInterrupt:
        raise _stopped(f"interrupted: finished games are saved in {test.db}; rerun the same command to resume") from None
    _echo(sprt_run.verdict(test, final))


@app.command(cls=PlainCommand, short_help="Play against an engine in the terminal.")
def play(
    game: GameOption = "betsy",
    n: BetsyNOption = None,
    size: SizeOption = None,
    engine: Annotated[Optional[str], typer.Option(
        "--engine", help="Your opponent: a built-in name or a command (e.g. 'python3 betsy.py'); default: the "
                         "game's strongest, mcts-alphabeta (Betsy, Connect Four) or bestmove (kings-horses).",
        show_default=False)] = None,
    time: Annotated[float, typer.Option("--time", help="The engine's seconds per move.")] = 1,
    human: Annotated[str, typer.Option("--human", help="Your side: x (moves first) or o.")] = "x",
    db: Annotated[Path, typer.Option("--db", help="Where the finished game is stored.")] = Path("results/play.sqlite"),
    max_plies: Annotated[int, typer.Option("--max-plies", help="Draw after this many moves.")] = 200,
    win_priority: Annotated[
        str, typer.Option(help="Betsy: whose lines count first when a move completes both: mover or blue.")
    ] = "mover",
    allow_fractional_time: Annotated[
        bool, typer.Option("--allow-fractional-time", help="Pass fractional SECONDS (e.g. 0.5) to the engine.")
    ] = False,
    sandbox: SandboxOption = SandboxMode.AUTO,
) -> None:
    """Play a game against an engine in the terminal; the finished game is stored like any other."""
    from harness.engines import EngineSpec, check_games, resolve_engine
    from harness.play import play as play_game_with_a_person
    from harness.programs import check_layout
    from harness.outputs import check_database
    from harness.settings import GameSettings, settings_from_flags
    from harness.terminal import use_colour

    def prepare() -> tuple[GameSettings, str, EngineSpec]:
        settings = settings_from_flags({
            "game": game, "time": time, "allow_fractional_time": allow_fractional_time,
            "max_plies": max_plies, "win_priority": win_priority,
        })
        board_size = _game_size(game, n, size)
        if human not in ("x", "o"):
            raise UsageError(f"invalid --human {human!r}: use x (you move first) or o")
        check_database(db, "--db")
        opponent = resolve_engine(engine if engine is not None else _strongest(game))
        check_games([opponent], game)
        check_layout([opponent])
        return settings, board_size, opponent

    settings, board_size, opponent = _guard(prepare)
    limits = settings.limits(sandbox=_use_sandbox(sandbox))

    def ask_line(prompt: str) -> str:
        return input(prompt)

    try:
        _guard(lambda: play_game_with_a_person(settings, board_size, opponent, human, limits, db, ask_line,
                                               typer.echo, use_colour()))
    except KeyboardInterrupt:
        raise _stopped("\ninterrupted; an unfinished game is not stored") from None


def _strongest(game: str) -> str:
    """The strongest built-in engine of ``game`` (named once, in engines/strongest.py)."""
    from engines.strongest import STRONGEST

    return str(STRONGEST[game])


@app.command("games", cls=PlainCommand, short_help="List the stored games.")
def games_list(
    db: Annotated[Path, typer.Argument(help="Results database.")],
    tournament_id: Annotated[Optional[int], typer.Option("--tournament", help="Only this tournament's games.")] = None,
    engine: Annotated[Optional[str], typer.Option("--engine", help="Only games this engine played.")] = None,
    result: Annotated[Optional[str], typer.Option(
        "--result", help="Only these results: 1-0, 0-1, 1/2-1/2 (or draw); with --engine also win or loss.")] = None,
) -> None:
    """List stored games: number, players, size, result, how it ended, plies."""
    def run() -> None:
        if result is not None and result not in RESULT_CHOICES:
            raise UsageError(f"invalid --result {result!r}: use one of {', '.join(RESULT_CHOICES)}")
        if result in ("win", "loss") and engine is None:
            raise UsageError(f"--result {result} needs --engine NAME (whose win or loss)")
        with _reading(db), _open_results(db) as store:
            if tournament_id is not None and not store.has_tournament(tournament_id):
                raise UsageError(f"{db} has no tournament #{tournament_id}")
            rows = store.game_rows(tournament_id)
        if engine is not None:
            rows = [row for row in rows if engine in (row.x, row.o)]
        if result is not None:
            rows = [row for row in rows if _result_matches(row.result, row.x, row.o, result, engine)]
        if not rows:
            _echo("no games match")
            return
        name_width = min(18, max(len(name) for row in rows for name in (row.x, row.o)))
        size_width = max(4, *(len(row.size) for row in rows))
        id_width = max(2, len(str(rows[-1].id)))
        _echo(f"{'id':>{id_width}}  {'x':<{name_width}}  {'o':<{name_width}}  {'size':<{size_width}}  "
                   f"{'result':<7}  {'end':<14}  {'plies':>5}  key")
        for row in rows:
            _echo(f"{row.id:>{id_width}}  {row.x[:name_width]:<{name_width}}  {row.o[:name_width]:<{name_width}}  "
                       f"{row.size:<{size_width}}  {row.result:<7}  {row.termination:<14}  {row.plies:>5}  {row.key}")

    _guard(run)


def _result_matches(stored: str, x: str, o: str, wanted: str, engine: str | None) -> bool:
    if wanted == "draw":
        return stored == "1/2-1/2"
    if wanted in ("win", "loss"):
        winner = {"1-0": x, "0-1": o}.get(stored)
        return (winner == engine) if wanted == "win" else (winner is not None and winner != engine)
    return stored == wanted


@app.command(cls=PlainCommand, short_help="Step through a stored game.")
def replay(
    db: Annotated[Path, typer.Argument(help="Results database.")],
    game_id: Annotated[str, typer.Argument(help="The game's number (from arena games) or its key.")],
    show_all: Annotated[bool, typer.Option("--all", help="Print every board at once (for a pipe).")] = False,
) -> None:
    """Step through a stored game: Enter or -> next, <- or Backspace back, Home/End, q quits."""
    from harness import gamelog

    def load() -> tuple[Any, Any]:
        with _reading(db), _open_results(db) as store:
            found = store.find_game(game_id)
            if found is None:
                raise UsageError(f"{db} has no game {game_id!r}; list them with 'arena games {db}'")
            row = next(r for r in store.game_rows() if r.id == found)
            return row, store.game_record(found)

    row, record = _guard(load)
    steps = gamelog.frames(record)
    total = len(record.moves)
    if show_all or not (sys.stdin.isatty() and sys.stdout.isatty()):
        _echo(gamelog.heading(row, record))
        for frame in steps:
            _echo("")
            _echo(gamelog.describe_frame(record, frame, total), lines=True)
        _echo()
        _echo(f"result: {record.result} ({record.reason})")
        return
    from harness.terminal import step_through

    pages = [gamelog.describe_frame(record, frame, total) for frame in steps]
    step_through(gamelog.heading(row, record), pages, visible(f"result: {record.result} ({record.reason})"))


@app.command("export", cls=PlainCommand, short_help="Write stored games out: JSON Lines or game sheets.")
def export_games(
    db: Annotated[Path, typer.Argument(help="Results database.")],
    fmt: Annotated[str, typer.Option("--format", help="jsonl (one game per line, arena match --json plus its "
                                                      "id and tournament) or text (a game sheet per game).")] = "jsonl",
    tournament_id: Annotated[Optional[int], typer.Option("--tournament", help="Only this tournament's games.")] = None,
    progress: ProgressOption = None,
) -> None:
    """Write every stored game to standard output, as JSON Lines (for arena import) or game sheets."""
    from harness import gamelog
    from harness.progress import bar as progress_bar
    from harness.progress import wanted

    def run() -> None:
        if fmt not in ("jsonl", "text"):
            raise UsageError(f"invalid --format {fmt!r}: use jsonl or text")
        with _reading(db), _open_results(db) as store:
            if tournament_id is not None and not store.has_tournament(tournament_id):
                raise UsageError(f"{db} has no tournament #{tournament_id}")
            rows = store.game_rows(tournament_id)
            with progress_bar(len(rows), "export", "game", wanted(progress)) as written:
                if fmt == "jsonl":
                    for data in gamelog.export_records(store, tournament_id):
                        typer.echo(json.dumps(data, sort_keys=False))
                        written.update(1)
                    return
                for index, row in enumerate(rows):
                    if index:
                        _echo("")
                    _echo(gamelog.game_sheet(row, store.game_record(row.id)), lines=True)
                    written.update(1)

    _guard(run)


@app.command("import", cls=PlainCommand, short_help="Read exported games back into a results database.")
def import_games(
    db: Annotated[Path, typer.Argument(help="Results database to add the games to (created if missing).")],
    files: Annotated[list[Path], typer.Argument(help="JSON Lines files written by arena export.")],
    progress: ProgressOption = None,
) -> None:
    """Read games exported by arena export back into a results database (games already there are
    skipped). Each game is replayed through the rules and held to its tournament; a file with one
    refused line adds nothing."""
    from harness import gamelog
    from harness.outputs import check_database, new_database
    from harness.progress import wanted
    from harness.store import Store

    def run() -> None:
        check_database(db, "DB")
        opened: list[tuple[Path, BinaryIO]] = []
        try:
            for file in files:
                try:
                    opened.append((file, open(file, "rb")))  # noqa: SIM115 - closed below
                except OSError as error:
                    raise UsageError(f"cannot read {file}: {error.strerror or error}") from None
            with new_database(db) as made, Store(db, role="arena import") as store:
                for file, handle in opened:
                    try:
                        with _read_with_progress(handle, str(file), wanted(progress)) as counted:
                            added, already = gamelog.import_records(store, counted, str(file))
                    except OSError as error:
                        raise UsageError(f"cannot read {file}: {error.strerror or error}") from None
                    made.written = True
                    _echo(f"{file}: {added} games added to {db}, {already} already there")
        finally:
            for _, handle in opened:
                handle.close()

    _guard(run)


class _Counted:
    """A binary file whose lines read move a progress bar by their bytes."""

    def __init__(self, file: BinaryIO, bar: Any) -> None:
        self.file, self.bar = file, bar

    def readline(self, limit: int = -1) -> bytes:
        line = self.file.readline(limit)
        self.bar.update(len(line))
        return line

    def fileno(self) -> int:
        return self.file.fileno()


@contextlib.contextmanager
def _read_with_progress(file: BinaryIO, name: str, show: bool) -> Iterator[BinaryIO]:
    """``file``, its reading shown as a bar of bytes (of its size, when it is a regular file)."""
    from harness.progress import bar as progress_bar

    try:
        size: int | None = os.fstat(file.fileno()).st_size or None
    except OSError:
        size = None
    with progress_bar(size, os.path.basename(name), "B", show, unit_scale=True, unit_divisor=1024) as bar:
        yield _Counted(file, bar)  # type: ignore[misc]


def _parse_rounds(text: str) -> tuple[int, int]:
    first, dash, last = text.strip().partition("-")
    try:
        bounds = (int(first), int(last) if dash else int(first))
    except ValueError:
        raise UsageError(f"invalid --rounds {text!r}: give FIRST-LAST (e.g. 51-100) or one round number") from None
    return bounds


def _parse_sizes(game: str, n: str | None, size: str | None) -> tuple[str, ...]:
    """Board sizes from --n (Betsy) or --size (any game), separated by commas, each checked; the
    game's example sizes if neither is given."""
    from harness.games.betsy import MAX_N, size_problem

    rules = _rules(game)
    if n is not None and size is not None:
        raise UsageError("give the board sizes once, as --n or --size")
    if n is not None and game != "betsy":
        raise UsageError(f"invalid --n {n!r}: a Betsy option; give {rules.title}'s sizes as --size "
                         f"(e.g. --size {','.join(rules.example_sizes)})")
    if n is not None:
        sizes = []
        for part in n.split(","):
            part = part.strip()
            if not (part.isascii() and part.isdigit()) or int(part) < 1:
                raise UsageError(f"invalid --n {n!r}: give board sizes >= 1 separated by commas, e.g. 3,5,8")
            if len(part) > 6 or size_problem(int(part)) is not None:
                raise UsageError(f"invalid --n {n!r}: {size_problem(MAX_N + 1)}")
            sizes.append(str(int(part)))
        return tuple(dict.fromkeys(sizes))
    if size is None:
        return rules.example_sizes
    try:
        return rules.sizes(size)
    except PositionError as error:
        raise _size_refused("--size", size, error) from None


@app.command(cls=PlainCommand, short_help="Check a student's program: protocol, rules, time, tactics.")
def validate(
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
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
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
) -> None:
    """Check a student's program against the protocol, the rules, the clock and our engines.

    Exit status: 0 when protocol, rules, time and robustness pass; 1 otherwise; 2 for usage errors.
    """
    from harness.engines import EngineSpec, command_engine, program_command, refuse_link
    from harness.outputs import check_file, write_kept
    from harness.programs import check_layout
    from harness.validate import Settings
    from harness.validate import validate as run_validation
    from harness.validate_render import render_html, render_text

    def prepare() -> Settings:
        from harness.settings import settings_from_flags

        seconds = time if time is not None else 10 if game == "kings-horses" else 1
        play = settings_from_flags({"game": game, "time": seconds, "allow_fractional_time": allow_fractional_time})
        if game == "kings-horses" and (n is not None or size is not None):
            option, value = ("--n", n) if n is not None else ("--size", size)
            raise UsageError(f"invalid {option} {value}: kings-horses validation draws its own positions "
                             "(coordinates 1..8, 1..15 and 1..30); leave it out")
        sizes = _parse_sizes(game, n, size) if game != "kings-horses" else ()
        if games is not None and not 0 <= games <= MAX_VALIDATE_GAMES:
            raise UsageError(f"invalid --games {games}: give 0 to {MAX_VALIDATE_GAMES} games per reference engine")
        if html is not None:
            check_file(html, "--html")
        count = games if games is not None else (1 if quick else 2)
        return Settings(play, sizes=sizes, games=count, quick=quick,
                        concurrency=concurrency or max(1, min(2, os.cpu_count() or 1)),
                        file_bytes=max_file_mb << 20, processes=max_processes)

    settings = _guard(prepare)
    command = program_command(program)  # a path holding a quote or a space is the file itself
    path = Path(program)
    # A program that is missing or cannot be run is a bad argument: one line, nothing is run.
    if " " not in program.strip() and path.suffix == ".py" and path.is_file() and not os.access(path, os.X_OK):
        _guard(lambda: refuse_link(program, program, os.path.join(os.getcwd(), program)))
        raise _fail(f"{path.resolve()} is not executable; run chmod +x {path}, or validate 'python3 {program}' instead")
    found = _guard(lambda: command_engine(command, name=program))
    _guard(lambda: check_layout([found]))
    engine: EngineSpec | None = found
    start_problem = None
    settings = dataclasses.replace(settings, sandbox=_use_sandbox(sandbox))

    from harness.progress import bar as progress_bar
    from harness.progress import validation_steps, wanted

    # A step per check on stderr, in every output mode (stdout stays the report alone).
    show = not quiet and wanted(True if progress else None)
    bar = progress_bar(validation_steps(settings) if show and engine is not None else None, "validating", "check",
                       show)

    def step(text: str) -> None:
        bar.set_postfix_str(text, refresh=False)
        bar.update(1)

    try:
        if game == "kings-horses":
            from harness.validate_kings_horses import validate_kings_horses

            report = validate_kings_horses(program, engine, settings, start_problem, step)
        else:
            report = run_validation(program, engine, settings, start_problem, step)
    finally:
        bar.close()
    if as_json:  # the verdict first: an --html that cannot be written at the end loses nothing
        typer.echo(json.dumps(report.to_json()))
    else:
        _echo(render_text(report, verbose), lines=True)
    if html is not None:
        base = Path(engine.program).parent if engine is not None and engine.program else None
        page = render_html(report, base)
        _guard(lambda: write_kept(lambda path: _write_text(path, page), html, "arena-validate.html", "--html"))
        if not as_json:
            _echo()
            _echo(f"HTML report: {html}")
    raise typer.Exit(0 if report.passed else 1)


def _write_text(path: Path, text: str) -> None:
    """Write a page, its folder made if missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="backslashreplace") as file:  # text of names that are not UTF-8
        file.write(text)


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
    (typer's own usage errors included); help and normal runs are unchanged."""
    args = sys.argv[1:] if argv is None else list(argv)
    handlers = _stop_on_signals()
    try:
        status = app(prog_name="arena", args=args, standalone_mode=False)
    except click_exceptions.NoArgsIsHelpError as error:
        typer.echo(error.format_message())
        status = 2
    except click_exceptions.UsageError as error:
        typer.echo(f"arena: error: {_one_line(_usage_line(error, args))}", err=True)
        status = 2
    except click_exceptions.ClickException as error:
        typer.echo(f"arena: error: {visible(' '.join(error.format_message().split()))}", err=True)
        status = 2
    except (typer.Abort, KeyboardInterrupt):
        _STOPPED.setdefault("signal", signal.SIGINT)
    except (HarnessError, PositionError) as error:
        typer.echo(f"arena: error: {_one_line(str(error))}", err=True)
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
    if "signal" in _STOPPED:  # typer turns KeyboardInterrupt into exit status 130 without a word
        if not _STOPPED.get("told"):
            typer.echo("arena: interrupted", err=True)
        status = 128 + _STOPPED["signal"]
    sys.exit(status if isinstance(status, int) else 0)


_STOPPED: dict[str, int] = {}
"""The signal that stopped this command ("signal") and whether the command said how it left its
work ("told"); main() then exits 128 + the signal's number: 130 for Ctrl-C, 143 for SIGTERM."""


def _stopped(message: str) -> typer.Exit:
    """Tell how an interrupted command left its work (main() picks the exit status)."""
    _echo(message, err=True, lines=True)
    _STOPPED["told"] = 1
    return typer.Exit(130)


def _stop_on_signals() -> dict[int, signal._HANDLER]:
    """Ctrl-C and SIGTERM stop a command the same way: this process's engines are killed and no
    more start, then KeyboardInterrupt unwinds the command (finished games kept, pool workers
    stopped, scratch folders removed at exit). Returns the handlers they replace."""
    _STOPPED.clear()
    if threading.current_thread() is not threading.main_thread():
        return {}

    def stop(signum: int, frame: object) -> None:
        from harness.referee import stop_calls

        _STOPPED.setdefault("signal", signum)
        stop_calls()
        raise KeyboardInterrupt

    return {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}


if __name__ == "__main__":
    main()
