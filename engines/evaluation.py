"""Heuristic evaluation of Betsy positions.

``line_potential`` counts, for one colour, how far along it is on each winning line that is still
open to it: a line of the top n rows holding none of the opponent's pebbles scores the square of the
number of the colour's pebbles on it. Squaring rewards concentrating pebbles on few lines (one line at
n - 1 is worth more than several at 1), since only a complete line wins. ``line_balance`` is the
difference between the two colours' potentials, from one colour's point of view.
"""

from __future__ import annotations

from harness.games.betsy import Colour, Position


def line_potential(position: Position, colour: Colour) -> int:
    """Sum over lines free of opponent pebbles of (own pebbles on the line) squared."""
    own = position.masks[colour]
    other = position.masks[colour ^ 1]
    total = 0
    for line in position.geometry.lines:
        if not other & line:
            count = (own & line).bit_count()
            total += count * count
    return total


def line_balance(position: Position, colour: Colour) -> int:
    """``line_potential`` of ``colour`` minus that of its opponent."""
    return line_potential(position, colour) - line_potential(position, colour ^ 1)


def line_weights(n: int) -> tuple[int, ...]:
    """Weight of a line holding k pebbles of one colour and none of the other, k = 0..n."""
    return tuple(0 if k == 0 else 4 ** k for k in range(n + 1))


_WEIGHTS: dict[int, tuple[int, ...]] = {}


def evaluate(position: Position) -> int:
    """Static score for the side to move: line weights of its lines minus the opponent's.

    A line of the top n rows that holds k of one colour's pebbles and none of the other's is worth
    4**k to that colour: lines near completion dominate, and a line the opponent has entered is
    worth nothing until a rotation clears it.
    """
    weights = _WEIGHTS.get(position.n)
    if weights is None:
        weights = _WEIGHTS[position.n] = line_weights(position.n)
    x, o = position.masks
    score = 0
    for line in position.geometry.lines:
        xs = x & line
        os_ = o & line
        if not os_:
            score += weights[xs.bit_count()]
        elif not xs:
            score -= weights[os_.bit_count()]
    return -score if position.turn else score
