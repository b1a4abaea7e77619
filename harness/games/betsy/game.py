"""Betsy as the harness sees it: every way it differs from the other games."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from harness.games.betsy.rules import WIN_PRIORITIES, Position, initial_position, parse_move, parse_n
from harness.games.errors import PositionError
from harness.games.game import Game, Oracle, OracleUnavailable, RuleOptions

if TYPE_CHECKING:
    from harness.games.betsy.rules import WinPriority
    from harness.games.suites import Suites


class Betsy(Game[Position, int]):
    name = "betsy"
    title = "Betsy"
    size_key = "n"
    size_metavar = "N"
    default_size = "5"
    size_help = "n columns and n + 3 rows, n from 1 to 16"
    example_sizes = ("3", "5", "8")
    draws_by_repetition = True
    win_priorities = WIN_PRIORITIES
    notation = "c drops into column c, -c rotates column c"
    shading_note = "the top n rows, where lines count"
    reference_elo = {"random": 0.0, "greedy": 370.0, "alphabeta": 860.0}
    stores_n = True

    def parse_size(self, text: str | int) -> str:
        return str(parse_n(str(text)))

    def initial(self, size: str, options: RuleOptions | None = None) -> Position:
        return initial_position(int(self.parse_size(size)), _priority(options))

    def position(self, size: str | int, player: str, board: str, options: RuleOptions | None = None) -> Position:
        return Position.from_text(str(size), player, board, _priority(options))

    def parse_move(self, text: str) -> int:
        return parse_move(text)

    def fingerprint_sizes(self, sizes: Sequence[str]) -> dict[str, list[str] | list[int]]:
        return {"n": [int(size) for size in sizes]}

    def game_id_prefix(self, size: str) -> str:
        return f"n{size}"

    def describe_move(self, move: int) -> str:
        return f"drops into column {move}" if move > 0 else f"rotates column {-move}"

    def move_kind(self, move: int) -> str:
        return "drop" if move > 0 else "rotate"

    def size_phrase(self, size: str) -> str:
        return f"n = {size}"

    def sizes_phrase(self, sizes: Sequence[str]) -> str:
        return "n = " + ", ".join(sizes)

    def count_phrase(self, count: int) -> str:
        return f"{count} game{'' if count == 1 else 's'}"

    def end_reason(self, position: Position) -> str | None:
        return None  # a rotation is always possible: Betsy ends by a line, repetition or the ply limit

    def columns(self, position: Position) -> int:
        return position.n

    def shaded_rows(self, columns: int) -> int:
        return columns  # lines count in the top n rows only

    def evaluate(self, position: Position) -> int:
        from engines.evaluation import evaluate

        return int(evaluate(position))

    def oracle(self, size: str, options: RuleOptions | None = None) -> Oracle[Position] | None:
        """The solved tables at n = 3 (harness.games.betsy.exact); no oracle at other sizes."""
        if self.parse_size(size) != "3":
            return None
        from harness.games.betsy.exact import TableOracle, open_table

        priority = _priority(options)
        table = open_table(priority)
        if table is None:
            raise OracleUnavailable(
                f"the n = 3 table ({priority} win priority) is not built on this machine; "
                f"scripts/build_tablebase.py builds it (into $BETSY_TABLES or ~/.cache/betsy-arena)")
        return TableOracle(table)

    assessment_margin = 200

    def assessment_evaluation(self) -> Callable[[Position], int]:
        """The hybrid's evaluation (engines.mcts_alphabeta, the strongest engine's)."""
        from engines.mcts_alphabeta import evaluate

        evaluation: Callable[[Position], int] = evaluate
        return evaluation

    def suites(self) -> Suites[Position]:
        from harness.games.betsy.suites import BetsySuites

        return BetsySuites()


def _priority(options: RuleOptions | None) -> WinPriority:
    value = "mover" if options is None else options.win_priority
    for priority in WIN_PRIORITIES:
        if value == priority:
            return priority
    raise PositionError(f"win_priority: expected one of {', '.join(WIN_PRIORITIES)}, got {value!r}")
