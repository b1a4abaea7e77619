"""Heuristic evaluation of Betsy positions.

``line_potential`` counts, for one colour, how far along it is on each winning line that is still
open to it: a line of the top n rows holding none of the opponent's pebbles scores the square of the
number of the colour's pebbles on it. Squaring rewards concentrating pebbles on few lines (one line at
n - 1 is worth more than several at 1), since only a complete line wins. ``line_balance`` is the
difference between the two colours' potentials, from one colour's point of view.
"""

from __future__ import annotations

from harness.games.betsy import Colour, Position

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


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


class Weights:
    """Evaluation weights. Defaults were chosen by self-play matches (scripts/tune_evaluation.py,
    200 games per comparison at n = 5, 4000 nodes per move, colours swapped per opening).

    Against base 4 with blocked 0 (the first version): blocked 0.5 scored 136/200 (+131 Elo,
    95% [+86, +180]) at n = 5, 74.5/120 (+86) at n = 4 and 62/120 (+12, mostly draws) at n = 7;
    blocked 0.25 +78; base 2, 3, 6 and 8 within +-25; tempo 10 +17; hand 3 -171. Against blocked
    0.5: blocked 0.75 +2, blocked 1.0 +24 [-17, +66], hand -3 0, base 8 -21: none significantly
    better.
    """

    __slots__ = ("base", "blocked", "hand", "tempo", "ring", "stack")

    def __init__(self, base: float = 4.0, blocked: float = 0.5, hand: float = 0.0, tempo: float = 0.0,
                 ring: float = 0.0, stack: float = 0.0):
        self.base = base
        """Growth of a line's value per pebble: k pebbles on an open line are worth base**k."""
        self.blocked = blocked
        """Fraction of that value kept when the opponent has exactly one pebble on the line (one
        rotation can push it out of the line)."""
        self.hand = hand
        """Value of each pebble in hand more than the opponent (drops are more flexible than rotations)."""
        self.tempo = tempo
        """Bonus for having the move."""
        self.ring = ring
        """Value of a column line in the making below the top rows, as a fraction of a line one
        pebble short (``base**(n-1)``); see ``ring_value``."""
        self.stack = stack
        """Value of a column run still being built (fewer than n of a colour in a row around the
        ring), as a fraction of an open line with as many pebbles; see ``stack_value``. Used only
        with ``ring``."""

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in self.__slots__}


DEFAULT_WEIGHTS = Weights()


def longest_cyclic_run(bits: int, length: int) -> int:
    """Longest run of set bits in the ``length``-bit ring ``bits`` (bit 0 follows bit length-1)."""
    if bits == (1 << length) - 1:
        return length
    doubled = bits | bits << length
    best = run = 0
    for i in range(2 * length):
        if doubled >> i & 1:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


def ring_value(x_bits: int, height: int, n: int, line_value: int) -> int:
    """A column's ring term for blue (negative: red's), ``height`` pebbles with blue's at ``x_bits``
    (bit 0 the bottom pebble).

    Rotation cycles a column's pebbles through it, so a colour with ``n`` pebbles in a row around
    the column's ring (bottom and top adjoin) gets a column line once the column is full and that
    run is rotated into the top n rows; the opponent can neither break a full column's run nor stop
    the rotations (any rotation of the column brings the run nearer). Worth ``line_value`` for a
    full column, divided by one more than the drops still needed to fill it otherwise. The run
    already in the top n rows is the column's line itself, valued by the line terms.
    """
    if height < n:
        return 0
    total = n + 3
    full = (1 << height) - 1
    divisor = 1 + total - height
    value = line_value // divisor
    # Both colours can have such a run only when n + 3 >= 2n, i.e. n <= 3.
    return (value if longest_cyclic_run(x_bits, height) >= n else 0) - (
        value if longest_cyclic_run(full ^ x_bits, height) >= n else 0)


def stack_value(x_bits: int, height: int, n: int, values: tuple[int, ...]) -> int:
    """A column's stack term for blue (negative: red's): ``height`` pebbles with blue's at ``x_bits``
    (bit 0 the bottom pebble), when neither colour has a run of ``n`` around the ring yet.

    Once the column is full, any n ring cells in a row can be rotated into the top n rows, so each
    window of n cells in a row around the ring (the n + 3 cells, bottom and top adjoining, the cells
    above the pebbles still empty) is a column line in the making, like a line of the top rows: a
    colour's best window free of the opponent's pebbles holding k of its own is worth ``values[k]``,
    divided by one more than the drops still needed to fill the column. A column that one colour
    keeps dropping into is then a threat the search sees before the run is complete (an opponent
    pebble in the window is the only way to stop it).
    """
    total = n + 3
    o_bits = ((1 << height) - 1) ^ x_bits
    window = (1 << n) - 1
    best_x = best_o = 0
    doubled_x = x_bits | x_bits << total
    doubled_o = o_bits | o_bits << total
    for start in range(total):
        xs = (doubled_x >> start) & window
        os_ = (doubled_o >> start) & window
        if not os_:
            k = xs.bit_count()
            if k > best_x:
                best_x = k
        elif not xs:
            k = os_.bit_count()
            if k > best_o:
                best_o = k
    divisor = 1 + total - height
    return (values[best_x] - values[best_o]) // divisor


def make_evaluator(weights: Weights = DEFAULT_WEIGHTS) -> Callable[[Position], int]:
    """A static evaluation for the side to move, with per-board-size tables built once.

    For each line of the top n rows and each colour: a line holding k of the colour's pebbles and
    none of the opponent's is worth ``base**k``; with exactly one opponent pebble, ``blocked`` times
    that. Lines near completion dominate; mixed lines are not dead in Betsy because rotations shift
    a column's pebbles through the rows. Pebbles in hand and the move itself add small terms, and
    with ``ring`` each column's ``ring_value`` (cached per column contents).
    """
    tables: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def tables_for(n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        found = tables.get(n)
        if found is None:
            # A complete line (k = n) is a win, handled by the search; keep its value finite.
            open_values = tuple(0 if k == 0 else round(weights.base ** k) for k in range(n + 1))
            blocked_values = tuple(round(weights.blocked * v) for v in open_values)
            found = tables[n] = (open_values, blocked_values)
        return found

    stack = weights.stack
    hand = weights.hand
    tempo = round(weights.tempo)
    ring = weights.ring
    ring_tables: dict[int, tuple[int, int, int, tuple[int, ...], dict[int, int]]] = {}
    """Per n: the ring value of a full column's run, the column height and mask (from the
    geometry), the stack values by pebbles in a window, and each column's value by its key."""

    def evaluate(position: Position) -> int:
        open_values, blocked_values = tables_for(position.n)
        x, o = position.masks
        score = 0
        occupied = x | o
        for line in position.geometry.lines:
            if not occupied & line:
                continue
            xs = (x & line).bit_count()
            os_ = (o & line).bit_count()
            if not os_:
                score += open_values[xs]
            elif not xs:
                score -= open_values[os_]
            elif os_ == 1:
                score += blocked_values[xs]
                if xs == 1:
                    score -= blocked_values[1]
            elif xs == 1:
                score -= blocked_values[os_]
        if ring:
            n = position.n
            found = ring_tables.get(n)
            if found is None:
                g = position.geometry
                found = ring_tables[n] = (round(ring * open_values[n - 1]), g.height, g.column_bits,
                                          tuple(round(stack * v) for v in open_values), {})
            line_value, height, column_bits, stack_values, rings = found
            shift = 0
            for h in position.heights:
                if h >= n or (stack and h):
                    key = (x >> shift & column_bits) | 1 << h
                    value = rings.get(key)
                    if value is None:
                        value = ring_value(key ^ 1 << h, h, n, line_value)
                        if stack and not value:
                            value = stack_value(key ^ 1 << h, h, n, stack_values)
                        rings[key] = value
                    score += value
                shift += height
        if hand:
            score += round(hand * (o.bit_count() - x.bit_count()))
        score = -score if position.turn else score
        return score + tempo

    return evaluate


evaluate = make_evaluator()
"""The engines' default evaluation."""
