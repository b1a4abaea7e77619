"""``arena solve``: exact scores of Connect Four positions, in Pascal Pons's notation."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional, TextIO

import typer

from harness.cli.options import size_refused
from harness.errors import UsageError
from harness.games.errors import PositionError

MAX_LINE = 4096
"""Longest line `arena solve` reads (a position has at most 81 moves)."""


class SolvedGame(str, Enum):
    """The games ``arena solve`` solves."""

    CONNECT4 = "connect4"


def solve_command(
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
    from harness.games.connect4.rules import parse_size

    try:
        width, height = parse_size(size)
    except PositionError as error:
        raise size_refused("--size", size, error) from None
    if width > 9:
        raise UsageError(f"invalid --size {size!r}: Pons's notation has one digit per move, so widths up to 9")
    if timeout is not None and not 0 < timeout < float("inf"):
        raise UsageError(f"invalid --timeout {timeout:g}: give a number of seconds above 0, e.g. 60")
    if positions is not None and not positions.is_file():
        raise UsageError(f"no positions file at {positions}; check the path, or pipe positions in")
    from engines.connect4_solver import LONG_TABLE_SIZE, Solver, parse_line

    from harness.progress import Stopped, wanted, watched

    show = wanted(progress)
    solver = Solver(width, height, LONG_TABLE_SIZE)

    def solve_one(text: str, state: Any) -> str:
        solver.tidy()
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
