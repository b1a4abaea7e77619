"""The pentanomial GSPRT (harness.report.ratings.pentanomial_llr) and ``arena sprt``."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest

from harness.report.ratings import (
    PENTANOMIAL_EPSILON,
    _constrained_mle,
    expected_score,
    pentanomial_llr,
    sprt_pentanomial,
)
from tests.conftest import ARENA, ROOT, run_program

S1 = expected_score(10)  # 1 / (1 + 10^(-10/400)) = 0.514387...


def newton_llr(counts: list[float], elo0: float, elo1: float) -> float:
    """The pentanomial GSPRT's LLR from its definition, solved here another way than the harness does.

    The pairs' empirical distribution p over pair scores a = 0, 1/4, ..., 1; for each hypothesis the
    distribution q of expectation s = 1 / (1 + 10^(-elo/400)) that makes p most likely maximises
    sum p ln q subject to sum q = 1 and sum a q = s. Lagrange: p_i / q_i = l + m a_i; summing q_i = p_i
    / (l + m a_i) against 1 and against a_i gives l + m s = 1, so q_i = p_i / (1 + x (a_i - s)) with
    x (= m) a root of h(x) = sum p_i (a_i - s) / (1 + x (a_i - s)), found here by Newton's method from
    x = 0 (h falls everywhere, h'(x) = -sum p_i (a_i - s)^2 / (1 + x (a_i - s))^2), a step halved
    while it would make a q negative. Then LLR = N sum p ln(q1 / q0)."""
    total = sum(counts)
    p = [c / total for c in counts]
    a = [k / 4 for k in range(5)]

    def fitted(elo: float) -> list[float]:
        s = 1 / (1 + 10 ** (-elo / 400))
        x = 0.0
        for _ in range(100):
            h = sum(pi * (ai - s) / (1 + x * (ai - s)) for pi, ai in zip(p, a))
            slope = -sum(pi * (ai - s) ** 2 / (1 + x * (ai - s)) ** 2 for pi, ai in zip(p, a))
            step = h / slope
            while min(1 + (x - step) * (ai - s) for ai in a) <= 0:
                step /= 2
            x -= step
        return [pi / (1 + x * (ai - s)) for pi, ai in zip(p, a)]

    q0, q1 = fitted(elo0), fitted(elo1)
    return total * sum(pi * math.log(b / c) for pi, c, b in zip(p, q0, q1))


def test_llr_when_the_pairs_average_exactly_h0() -> None:
    # Counts [1, 1, 1, 1, 1]: the pair scores 0, 1/4, 1/2, 3/4, 1 equally often: mean 1/2 = s0 (elo0 = 0),
    # so the most likely distribution under H0 is the empirical one (x = 0 in the secular equation)
    # and LLR = N sum p ln(q1 / p) = -sum ln(1 + x (a_i - s1)). The variance of the pair score is
    # v = (1/4 + 1/16 + 0 + 1/16 + 1/4) / 5 = 0.125 and, to second order in d = s1 - 1/2 = 0.014387,
    # x = -d / v and LLR = -N d^2 / (2 v) = -5 * 0.00020699 / 0.25 = -0.0041398.
    assert S1 == pytest.approx(0.514387, abs=1e-6)
    assert pentanomial_llr([1, 1, 1, 1, 1], 0, 10) == pytest.approx(-0.0041398, abs=2e-6)
    # Counts [5, 10, 20, 10, 5]: mean 1/2, v = (5 * 1/4 * 2 + 10 * 1/16 * 2) / 50 = 0.075,
    # LLR = -50 * 0.00020699 / 0.15 = -0.068997 (second order).
    assert pentanomial_llr([5, 10, 20, 10, 5], 0, 10) == pytest.approx(-0.068997, abs=1e-4)


def test_llr_of_a_stronger_engine_and_the_mle_it_rests_on() -> None:
    # Counts [2, 8, 20, 12, 8]: mean (8/4 + 20/2 + 12 * 3/4 + 8) / 50 = 29/50 = 0.58, v = 0.0631;
    # the normal approximation N (s1 - s0)(2m - s0 - s1) / (2v) gives 0.763; the exact LLR is lower.
    counts = [2, 8, 20, 12, 8]
    llr = pentanomial_llr(counts, 0, 10)
    assert llr == pytest.approx(newton_llr([2, 8, 20, 12, 8], 0, 10), abs=1e-9)
    assert 0.70 < llr < 0.763  # (0.7210)
    pdf = [(k / 4, c / 50) for k, c in enumerate(counts)]
    for s in (0.5, S1):
        q = _constrained_mle(pdf, s)
        assert sum(q) == pytest.approx(1.0, abs=1e-12)
        assert sum(a * qi for (a, _), qi in zip(pdf, q)) == pytest.approx(s, abs=1e-12)
        # q maximises sum p ln q among distributions with mean s: moving mass along the constraint
        # (+e at 0 and 1/2 against -2e at 1/4 keeps both sums) lowers it either way.
        best = sum(p * math.log(qi) for (_, p), qi in zip(pdf, q))
        for e in (1e-4, -1e-4):
            moved = [q[0] + e, q[1] - 2 * e, q[2] + e, q[3], q[4]]
            assert sum(p * math.log(qi) for (_, p), qi in zip(pdf, moved)) < best
    # The LLR is N sum p ln(q1 / q0).
    q0, q1 = _constrained_mle(pdf, 0.5), _constrained_mle(pdf, S1)
    assert llr == pytest.approx(50 * sum(p * math.log(b / a) for (_, p), a, b in zip(pdf, q0, q1)), abs=1e-12)


def test_llr_is_symmetric_scales_with_n_and_regularises_zeros() -> None:
    counts = [3, 7, 19, 13, 9]
    assert pentanomial_llr(counts, -5, 5) == pytest.approx(-pentanomial_llr(counts[::-1], -5, 5), abs=1e-12)
    assert pentanomial_llr([2 * c for c in counts], 0, 10) == pytest.approx(2 * pentanomial_llr(counts, 0, 10),
                                                                            rel=1e-9)
    assert pentanomial_llr([0, 0, 0, 0, 0], 0, 10) == 0.0
    # A zero count is taken as PENTANOMIAL_EPSILON (fishtest's), so a sweep has a finite LLR.
    sweep = pentanomial_llr([0, 0, 0, 0, 12], 0, 100)
    assert PENTANOMIAL_EPSILON == 1e-3
    assert sweep == pytest.approx(newton_llr([1e-3] * 4 + [12], 0, 100), abs=1e-9)
    assert 2.9 < sweep < 3.0


def test_decisions_and_bad_input() -> None:
    h1 = sprt_pentanomial([5, 20, 60, 70, 45], 0, 10)
    # Wald's bounds for alpha = beta = 0.05: ln(0.05 / 0.95) and ln(0.95 / 0.05) = ln 19 = 2.9444.
    assert (h1.decision, h1.lower, h1.upper) == ("H1", pytest.approx(-math.log(19)), pytest.approx(math.log(19)))
    assert h1.llr == pytest.approx(newton_llr([5, 20, 60, 70, 45], 0, 10), abs=1e-9) and h1.llr > math.log(19)
    assert sprt_pentanomial([45, 70, 60, 20, 5], 0, 10).decision == "H0"
    assert sprt_pentanomial([1, 1, 1, 1, 1], 0, 10).decision == "continue"
    with pytest.raises(ValueError, match="elo0 must be below elo1"):
        pentanomial_llr([1, 1, 1, 1, 1], 5, 5)
    with pytest.raises(ValueError, match="five numbers"):
        pentanomial_llr([1, 1, 1], 0, 5)


def test_arena_sprt_plays_pairs_until_h1_stores_them_and_resumes(tmp_path: Path) -> None:
    db = tmp_path / "sprt.sqlite"
    args = [ARENA, "sprt", "greedy", "random", "--elo0", "0", "--elo1", "100", "--n", "3", "--db", str(db),
            "--concurrency", "2", "--sandbox", "off", "--time", "0.5", "--allow-fractional-time"]
    done = run_program(args, timeout=300)
    assert done.returncode == 0, done.stderr
    # the sandbox warning once for the whole run (each batch resolves it), the games' log beside them
    assert done.stderr == "arena: warning: sandbox off: engines run unconfined, with your rights, files and environment\n"
    lines = done.stdout.splitlines()
    assert lines[0] == (f"SPRT greedy vs random: H0 elo = 0, H1 elo = 100, alpha 0.05, beta 0.05; Betsy n = 3, "
                        f"0.5 s per move; games in {db}")
    assert lines[1] == "pairs     0  pentanomial [0, 0, 0, 0, 0]  LLR +0.00 (-2.94, +2.94)  Elo -"
    assert lines[-1].startswith("H1 accepted: greedy is stronger than random by about 100 Elo or more (LLR +")
    pairs = int(lines[-1].rsplit("after ", 1)[1].split()[0])
    with sqlite3.connect(db) as connection:
        games = connection.execute("SELECT count(*), count(DISTINCT game_id), max(time) FROM games").fetchone()
        game_ids = [row[0] for row in connection.execute("SELECT game_id FROM games")]
    assert games == (2 * pairs, 2 * pairs, 0.5)
    log = db.with_name(db.name + ".log").read_text()
    assert [game_id for game_id in game_ids if f" INFO {game_id}: " not in log] == []
    again = run_program(args, timeout=120)
    assert again.returncode == 0
    assert again.stdout.splitlines()[1:] == [lines[-2], lines[-1]]  # nothing played: the stored state, the verdict


def test_an_engine_that_forfeits_every_game_stops_the_test_before_any_verdict(tmp_path: Path) -> None:
    # H1 against a program that never answers says nothing of strength: the run stops with what it
    # printed, and a rerun on the same games stops again before playing more.
    db = tmp_path / "sprt.sqlite"
    crasher = ROOT / "tests" / "fake_engines" / "crashes_without_answer.py"
    args = [ARENA, "sprt", "greedy", f"python3 {crasher}", "--elo0", "0", "--elo1", "100", "--n", "3",
            "--db", str(db), "--concurrency", "2", "--sandbox", "off"]
    # The first game of the schedule (round 1, greedy as x), whichever of the two at once ended first.
    error = (f"arena: error: crashes_without_answer forfeited all 4 of its games (the first: x wins: o "
             "(crashes_without_answer) forfeits by no-answer: exited with status 1, no well-formed 'MOVE BOARD' "
             "line; last line: 'thinking...'; stderr: RuntimeError: engine exploded); fix its command and run "
             f"again with another --db (these games are in {db})\n")
    done = run_program(args, timeout=120)
    assert (done.returncode, done.stdout.splitlines()[1:]) == (2, [
        "pairs     0  pentanomial [0, 0, 0, 0, 0]  LLR +0.00 (-2.94, +2.94)  Elo -",
        "pairs     2  pentanomial [0, 0, 0, 0, 2]  LLR +0.49 (-2.94, +2.94)  Elo +inf [-216.2, +inf]"])
    assert done.stderr.endswith(error)
    again = run_program(args, timeout=120)
    assert (again.returncode, again.stdout.splitlines()[1:], again.stderr.endswith(error)) == (2, [
        "pairs     2  pentanomial [0, 0, 0, 0, 2]  LLR +0.49 (-2.94, +2.94)  Elo +inf [-216.2, +inf]"], True)


def test_forfeits_short_of_every_game_are_said_beside_the_result(tmp_path: Path) -> None:
    # A program that crashes as x and plays greedy as o: half its games are forfeits, said in one line.
    program = tmp_path / "half.py"
    program.write_text(
        "import os, sys\n"
        "if sys.argv[2] == 'x':\n"
        "    sys.exit('no move as x')\n"
        f"os.execv(sys.executable, [sys.executable, {str(ROOT / 'engines' / 'greedy.py')!r}, *sys.argv[1:]])\n")
    db = tmp_path / "sprt.sqlite"
    done = run_program([ARENA, "sprt", "greedy", f"python3 {program}", "--elo0", "0", "--elo1", "100", "--n", "3",
                        "--db", str(db), "--concurrency", "2", "--sandbox", "off", "--max-pairs", "2"], timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[1:] == [
        "arena: warning: half forfeited 2 of its 4 games (the first: o wins: x (half) forfeits by no-answer: "
        "exited with status 1, printed nothing on stdout; stderr: no move as x)"]
    assert done.stdout.splitlines()[-1].startswith("no decision after 2 pairs (the --max-pairs limit): LLR ")


def test_a_test_of_draws_says_so_beside_its_result(tmp_path: Path) -> None:
    # Two programs that only rotate a column repeat the board: every game is a draw by repetition,
    # the test leans to H0 on nothing but draws, and one line says why and what gives decisive games.
    program = tmp_path / "rotates.py"
    program.write_text(
        "import sys\n"
        f"sys.path[0] = {str(ROOT)!r}\n"
        "from harness.games.betsy.rules import Position\n"
        "position = Position.from_text(*sys.argv[1:4])\n"
        "rotations = [move for move in position.legal_moves() if move < 0]\n"
        "move = rotations[0] if rotations else 1\n"
        "print(move, position.after(move).board())\n")
    db = tmp_path / "sprt.sqlite"
    done = run_program([ARENA, "sprt", f"python3 {program}", f"python3 {program}", "--elo0", "0", "--elo1", "100",
                        "--n", "3", "--db", str(db), "--concurrency", "2", "--sandbox", "off", "--max-pairs", "4"],
                       timeout=300)
    assert done.returncode == 0, done.stderr
    # Four pairs of draws: the LLR of the counts with the empty outcomes regularised, as fishtest does.
    llr = newton_llr([PENTANOMIAL_EPSILON, PENTANOMIAL_EPSILON, 4, PENTANOMIAL_EPSILON, PENTANOMIAL_EPSILON], 0, 100)
    assert f"{llr:+.2f}" == "-1.31"
    last = done.stdout.splitlines()[-2:]
    assert last[0].startswith("pairs     4  pentanomial [0, 0, 4, 0, 0]  LLR -1.31 (-2.94, +2.94)  Elo +0.0 [")
    assert last[1] == "no decision after 4 pairs (the --max-pairs limit): LLR -1.31"
    assert done.stderr.splitlines()[1:] == [
        "arena: warning: 8 of 8 games were drawn, and a pair of draws counts as equal strength: openings that "
        "leave the game less even give decisive games (more --opening-plies, e.g. 20, or an --openings file)"]
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT DISTINCT result, termination FROM games").fetchall() == [
            ("1/2-1/2", "repetition")]


def test_the_draw_warning_needs_most_games_drawn_and_no_h1() -> None:
    from harness.report.ratings import sprt_pentanomial as test_of
    from harness.tournament.sprt import SprtState, draw_warning

    def warned(counts: list[int], games: int, draws: int, capped: int) -> str | None:
        return draw_warning(SprtState(sum(counts), counts, test_of(counts, 0, 50), None, {}, games, draws, capped))

    assert warned([0, 0, 3, 0, 0], 6, 6, 6) is None  # too few games to say
    assert warned([0, 1, 2, 1, 0], 8, 5, 0) is None  # 5 of 8 drawn: under three quarters
    assert warned([0, 1, 3, 0, 0], 8, 7, 6) == (
        "7 of 8 games were drawn (6 at the ply limit), and a pair of draws counts as equal strength: openings "
        "that leave the game less even give decisive games (more --opening-plies, e.g. 20, or an --openings file)")
    assert warned([0, 0, 100, 30, 0], 260, 230, 0) is None  # H1 accepted: the decisive games decided it


def test_engines_are_named_by_program_and_the_variables_env_gives_them() -> None:
    # The same program with and without a variable (the native core against ARENA_PURE=1) gets two
    # names that say which is which, in the output, the report and the default database's name.
    from harness.referee.engine_specs import resolve_engine
    from harness.tournament.sprt import engine_name

    taken: set[str] = set()
    commands = ["python3 engines/strongest.py", "env ARENA_PURE=1 python3 engines/strongest.py",
                "env -u HOME --unset=TERM LEVEL= DEPTH=3 python3 engines/strongest.py", "env -i python3 engines/strongest.py",
                "greedy", "greedy"]
    assert [engine_name(resolve_engine(command, ROOT), taken) for command in commands] == [
        "strongest", "strongest+ARENA_PURE=1", "strongest+LEVEL=+DEPTH=3", "strongest-2", "greedy", "greedy-2"]


@pytest.mark.parametrize(("extra", "message"), [
    (["--elo0", "5", "--elo1", "5"], "invalid --elo0 5 --elo1 5: elo0 must be below elo1"),
    (["--elo0", "0", "--elo1", "5", "--alpha", "0.7"],
     "invalid --alpha 0.7: give a probability between 0 and 0.5, e.g. 0.05"),
    (["--elo0", "0", "--elo1", "5", "--max-pairs", "0"], "invalid --max-pairs 0: give 1 to 100000"),
    (["--elo0", "0", "--elo1", "5", "--time", "0.5"],
     "invalid --time 0.5: expected a whole number of seconds (or give --allow-fractional-time)"),
    (["--elo0", "0", "--elo1", "5", "--openings", "/nonexistent/o.txt"],
     "invalid --openings /nonexistent/o.txt: no such file"),
])
def test_bad_input_is_one_line_and_exit_2(extra: list[str], message: str) -> None:
    done = run_program([ARENA, "sprt", "greedy", "random", *extra])
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"arena: error: {message}\n")
