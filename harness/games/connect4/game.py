"""Connect Four as the harness sees it: every way it differs from the other games."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from harness.games.connect4.rules import Position, initial_position, parse_move, parse_size, size_text
from harness.games.game import Game, Oracle, RuleOptions

if TYPE_CHECKING:
    from harness.games.suites import Suites


class ConnectFour(Game[Position, int]):
    name = "connect4"
    title = "Connect Four"
    size_key = "size"
    size_metavar = "WxH"
    default_size = "8x8"
    size_help = "W columns x H rows, each from 4 to 12 (8x8, 7x6, ...)"
    example_sizes = ("7x6", "8x8")
    full_board_verdict = "Tie game!"
    answer_form = "COLUMN NEWBOARD"
    reference_elo = {"random": 0.0, "greedy": 645.0, "alphabeta": 1090.0}

    def parse_size(self, text: str | int) -> str:
        return size_text(*parse_size(str(text)))

    def initial(self, size: str, options: RuleOptions | None = None) -> Position:
        return initial_position(*parse_size(size))

    def position(self, size: str | int, player: str, board: str, options: RuleOptions | None = None) -> Position:
        return Position.from_text(str(size), player, board)

    def parse_move(self, text: str) -> int:
        return parse_move(text)

    def size_seed(self, size: str) -> int:
        width, height = parse_size(size)
        return width * 100 + height

    def columns(self, position: Position) -> int:
        return position.width

    def evaluate(self, position: Position) -> int:
        module: Any = importlib.import_module("engines.connect4_evaluation")
        return int(module.evaluate(position))

    def oracle(self, size: str, options: RuleOptions | None = None) -> Oracle[Position]:
        """The exact solver, each position within the analysis's deadline (harness.games.connect4.oracle)."""
        from harness.games.connect4.oracle import SolverOracle

        return SolverOracle(*parse_size(size))

    assessment_margin = 80
    """Two threats of the evaluation (engines.connect4_evaluation.THREAT)."""

    def assessment_evaluation(self) -> Callable[[Position], int]:
        module: Any = importlib.import_module("engines.connect4_evaluation")
        evaluate: Callable[[Position], int] = module.evaluate
        return evaluate

    def suites(self) -> Suites[Position]:
        from harness.games.connect4.suites import ConnectFourSuites

        return ConnectFourSuites()
