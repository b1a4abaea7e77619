"""Heuristic evaluation of Connect Four positions, for the searches and greedy.

Three terms, from x's point of view, then signed for the side to move:

- **Threats**: empty cells where a colour would complete a four. When the board fills up with both
  sides answering each other in the same column, x gets the odd rows (1, 3, ... counted from the
  bottom) and o the even ones (Allis's zugzwang rule), so a threat on its owner's rows is worth
  ``THREAT`` and any other threat ``WEAK_THREAT``.
- **Zugzwang**: by that rule, x wins the filled-up board with an odd threat that no threat of o's
  lies under (or on) in its column; failing that, o wins with such an even threat. The side it
  favours gets ``ZUGZWANG`` (in ``evaluate``, the searches' evaluation; greedy's ``balance`` goes
  without it).
- **Centre**: each disc is worth ``CENTRE`` per window of four through its cell (3 in a corner of
  7x6, 13 in the middle), so central discs, which take part in more fours, count more.

All by bitboard: a handful of shifts and bit counts per position, with the per-size tables built
once.
"""

from __future__ import annotations

from harness.games.connect4 import Colour, Geometry, Position, winning_cells

THREAT = 60
"""A threat on its owner's rows (odd for x, even for o)."""
WEAK_THREAT = 25
"""A threat on the other rows."""
CENTRE = 2
"""Per window of four through a disc's cell."""
ZUGZWANG = 300
"""For the side the zugzwang rule favours (see ``evaluate``). Against homework at 8x8, 1 s per
move, alpha-beta with the endgame solver as o over the strength config's 50 openings (in-process):
41/50 without this term, 45/50 with 150, 46/50 with 300 (as x: 46/50 without, 47/50 with 300, on
a loaded machine)."""
_SMEAR: dict[Geometry, tuple[tuple[int, int], ...]] = {}


def _at_or_above(cells: int, g: Geometry) -> int:
    """Every cell of the board at or above one of ``cells`` in its column."""
    steps = _SMEAR.get(g)
    if steps is None:
        # Shift by k only the cells at least k below the top, so nothing leaves its column.
        steps = _SMEAR[g] = tuple(
            (sum(g.bottom << h for h in range(g.height - k)), k) for k in (1, 2, 4, 8) if k < g.height)
    for rows, k in steps:
        cells |= (cells & rows) << k
    return cells


_TABLES: dict[Geometry, tuple[tuple[tuple[int, int], ...], int, int]] = {}


def windows_through(g: Geometry) -> list[int]:
    """The number of windows of four (in any direction) through each bit of the board, by bit index."""
    counts = [0] * (g.width * g.stride)
    for c in range(g.width):
        for h in range(g.height):
            for dc, dh in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(c + i * dc, h + i * dh) for i in range(4)]
                if all(0 <= cc < g.width and 0 <= hh < g.height for cc, hh in cells):
                    for cc, hh in cells:
                        counts[cc * g.stride + hh] += 1
    return counts


def _tables(g: Geometry) -> tuple[tuple[tuple[int, int], ...], int, int]:
    """Per size: the centre weights as bit planes ``(mask, weight)``, x's rows and o's rows."""
    found = _TABLES.get(g)
    if found is None:
        counts = windows_through(g)
        planes = []
        for bit in range(max(counts).bit_length()):
            mask = sum(1 << index for index, count in enumerate(counts) if count >> bit & 1)
            planes.append((mask, CENTRE << bit))
        found = _TABLES[g] = (tuple(planes), g.odd_rows, g.board_mask ^ g.odd_rows)
    return found


def evaluate(position: Position) -> int:
    """The static value for the side to move (0 for a full board: a draw): the searches'."""
    return _evaluate(position, ZUGZWANG)


def _evaluate(position: Position, zugzwang: int) -> int:
    g = position.geometry
    x, o = position.masks
    empty = g.board_mask ^ (x | o)
    if not empty:
        return 0
    planes, x_rows, o_rows = _tables(g)
    score = 0
    for mask, weight in planes:
        score += weight * ((x & mask).bit_count() - (o & mask).bit_count())
    x_threats = winning_cells(x, g) & empty
    o_threats = winning_cells(o, g) & empty
    if x_threats or o_threats:
        # Who wins when the board fills up with both sides answering in the same column: x with
        # an odd threat that no o threat lies under (or on), else o with such an even threat.
        if zugzwang:
            if x_threats & x_rows & ~_at_or_above(o_threats, g):
                score += zugzwang
            elif o_threats & o_rows & ~_at_or_above(x_threats, g):
                score -= zugzwang
        score += THREAT * ((x_threats & x_rows).bit_count() - (o_threats & o_rows).bit_count())
        score += WEAK_THREAT * ((x_threats & o_rows).bit_count() - (o_threats & x_rows).bit_count())
    return -score if position.turn else score


def balance(position: Position, colour: Colour) -> int:
    """Greedy's value from ``colour``'s point of view: ``evaluate`` without the zugzwang term, so
    that the baseline opponent stays the one the figures were measured against."""
    score = _evaluate(position, 0)
    return score if position.turn == colour else -score
