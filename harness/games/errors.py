"""The error every game's rules raise for a position, size, player or move text they refuse."""

from __future__ import annotations


class PositionError(ValueError):
    """Text that is not a valid position, board size, player or move of a game; the message names
    the problem and how to fix it."""
