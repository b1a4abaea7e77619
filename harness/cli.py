"""The ``arena`` command line: thin commands over the library; errors become one line and exit 2."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Annotated, TypeVar

import typer

from harness.errors import HarnessError, UsageError
from harness.games.betsy import PLAYERS, Position, PositionError

app = typer.Typer(
    name="arena",
    help="Betsy Arena: tournaments, validation and engines for the board game Betsy.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

T = TypeVar("T")


@app.callback()
def _root() -> None:
    """Betsy Arena: tournaments, validation and engines for the board game Betsy."""


def _fail(message: str) -> typer.Exit:
    typer.echo(f"arena: error: {message}", err=True)
    return typer.Exit(2)


def _guard(action: Callable[[], T]) -> T:
    """Run ``action``; a HarnessError or invalid position becomes one line on stderr and exit 2."""
    try:
        return action()
    except (HarnessError, PositionError) as error:
        raise _fail(str(error)) from None


def _parse_position(n: int, player: str, board: str, win_priority: str) -> Position:
    if win_priority not in ("mover", "blue"):
        raise UsageError(f"invalid --win-priority {win_priority!r}: use mover or blue")
    return Position.from_text(n, player, board, win_priority)  # type: ignore[arg-type]


@app.command()
def moves(
    n: Annotated[int, typer.Argument(help="Board size: n columns, n + 3 rows.")],
    player: Annotated[str, typer.Argument(help="Side to move: x (blue) or o (red).")],
    board: Annotated[str, typer.Argument(help="Board, row-major from the top row, of . x o.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON list of {move, board, winner}.")
    ] = False,
    win_priority: Annotated[
        str, typer.Option(help="Whose lines count first when a move completes both: mover or blue.")
    ] = "mover",
) -> None:
    """List every legal move with its resulting board and what it does."""
    position = _guard(lambda: _parse_position(n, player, board, win_priority))
    rows = []
    for move in position.legal_moves():
        child = position.copy()
        child.push(move)
        winner = child.winner()
        rows.append((move, child.board(), None if winner is None else PLAYERS[winner]))
    if as_json:
        typer.echo(json.dumps([{"move": m, "board": b, "winner": w} for m, b, w in rows]))
        return
    already = position.winner()
    typer.echo(f"n = {n}, {position.player} to move, {len(rows)} legal moves")
    if already is not None:
        typer.echo(f"note: {PLAYERS[already]} already has a line here; the game is over")
    width = max(len(str(m)) for m, _, _ in rows)
    for move, child_board, winner in rows:
        effect = "game goes on" if winner is None else f"{winner} wins"
        kind = "drop  " if move > 0 else "rotate"
        typer.echo(f"{move:>{width}}  {kind} {abs(move):<{len(str(n))}}  {child_board}  {effect}")


def main() -> None:
    """Console-script entry point."""
    app(prog_name="arena")


if __name__ == "__main__":
    main()
