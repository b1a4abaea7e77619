"""Rating statistics over finished games: Elo fit, LOS, pentanomial counts and SPRT.

Every function here is pure: it takes a sequence of `GameResult` (or plain counts)
and returns new values, without I/O or global state. Only the standard library is
used. Games of an engine against itself (``x == o``) carry no information about
relative strength and are ignored everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of odds (about 173.7178)."""

_VALID_SCORES = (0.0, 0.5, 1.0)
_TOLERANCE = 1e-10
_MAX_ITERATIONS = 200


@dataclass(frozen=True)
class GameResult:
    """The outcome of one finished game, seen from the blue (``x``) side."""

    x: str
    """Name of the engine playing blue."""
    o: str
    """Name of the engine playing red."""
    score: float
    """Points for ``x``: 1.0 (win), 0.5 (draw) or 0.0 (loss)."""
    pair_key: str | None = None
    """Games sharing a key are one opening played twice with colours swapped; None if unpaired."""

    def __post_init__(self) -> None:
        """Reject scores other than a win, a draw or a loss."""
        if self.score not in _VALID_SCORES:
            raise ValueError(f"score must be 0.0, 0.5 or 1.0, got {self.score!r}")


@dataclass(frozen=True)
class Rating:
    """One engine's fitted Elo rating with its uncertainty."""

    name: str
    """Engine name."""
    elo: float
    """Rating on the Elo scale; the ratings of all rated engines average 0."""
    ci_low: float
    """Lower end of the confidence interval, ``elo - z * stderr``."""
    ci_high: float
    """Upper end of the confidence interval, ``elo + z * stderr``."""
    games: int
    """Games played against other engines (self-games excluded)."""
    score: float
    """Points scored in those games."""
    stderr: float
    """Standard error of ``elo`` (Elo points), under the mean-zero constraint."""


@dataclass(frozen=True)
class SprtResult:
    """State of a sequential probability ratio test."""

    llr: float
    """Log-likelihood ratio of H1 against H0 so far."""
    lower: float
    """Accept H0 when ``llr <= lower``: ``ln(beta / (1 - alpha))``."""
    upper: float
    """Accept H1 when ``llr >= upper``: ``ln((1 - beta) / alpha)``."""
    decision: Literal["H0", "H1", "continue"]
    """Which hypothesis was accepted, or ``"continue"`` if neither bound was reached."""


def expected_score(elo_diff: float) -> float:
    """Return the expected score of a player rated ``elo_diff`` points above its opponent.

    This is the logistic Elo curve ``1 / (1 + 10 ** (-elo_diff / 400))``.
    """
    return float(1.0 / (1.0 + 10.0 ** (-elo_diff / 400.0)))


def _rated_games(games: Iterable[GameResult]) -> list[GameResult]:
    """Return the games between two different engines, dropping self-games."""
    return [g for g in games if g.x != g.o]


def score_table(games: Sequence[GameResult]) -> dict[str, tuple[int, float]]:
    """Return ``{engine: (games played, points)}`` over all non-self games.

    Engines are listed in order of first appearance.
    """
    table: dict[str, tuple[int, float]] = {}
    for g in _rated_games(games):
        for name, points in ((g.x, g.score), (g.o, 1.0 - g.score)):
            played, total = table.get(name, (0, 0.0))
            table[name] = (played + 1, total + points)
    return table


# --------------------------------------------------------------------------- Elo fit


def sigmoid(t: float) -> float:
    """Return the logistic function ``1 / (1 + e^-t)`` without overflow."""
    if t >= 0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


def log_sigmoid(t: float) -> float:
    """Return ``ln(sigmoid(t))`` without overflow or loss of precision."""
    if t >= 0:
        return -math.log1p(math.exp(-t))
    return t - math.log1p(math.exp(t))


def _solve(matrix: list[list[float]], rhs: list[list[float]]) -> list[list[float]]:
    """Solve ``matrix @ X = rhs`` by Gaussian elimination with partial pivoting.

    ``rhs`` is a list of rows (n x k); the solution has the same shape. Raises
    ValueError if the matrix is numerically singular.
    """
    n = len(matrix)
    k = len(rhs[0]) if rhs else 0
    a = [list(matrix[i]) + list(rhs[i]) for i in range(n)]
    scale = max((abs(v) for row in matrix for v in row), default=0.0) or 1.0
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) <= 1e-13 * scale:
            raise ValueError("singular matrix in rating fit")
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        for r in range(col + 1, n):
            f = a[r][col] / p
            if f:
                row_r, row_c = a[r], a[col]
                for c in range(col, n + k):
                    row_r[c] -= f * row_c[c]
    x = [[0.0] * k for _ in range(n)]
    for i in range(n - 1, -1, -1):
        for c in range(k):
            s = a[i][n + c] - sum(a[i][j] * x[j][c] for j in range(i + 1, n))
            x[i][c] = s / a[i][i]
    return x


def _check_mle_exists(names: list[str], scored: Mapping[str, set[str]], met: Mapping[str, set[str]]) -> None:
    """Raise ValueError unless the unregularised maximum-likelihood ratings are finite.

    They are finite exactly when the "scored against" graph is strongly connected
    (Zermelo/Ford): every engine is reachable from every other by a chain of
    "took at least half a point from" edges. ``scored[i]`` holds the engines ``i``
    took points from; ``met[i]`` the engines ``i`` played.
    """

    def reach(start: str, edges: Mapping[str, set[str]]) -> set[str]:
        seen = {start}
        stack = [start]
        while stack:
            for nxt in edges[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return seen

    if len(reach(names[0], met)) != len(names):
        raise ValueError(
            "maximum-likelihood ratings do not exist with prior_draws=0: the comparison graph is "
            "disconnected (some engines never met the others, even indirectly); use prior_draws > 0"
        )
    conceded: dict[str, set[str]] = {n: set() for n in names}
    for i, opponents in scored.items():
        for j in opponents:
            conceded[j].add(i)
    for name in names:
        if not scored[name]:
            raise ValueError(
                f"maximum-likelihood ratings do not exist with prior_draws=0: {name!r} lost every "
                "game (its rating would be -infinity); use prior_draws > 0"
            )
        if not conceded[name]:
            raise ValueError(
                f"maximum-likelihood ratings do not exist with prior_draws=0: {name!r} won every "
                "game (its rating would be +infinity); use prior_draws > 0"
            )
    if len(reach(names[0], scored)) != len(names) or len(reach(names[0], conceded)) != len(names):
        raise ValueError(
            "maximum-likelihood ratings do not exist with prior_draws=0: a group of engines won "
            "every game against the rest (their rating gap would be infinite); use prior_draws > 0"
        )


def elo_ratings(
    games: Sequence[GameResult], prior_draws: float = 1.0, confidence: float = 0.95
) -> dict[str, Rating]:
    """Fit Bradley–Terry ratings on the Elo scale by (penalised) maximum likelihood.

    Model: ``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))``. A draw counts as
    half a win and half a loss, i.e. a game in which ``i`` scores ``s`` contributes
    ``s * ln P(i beats j) + (1 - s) * ln P(j beats i)`` to the log-likelihood. Self-games
    are ignored; engines without other games are not in the result.

    Regularisation (as BayesElo's prior): each engine also plays ``prior_draws``
    virtual drawn games against a virtual opponent fixed at rating 0, so an engine
    with only wins or only losses still gets a finite rating. With ``prior_draws=0``
    this is the plain maximum-likelihood estimate, and ValueError is raised if it does
    not exist (an engine with all wins or all losses, a disconnected comparison graph,
    or more generally a group of engines that won every game against the others).

    The maximum is found by Newton–Raphson with step halving, to ``1e-10`` in
    natural-log units; the ratings are then shifted so their mean is 0.

    Uncertainty: the covariance is the inverse of the observed Fisher information
    ``H`` (Hessian of the negative log-likelihood, prior included) projected onto the
    mean-zero subspace, ``C = P H^-1 P`` with ``P = I - J/n``. Without a prior ``H`` is
    singular along the all-ones direction and its Moore–Penrose pseudo-inverse
    ``(H + J/n)^-1 - J/n`` is used, which is the same projection. ``stderr`` is
    ``sqrt(C_ii)`` in Elo points and the interval is ``elo ± z * stderr`` with ``z``
    the two-sided normal quantile for ``confidence``.
    """
    if prior_draws < 0 or not math.isfinite(prior_draws):
        raise ValueError(f"prior_draws must be a finite number >= 0, got {prior_draws!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")

    rated = _rated_games(games)
    table = score_table(rated)
    names = list(table)
    if not names:
        return {}
    n = len(names)
    index = {name: i for i, name in enumerate(names)}

    # Aggregate per unordered pair: number of games and points of the lower index.
    pair_games: dict[tuple[int, int], int] = {}
    pair_points: dict[tuple[int, int], float] = {}
    scored: dict[str, set[str]] = {name: set() for name in names}
    met: dict[str, set[str]] = {name: set() for name in names}
    for g in rated:
        i, j = index[g.x], index[g.o]
        s = g.score
        if i > j:
            i, j, s = j, i, 1.0 - s
        pair_games[(i, j)] = pair_games.get((i, j), 0) + 1
        pair_points[(i, j)] = pair_points.get((i, j), 0.0) + s
        met[g.x].add(g.o)
        met[g.o].add(g.x)
        if g.score > 0:
            scored[g.x].add(g.o)
        if g.score < 1:
            scored[g.o].add(g.x)
    if prior_draws == 0:
        _check_mle_exists(names, scored, met)

    pairs = [(i, j, pair_games[(i, j)], pair_points[(i, j)]) for (i, j) in pair_games]

    def log_likelihood(theta: list[float]) -> float:
        total = 0.0
        for i, j, m, s in pairs:
            d = theta[i] - theta[j]
            total += s * log_sigmoid(d) + (m - s) * log_sigmoid(-d)
        if prior_draws:
            total += sum(0.5 * prior_draws * (log_sigmoid(t) + log_sigmoid(-t)) for t in theta)
        return total

    def gradient_and_information(theta: list[float]) -> tuple[list[float], list[list[float]]]:
        grad = [0.0] * n
        info = [[0.0] * n for _ in range(n)]
        for i, j, m, s in pairs:
            p = sigmoid(theta[i] - theta[j])
            grad[i] += s - m * p
            grad[j] -= s - m * p
            w = m * p * (1.0 - p)
            info[i][i] += w
            info[j][j] += w
            info[i][j] -= w
            info[j][i] -= w
        if prior_draws:
            for i, t in enumerate(theta):
                p = sigmoid(t)
                grad[i] += prior_draws * (0.5 - p)
                info[i][i] += prior_draws * p * (1.0 - p)
        return grad, info

    def regularised(info: list[list[float]]) -> list[list[float]]:
        # Without a prior the information is singular along (1, ..., 1); adding J/n
        # makes it invertible and leaves it unchanged on the mean-zero subspace.
        if prior_draws:
            return info
        return [[v + 1.0 / n for v in row] for row in info]

    theta = [0.0] * n
    current = log_likelihood(theta)
    for _ in range(_MAX_ITERATIONS):
        grad, info = gradient_and_information(theta)
        step = [row[0] for row in _solve(regularised(info), [[v] for v in grad])]
        size = 1.0
        while True:
            candidate = [t + size * d for t, d in zip(theta, step)]
            value = log_likelihood(candidate)
            if value >= current - 1e-12 or size < 1e-6:
                break
            size /= 2.0
        theta, current = candidate, value
        if max(abs(size * d) for d in step) < _TOLERANCE:
            break
    else:  # pragma: no cover - the log-likelihood is strictly concave, Newton converges
        raise RuntimeError("Elo fit did not converge")

    mean = sum(theta) / n
    theta = [t - mean for t in theta]

    _, info = gradient_and_information(theta)
    identity = [[1.0 if r == c else 0.0 for c in range(n)] for r in range(n)]
    inverse = _solve(regularised(info), identity)
    # Project onto the mean-zero subspace: C = P M^-1 P with P = I - J/n.
    row_means = [sum(row) / n for row in inverse]
    col_means = [sum(inverse[r][c] for r in range(n)) / n for c in range(n)]
    grand = sum(row_means) / n
    variances = [inverse[i][i] - row_means[i] - col_means[i] + grand for i in range(n)]

    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    ratings: dict[str, Rating] = {}
    for name, i in index.items():
        elo = theta[i] * ELO_PER_NAT
        stderr = math.sqrt(max(variances[i], 0.0)) * ELO_PER_NAT
        played, points = table[name]
        ratings[name] = Rating(name, elo, elo - z * stderr, elo + z * stderr, played, points, stderr)
    return ratings


# --------------------------------------------------------------------------- LOS


def _los(wins: int, losses: int) -> float:
    """Return the likelihood of superiority ``Phi((W - L) / sqrt(W + L))``, 0.5 if no decisive games."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def los_matrix(games: Sequence[GameResult]) -> dict[str, dict[str, float]]:
    """Return ``los[i][j]``, the likelihood that ``i`` is stronger than ``j``, per head-to-head pair.

    ``LOS = Phi((W - L) / sqrt(W + L))`` with ``W`` and ``L`` the wins and losses of
    ``i`` against ``j`` (draws ignored), and 0.5 when they never had a decisive game.
    Only ordered pairs that played each other appear; ``los[i][j] + los[j][i] == 1``.
    """
    wins: dict[tuple[str, str], int] = {}
    for g in _rated_games(games):
        wins.setdefault((g.x, g.o), 0)
        wins.setdefault((g.o, g.x), 0)
        if g.score == 1.0:
            wins[(g.x, g.o)] += 1
        elif g.score == 0.0:
            wins[(g.o, g.x)] += 1
    matrix: dict[str, dict[str, float]] = {}
    for (i, j), w in wins.items():
        matrix.setdefault(i, {})[j] = _los(w, wins[(j, i)])
    return matrix


# --------------------------------------------------------------------------- pentanomial


def pentanomial(games: Sequence[GameResult]) -> dict[tuple[str, str], list[int]]:
    """Count colour-swapped game pairs by their total score, per pairing.

    Keys are ``(a, b)`` with the names sorted; the value ``counts`` has five entries
    where ``counts[k]`` is the number of pairs in which ``a`` scored ``k / 2`` points
    over the two games (index 0 = lost both, 4 = won both). A pair is the two games
    sharing a ``pair_key`` and played between the same two engines with colours
    swapped. Unpaired games, keys with only one game, and keys whose games do not
    form such a pair (more than two games, other engines, same colours) are skipped.
    """
    by_key: dict[str, list[GameResult]] = {}
    for g in _rated_games(games):
        if g.pair_key is not None:
            by_key.setdefault(g.pair_key, []).append(g)
    counts: dict[tuple[str, str], list[int]] = {}
    for group in by_key.values():
        if len(group) != 2:
            continue
        first, second = group
        if (first.x, first.o) != (second.o, second.x):
            continue
        a, b = sorted((first.x, first.o))
        total = sum(g.score if g.x == a else 1.0 - g.score for g in group)
        counts.setdefault((a, b), [0] * 5)[round(2 * total)] += 1
    return counts


@dataclass(frozen=True)
class PairedEstimate:
    """Elo of ``a`` over ``b`` estimated from colour-swapped pairs (the pentanomial model)."""

    pairs: int
    score: float
    """``a``'s mean score per game."""
    elo: float
    elo_ci: tuple[float, float]
    """95% interval; infinite ends where the score interval reaches 0 or 1."""
    los: float
    """Likelihood that ``a`` is stronger than ``b``."""


def _elo_of_score(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no -0 for an even score


def paired_estimate(counts: Sequence[int]) -> PairedEstimate | None:
    """Elo, 95% interval and LOS of ``a`` over ``b`` from pentanomial ``counts`` (see pentanomial).

    With colour-swapped openings the two games of a pair are not independent (the opening may
    favour one colour), so the pair is the unit: its score ``k / 4`` per game, ``k`` = 0..4, has
    mean ``m`` and variance ``v`` over the ``N`` pairs; ``LOS = Phi((m - 1/2) / sqrt(v / N))``
    and the interval maps ``m -+ 1.96 sqrt(v / N)`` to Elo, as fishtest does. None without
    pairs.

    When every pair scored the same ``k / 4`` the variance is 0 and that interval would have no
    width ("+inf [+inf, +inf]" for a sweep, "+0 [+0, +0]" for all split pairs), which claims far
    more than N pairs show. Then the interval is exact instead: with 95% confidence a pair
    scores ``k / 4`` with probability ``p >= 0.05 ** (1 / N)`` (Clopper-Pearson, N of N), and
    whatever the other pairs score, ``m`` lies in ``[p k / 4, p k / 4 + 1 - p]``. The LOS is
    then the games' formula over pairs, ``Phi(+-sqrt(N))`` (1/2 if every pair was split), not 0
    or 1 from a single pair.
    """
    if len(counts) != 5 or min(counts) < 0:
        raise ValueError(f"pentanomial counts are five numbers >= 0, got {list(counts)!r}")
    pairs = sum(counts)
    if pairs == 0:
        return None
    mean = sum(k / 4 * c for k, c in enumerate(counts)) / pairs
    variance = sum(c * (k / 4 - mean) ** 2 for k, c in enumerate(counts)) / pairs
    error = math.sqrt(variance / pairs)
    if error > 0:
        los = NormalDist().cdf((mean - 0.5) / error)
        z = NormalDist().inv_cdf(0.975)
        low, high = mean - z * error, mean + z * error
    else:
        # LOS as for games: pairs above an even score count as won, below as lost.
        los = _los(pairs if mean > 0.5 else 0, pairs if mean < 0.5 else 0)
        p = 0.05 ** (1.0 / pairs)
        low = p * mean
        high = low + 1.0 - p
    interval = (_elo_of_score(low), _elo_of_score(high))
    return PairedEstimate(pairs, mean, _elo_of_score(mean), interval, los)


# --------------------------------------------------------------------------- SPRT


def sprt(
    wins: int,
    draws: int,
    losses: int,
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SprtResult:
    """Run the trinomial GSPRT of H0 (``elo = elo0``) against H1 (``elo = elo1``).

    This is the normal approximation used by fishtest and cutechess: with ``N`` games,
    mean score ``m`` and per-game score variance ``v`` (from the W/D/L frequencies),
    ``LLR = N * (s1 - s0) * (2m - s0 - s1) / (2v)`` where ``s0, s1`` are the expected
    scores of ``elo0, elo1``. H0 is accepted at ``llr <= ln(beta / (1 - alpha))`` and H1
    at ``llr >= ln((1 - beta) / alpha)``. When the variance is zero (no games, or all
    games with the same result) the approximation is undefined and the LLR is 0.
    """
    if min(wins, draws, losses) < 0:
        raise ValueError("wins, draws and losses must be >= 0")
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0):
        raise ValueError("alpha and beta must be strictly between 0 and 1")
    if not elo0 < elo1:
        raise ValueError(f"elo0 must be below elo1, got elo0={elo0!r}, elo1={elo1!r}")
    lower = math.log(beta / (1.0 - alpha))
    upper = math.log((1.0 - beta) / alpha)

    n = wins + draws + losses
    llr = 0.0
    if n:
        mean = (wins + 0.5 * draws) / n
        variance = (wins + 0.25 * draws) / n - mean * mean
        if variance > 0:
            s0, s1 = expected_score(elo0), expected_score(elo1)
            llr = n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)

    decision: Literal["H0", "H1", "continue"] = "continue"
    if llr >= upper:
        decision = "H1"
    elif llr <= lower:
        decision = "H0"
    return SprtResult(llr, lower, upper, decision)


# --------------------------------------------------------------------------- pentanomial SPRT

PENTANOMIAL_EPSILON = 1e-3
"""Pair counts of 0 are taken as this (fishtest's regularisation): the likelihood needs every outcome."""


def _constrained_mle(pdf: Sequence[tuple[float, float]], s: float) -> list[float]:
    """The distribution over the same outcomes with expectation ``s`` that is most likely to have
    produced the empirical ``pdf`` ((outcome, frequency) pairs, every frequency > 0, the outcomes
    around ``s``): ``q_i = p_i / (1 + x (a_i - s))`` where ``x`` solves the secular equation
    ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0`` (decreasing in ``x``; found by bisection)."""
    low_a, high_a = min(a for a, _ in pdf), max(a for a, _ in pdf)
    if not low_a < s < high_a:
        raise ValueError(f"expectation {s!r} is not strictly between the outcomes {low_a} and {high_a}")
    low, high = -1.0 / (high_a - s), 1.0 / (s - low_a)

    def secular(x: float) -> float:
        return sum(p * (a - s) / (1.0 + x * (a - s)) for a, p in pdf)

    for _ in range(200):
        middle = (low + high) / 2.0
        if secular(middle) > 0.0:
            low = middle
        else:
            high = middle
        if high - low < 1e-15:
            break
    x = (low + high) / 2.0
    return [p / (1.0 + x * (a - s)) for a, p in pdf]


def pentanomial_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 (``elo = elo1``) against H0 (``elo = elo0``) for
    colour-swapped pairs counted as in ``pentanomial`` (pair scores 0, 1/4, ..., 1 per game): the
    pairs' empirical distribution ``p`` (zeros regularised to ``PENTANOMIAL_EPSILON``), its most
    likely neighbours ``q0``, ``q1`` with expectations ``s0``, ``s1`` (``expected_score`` of the two
    Elos), and ``LLR = N * sum p_i ln(q1_i / q0_i)`` -- fishtest's pentanomial GSPRT."""
    if len(counts) != 5 or min(counts) < 0:
        raise ValueError(f"pentanomial counts are five numbers >= 0, got {list(counts)!r}")
    if not elo0 < elo1:
        raise ValueError(f"elo0 must be below elo1, got elo0={elo0!r}, elo1={elo1!r}")
    if sum(counts) == 0:
        return 0.0
    regular = [float(c) if c > 0 else PENTANOMIAL_EPSILON for c in counts]
    total = sum(regular)
    pdf = [(k / 4.0, c / total) for k, c in enumerate(regular)]
    q0 = _constrained_mle(pdf, expected_score(elo0))
    q1 = _constrained_mle(pdf, expected_score(elo1))
    return total * sum(p * math.log(b / a) for (_, p), a, b in zip(pdf, q0, q1))


def sprt_pentanomial(counts: Sequence[int], elo0: float, elo1: float, alpha: float = 0.05,
                     beta: float = 0.05) -> SprtResult:
    """The pentanomial GSPRT's state: ``pentanomial_llr`` against Wald's bounds
    ``ln(beta / (1 - alpha))`` (accept H0) and ``ln((1 - beta) / alpha)`` (accept H1)."""
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0):
        raise ValueError("alpha and beta must be strictly between 0 and 1")
    llr = pentanomial_llr(counts, elo0, elo1)
    lower, upper = math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)
    decision: Literal["H0", "H1", "continue"] = "H1" if llr >= upper else "H0" if llr <= lower else "continue"
    return SprtResult(llr, lower, upper, decision)
