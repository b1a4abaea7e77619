"""Rating statistics checked against values worked out by hand.

Shorthand used in the comments: k = 400 / ln(10) = 173.7178 Elo per natural-log
unit; z95 = 1.959964; Phi = standard normal CDF.
"""

from __future__ import annotations

import math

import pytest

from harness.report.ratings import (
    GameResult,
    Rating,
    elo_ratings,
    expected_score,
    los_matrix,
    paired_estimate,
    pentanomial,
    score_table,
    sprt,
)

TOL = 0.01


def games(x: str, o: str, *scores: float) -> list[GameResult]:
    """Games with ``x`` on blue scoring ``scores`` against ``o``."""
    return [GameResult(x, o, s) for s in scores]


def pair(key: str, a: str, b: str, a_blue: float, a_red: float) -> list[GameResult]:
    """One colour-swapped pair: ``a`` scores ``a_blue`` on blue, then ``a_red`` on red."""
    return [GameResult(a, b, a_blue, key), GameResult(b, a, 1.0 - a_red, key)]


# --------------------------------------------------------------------------- GameResult


def test_game_result_rejects_non_game_scores() -> None:
    with pytest.raises(ValueError, match="score"):
        GameResult("A", "B", 0.75)


# --------------------------------------------------------------------------- expected_score / score_table


def test_expected_score() -> None:
    assert expected_score(0) == pytest.approx(0.5, abs=1e-12)  # 1 / (1 + 10^0) = 1/2
    assert expected_score(400) == pytest.approx(0.9091, abs=1e-4)  # 1 / (1 + 10^-1) = 10/11
    assert expected_score(-400) == pytest.approx(0.0909, abs=1e-4)  # 1 / (1 + 10^1) = 1/11
    # 400 * log10(3) = 190.85 Elo is odds of 3:1 -> 1 / (1 + 1/3) = 0.75
    assert expected_score(400 * math.log10(3)) == pytest.approx(0.75, abs=1e-12)


def test_score_table_counts_both_colours_and_skips_self_games() -> None:
    results = [
        GameResult("A", "B", 1.0),  # A +1, B +0
        GameResult("B", "A", 0.5),  # B +0.5, A +0.5
        GameResult("C", "A", 0.0),  # C +0, A +1
        GameResult("A", "A", 1.0),  # self-game: ignored
    ]
    assert score_table(results) == {
        "A": (3, 2.5),  # 1 + 0.5 + 1
        "B": (2, 0.5),  # 0 + 0.5
        "C": (1, 0.0),
    }


def test_empty_input() -> None:
    assert score_table([]) == {}
    assert elo_ratings([]) == {}
    assert elo_ratings([], prior_draws=0) == {}
    assert los_matrix([]) == {}
    assert pentanomial([]) == {}


def test_only_self_games_is_empty() -> None:
    only_self = games("A", "A", 1.0, 0.0, 0.5)
    assert score_table(only_self) == {}
    assert elo_ratings(only_self) == {}
    assert elo_ratings(only_self, prior_draws=0) == {}
    assert los_matrix(only_self) == {}
    assert pentanomial([GameResult("A", "A", 1.0, "p"), GameResult("A", "A", 0.0, "p")]) == {}


# --------------------------------------------------------------------------- elo_ratings


def test_two_engines_three_out_of_four_without_prior() -> None:
    # A scores 3/4 against B (both colours).
    results = games("A", "B", 1.0, 1.0) + games("B", "A", 1.0, 0.0)
    r = elo_ratings(results, prior_draws=0)
    a, b = r["A"], r["B"]
    # MLE: P(A beats B) = 3/4 -> odds 3 -> A - B = 400 * log10(3) = 190.85; centred: +-95.42
    assert a.elo - b.elo == pytest.approx(190.85, abs=TOL)
    assert a.elo == pytest.approx(95.42, abs=TOL)
    assert b.elo == pytest.approx(-95.42, abs=TOL)
    # Fisher information of the difference: n p (1-p) = 4 * 0.75 * 0.25 = 0.75
    # se(diff) = 1 / sqrt(0.75) = 1.1547 nats = 1.1547 * 173.7178 = 200.59 Elo
    # each centred rating is +-diff/2 -> se = 200.59 / 2 = 100.30
    assert a.stderr == pytest.approx(100.30, abs=TOL)
    assert b.stderr == pytest.approx(100.30, abs=TOL)
    # 95%: z = 1.959964; 1.959964 * 100.296 = 196.58
    assert a.ci_low == pytest.approx(95.42 - 196.58, abs=TOL)  # = -101.15
    assert a.ci_high == pytest.approx(95.42 + 196.58, abs=TOL)  # = 292.00
    assert b.ci_low == pytest.approx(-95.42 - 196.58, abs=TOL)
    assert b.ci_high == pytest.approx(-95.42 + 196.58, abs=TOL)
    assert a == Rating("A", a.elo, a.ci_low, a.ci_high, 4, 3.0, a.stderr)
    assert (b.games, b.score) == (4, 1.0)


def test_confidence_level_changes_only_the_interval() -> None:
    results = games("A", "B", 1.0, 1.0) + games("B", "A", 1.0, 0.0)
    a = elo_ratings(results, prior_draws=0, confidence=0.6827)["A"]
    # z(0.6827 two-sided) = 1.0000 -> interval 95.42 +- 100.30
    assert a.stderr == pytest.approx(100.30, abs=TOL)
    assert a.ci_low == pytest.approx(95.42 - 100.30, abs=0.05)  # -4.88
    assert a.ci_high == pytest.approx(95.42 + 100.30, abs=0.05)  # 195.72


def test_draws_count_as_half_a_win_and_half_a_loss() -> None:
    # W=2, D=2, L=0 is 3 points out of 4, the same likelihood as W=3, L=1.
    results = games("A", "B", 1.0, 0.5) + games("B", "A", 0.0, 0.5)
    a = elo_ratings(results, prior_draws=0)["A"]
    assert a.elo == pytest.approx(95.42, abs=TOL)  # 200 * log10(3)
    assert a.stderr == pytest.approx(100.30, abs=TOL)  # 0.5 / sqrt(0.75) * 173.7178


def test_all_draws_give_zero() -> None:
    results = games("A", "B", 0.5, 0.5) + games("B", "A", 0.5, 0.5)
    for prior in (0.0, 1.0):
        r = elo_ratings(results, prior_draws=prior)
        assert r["A"].elo == pytest.approx(0.0, abs=TOL)
        assert r["B"].elo == pytest.approx(0.0, abs=TOL)


def test_all_draws_stderr_with_prior() -> None:
    # At 0 every p = 1/2 so each game / prior draw adds p(1-p) = 1/4 of information.
    # H = [[1 + 1/4, -1], [-1, 1 + 1/4]]  (4 games -> w = 1; prior 1 -> q = 1/4)
    # Along u = (1, -1): eigenvalue 2w + q = 2.25 -> Var(A - B) = 2 / 2.25 = 0.8889
    # centred A = (A - B) / 2 -> Var = 0.8889 / 4 = 0.2222, se = 0.4714 * 173.7178 = 81.89
    results = games("A", "B", 0.5, 0.5) + games("B", "A", 0.5, 0.5)
    r = elo_ratings(results, prior_draws=1.0)
    assert r["A"].stderr == pytest.approx(81.89, abs=TOL)
    assert r["B"].stderr == pytest.approx(81.89, abs=TOL)


def test_symmetric_cycle_gives_zero() -> None:
    # A beats B, B beats C, C beats A: everyone 1/2, all ratings 0.
    results = [GameResult("A", "B", 1.0), GameResult("B", "C", 1.0), GameResult("C", "A", 1.0)]
    r = elo_ratings(results, prior_draws=0)
    for name in "ABC":
        assert r[name].elo == pytest.approx(0.0, abs=TOL)
        # Each pair: one game at p = 1/2 -> weight 1/4; H = 1/4 * (3I - J), whose
        # eigenvalue on the mean-zero subspace is 3/4, so the pseudo-inverse is
        # (4/3) * (I - J/3): Var = 4/3 * 2/3 = 8/9, se = 0.9428 * 173.7178 = 163.78
        assert r[name].stderr == pytest.approx(163.78, abs=TOL)
    r1 = elo_ratings(results, prior_draws=1.0)
    for name in "ABC":
        assert r1[name].elo == pytest.approx(0.0, abs=TOL)


def test_chain_without_direct_games() -> None:
    # A-B 3/4 and B-C 3/4, A and C never meet: a tree, so each edge is fitted alone.
    results = games("A", "B", 1.0, 1.0, 1.0, 0.0) + games("B", "C", 1.0, 1.0, 1.0, 0.0)
    r = elo_ratings(results, prior_draws=0)
    # A - B = B - C = 190.85; mean 0 -> A = +190.85, B = 0, C = -190.85
    assert r["A"].elo == pytest.approx(190.85, abs=TOL)
    assert r["B"].elo == pytest.approx(0.0, abs=TOL)
    assert r["C"].elo == pytest.approx(-190.85, abs=TOL)
    # d1 = A - B, d2 = B - C independent, Var = 1 / (4 * 3/16) = 4/3 each.
    # A - mean = (2 d1 + d2) / 3 -> Var = (4 + 1) / 9 * 4/3 = 20/27, se = 0.8607 * k = 149.51
    # B - mean = (d2 - d1) / 3   -> Var = (1 + 1) / 9 * 4/3 = 8/27,  se = 0.5443 * k = 94.56
    assert r["A"].stderr == pytest.approx(149.51, abs=TOL)
    assert r["B"].stderr == pytest.approx(94.56, abs=TOL)
    assert r["C"].stderr == pytest.approx(149.51, abs=TOL)


def test_prior_makes_a_perfect_score_finite() -> None:
    results = games("A", "B", 1.0, 1.0) + games("B", "A", 0.0, 0.0)  # A 4/4
    r = elo_ratings(results, prior_draws=1.0)
    a, b = r["A"].elo, r["B"].elo
    assert math.isfinite(a) and math.isfinite(b)
    assert a > 0 > b
    assert a == pytest.approx(-b, abs=1e-9)  # symmetric under swapping A and B
    assert math.isfinite(r["A"].stderr) and r["A"].stderr > 0
    # Stationarity by hand: with t = A in nats (B = -t) and sigma the logistic function,
    # d/dt ln L = 4 * (1 - sigma(2t)) + 1 * (1/2 - sigma(t)) must vanish.
    t = a / (400 / math.log(10))
    sigma = lambda v: 1 / (1 + math.exp(-v))  # noqa: E731
    assert 4 * (1 - sigma(2 * t)) + 0.5 - sigma(t) == pytest.approx(0.0, abs=1e-9)


def test_prior_shrinks_towards_zero() -> None:
    results = games("A", "B", 1.0, 1.0) + games("B", "A", 1.0, 0.0)  # A 3/4
    plain = elo_ratings(results, prior_draws=0)["A"].elo  # 95.42
    assert 0 < elo_ratings(results, prior_draws=1)["A"].elo < plain
    assert 0 < elo_ratings(results, prior_draws=10)["A"].elo < elo_ratings(results, prior_draws=1)["A"].elo


def test_self_games_are_ignored_by_the_fit() -> None:
    base = games("A", "B", 1.0, 1.0) + games("B", "A", 1.0, 0.0)
    noisy = base + games("A", "A", 1.0, 1.0) + games("B", "B", 0.0)
    assert elo_ratings(noisy, prior_draws=0) == elo_ratings(base, prior_draws=0)
    assert (elo_ratings(noisy)["A"].games, elo_ratings(noisy)["A"].score) == (4, 3.0)


def test_mle_without_prior_rejects_perfect_scores() -> None:
    with pytest.raises(ValueError, match="'A' won every game"):
        elo_ratings(games("A", "B", 1.0, 1.0), prior_draws=0)
    with pytest.raises(ValueError, match="'B' lost every game"):
        # A draws with C, so A is not perfect; B only loses.
        elo_ratings(games("A", "B", 1.0) + games("A", "C", 0.5) + games("C", "B", 1.0, 1.0), prior_draws=0)


def test_mle_without_prior_rejects_disconnected_graph() -> None:
    results = games("A", "B", 1.0, 0.0) + games("C", "D", 0.5, 0.5)
    with pytest.raises(ValueError, match="disconnected"):
        elo_ratings(results, prior_draws=0)
    r = elo_ratings(results, prior_draws=1.0)  # the prior ties both groups to 0
    assert set(r) == {"A", "B", "C", "D"}
    assert all(abs(v.elo) < TOL for v in r.values())


def test_mle_without_prior_rejects_a_dominant_group() -> None:
    # Everyone has points and concessions, but {A, B} won every game against {C, D}.
    results = (
        games("A", "B", 1.0, 0.0) + games("C", "D", 1.0, 0.0) + games("A", "C", 1.0) + games("D", "B", 0.0)
    )
    with pytest.raises(ValueError, match="group of engines"):
        elo_ratings(results, prior_draws=0)


def test_elo_rejects_bad_parameters() -> None:
    results = games("A", "B", 1.0, 0.0)
    with pytest.raises(ValueError, match="prior_draws"):
        elo_ratings(results, prior_draws=-1)
    with pytest.raises(ValueError, match="confidence"):
        elo_ratings(results, confidence=1.0)


def test_many_engines_centred_and_ordered() -> None:
    # Round robin where the earlier name scores 3/4 against every later name.
    names = "ABCDE"
    results = []
    for i, x in enumerate(names):
        for o in names[i + 1 :]:
            results += games(x, o, 1.0, 0.5) + games(o, x, 0.5, 0.0)
    r = elo_ratings(results, prior_draws=0)
    assert sum(v.elo for v in r.values()) == pytest.approx(0.0, abs=1e-6)
    elos = [r[n].elo for n in names]
    assert elos == sorted(elos, reverse=True)
    # Symmetric around the middle engine: C = 0, A = -E, B = -D.
    assert r["C"].elo == pytest.approx(0.0, abs=1e-6)
    assert r["A"].elo == pytest.approx(-r["E"].elo, abs=1e-6)


# --------------------------------------------------------------------------- los_matrix


def test_los_matrix() -> None:
    results = (
        games("A", "B", 1.0, 1.0, 1.0, 0.0, 0.5)  # A: W=3, L=1, one draw
        + games("B", "A", 0.0, 0.0, 0.0, 1.0)  # A: W=3, L=1
        + games("A", "C", 0.5, 0.5)  # only draws
        + games("B", "B", 1.0)  # self-game: ignored
    )
    los = los_matrix(results)
    # W=6, L=2: Phi((6 - 2) / sqrt(8)) = Phi(1.4142) = 0.9214
    assert los["A"]["B"] == pytest.approx(0.9214, abs=1e-4)
    assert los["B"]["A"] == pytest.approx(1 - 0.9214, abs=1e-4)  # Phi(-1.4142) = 0.0786
    assert los["A"]["C"] == 0.5  # W + L = 0
    assert los["C"]["A"] == 0.5
    assert set(los) == {"A", "B", "C"}
    assert set(los["B"]) == {"A"}  # no self entry, no entry for pairs that never met
    assert set(los["C"]) == {"A"}


def test_los_small_counts() -> None:
    # W=2, L=1: Phi(1 / sqrt(3)) = Phi(0.5774) = 0.7181
    los = los_matrix(games("A", "B", 1.0, 1.0, 0.0))
    assert los["A"]["B"] == pytest.approx(0.7181, abs=1e-4)
    # W=0, L=2: Phi(-2 / sqrt(2)) = Phi(-1.4142) = 0.0786
    los = los_matrix(games("A", "B", 0.0, 0.0))
    assert los["A"]["B"] == pytest.approx(0.0786, abs=1e-4)


# --------------------------------------------------------------------------- pentanomial


def test_pentanomial_counts_per_sorted_pairing() -> None:
    results = (
        pair("p1", "B", "A", 1.0, 1.0)  # B wins both -> A scores 0 -> index 0
        + pair("p2", "A", "B", 1.0, 0.5)  # A: 1 + 0.5 = 1.5 -> index 3
        + pair("p3", "A", "B", 1.0, 0.0)  # A: 1 + 0 = 1 -> index 2
        + pair("p4", "B", "A", 0.5, 0.5)  # A: 0.5 + 0.5 = 1 -> index 2
        + pair("p5", "A", "B", 1.0, 1.0)  # A: 2 -> index 4
        + pair("p6", "C", "A", 0.0, 0.5)  # key (A, C); A: 1 + 0.5 = 1.5 -> index 3
    )
    assert pentanomial(results) == {
        ("A", "B"): [1, 0, 2, 1, 1],
        ("A", "C"): [0, 0, 0, 1, 0],
    }


def test_pentanomial_skips_incomplete_and_malformed_pairs() -> None:
    results = (
        pair("ok", "A", "B", 0.5, 0.0)  # A: 0.5 -> index 1
        + [GameResult("A", "B", 1.0, "half")]  # partner game missing
        + [GameResult("A", "B", 1.0, None), GameResult("B", "A", 1.0, None)]  # unpaired
        + [GameResult("A", "B", 1.0, "same"), GameResult("A", "B", 1.0, "same")]  # colours not swapped
        + [GameResult("A", "B", 1.0, "mix"), GameResult("C", "A", 1.0, "mix")]  # different engines
        + pair("three", "A", "B", 1.0, 1.0)
        + [GameResult("A", "B", 1.0, "three")]  # three games under one key
        + [GameResult("A", "A", 1.0, "self"), GameResult("B", "A", 1.0, "self")]  # self-game dropped
    )
    assert pentanomial(results) == {("A", "B"): [0, 1, 0, 0, 0]}


# --------------------------------------------------------------------------- sprt


def test_sprt_bounds() -> None:
    result = sprt(0, 0, 0, 0, 10)
    assert result.lower == pytest.approx(-2.944, abs=1e-3)  # ln(0.05 / 0.95) = -2.9444
    assert result.upper == pytest.approx(2.944, abs=1e-3)  # ln(0.95 / 0.05) = +2.9444
    assert result.llr == 0.0
    assert result.decision == "continue"
    other = sprt(0, 0, 0, 0, 10, alpha=0.05, beta=0.1)
    assert other.lower == pytest.approx(-2.2513, abs=1e-4)  # ln(0.1 / 0.95)
    assert other.upper == pytest.approx(2.8904, abs=1e-4)  # ln(0.9 / 0.05) = ln(18)


def test_sprt_llr_by_hand() -> None:
    # W=60, D=20, L=20: N = 100, mean = (60 + 10) / 100 = 0.7
    # E[x^2] = (60 * 1 + 20 * 0.25) / 100 = 0.65 -> var = 0.65 - 0.49 = 0.16
    # s0 = 0.5; s1 = 1 / (1 + 10^-0.025) = 1 / 1.944061 = 0.514387
    # LLR = 100 * (0.014387) * (1.4 - 1.014387) / (2 * 0.16)
    #     = 100 * 0.014387 * 0.385613 / 0.32 = 1.7337
    result = sprt(60, 20, 20, 0, 10)
    assert result.llr == pytest.approx(1.7337, abs=1e-3)
    assert result.decision == "continue"


def test_sprt_decisions() -> None:
    # Same proportions, N = 200: LLR = 2 * 1.7337 = 3.4674 >= 2.944 -> H1
    h1 = sprt(120, 40, 40, 0, 10)
    assert h1.llr == pytest.approx(3.4674, abs=1e-3)
    assert h1.decision == "H1"
    # W=60, D=60, L=180: mean = 0.3, var = (60 + 15) / 300 - 0.09 = 0.16
    # LLR = 300 * 0.014387 * (0.6 - 1.014387) / 0.32 = -5.589 <= -2.944 -> H0
    h0 = sprt(60, 60, 180, 0, 10)
    assert h0.llr == pytest.approx(-5.589, abs=1e-2)
    assert h0.decision == "H0"


def test_sprt_zero_variance_and_bad_input() -> None:
    assert sprt(5, 0, 0, 0, 10).llr == 0.0  # all wins: variance 0, approximation undefined
    assert sprt(0, 7, 0, 0, 10).decision == "continue"
    with pytest.raises(ValueError):
        sprt(-1, 0, 0, 0, 10)
    with pytest.raises(ValueError):
        sprt(1, 1, 1, 10, 0)
    with pytest.raises(ValueError):
        sprt(1, 1, 1, 0, 10, alpha=0)


def test_paired_estimate_by_hand() -> None:
    # Two split pairs (pair score 1/2 per game) and two won pairs (1): mean 3/4, variance 1/16,
    # standard error sqrt(1/16 / 4) = 1/8, so (m - 1/2) / se = 2.
    estimate = paired_estimate([0, 0, 2, 0, 2])
    assert estimate is not None
    assert (estimate.pairs, estimate.score) == (4, 0.75)
    assert estimate.elo == pytest.approx(400 * math.log10(3))
    assert estimate.los == pytest.approx(0.5 * (1 + math.erf(2 / math.sqrt(2))))
    z = 1.959963984540054
    low, high = 0.75 - z / 8, 0.75 + z / 8
    assert estimate.elo_ci == pytest.approx((400 * math.log10(low / (1 - low)), 400 * math.log10(high / (1 - high))))


def test_paired_estimate_edges() -> None:
    assert paired_estimate([0, 0, 0, 0, 0]) is None
    elo = lambda m: 400 * math.log10(m / (1 - m))  # noqa: E731
    # Every pair split: no spread, yet 7 pairs cannot pin the difference to 0. With 95%
    # confidence a pair is split with probability p >= 0.05 ** (1/7), so m is in [p/2, p/2 + 1 - p].
    level = paired_estimate([0, 0, 7, 0, 0])
    assert level is not None and (level.pairs, level.score, level.elo, level.los) == (7, 0.5, 0.0, 0.5)
    assert math.copysign(1.0, level.elo) == 1.0  # printed "+0", not "-0"
    p = 0.05 ** (1 / 7)
    assert level.elo_ci == pytest.approx((elo(p / 2), elo(p / 2 + 1 - p)))
    assert level.elo_ci == pytest.approx((-126.24, 126.24), abs=0.01)
    # Three sweeps: m = 1, so +inf, but the lower end is finite: m >= p = 0.05 ** (1/3).
    sweep = paired_estimate([0, 0, 0, 0, 3])
    assert sweep is not None and (sweep.score, sweep.elo, sweep.elo_ci[1]) == (1.0, math.inf, math.inf)
    assert sweep.elo_ci[0] == pytest.approx(elo(0.05 ** (1 / 3)))
    assert sweep.elo_ci[0] == pytest.approx(-93.65, abs=0.01)
    assert sweep.los == pytest.approx(0.5 * (1 + math.erf(3 / math.sqrt(6))))  # Phi(sqrt 3), as for 3 wins
    swept = paired_estimate([50, 0, 0, 0, 0])
    assert swept is not None and (swept.elo, swept.elo_ci[0]) == (-math.inf, -math.inf)
    assert swept.elo_ci[1] == pytest.approx(-elo(0.05 ** (1 / 50)))
    assert swept.elo_ci[1] == pytest.approx(-483.76, abs=0.01)
    assert swept.los == pytest.approx(0.5 * (1 - math.erf(5)))
    # Every pair scored 1/4 per game: m = 1/4 but in [p/4, p/4 + 1 - p], p = 0.05 ** (1/5).
    quarter = paired_estimate([0, 5, 0, 0, 0])
    assert quarter is not None and quarter.elo == pytest.approx(elo(0.25))
    p = 0.05 ** (1 / 5)
    assert quarter.elo_ci == pytest.approx((elo(p / 4), elo(p / 4 + 1 - p)))
    assert quarter.los == pytest.approx(0.5 * (1 - math.erf(math.sqrt(5 / 2))))
    mirror = paired_estimate([2, 0, 2, 0, 0])
    assert mirror is not None and mirror.elo == pytest.approx(-400 * math.log10(3))
    with pytest.raises(ValueError, match="pentanomial counts are five numbers >= 0"):
        paired_estimate([1, 2, 3])
