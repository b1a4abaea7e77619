"""The exact solver of All The King's Horses (engines/kings_horses_solver.py), with a time budget
per position: the validator's answers and the report's start-position verdicts come from it."""

from __future__ import annotations

import signal
import threading
from typing import Any

from harness.games import game
from harness.games.kings_horses.rules import WORDS, Position

SOLVER_BUDGET = 1.0
"""Seconds the exact solver may spend on one position (else it says it does not know)."""


class _Timeout(Exception):
    pass


class Oracle:
    """The exact solver with a time budget per position (an interval timer in the main thread)."""

    def __init__(self) -> None:
        from engines.kings_horses_solver import Solver

        self.solver = Solver()

    def winner(self, position: Position, budget: float | None = None) -> str | None:
        """BLACK or WHITE, or None when the solver could not settle it within ``budget`` seconds."""
        budget = SOLVER_BUDGET if budget is None else budget
        black = (position.knights[0], position.knights[1])
        white = (position.knights[2], position.knights[3])
        if threading.current_thread() is not threading.main_thread():
            return self._winner(position.word, black, white)

        def alarm(_signum: int, _frame: object) -> None:
            raise _Timeout

        previous = signal.signal(signal.SIGALRM, alarm)
        try:
            signal.setitimer(signal.ITIMER_REAL, budget)
            try:
                return self._winner(position.word, black, white)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _Timeout:
            self.solver = type(self.solver)()  # a memo interrupted mid-update is not trusted
            return None
        finally:
            signal.signal(signal.SIGALRM, previous)

    def _winner(self, mover: str, black: Any, white: Any) -> str:
        wins = self.solver.mover_wins(mover, black, white)
        return mover if wins else WORDS[1 - WORDS.index(mover)]


class ExactOracle(game.Oracle[Position]):
    """The solver as an oracle for the analysis of finished games: 1 when the side to move wins, -1
    when it loses (the game has no draws), None when not settled by the deadline."""

    title = "the King's Horses solver"

    def __init__(self) -> None:
        self.oracle = Oracle()

    def score(self, position: Position, deadline: float) -> int | None:
        import time

        budget = deadline - time.monotonic()
        if budget <= 0:
            return None
        word = self.oracle.winner(position, budget)
        return None if word is None else 1 if word == position.word else -1
