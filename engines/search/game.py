"""The small game protocol the search modules need (types only: nothing is imported at run time).

``harness.games.betsy.Position`` and ``harness.games.connect4.Position`` implement it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Game(Protocol):
        """A two-player position with make/unmake."""

        turn: int
        """Side to move: 0 or 1."""

        def legal_moves(self) -> list[int]:
            """Every legal move; empty only when the game is drawn (a full Connect Four board)."""

        def push(self, move: int) -> None:
            """Play a legal move."""

        def pop(self) -> object:
            """Undo the last push."""

        def winner_after_push(self, move: int) -> int | None:
            """After push(move): the side that has won (0 or 1), or None if the game goes on."""

        def has_winning_move(self) -> bool:
            """Whether the side to move can win at once (a game may answer faster than trying)."""

        def opponent_has_winning_move(self) -> bool:
            """Whether the side not to move could win at once if it were its turn."""

        def key(self) -> int:
            """An exact hashable key of the position, side to move included."""

        def copy(self) -> Game:
            """An independent copy."""
