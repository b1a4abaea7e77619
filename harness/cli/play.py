"""``arena play``: a person against an engine at the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from harness.cli.console import stopped
from harness.cli.options import (
    BetsyNOption,
    GameOption,
    MaxPliesOption,
    SandboxOption,
    SizeOption,
    WinPriorityOption,
    board_size,
    use_sandbox,
)
from harness.errors import UsageError
from harness.referee.referee import Limits
from harness.referee.sandbox import SandboxMode


def play_command(
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
    max_plies: MaxPliesOption = 200,
    win_priority: WinPriorityOption = "mover",
    allow_fractional_time: Annotated[
        bool, typer.Option("--allow-fractional-time", help="Pass fractional SECONDS (e.g. 0.5) to the engine.")
    ] = False,
    sandbox: SandboxOption = SandboxMode.AUTO,
) -> None:
    """Play a game against an engine in the terminal; the finished game is stored like any other."""
    from harness.match.human import play as play_with_a_person
    from harness.match.settings import settings_from_flags
    from harness.store.played import keep_played
    from harness.store.store import check_database
    from harness.referee.engine_specs import check_games, resolve_engine
    from harness.referee.programs import check_layout
    from harness.terminal import use_colour

    settings = settings_from_flags({
        "game": game, "time": time, "allow_fractional_time": allow_fractional_time,
        "max_plies": max_plies, "win_priority": win_priority,
    })
    size_played = board_size(game, n, size)
    if human not in ("x", "o"):
        raise UsageError(f"invalid --human {human!r}: use x (you move first) or o")
    check_database(db, "--db")
    opponent = resolve_engine(engine if engine is not None else _strongest(game))
    check_games([opponent], game)
    check_layout([opponent])
    limits = Limits(sandbox=use_sandbox(sandbox))

    def ask_line(prompt: str) -> str:
        return input(prompt)

    try:
        record = play_with_a_person(settings, size_played, opponent, human, limits, ask_line, typer.echo, use_colour())
        if record is not None:
            keep_played(db, settings, opponent, record)
    except KeyboardInterrupt:
        raise stopped("\ninterrupted; an unfinished game is not stored") from None


def _strongest(game: str) -> str:
    """The strongest built-in engine of ``game`` (named once, in engines/strongest.py)."""
    from engines.strongest import STRONGEST

    return str(STRONGEST[game])
