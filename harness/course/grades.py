"""Grades with a stated error: Elo anchored on the reference engines, and bands by sequential tests.

`anchored_ratings` fits the Bradley-Terry model of `harness.report.ratings.elo_ratings` with the
references held at fixed ratings, so a student's Elo means the same from one term to the next.
`band_verdict` places a student in a grade band (``beats greedy``, ...) by one sequential probability
ratio test per band boundary, and stops as soon as the band is clear at the configured error;
`next_opponents` names the references whose games would decide the most.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

from harness.report.ratings import (
    ELO_PER_NAT,
    GameResult,
    Rating,
    expected_score,
    log_sigmoid,
    score_table,
    sigmoid,
)

_TOLERANCE = 1e-10
_MAX_ITERATIONS = 200


# --------------------------------------------------------------------------- anchored Elo


def anchored_ratings(games: Sequence[GameResult], fixed: Mapping[str, float], prior_draws: float = 1.0,
                     confidence: float = 0.95, *, free: Iterable[str] = ()) -> dict[str, Rating]:
    """Fit Bradley-Terry ratings on the Elo scale with the ``fixed`` names held at their given Elo.

    The model is `elo_ratings`' own: ``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))``, a game in
    which ``i`` scores ``s`` counting as ``s`` wins and ``1 - s`` losses; games of a name against itself
    are ignored. Every name that is not fixed (those in the games, and those in ``free``) is estimated
    jointly by Newton's method (step halving, to 1e-10 natural-log units), each also playing
    ``prior_draws`` (> 0) virtual draws against a virtual opponent at the mean of the fixed ratings
    (0 when none is fixed): so a student with only wins or only losses, or with no game at all, still
    has a finite rating (the mean, with a wide interval, for one without games).

    ``stderr`` comes from the inverse of the free names' block of the observed information (the Hessian
    of the negative log-likelihood, prior included), as the fixed ratings are known exactly; the interval
    is ``elo ± z * stderr`` with ``z`` the two-sided normal quantile for ``confidence``. Fixed names are
    all in the result, with their given Elo and stderr 0.
    """
    if not (prior_draws > 0 and math.isfinite(prior_draws)):
        raise ValueError(f"prior_draws must be a finite number > 0 (it keeps every free rating finite), got {prior_draws!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    for name, elo in fixed.items():
        if not math.isfinite(elo):
            raise ValueError(f"fixed rating of {name!r} must be a finite number, got {elo!r}")
    rated = [g for g in games if g.x != g.o]
    table = score_table(rated)
    names = list(dict.fromkeys([*fixed, *table, *free]))
    free_names = [name for name in names if name not in fixed]
    index = {name: i for i, name in enumerate(free_names)}
    n = len(free_names)
    anchor = sum(fixed.values()) / len(fixed) / ELO_PER_NAT if fixed else 0.0

    # Per game: free index of each side (or None) and the fixed side's value in nats.
    free_pairs: dict[tuple[int, int], list[float]] = {}  # (i, j), i < j -> [games, points of i]
    versus_fixed: dict[tuple[int, float], list[float]] = {}  # (i, theta) -> [games, points of i]
    for g in rated:
        for me, other, points in ((g.x, g.o, g.score), (g.o, g.x, 1.0 - g.score)):
            if me not in index:
                continue
            if other in index:
                if index[me] < index[other]:
                    cell = free_pairs.setdefault((index[me], index[other]), [0.0, 0.0])
                    cell[0] += 1.0
                    cell[1] += points
            else:
                cell = versus_fixed.setdefault((index[me], fixed[other] / ELO_PER_NAT), [0.0, 0.0])
                cell[0] += 1.0
                cell[1] += points
    # The prior: prior_draws games scoring half, against the anchor.
    for i in range(n):
        cell = versus_fixed.setdefault((i, anchor), [0.0, 0.0])
        cell[0] += prior_draws
        cell[1] += prior_draws / 2.0

    def log_likelihood(theta: np.ndarray) -> float:
        total = 0.0
        for (i, j), (m, s) in free_pairs.items():
            d = float(theta[i] - theta[j])
            total += s * log_sigmoid(d) + (m - s) * log_sigmoid(-d)
        for (i, value), (m, s) in versus_fixed.items():
            d = float(theta[i]) - value
            total += s * log_sigmoid(d) + (m - s) * log_sigmoid(-d)
        return total

    def gradient_and_information(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        grad = np.zeros(n)
        info = np.zeros((n, n))
        for (i, j), (m, s) in free_pairs.items():
            p = sigmoid(float(theta[i] - theta[j]))
            grad[i] += s - m * p
            grad[j] -= s - m * p
            w = m * p * (1.0 - p)
            info[i, i] += w
            info[j, j] += w
            info[i, j] -= w
            info[j, i] -= w
        for (i, value), (m, s) in versus_fixed.items():
            p = sigmoid(float(theta[i]) - value)
            grad[i] += s - m * p
            info[i, i] += m * p * (1.0 - p)
        return grad, info

    theta = np.full(n, anchor)
    if n:
        current = log_likelihood(theta)
        for _ in range(_MAX_ITERATIONS):
            grad, info = gradient_and_information(theta)
            step = np.linalg.solve(info, grad)
            size = 1.0
            while True:
                candidate = theta + size * step
                value = log_likelihood(candidate)
                if value >= current - 1e-12 or size < 1e-6:
                    break
                size /= 2.0
            theta, current = candidate, value
            if float(np.max(np.abs(size * step))) < _TOLERANCE:
                break
        else:  # pragma: no cover - the penalised log-likelihood is strictly concave
            raise RuntimeError("anchored Elo fit did not converge")
        _, info = gradient_and_information(theta)
        variances = np.diag(np.linalg.inv(info))
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    ratings: dict[str, Rating] = {}
    for name in names:
        if name in fixed:
            elo, stderr = float(fixed[name]), 0.0
        else:
            i = index[name]
            elo = float(theta[i]) * ELO_PER_NAT
            stderr = math.sqrt(max(float(variances[i]), 0.0)) * ELO_PER_NAT
        played, points = table.get(name, (0, 0.0))
        ratings[name] = Rating(name, elo, elo - z * stderr, elo + z * stderr, played, points, stderr)
    return ratings


# --------------------------------------------------------------------------- bands


@dataclass(frozen=True)
class Band:
    """One grade band: the ratings from ``floor`` up to the next band's floor."""

    name: str
    """What the band says, e.g. ``beats greedy``."""
    floor: float | None
    """Elo at which the band starts (None: the lowest band)."""
    points: float
    """Points the grading scheme gives for the band."""


Side = Literal["above", "below", "open"]
State = Literal["decided", "playing", "undecided"]


@dataclass(frozen=True)
class BandVerdict:
    """Where the sequential tests place one student, after the games so far."""

    band: str | None
    """The decided band, or None."""
    state: State
    """``decided``, ``playing`` (more games would help) or ``undecided`` (the game budget is spent)."""
    possible: tuple[str, ...]
    """The bands not yet excluded, low to high."""
    boundaries: tuple[tuple[float, Side, float], ...]
    """Per boundary (each band's floor but the lowest's), low to high: (floor, side, log-likelihood ratio).

    The side is ``above``/``below`` once that boundary's test decided (it then stops, and the ratio is
    the one it decided at), ``open`` before."""
    text: str
    """One line: ``beats greedy (decided at 5% error after 18 games)`` or
    ``undecided between beats greedy and level with alphabeta after 40 games``."""


def _ordered(bands: Sequence[Band]) -> list[Band]:
    """The bands low to high; ValueError unless exactly one has no floor and the floors differ."""
    lowest = [b for b in bands if b.floor is None]
    if len(lowest) != 1:
        raise ValueError(f"exactly one band must have no floor (the lowest band), got {len(lowest)}")
    floors = [b.floor for b in bands if b.floor is not None]
    if any(not math.isfinite(f) for f in floors) or len(set(floors)) != len(floors):
        raise ValueError(f"band floors must be distinct finite numbers, got {sorted(floors)!r}")
    names = [b.name for b in bands]
    if len(set(names)) != len(names):
        raise ValueError(f"band names must be unique, got {names!r}")
    return lowest + sorted((b for b in bands if b.floor is not None), key=lambda b: b.floor or 0.0)


def band_verdict(results: Sequence[tuple[float, float]], bands: Sequence[Band], *, error: float = 0.05,
                 indifference: float = 50.0, budget: int = 40) -> BandVerdict:
    """Decide a student's band from its games against references, in the order played.

    ``results`` holds (the opponent's fixed Elo, the student's score in [0, 1]). Each band boundary T (a
    band's floor) is tested by a sequential probability ratio test of H0: R = T - indifference against
    H1: R = T + indifference, the log-likelihood ratio summed per game with the Elo model's expected
    scores, a score s counting as s wins and 1 - s losses. Wald's bounds with alpha = beta = error / 2:
    ``above`` when the ratio reaches ``ln((1 - beta) / alpha)``, ``below`` when it reaches
    ``ln(beta / (1 - alpha))``; a decided boundary stays decided (its test stops).

    The ratio is non-increasing in T after every game, so the decisions are always consistent (above every
    boundary below some point, below every boundary above it), and a student whose true Elo is more than
    ``indifference`` from its band's boundaries is placed in a wrong band only if one of those two tests
    erred: with probability at most ``error`` (alpha + beta per test, by Wald). The band is decided once
    the boundaries below and above it are; ``undecided`` once ``len(results) >= budget`` without that.
    """
    if not 0.0 < error < 1.0:
        raise ValueError(f"error must be strictly between 0 and 1, got {error!r}")
    if not (indifference > 0 and math.isfinite(indifference)):
        raise ValueError(f"indifference must be a finite number of Elo > 0, got {indifference!r}")
    ordered = _ordered(bands)
    alpha = beta = error / 2.0
    upper, lower = math.log((1.0 - beta) / alpha), math.log(beta / (1.0 - alpha))
    floors = [b.floor for b in ordered[1:] if b.floor is not None]
    llr = [0.0] * len(floors)
    side: list[Side] = ["open"] * len(floors)
    decided_at = 0
    for played, (opponent, score) in enumerate(results, start=1):
        if not (math.isfinite(opponent) and 0.0 <= score <= 1.0):
            raise ValueError(f"result {played} must be (a finite opponent Elo, a score in [0, 1]), got {(opponent, score)!r}")
        for k, floor in enumerate(floors):
            if side[k] != "open":
                continue
            e1 = expected_score(floor + indifference - opponent)
            e0 = expected_score(floor - indifference - opponent)
            llr[k] += score * math.log(e1 / e0) + (1.0 - score) * math.log((1.0 - e1) / (1.0 - e0))
            if llr[k] >= upper:
                side[k] = "above"
            elif llr[k] <= lower:
                side[k] = "below"
        low = max((k + 1 for k, s in enumerate(side) if s == "above"), default=0)
        high = min((k for k, s in enumerate(side) if s == "below"), default=len(floors))
        if low == high and not decided_at:
            decided_at = played
    low = max((k + 1 for k, s in enumerate(side) if s == "above"), default=0)
    high = min((k for k, s in enumerate(side) if s == "below"), default=len(floors))
    low, high = min(low, high), max(low, high)  # equal unless rounding broke the ratios' order
    possible = tuple(b.name for b in ordered[low:high + 1])
    boundaries = tuple((floor, side[k], llr[k]) for k, floor in enumerate(floors))
    played = len(results)
    if len(possible) == 1:
        percent = f"{error * 100:g}%"
        return BandVerdict(possible[0], "decided", possible, boundaries,
                           f"{possible[0]} (decided at {percent} error after {decided_at} games)")
    state: State = "undecided" if played >= budget else "playing"
    prefix = "undecided" if state == "undecided" else "playing"
    return BandVerdict(None, state, possible, boundaries,
                       f"{prefix} between {possible[0]} and {possible[-1]} after {played} games")


def next_opponents(verdict: BandVerdict, references: Mapping[str, float]) -> list[str]:
    """The references whose games decide the most: for each boundary still open, the one rated nearest it.

    Ties go to the lower-rated, then by name; each reference is named once, in rating order (then name).
    Empty once the band is decided or when there are no references.
    """
    if verdict.state == "decided" or not references:
        return []
    chosen: set[str] = set()
    for floor, side, _ in verdict.boundaries:
        if side == "open":
            chosen.add(min(references, key=lambda name: (abs(references[name] - floor), references[name], name)))
    return sorted(chosen, key=lambda name: (references[name], name))
