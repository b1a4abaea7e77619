"""Exact n = 3 values for validation: which moves keep a position's value, by the solved tables.

The tables (engines/tablebase.py, built by scripts/build_tablebase.py into $BETSY_TABLES or
~/.cache/betsy-arena) give every n = 3 position's value for the side to move: win, draw or loss.
A move keeps the value when the position after it is worth as much for the mover: a winning move
from a won position, a move that does not lose from a drawn one. Every move of a lost position
keeps its value, so such positions tell nothing and are not asked.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.games.betsy.rules import Position
from harness.games.game import Oracle
from harness.rng import Rng

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engines.tablebase import Tablebase

VALUE_WORDS = {1: "won", 0: "drawn", -1: "lost"}


@dataclass(frozen=True)
class ExactCase:
    """A solved n = 3 position where some legal moves keep its value and some do not."""

    position: Position
    value: int
    """For the side to move: 1 won, 0 drawn."""
    keeping: frozenset[int]
    """The moves that keep the value."""
    legal: int
    """How many legal moves there are."""


def open_table(win_priority: str = "mover") -> Tablebase | None:
    """The n = 3 table, or None when it has not been built on this machine."""
    from engines.tablebase import Tablebase

    try:
        return Tablebase.open_size(3, win_priority)
    except OSError:
        return None


class TableOracle(Oracle[Position]):
    """The n = 3 table as an exact oracle: a win in d plies scores 1000 - d, a loss in d plies
    -(1000 - d), a draw 0 (a table lookup: never out of time)."""

    title = "the n = 3 tables"

    def __init__(self, table: Tablebase) -> None:
        self.table = table

    def score(self, position: Position, deadline: float) -> int | None:
        value, distance = self.table.lookup(position)
        return int(value) * (1000 - int(distance))

    def close(self) -> None:
        self.table.close()


def value_after(table: Tablebase, position: Position, move: int) -> int:
    """The value for the player who made ``move`` of the position it leads to."""
    child = position.after(move)
    winner = child.winner()
    if winner is not None:
        return 1 if winner == position.turn else -1
    value: int = table.lookup(child)[0]
    return -value


def keeping_moves(table: Tablebase, position: Position) -> tuple[int, frozenset[int], int]:
    """(value for the side to move, the moves that keep it, the number of legal moves)."""
    value = table.lookup(position)[0]
    moves = position.legal_moves()
    keeping = frozenset(move for move in moves if value_after(table, position, move) >= value)
    return value, keeping, len(moves)


def exact_suite(table: Tablebase, count: int, seed: int = 1) -> list[ExactCase]:
    """``count`` distinct n = 3 positions, won or drawn, where some but not all moves keep the
    value, reached by seeded random play from the empty board (both sides to move)."""
    rng = Rng(seed)
    cases: list[ExactCase] = []
    seen: set[tuple[str, str]] = set()
    for _ in range(count * 200):
        if len(cases) == count:
            break
        position = Position.from_text(3, "x", "." * 18)
        for _ in range(2 + rng.randrange(14)):
            moves = [move for move in position.legal_moves() if position.after(move).winner() is None]
            if not moves:
                break
            position.push(rng.choice(moves))
        if position.winner() is not None or (position.player, position.board()) in seen:
            continue
        value, keeping, legal = keeping_moves(table, position)
        if value >= 0 and 0 < len(keeping) < legal:
            seen.add((position.player, position.board()))
            cases.append(ExactCase(position, value, keeping, legal))
    return cases
