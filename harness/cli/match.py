"""``arena moves`` (a position's legal moves) and ``arena match`` (games between two engines, shown)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from harness.cli.console import echo
from harness.cli.options import (
    BetsyNOption,
    FractionalTimeOption,
    GameOption,
    MaxFileOption,
    MaxPliesOption,
    MaxProcessesOption,
    SandboxOption,
    SizeOption,
    TimeOption,
    WinPriorityOption,
    board_size,
    has_win_priority,
    use_sandbox,
)
from harness.errors import UsageError
from harness.games.registry import PLAYERS, get_game, move_list
from harness.referee.referee import Limits
from harness.referee.sandbox import SandboxMode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from harness.games.registry import Game
    from harness.match.match import GameRecord, MoveRecord

MAX_GAMES = 10_000
"""Most games one `arena match` plays."""
MAX_OPENINGS = 64
"""Random openings a match cycles through (games 2k+1 and 2k+2 play opening k mod this)."""


def _parse_position(game: str, size: str, player: str, board: str, win_priority: str) -> Any:
    rules = get_game(game)
    if win_priority not in ("mover", "blue"):
        raise UsageError(f"invalid --win-priority {win_priority!r}: use mover or blue")
    if not has_win_priority(game) and win_priority != "mover":
        raise UsageError(f"invalid --win-priority {win_priority!r}: a Betsy rule, {game} has no such option")
    from harness.games.registry import RuleOptions

    return rules.position(size, player, board, RuleOptions(win_priority))


def moves_command(
    size: Annotated[str, typer.Argument(
        help="Board size: n for Betsy (n columns, n + 3 rows), WxH for Connect Four (e.g. 8x8).",
        show_default=False, metavar="SIZE")],
    player: Annotated[str, typer.Argument(help="Side to move: x (moves first) or o.")],
    board: Annotated[str, typer.Argument(help="Board, row-major from the top row, of . x o.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON list of {move, board, winner}.")
    ] = False,
    win_priority: WinPriorityOption = "mover",
    game: GameOption = "betsy",
) -> None:
    """List every legal move with its resulting board and what it does."""
    position = _parse_position(game, size, player, board, win_priority)
    rules = get_game(game)
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


def _print_move(record: GameRecord, move: MoveRecord, position: Any) -> None:
    rules = get_game(record.game)
    seconds = f"{move.seconds:.2f} s"
    echo(f"{move.ply:>4}. {move.player} {move.engine}: {rules.describe_move(move.move or 0)} ({seconds})")
    for warning in move.warnings:
        echo(f"      warning: {warning}")
    for row in rules.render(position, move.move).splitlines():
        echo("        " + row)


def _match_starts(settings: Any, size: str, size_given: bool, start: tuple[str, str, str] | None,
                  start_file: Path | None, openings: Path | None, seed: int | None, plies: int) -> list[Any]:
    """The start positions of a match's games, in order (each played twice, colours swapped); empty
    for the empty board."""
    from harness.errors import ConfigError
    from harness.tournament.config import read_openings
    from harness.tournament.schedule import random_opening

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
        if size_given and size not in found:
            raise UsageError(f"invalid {option}: {path} holds no {rules.size_phrase(size)} position")
        sizes = [size] if size_given else list(found)
        positions = [rules.position(each, o.player, o.board, options) for each in sizes for o in found[each]]
        if option == "--start-file" and len(positions) != 1:
            raise UsageError(f"invalid --start-file: {path} holds {len(positions)} positions; give one, or use --openings")
        return positions
    if seed is None and not rules.has_draws:  # no fixed start (All The King's Horses): random ones
        seed = 1
    if seed is not None:
        return [rules.position(size, o.player, o.board, options)
                for o in (random_opening(rules, size, plies, seed, k) for k in range(MAX_OPENINGS))]
    return []


def _playable(rules: Game, position: Any, option: str) -> Any:
    if position.winner() is not None or rules.end_reason(position) is not None:
        raise UsageError(f"invalid {option}: the game is already over in this position")
    return position


def match_command(
    engine_x: Annotated[str, typer.Argument(help="x (moves first) in game 1: a built-in name or a command.")],
    engine_o: Annotated[str, typer.Argument(help="o in game 1: a built-in name or a command.")],
    game: GameOption = "betsy",
    n: BetsyNOption = None,
    size: SizeOption = None,
    time: TimeOption = 1,
    games: Annotated[int, typer.Option("--games", help="Games to play; colours alternate.")] = 1,
    max_plies: MaxPliesOption = 200,
    win_priority: WinPriorityOption = "mover",
    grace: Annotated[float, typer.Option(help="Seconds past the limit allowed for start-up and exit.")] = 0.5,
    allow_fractional_time: FractionalTimeOption = False,
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
    from harness.match.match import Overloaded, play_game, score_for_x
    from harness.match.settings import settings_from_flags
    from harness.referee.engine_specs import check_games, resolve_engine
    from harness.referee.programs import check_layout

    settings = settings_from_flags({
        "game": game, "time": time, "allow_fractional_time": allow_fractional_time, "grace": grace,
        "max_plies": max_plies, "win_priority": win_priority,
    })
    size_played = board_size(game, n, size)
    if games < 1:
        raise UsageError(f"invalid --games {games}: play at least one game")
    if games > MAX_GAMES:
        raise UsageError(f"invalid --games {games}: at most {MAX_GAMES} games")
    first, second = resolve_engine(engine_x), resolve_engine(engine_o)
    check_games([first, second], game)
    check_layout([first, second])
    starts = _match_starts(settings, size_played, n is not None or size is not None, start, start_file, openings,
                           seed, opening_plies)
    limits = Limits(sandbox=use_sandbox(sandbox), file_bytes=max_file_mb << 20, processes=max_processes)
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
            shown = starts[(index // 2) % len(starts)].size_text if starts else size_played
            number = f"{index + 1}/{games}" if games > 1 else "1"
            echo(f"game {number}: {x.name} (x) vs {o.name} (o), {rules.title} "
                 f"{rules.size_phrase(shown)}, {settings.time:g} s per move")
        opening = starts[(index // 2) % len(starts)] if starts else None
        try:
            record = play_game(x, o, settings, size_played, start=opening, limits=limits,
                               on_move=None if as_json else _print_move)
        except Overloaded as error:
            echo(f"game not counted: {error}")
            played.update(1)
            continue
        blue = score_for_x(record.result)
        scores[0] += 1 - blue if swap else blue
        scores[1] += blue if swap else 1 - blue
        if as_json:
            typer.echo(json.dumps(record.to_json()))
        else:
            echo(f"result: {record.result} ({record.reason})")
            if record.fault is not None:
                for line in record.fault.evidence_lines():
                    echo(line)
        played.update(1)
    played.close()
    if not as_json and games > 1:
        echo(f"score: {first.name} {scores[0]:g} - {scores[1]:g} {second.name}")
