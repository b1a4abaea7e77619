"""All The King's Horses for the heuristic engines (random and greedy play it through
engines/protocol.py's ``--move`` form; the exact player is engines/kings_horses_solver.py).

The score is the race count: the most moves each side's knights could still make alone on the board
(``kings_horses.lone_moves``), the side's total minus the opponent's. With no interference the side
to move wins exactly when its total is larger, so the count is what the one-ply greedy engine keeps
in its favour.
"""

from __future__ import annotations

from harness.games.kings_horses import Position, lone_moves


def moves_left(position: Position, colour: int) -> int:
    """The sum of ``lone_moves`` over ``colour``'s two knights."""
    (r1, c1), (r2, c2) = position.knights[2 * colour:2 * colour + 2]
    return lone_moves(r1, c1) + lone_moves(r2, c2)


def balance(position: Position, colour: int) -> int:
    """``colour``'s race count minus its opponent's."""
    return moves_left(position, colour) - moves_left(position, colour ^ 1)


def evaluate(position: Position) -> int:
    """The race count for the side to move: positive when it leads (it moves first, so a lead of
    one or more wins a race without interference)."""
    return balance(position, position.turn)
