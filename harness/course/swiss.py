"""One round of a Swiss league: who meets whom, and who has the bye.

The rules, in order of priority (each one decides only among the pairings the ones before it leave):

1. **Ranking.** Entrants are ranked by score (high first), then rating (high first), then name.
2. **No pair twice**, absolutely: two entrants who met before are never paired again. When no pairing of
   the round without a repeat exists, `pair_round` raises `SwissExhausted` (the league stops adding rounds).
3. **The bye** (odd count only) goes to the entrant with the fewest byes so far, the lowest-ranked among
   them, provided the others can still all be paired without a repeat; else to the next in that order.
4. **Close in score**: the sum over pairs of the squared score difference is as small as possible.
5. **Floaters**: the pairs across score groups are as close in rank as possible (smallest sum of rank
   gaps), so the lowest of a group floats down to meet the highest of the next.
6. **Dutch halves**: within a score group of m entrants (counted after the bye), the fewest pairs join
   two entrants of the same half (the top half is the first m // 2 of the group, the bottom half the rest);
7. then the rank gap of each pair in a group is as near m / 2 as possible (smallest sum of
   ``(2 * gap - m) ** 2``), so a free group of 8 pairs 1-5, 2-6, 3-7, 4-8;
8. what is still tied after rule 7 is settled by the matching algorithm's own order: deterministically
   (the same standings always give the same pairings), but by no stated rule.

Colours are not the pairing's business: every pairing plays a pair of games from one opening with the
colours swapped, so every entrant plays x and o equally often in every round.

Rules 2 to 7 are encoded exactly as the integer weights of one maximum-weight perfect matching
(`networkx.max_weight_matching`, a blossom algorithm, with integers it computes exactly): each rule's
cost is multiplied by a factor larger than the largest total the later rules can reach, so a better
value at one rule always outweighs any gain at the later ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import networkx as nx

_BYE = -1
"""The node standing for the bye in the first matching."""


class SwissExhausted(Exception):
    """No pairing of the round avoids every repeat: the league cannot add this round."""


@dataclass(frozen=True)
class Entrant:
    """One entrant's standing before the round."""

    name: str
    """Unique name."""
    score: float
    """League points so far."""
    rating: float
    """Seeding (anchored Elo estimate); ties broken by name."""
    opponents: frozenset[str]
    """Names met in earlier rounds."""
    byes: int
    """Byes had so far."""


def rank(entrants: Sequence[Entrant]) -> list[Entrant]:
    """The entrants in rank order: score, then rating (both high first), then name."""
    return sorted(entrants, key=lambda e: (-e.score, -e.rating, e.name))


def pair_round(entrants: Sequence[Entrant]) -> tuple[list[tuple[str, str]], str | None]:
    """The round's pairings (higher-ranked first, in rank order) and the bye (None when the count is even).

    Raises SwissExhausted when every pairing repeats a pair, ValueError on duplicate names.
    """
    ranked = rank(entrants)
    names = [e.name for e in ranked]
    if len(set(names)) != len(names):
        duplicates = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"entrant names must be unique, got {duplicates!r} more than once")
    if len(ranked) % 2 == 0:
        return _pair_or_raise(ranked), None
    # Bye candidates: fewest byes first, lowest-ranked first among equals.
    order = sorted(range(len(ranked)), key=lambda i: (ranked[i].byes, -i))
    first = order[0]
    pairs = _pair(ranked[:first] + ranked[first + 1:])
    if pairs is not None:
        return pairs, ranked[first].name
    bye = _bye_index(ranked, order)
    return _pair_or_raise(ranked[:bye] + ranked[bye + 1:]), ranked[bye].name


def _allowed(a: Entrant, b: Entrant) -> bool:
    """True when the two never met (either side's record counts)."""
    return b.name not in a.opponents and a.name not in b.opponents


def _bye_index(ranked: list[Entrant], order: list[int]) -> int:
    """The first bye candidate in ``order`` whose removal leaves a perfect pairing without repeats."""
    n = len(ranked)
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_node(_BYE)
    for i in range(n):
        for j in range(i + 1, n):
            if _allowed(ranked[i], ranked[j]):
                graph.add_edge(i, j, weight=1)
    for position, i in enumerate(order):
        graph.add_edge(_BYE, i, weight=1 + n - position)
    matching: set[tuple[int, int]] = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != n + 1:
        raise SwissExhausted(_exhausted_message(n))
    return next(b if a == _BYE else a for a, b in matching if _BYE in (a, b))


def _pair_or_raise(ranked: list[Entrant]) -> list[tuple[str, str]]:
    pairs = _pair(ranked)
    if pairs is None:
        raise SwissExhausted(_exhausted_message(len(ranked)))
    return pairs


def _exhausted_message(n: int) -> str:
    return f"no pairing of these {n} entrants avoids a repeat: every pairing meets a pair that already played"


def _pair(ranked: list[Entrant]) -> list[tuple[str, str]] | None:
    """The best perfect pairing of ``ranked`` (in rank order) by rules 4 to 7, or None if there is none."""
    n = len(ranked)
    if n == 0:
        return []
    scale = math.lcm(*(Fraction(e.score).denominator for e in ranked))
    scores = [int(Fraction(e.score) * scale) for e in ranked]
    group_start: list[int] = []
    group_size: list[int] = []
    start = 0
    for i in range(n):
        if i and scores[i] != scores[i - 1]:
            start = i
        group_start.append(start)
    for i in range(n):
        end = i
        while end + 1 < n and scores[end + 1] == scores[i]:
            end += 1
        group_size.append(end - group_start[i] + 1)
    # Factors: each rule's total over a pairing is below the next higher rule's unit.
    gap_unit = 1
    half_unit = gap_unit * (4 * n * n * n + 1)  # rule 7: at most n/2 pairs of (2n) ** 2 each
    float_unit = half_unit * (n + 1)  # rule 6: at most n/2 pairs
    score_unit = float_unit * (n * n + 1)  # rule 5: at most n/2 pairs of gap < n
    costs: dict[tuple[int, int], int] = {}
    for i in range(n):
        for j in range(i + 1, n):
            if not _allowed(ranked[i], ranked[j]):
                continue
            difference = scores[i] - scores[j]
            cost = score_unit * difference * difference
            if difference:
                cost += float_unit * (j - i)
            else:
                m = group_size[i]
                top_i = i - group_start[i] < m // 2
                top_j = j - group_start[j] < m // 2
                cost += half_unit * (top_i == top_j) + gap_unit * (2 * (j - i) - m) ** 2
            costs[(i, j)] = cost
    if not costs:
        return None
    ceiling = max(costs.values()) + 1
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_weighted_edges_from((i, j, ceiling - cost) for (i, j), cost in costs.items())
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != n:
        return None
    pairs = sorted((min(a, b), max(a, b)) for a, b in matching)
    return [(ranked[i].name, ranked[j].name) for i, j in pairs]
