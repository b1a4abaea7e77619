"""Anchored Elo and grade bands, against values derived here from the model (closed forms, grids, and
numeric derivatives), never from the code under test.

k = 400 / ln(10) Elo per natural-log unit; E(d) = 1 / (1 + 10 ** (-d / 400)) the expected score.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest

from harness.course.grades import Band, anchored_ratings, band_verdict, next_opponents
from harness.report.ratings import GameResult

K = 400.0 / math.log(10.0)
Z95 = 1.959963984540054


def expected(d: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -d / 400.0))


def games(x: str, o: str, wins: int = 0, draws: int = 0, losses: int = 0) -> list[GameResult]:
    """``x`` on blue against ``o``: ``wins`` wins, ``draws`` draws and ``losses`` losses for ``x``."""
    return [GameResult(x, o, 1.0)] * wins + [GameResult(x, o, 0.5)] * draws + [GameResult(x, o, 0.0)] * losses


def log_likelihood(ratings: dict[str, float], record: list[tuple[str, str, float]], prior: float,
                   anchor: float, free: list[str]) -> float:
    """The penalised log-likelihood in Elo: each game, and ``prior`` draws per free name against ``anchor``."""
    total = 0.0
    for a, b, s in record:
        e = expected(ratings[a] - ratings[b])
        total += s * math.log(e) + (1 - s) * math.log(1 - e)
    for name in free:
        e = expected(ratings[name] - anchor)
        total += prior / 2 * (math.log(e) + math.log(1 - e))
    return total


# --------------------------------------------------------------------------- anchored Elo


@pytest.mark.parametrize("wins, draws, losses, prior", [(7, 3, 2, 1.0), (0, 0, 5, 1.0), (4, 0, 0, 2.5), (3, 6, 3, 0.5)])
def test_one_student_against_one_anchor_has_the_closed_form_rating(wins: int, draws: int, losses: int, prior: float) -> None:
    anchor = 250.0
    ratings = anchored_ratings(games("student", "greedy", wins, draws, losses), {"greedy": anchor}, prior_draws=prior)
    # Setting the derivative to 0: (w + d/2 + p/2) (1 - E) = (l + d/2 + p/2) E.
    elo = anchor + 400 * math.log10((wins + draws / 2 + prior / 2) / (losses + draws / 2 + prior / 2))
    record = [("student", "greedy", s) for s in [1.0] * wins + [0.5] * draws + [0.0] * losses]

    def curve(r: float) -> float:
        return log_likelihood({"student": r, "greedy": anchor}, record, prior, anchor, ["student"])

    h = 0.5
    second = (curve(elo + h) - 2 * curve(elo) + curve(elo - h)) / (h * h)
    stderr = 1 / math.sqrt(-second)
    got = ratings["student"]
    assert got.elo == pytest.approx(elo, abs=1e-6)
    assert got.stderr == pytest.approx(stderr, rel=1e-4)
    assert (got.ci_low, got.ci_high) == pytest.approx((elo - Z95 * stderr, elo + Z95 * stderr), rel=1e-4, abs=1e-3)
    assert (got.games, got.score) == (wins + draws + losses, wins + draws / 2)


def test_anchors_keep_their_ratings_with_no_error() -> None:
    ratings = anchored_ratings(games("s", "greedy", 3, 0, 1) + games("alphabeta", "s", 2, 0, 0),
                               {"random": -400.0, "greedy": 0.0, "alphabeta": 400.0})
    assert [(r.name, r.elo, r.stderr, r.ci_low, r.ci_high, r.games, r.score) for r in ratings.values()
            if r.name != "s"] == [("random", -400.0, 0.0, -400.0, -400.0, 0, 0.0),
                                  ("greedy", 0.0, 0.0, 0.0, 0.0, 4, 1.0),
                                  ("alphabeta", 400.0, 0.0, 400.0, 400.0, 2, 2.0)]


def test_two_students_match_a_brute_force_grid_maximum_and_numeric_errors() -> None:
    fixed = {"x": 0.0, "y": 400.0}
    record_games = (games("a", "x", 3, 0, 1) + games("y", "a", 2, 1, 1) + games("b", "x", 2, 0, 2)
                    + games("a", "b", 2, 0, 1) + games("b", "y", 0, 0, 3))
    record = [(g.x, g.o, g.score) for g in record_games]
    prior, anchor = 1.0, 200.0

    def value(ra: float, rb: float) -> float:
        return log_likelihood({"a": ra, "b": rb, **fixed}, record, prior, anchor, ["a", "b"])

    best = (0.0, 0.0)
    for step, reach in ((20.0, 40), (1.0, 25), (0.05, 25), (0.002, 30)):
        centre = best
        cells = [(centre[0] + step * i, centre[1] + step * j) for i in range(-reach, reach + 1) for j in range(-reach, reach + 1)]
        best = max(cells, key=lambda c: value(*c))
    h = 0.5
    haa = (value(best[0] + h, best[1]) - 2 * value(*best) + value(best[0] - h, best[1])) / h**2
    hbb = (value(best[0], best[1] + h) - 2 * value(*best) + value(best[0], best[1] - h)) / h**2
    hab = (value(best[0] + h, best[1] + h) - value(best[0] + h, best[1] - h)
           - value(best[0] - h, best[1] + h) + value(best[0] - h, best[1] - h)) / (4 * h * h)
    det = haa * hbb - hab * hab  # the covariance is the inverse of minus this Hessian
    ratings = anchored_ratings(record_games, fixed)
    assert (ratings["a"].elo, ratings["b"].elo) == pytest.approx(best, abs=0.01)
    assert ratings["a"].stderr == pytest.approx(math.sqrt(-hbb / det), rel=1e-4)
    assert ratings["b"].stderr == pytest.approx(math.sqrt(-haa / det), rel=1e-4)


def test_a_student_with_no_game_gets_the_mean_of_the_anchors_and_the_prior_alone_as_error() -> None:
    ratings = anchored_ratings([], {"greedy": 0.0, "alphabeta": 500.0}, prior_draws=4.0, free=["idle"])
    # Information of 4 draws at E = 1/2: 4 * (1/2) * (1/2) = 1 per nat squared, so stderr = k.
    assert ratings["idle"].elo == pytest.approx(250.0, abs=1e-9)
    assert ratings["idle"].stderr == pytest.approx(K, rel=1e-9)
    assert (ratings["idle"].games, ratings["idle"].score) == (0, 0.0)


def test_a_student_who_won_every_game_still_has_a_finite_rating() -> None:
    ratings = anchored_ratings(games("s", "alphabeta", 10), {"alphabeta": 400.0})
    assert ratings["s"].elo == pytest.approx(400 + 400 * math.log10(10.5 / 0.5), abs=1e-6)


def test_games_of_a_program_against_itself_are_ignored() -> None:
    with_self = anchored_ratings(games("s", "g", 2, 0, 1) + games("s", "s", 5), {"g": 0.0})
    without = anchored_ratings(games("s", "g", 2, 0, 1), {"g": 0.0})
    assert with_self == without


def test_a_missing_prior_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match=r"^prior_draws must be a finite number > 0 \(it keeps every free rating finite\), got 0$"):
        anchored_ratings([], {"g": 0.0}, prior_draws=0)


# --------------------------------------------------------------------------- bands

BANDS = [Band("level with alphabeta", 400.0, 10.0), Band("below greedy", None, 0.0), Band("beats greedy", 0.0, 5.0)]
"""Given out of order on purpose: the bands sort by floor."""
REFERENCES = {"random": -400.0, "greedy": 0.0, "alphabeta": 400.0, "strongest": 800.0}
UPPER = math.log(0.975 / 0.025)
LOWER = math.log(0.025 / 0.975)


def increment(floor: float, opponent: float, score: float) -> float:
    """One game's log-likelihood ratio for the boundary at ``floor`` (indifference 50)."""
    e1, e0 = expected(floor + 50 - opponent), expected(floor - 50 - opponent)
    return score * math.log(e1 / e0) + (1 - score) * math.log((1 - e1) / (1 - e0))


def sequential(floor: float, results: list[tuple[float, float]]) -> tuple[str, float, int]:
    """One boundary's test run by hand: (side, ratio, games at decision or len(results))."""
    total = 0.0
    for played, (opponent, score) in enumerate(results, start=1):
        total += increment(floor, opponent, score)
        if total >= UPPER:
            return "above", total, played
        if total <= LOWER:
            return "below", total, played
    return "open", total, len(results)


def same(got: tuple[tuple[float, str, float], ...], want: tuple[tuple[float, str, float], ...]) -> bool:
    """Boundaries equal: floors and sides exactly, ratios to 1e-9."""
    return [(f, s) for f, s, _ in got] == [(f, s) for f, s, _ in want] and all(
        math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for (_, _, a), (_, _, b) in zip(got, want))


def test_wins_against_the_reference_at_a_boundary_cross_it_after_the_worked_out_count() -> None:
    # Against an opponent at T each win adds ln(E(50) / E(-50)) = 50 / k; ln 39 / (50 / k) = 12.7.
    needed = math.ceil(UPPER / (50 / K))
    assert needed == 13
    before = band_verdict([(0.0, 1.0)] * (needed - 1), BANDS)
    after = band_verdict([(0.0, 1.0)] * needed, BANDS)
    assert same(before.boundaries, ((0.0, "open", (needed - 1) * 50 / K), (400.0, "open", (needed - 1) * increment(400, 0, 1))))
    assert (before.state, before.possible) == ("playing", ("below greedy", "beats greedy", "level with alphabeta"))
    assert same(after.boundaries, ((0.0, "above", needed * 50 / K), (400.0, "open", needed * increment(400, 0, 1))))
    assert (after.band, after.state, after.possible) == (None, "playing", ("beats greedy", "level with alphabeta"))
    assert after.text == "playing between beats greedy and level with alphabeta after 13 games"
    assert next_opponents(before, REFERENCES) == ["greedy", "alphabeta"]
    assert next_opponents(after, REFERENCES) == ["alphabeta"]


def test_a_band_is_decided_when_the_boundaries_on_both_sides_are() -> None:
    results = [(0.0, 1.0), (400.0, 0.0)] * 30
    side0, llr0, at0 = sequential(0.0, results)
    side4, llr4, at4 = sequential(400.0, results)
    assert (side0, side4) == ("above", "below")
    verdict = band_verdict(results, BANDS)
    assert same(verdict.boundaries, ((0.0, "above", llr0), (400.0, "below", llr4)))
    assert (verdict.band, verdict.state, verdict.possible) == ("beats greedy", "decided", ("beats greedy",))
    assert verdict.text == f"beats greedy (decided at 5% error after {max(at0, at4)} games)"
    assert next_opponents(verdict, REFERENCES) == []


def test_draws_and_mixed_results_sum_the_model_ratio_per_game() -> None:
    results = [(0.0, 0.5), (-400.0, 1.0), (400.0, 0.5), (0.0, 0.0), (800.0, 0.5), (0.0, 1.0)]
    verdict = band_verdict(results, BANDS)
    assert same(verdict.boundaries, tuple(
        (floor, "open", sum(increment(floor, o, s) for o, s in results)) for floor in (0.0, 400.0)))
    assert verdict.state == "playing"


def test_a_decided_boundary_stays_decided_whatever_follows() -> None:
    results = [(0.0, 1.0)] * 13 + [(0.0, 0.0)] * 30
    verdict = band_verdict(results, BANDS, budget=100)
    side4, llr4, at4 = sequential(400.0, results)
    assert same(verdict.boundaries, ((0.0, "above", 13 * 50 / K), (400.0, "below", llr4)))
    assert verdict.text == f"beats greedy (decided at 5% error after {at4} games)"


def test_the_spent_budget_leaves_the_band_undecided_between_the_two_still_possible() -> None:
    # Against greedy, a win adds ln(E(450) / E(350)) = 0.053 at the boundary 400 and a loss
    # ln((1 - E(450)) / (1 - E(350))) = -0.528: below after 8 pairs; the boundary at 0 drifts nowhere.
    results = [(0.0, 1.0), (0.0, 0.0)] * 10
    verdict = band_verdict(results, BANDS, budget=20)
    assert (verdict.band, verdict.state, verdict.possible) == (None, "undecided", ("below greedy", "beats greedy"))
    assert verdict.boundaries[0][:2] == (0.0, "open") and verdict.boundaries[1][1] == "below"
    assert verdict.text == "undecided between below greedy and beats greedy after 20 games"
    assert next_opponents(verdict, REFERENCES) == ["greedy"]
    assert band_verdict(results[:-1], BANDS, budget=20).state == "playing"


def test_a_single_band_is_decided_before_any_game() -> None:
    verdict = band_verdict([], [Band("pass", None, 1.0)])
    assert (verdict.band, verdict.state, verdict.boundaries, verdict.text) == (
        "pass", "decided", (), "pass (decided at 5% error after 0 games)")


def test_next_opponents_take_the_reference_nearest_each_open_boundary_once() -> None:
    bands = [Band("low", None, 0), Band("mid", 90.0, 1), Band("high", 110.0, 2)]
    verdict = band_verdict([], bands)
    assert next_opponents(verdict, {"far": -500.0, "near": 100.0, "top": 900.0}) == ["near"]
    assert next_opponents(verdict, {"below": 80.0, "above": 120.0}) == ["below", "above"]
    assert next_opponents(verdict, {}) == []


@pytest.mark.parametrize("bands, message", [
    ([Band("a", None, 0), Band("b", None, 1)], "exactly one band must have no floor (the lowest band), got 2"),
    ([Band("a", 0.0, 0)], "exactly one band must have no floor (the lowest band), got 0"),
    ([Band("a", None, 0), Band("b", 5.0, 1), Band("c", 5.0, 2)], "band floors must be distinct finite numbers, got [5.0, 5.0]"),
    ([Band("a", None, 0), Band("a", 5.0, 1)], "band names must be unique, got ['a', 'a']"),
])
def test_bands_that_do_not_make_a_scale_are_refused(bands: list[Band], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        band_verdict([], bands)
    assert str(caught.value) == message


def test_a_score_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^result 2 must be \(a finite opponent Elo, a score in \[0, 1\]\), got \(0.0, 2.0\)$"):
        band_verdict([(0.0, 1.0), (0.0, 2.0)], BANDS)


def simulate(rng: random.Random, true_elo: float, choose: Callable[[list[str], int], str],
             budget: int) -> tuple[str | None, str]:
    results: list[tuple[float, float]] = []
    verdict = band_verdict(results, BANDS, budget=budget)
    while verdict.state == "playing":
        opponent = REFERENCES[choose(next_opponents(verdict, REFERENCES), len(results))]
        results.append((opponent, 1.0 if rng.random() < expected(true_elo - opponent) else 0.0))
        verdict = band_verdict(results, BANDS, budget=budget)
    return verdict.band, verdict.state


def test_simulated_students_are_placed_in_a_wrong_band_less_often_than_the_error() -> None:
    """300 students with known Elo, uniform in [-400, 800], playing the suggested references until decided
    (budget 400); those within 50 Elo of a boundary are not counted (the indifference zones)."""
    rng = random.Random(2041)
    counted = wrong = decided = 0
    for _ in range(300):
        true_elo = rng.uniform(-400.0, 800.0)
        band, state = simulate(rng, true_elo, lambda names, played: names[played % len(names)], budget=400)
        if min(abs(true_elo - 0.0), abs(true_elo - 400.0)) <= 50.0:
            continue
        counted += 1
        decided += state == "decided"
        truth = "below greedy" if true_elo < 0 else "beats greedy" if true_elo < 400 else "level with alphabeta"
        wrong += state == "decided" and band != truth
    assert counted >= 200 and decided >= 0.95 * counted
    assert wrong / counted < 0.05


def test_students_at_the_edge_of_the_indifference_zone_err_at_most_the_stated_rate() -> None:
    """The hardest students the guarantee covers: true Elo exactly 50 above or below the one boundary,
    playing the reference at it; Wald's bounds give each test an error near 2.5% there."""
    bands = [Band("below greedy", None, 0.0), Band("beats greedy", 0.0, 1.0)]
    rng = random.Random(412)
    wrong = 0
    for student in range(400):
        true_elo = 50.0 if student % 2 else -50.0
        results: list[tuple[float, float]] = []
        verdict = band_verdict(results, bands, budget=10_000)
        while verdict.state == "playing":
            results.append((0.0, 1.0 if rng.random() < expected(true_elo) else 0.0))
            verdict = band_verdict(results, bands, budget=10_000)
        wrong += verdict.band != ("beats greedy" if true_elo > 0 else "below greedy")
    assert 0 < wrong < 0.05 * 400
