"""``arena validate --game kings-horses``: sample students, each with its exact verdicts.

The students are small real programs (tests/fake_engines/students_kings_horses/<student>/, a folder
each with a copy of the code they share): one right but slow
(plain memoized minimax), one that mixes up the colours' coordinates, one that lets knights move onto
occupied squares, one that leaves debug prints in; and our own bestmove.py.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from harness.referee.engine_specs import command_engine
from harness.errors import EngineError
from harness.match.settings import GameSettings
from harness.validate.validator import ValidationSettings
from harness.validate.kings_horses import Case, suite, validate_kings_horses
from harness.validate.render import render_text
from tests.conftest import ARENA, ROOT, run_program
from tests.test_kings_horses_solver import plain_wins

STUDENTS = ROOT / "tests" / "fake_engines" / "students_kings_horses"


def validate(program: str, *options: str) -> tuple[int, dict[str, Any]]:
    """The command's exit status and JSON report: a program that is missing through the real
    command line, the others by the same code in this process, where the solver's cases are
    computed once."""
    if not Path(program).exists():
        done = run_program([ARENA, "validate", "--game", "kings-horses", program, "--quick", "--json", "--quiet",
                            *options], timeout=600)
        assert done.returncode in (0, 1), done.stderr
        return done.returncode, json.loads(done.stdout)
    seconds = float(options[options.index("--time") + 1]) if "--time" in options else 10.0
    settings = ValidationSettings(GameSettings(game="kings-horses", time=seconds), quick=True, concurrency=2)
    try:
        engine, problem = command_engine(program), None
    except EngineError as error:
        engine, problem = None, str(error)
    report = validate_kings_horses(program, engine, settings, problem)
    return (0 if report.passed else 1), report.to_json()


def checks(report: dict[str, Any], category: str) -> dict[str, dict[str, Any]]:
    return {check["id"]: check for check in report["categories"][category]["checks"]}


def failed(report: dict[str, Any], category: str) -> list[str]:
    return [name for name, check in checks(report, category).items() if check["status"] == "fail"]


# --- an independent solver for the validator's expected answers --------------------------------------
# The validator judges a program against its oracle, engines/kings_horses_solver.py: the solver our
# bestmove.py is. So that "bestmove passes" is not the solver agreeing with itself, every expected
# answer of the suite it is asked is solved again here, by a plain memoised minimax over every move
# (tests/test_kings_horses_solver.py's plain_wins) where that finishes within a budget, and
# otherwise by the same minimax cut short by two counting bounds that are proved below.
STEPS = ((-2, -1), (-1, -2), (-2, 1), (1, -2))
Pair = tuple[tuple[int, int], tuple[int, int]]


class OverBudget(Exception):
    pass


def budgeted_wins(mine: Pair, theirs: Pair, budget: int, memo: dict[tuple[Pair, Pair], bool]) -> bool:
    """plain_wins, giving up (OverBudget) after ``budget`` new positions."""
    key = (mine, theirs)
    if key not in memo:
        if len(memo) >= budget:
            raise OverBudget
        memo[key] = any(not budgeted_wins(theirs, tuple(sorted((square, mine[1 - slot]))), budget, memo)  # type: ignore[arg-type]
                        for slot in (0, 1) for square in plain_steps(mine[slot], {*mine, *theirs}))
    return memo[key]


def plain_steps(square: tuple[int, int], held: set[tuple[int, int]]) -> list[tuple[int, int]]:
    return [(square[0] + dr, square[1] + dc) for dr, dc in STEPS
            if square[0] + dr >= 1 and square[1] + dc >= 1 and (square[0] + dr, square[1] + dc) not in held]


@lru_cache(maxsize=None)
def lone(row: int, col: int) -> int:
    """The most moves a knight alone can make from (row, col), by brute force."""
    return max((1 + lone(*square) for square in plain_steps((row, col), set())), default=0)


@lru_cache(maxsize=256)
def spans(start: tuple[int, int]) -> dict[tuple[int, int], tuple[int, int]]:
    """Each square a lone knight from ``start`` can stand on, with the fewest and the most moves it
    takes to get there (every step lowers row + column, so squares are settled in falling order)."""
    found = {start: (0, 0)}
    row, col = start
    around = [(r, c) for r in range(1, 2 * row + col) for c in range(1, row + 2 * col) if r + c <= row + col]
    for square in sorted(around, key=lambda sq: -sum(sq)):
        if square in found:
            fewest, most = found[square]
            for step in plain_steps(square, set()):
                old = found.get(step, (fewest + 1, most + 1))
                found[step] = (min(old[0], fewest + 1), max(old[1], most + 1))
    return found


def sure_moves(knight: tuple[int, int], other: tuple[int, int], opponents: Pair, waited: int, enough: int) -> int:
    """Moves (up to ``enough``) that ``knight`` can make whatever the opponent does, its side's other
    knight standing still: its j-th move goes to a square no opponent knight can stand on after
    j - 1 + ``waited`` opponent moves. An opponent knight stands on a square after t of its side's
    moves only if it made m of them with fewest <= m <= most for that square (``spans``), m <= t, and
    m >= t - lone(its other knight): the other knight cannot have made more than that."""
    chasers = [(spans(a), lone(*b)) for a, b in ((opponents[0], opponents[1]), (opponents[1], opponents[0]))]
    memo: dict[tuple[tuple[int, int], int], int] = {}

    def reachable(square: tuple[int, int], t: int) -> bool:
        return any(square in span and span[square][0] <= t and span[square][1] >= t - rest for span, rest in chasers)

    def longest(square: tuple[int, int], made: int) -> int:
        if made >= enough:
            return 0
        if (square, made) not in memo:
            memo[square, made] = max((1 + longest(step, made + 1) for step in plain_steps(square, {other})
                                      if not reachable(step, made + waited)), default=0)
        return memo[square, made]

    return longest(knight, 0)


def counted_verdict(mine: Pair, theirs: Pair) -> bool | None:
    """Whether the mover (knights ``mine``) wins, where counting settles it; else None. A side makes
    at most the sum of its knights' lone counts (each move lowers its knight's count), and at least
    ``sure_moves`` of either of its knights. The mover, playing first, loses when it runs out of
    moves no later than the opponent: it wins if its sure moves exceed the opponent's most, and
    loses if the opponent's sure moves reach its own most."""
    most_mine, most_theirs = lone(*mine[0]) + lone(*mine[1]), lone(*theirs[0]) + lone(*theirs[1])
    if max(sure_moves(mine[0], mine[1], theirs, 0, most_theirs + 1),
           sure_moves(mine[1], mine[0], theirs, 0, most_theirs + 1)) > most_theirs:
        return True
    if max(sure_moves(theirs[0], theirs[1], mine, 1, most_mine),
           sure_moves(theirs[1], theirs[0], mine, 1, most_mine)) >= most_mine:
        return False
    return None


def bounded_wins(mine: Pair, theirs: Pair, memo: dict[tuple[Pair, Pair], bool], budget: int | None = None) -> bool:
    """plain_wins, each position first offered to ``counted_verdict``; giving up (OverBudget) after
    ``budget`` new positions, when given."""
    key = (mine, theirs)
    if key not in memo:
        if budget is not None and len(memo) >= budget:
            raise OverBudget
        counted = counted_verdict(mine, theirs)
        memo[key] = counted if counted is not None else any(
            not bounded_wins(theirs, tuple(sorted((square, mine[1 - slot]))), memo, budget)  # type: ignore[arg-type]
            for slot in (0, 1) for square in plain_steps(mine[slot], {*mine, *theirs}))
    return memo[key]


def sides(case: Case) -> tuple[Pair, Pair]:
    """(the mover's knights, the opponent's), each pair sorted."""
    k, turn = case.position.knights, case.position.turn
    return tuple(sorted(k[2 * turn:2 * turn + 2])), tuple(sorted(k[2 - 2 * turn:4 - 2 * turn]))  # type: ignore[return-value]


def test_counting_settles_positions_only_as_the_plain_minimax_does() -> None:
    rng = random.Random(39)
    memo: dict[tuple[Pair, Pair], bool] = {}
    for _ in range(600):
        squares: list[tuple[int, int]] = []
        while len(squares) < 4:
            square = (rng.randint(1, 6), rng.randint(1, 6))
            if square not in squares:
                squares.append(square)
        bounded_wins(tuple(sorted(squares[:2])), tuple(sorted(squares[2:])), memo)  # type: ignore[arg-type]
    counted = {True: 0, False: 0}
    for (mine, theirs), value in memo.items():  # every position the bounded search met
        assert value is plain_wins(mine, theirs), (mine, theirs)
        verdict = counted_verdict(mine, theirs)
        if verdict is not None:
            assert verdict is value, (mine, theirs)
            counted[verdict] += 1
    assert len(memo) > 30_000 and min(counted.values()) > 2000


def test_the_validators_expected_answers_are_those_of_an_independent_solver() -> None:
    # Which random positions the suite holds depends on the machine: the validator drops one its solver
    # cannot settle within 1 s. Some it keeps on an idle machine (BLACK 17 16 15 23 12 22 27 28, 0.7 s)
    # take the bounded minimax here ten minutes (32,000 positions at 20 ms each), so each search has
    # a budget, and a case beyond both is named: only a large or close race, at most one per band.
    plain: dict[tuple[Pair, Pair], bool] = {}
    bounded: dict[tuple[Pair, Pair], bool] = {}
    how = {}
    for case in suite(1, True):  # the cases test_our_bestmove_passes_everything is judged on
        mine, theirs = sides(case)
        try:
            wins = budgeted_wins(mine, theirs, len(plain) + 200_000, plain)
            how[case.id] = "plain"
        except OverBudget:
            try:
                wins = bounded_wins(mine, theirs, bounded, len(bounded) + 300)
                how[case.id] = "bounded"
            except OverBudget:
                how[case.id] = f"not settled: {' '.join(case.position.words())}"
                continue
        mover = case.position.word
        assert case.winner == (mover if wins else {"BLACK": "WHITE", "WHITE": "BLACK"}[mover]), case.id
    unsettled = {name: way for name, way in how.items() if way.startswith("not")}
    assert all(name.startswith(("large-", "close-")) for name in unsettled), unsettled
    assert len({name.split("-")[0] for name in unsettled}) == len(unsettled), unsettled
    assert len(how) == 21


def test_our_bestmove_passes_everything() -> None:
    # Judged against the validator's oracle, whose answers are checked by an independent solver above.
    status, report = validate(str(ROOT / "scripts" / "bestmove.py"))
    assert status == 0
    assert report["verdict"] == "PASS: protocol, correctness and time are all right"
    assert {name: c["status"] for name, c in report["categories"].items()} == {
        "protocol": "pass", "correctness": "pass", "time": "pass", "moves": "pass"}
    correctness = checks(report, "correctness")
    assert correctness["seed-example"]["detail"] == "said BLACK WILL WIN"
    assert correctness["seed-example"]["command"].endswith("bestmove.py BLACK 2 2 3 3 1 2 3 1")
    # The suite: the seed's example, no-move positions, blocking, colours, and four bands.
    for prefix in ("no-move-", "blocked-no-move-", "blocking-", "colours-", "small-", "medium-", "large-", "close-"):
        assert any(name.startswith(prefix) for name in correctness), prefix
    assert [c["id"] for c in report["categories"]["time"]["checks"]] == [
        "band-hand-made", "band-small", "band-medium", "band-large", "band-close"]


def test_the_text_report_names_the_failure_and_shows_the_position() -> None:
    from harness.validate.kings_horses import validate_kings_horses as run

    program = str(STUDENTS / "colours_swapped" / "bestmove.py")
    settings = ValidationSettings(GameSettings(game="kings-horses", time=1), quick=True, concurrency=2)
    text = render_text(run(program, command_engine(program), settings))
    lines = text.splitlines()
    assert lines[0].startswith("FAIL: correctness")
    assert lines[1] == f"program: {program}"
    assert "  protocol    pass       5/5 checks passed" in lines
    at = lines.index(next(line for line in lines if line.startswith("- correctness/seed-example")))
    assert lines[at].startswith("- correctness/seed-example") and lines[at].endswith(
        ": said WHITE WILL WIN; BLACK wins (the seed's example)")
    assert lines[at + 1].endswith("colours_swapped/bestmove.py BLACK 2 2 3 3 1 2 3 1")
    assert lines[at + 2:at + 8] == ["    position: x (BLACK) to move",
                                    "      1 . o . .", "      2 . x . .", "      3 o . x .", "      4 . . . .",
                                    "        1 2 3 4"]


def test_a_right_but_slow_program_is_correct_where_it_answers_and_fails_on_time() -> None:
    # Plain memoized minimax answers small positions at once and takes seconds to minutes on some
    # larger ones and close races: with 1 s a position, those are late (whatever the machine's speed).
    status, report = validate(str(STUDENTS / "plain_minimax" / "bestmove.py"), "--time", "1")
    assert status == 1
    assert report["verdict"].startswith("FAIL: time (first failure: band-")
    assert report["categories"]["protocol"]["status"] == "pass"
    correctness = checks(report, "correctness")
    assert all(check["passed"] for check in correctness.values() if check["judged"])
    late = [name for name, check in correctness.items() if not check["judged"]]
    assert late and all(name.startswith(("medium-", "large-", "close-")) for name in late)
    assert all(correctness[name]["detail"] == "not judged: no answer within 1 s (counted under time)" for name in late)
    assert failed(report, "time") and set(failed(report, "time")) <= {"band-medium", "band-large", "band-close"}
    time = checks(report, "time")
    assert time["band-small"]["status"] == "pass"
    assert time["band-small"]["detail"].startswith("small (coordinates 1..8): 5 answered, mean ")
    bands = {name.split("-")[0] for name in late}
    for band in bands:
        count = sum(name.startswith(band + "-") for name in late)
        assert f"; {count} of " in time[f"band-{band}"]["detail"]


def test_mixed_up_colours_fail_the_seed_example_and_the_colour_positions() -> None:
    # (Each student is a plain minimax as well: with 1 s a position, slow on some of the large ones.)
    status, report = validate(str(STUDENTS / "colours_swapped" / "bestmove.py"), "--time", "1")
    assert status == 1
    assert report["verdict"].startswith("FAIL: correctness")
    assert report["verdict"].endswith(" (first failure: seed-example: said WHITE WILL WIN; BLACK wins "
                                      "(the seed's example))")
    wrong = failed(report, "correctness")
    assert "seed-example" in wrong
    assert [name for name in checks(report, "correctness") if name.startswith("colours-")] == [
        name for name in wrong if name.startswith("colours-")]
    assert report["categories"]["protocol"]["status"] == "pass"


def test_moving_onto_occupied_squares_fails_the_blocking_positions() -> None:
    status, report = validate(str(STUDENTS / "occupied_ok" / "bestmove.py"), "--time", "1")
    assert status == 1
    wrong = failed(report, "correctness")
    assert report["verdict"].startswith("FAIL: correctness")
    assert f" (first failure: {wrong[0]}: said " in report["verdict"]
    blocked = [name for name in checks(report, "correctness") if name.startswith(("blocked-no-move-", "blocking-"))]
    assert blocked and set(blocked) <= set(wrong)
    # The fix names the rule because the control holds: every small position was answered right.
    assert not [name for name in wrong if name.startswith("small-")]
    assert report["categories"]["correctness"]["summary"].endswith((
        ". Fix: a knight may not move onto a square another knight holds, of either colour",
        ". Fix: a knight may not move onto a square another knight holds, so a side can be left without a move"))


def test_debug_output_fails_the_protocol_but_the_answers_are_judged() -> None:
    status, report = validate(str(STUDENTS / "debug_output" / "bestmove.py"), "--time", "1")
    assert status == 1
    assert report["verdict"].startswith("FAIL: protocol")
    assert report["verdict"].endswith(" (first failure: one-line: printed 2 lines; only the verdict line may be "
                                      "printed (remove debug prints))")
    assert failed(report, "protocol") == ["one-line"]
    correctness = checks(report, "correctness")
    assert all(check["passed"] for check in correctness.values() if check["judged"])


def test_the_sample_students_share_one_copy_of_their_common_code() -> None:
    copies = {path.parent.name: path.read_text() for path in STUDENTS.glob("*/_common.py")}
    assert sorted(copies) == ["colours_swapped", "debug_output", "occupied_ok", "plain_minimax"]
    assert len(set(copies.values())) == 1  # one folder per student, the shared code copied alike


def test_a_missing_program_is_one_line_before_any_check(tmp_path: Path) -> None:
    done = run_program([ARENA, "validate", "--game", "kings-horses", str(tmp_path / "bestmove.py"), "--quick"])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"arena: error: engine '{tmp_path / 'bestmove.py'}': program '{tmp_path / 'bestmove.py'}' "
                           f"not found (looked for {tmp_path / 'bestmove.py'}); check the path (relative paths start "
                           f"from {ROOT})\n")


@pytest.mark.parametrize("option", ["--size", "--n"])
def test_sizes_are_not_options_here(option: str) -> None:
    done = run_program([ARENA, "validate", "--game", "kings-horses", "random", option, "8"])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"arena: error: invalid {option} 8: kings-horses validation draws its own positions "
                           "(coordinates 1..8, 1..15 and 1..30); leave it out\n")


def test_a_call_the_machine_starved_is_not_judged_never_late() -> None:
    from harness.referee.protocol import Verdict
    from harness.referee.referee import CallResult
    from harness.validate.kings_horses import Asked, KingsHorsesValidator, seed_case

    stall = ("starved: waited 40.00 s for a CPU in 42.00 s of wall time, 0.50 s on a CPU; its own time 2.00 s of "
             "the 10.5 s allowed had not run out")
    starved = CallResult(Verdict.TIME, None, None, 42.0, None, True, "no answer", ("p",), stall=stall, replays=2)
    answered = CallResult(Verdict.OK, None, None, 3.0, 0, False, "", ("p",), waited=2.5)
    settings = ValidationSettings(GameSettings(game="kings-horses", time=10))
    validator = KingsHorsesValidator(None, "p", settings, None)
    time = validator.time([Asked(seed_case(), starved, []), Asked(seed_case(), answered, ["BLACK WILL WIN"])])
    checks = {check.id: check for check in time.checks}
    assert checks["machine-overloaded"].judged is False and checks["machine-overloaded"].detail == (
        "1 of 2 calls could not be judged: not judged: the machine was overloaded (waited 40.00 s for a CPU in 42.00 "
        "s of wall time, 0.50 s on a CPU; its own time 2.00 s of the 10.5 s allowed had not run out; run again "
        "alone 2 times)")
    assert checks["band-hand-made"].passed  # the starved call is not late
    assert checks["band-hand-made"].detail.endswith("1 answered, mean 0.500 s, max 0.500 s")  # its own time
    assert time.summary == "all 1 calls answered in time; per band: hand-made mean 0.50 s"
