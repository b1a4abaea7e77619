"""The exact Connect Four solver (engines/connect4_solver.py) as an oracle with a deadline per position,
for the analysis of finished games."""

from __future__ import annotations

from harness.games.connect4.rules import Position
from harness.games.game import Oracle


class SolverOracle(Oracle[Position]):
    """Pons's scores (engines.connect4_solver) for one board size, the solver's table kept from one
    position to the next; None for a position not solved by the deadline."""

    title = "the Connect Four solver"

    def __init__(self, width: int, height: int) -> None:
        from engines.connect4_solver import LONG_TABLE_SIZE, Solver

        self.solver = Solver(width, height, LONG_TABLE_SIZE)

    def score(self, position: Position, deadline: float) -> int | None:
        from engines.connect4_solver import OutOfBudget, state_of

        self.solver.tidy()
        try:
            score: int = self.solver.solve(state_of(position), deadline=deadline)
            return score
        except OutOfBudget:
            return None
