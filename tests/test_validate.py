"""arena validate against sample students (small real programs) and against our own engines."""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path

import pytest

from harness.games.registry import get_game
from harness.validate.validator import REQUIRED, Category, Check, Role, performance_rating
from tests.conftest import ROOT, run_program, sandbox_warning

STUDENTS = ROOT / "tests" / "fake_engines" / "students"
FAKES = ROOT / "tests" / "fake_engines"
ARENA = [str(Path(sys.executable).parent / "arena")]
SCORED = ("protocol", "rules", "time", "robustness", "tactics")


def validate(program: str, *options: str, timeout: float = 300) -> tuple[int, dict]:
    """Validate a program (quick suite, no games), once per program and options in this session:
    several tests look at different parts of the same report."""
    code, text = _validated(program, options, timeout)
    return code, json.loads(text)


@functools.cache
def _validated(program: str, options: tuple[str, ...], timeout: float) -> tuple[int, str]:
    result = run_program([*ARENA, "validate", program, "--quick", "--games", "0", "--json", *options],
                         timeout=timeout)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout


def failing(report: dict) -> set[str]:
    return {name for name in SCORED if not report["categories"][name]["passed"]}


def first_failure(report: dict, category: str) -> dict:
    return next(c for c in report["categories"][category]["checks"] if not c["passed"])


@pytest.mark.parametrize(
    ("student", "expected", "exit_code"),
    [
        ("random_legal.py", {"tactics"}, 0),
        ("greedy_student.py", {"tactics"}, 0),
        ("ignores_supply.py", {"rules", "tactics"}, 1),
        ("rotates_wrong_way.py", {"rules", "robustness", "tactics"}, 1),
        ("hardcoded_n5.py", {"protocol", "rules", "robustness", "tactics"}, 1),
        ("ignores_clock.py", {"time", "tactics"}, 1),
        ("last_pebble_off_by_one.py", {"rules", "tactics"}, 1),
        ("misses_drop_wins_as_o.py", {"tactics"}, 0),
    ],
)
def test_sample_student_fails_exactly_the_expected_categories(
    student: str, expected: set[str], exit_code: int
) -> None:
    code, report = validate(f"python3 {STUDENTS / student}")
    assert failing(report) == expected
    assert code == exit_code
    assert set(report["categories"]) == {"protocol", "rules", "time", "robustness", "tactics", "strength"}
    assert report["verdict"].startswith("PASS" if exit_code == 0 else "FAIL")
    assert report["game"] == "betsy"
    asked = [c for category in report["categories"].values() for c in category["checks"] if c["board"]]
    assert asked and all(c["size"] == str(c["n"]) for c in asked)


def test_a_timeout_on_a_rules_position_counts_under_time_and_the_position_is_not_judged() -> None:
    _, report = validate(f"python3 {STUDENTS / 'ignores_clock.py'}")
    unjudged = [c for c in report["categories"]["rules"]["checks"]
                if c["status"] == "not judged" and "last-pebble" not in c["id"]]
    assert unjudged and all(c["detail"] == "not judged: no answer within 1 s (counted under time)"
                            for c in unjudged)
    assert all(c["n"] >= 8 for c in unjudged)  # it sleeps 5 s from n = 8, 1.1 s at most below
    assert report["categories"]["rules"]["status"] == "pass"
    time = report["categories"]["time"]
    assert time["status"] == "fail"


def calls_by_size(report: dict) -> dict[int, int]:
    """How many calls the validator made at each n: one per check with a command line (the
    protocol's first five checks share one)."""
    counts: dict[int, int] = {}
    for name, category in report["categories"].items():
        for check in category["checks"][4 if name == "protocol" else 0:]:
            if check["command"] and name != "time":  # a time check shows one of the calls again
                counts[check["n"]] = counts.get(check["n"], 0) + 1
    return counts


def test_a_time_failure_says_at_which_sizes_and_how_to_fix_it() -> None:
    # ignores_clock.py sleeps 5 s from n = 8: every call there runs past 1 s + 0.5 s grace, none below.
    _, report = validate(f"python3 {STUDENTS / 'ignores_clock.py'}")
    calls = calls_by_size(report)
    assert sorted(calls) == [3, 5, 8, 12]
    late = calls[8] + calls[12]
    time = report["categories"]["time"]
    every = time["checks"][0]
    assert every["id"] == "every-answer-in-time" and every["status"] == "fail"
    assert every["detail"].startswith(
        f"{late} of {sum(calls.values())} calls had no answer by 1 s + 0.5 s grace: at n = 8 ({calls[8]} of "
        f"{calls[8]}), n = 12 ({calls[12]} of {calls[12]}); none at n = 3, n = 5; as x (")
    assert time["summary"].startswith(f"{sum(calls.values())} calls: {sum(calls.values()) - late} answered (")
    assert f"; {late} had no answer by 1 s + 0.5 s grace: at n = 8 (" in time["summary"]
    assert time["summary"].endswith(
        ". Fix: print a move before the limit: the last complete line counts; larger boards take longer: stop "
        "searching by the time given (SECONDS), whatever the size")
    # The slowest calls are listed with where they were: the calls with no answer first.
    slowest = every["slowest"]
    assert len(slowest) == 6
    assert all(not call["answered"] and call["size"] in ("8", "12") and call["seconds"] >= 1.5 for call in slowest)
    assert all(call["id"].split("/")[0] in ("rules", "robustness", "tactics", "protocol") for call in slowest)
    # Answers inside the grace are a warning named for what it counts: at n = 5 it answers 1.1 s after its start.
    after = next(check for check in time["checks"] if check["id"] == "answers-after-the-limit")
    assert after["warning"] and after["status"] == "pass"
    assert after["detail"].startswith(f"{calls[5]} of {sum(calls.values()) - late} answers came after 1 s, inside "
                                      f"the grace: at n = 5 ({calls[5]} of {calls[5]}); none at n = 3, n = 8, n = 12")


def test_a_program_slow_as_one_colour_is_told_the_colour() -> None:
    code, report = validate(f"python3 {STUDENTS / 'slow_as_o.py'}", "--n", "3")
    assert code == 1
    time = report["categories"]["time"]
    asked = [check for name, category in report["categories"].items()
             for check in category["checks"][4 if name == "protocol" else 0:]  # the first five share one call
             if check["command"] and name != "time"]
    as_o = sum(check["player"] == "o" for check in asked)
    assert 0 < as_o < len(asked)
    assert f"; {as_o} had no answer by 1 s + 0.5 s grace: " in time["summary"]
    assert f"; as o ({as_o} of {as_o}) only; in " in time["summary"]
    assert time["summary"].endswith(". Fix: print a move before the limit: the last complete line counts")
    assert all(call["player"] == "o" for call in time["checks"][0]["slowest"])


OFF_BY_ONE_PAIRS = [
    # (case, twin's board, the column its pebble is off, solving moves, legal moves and rotations in the
    # case, legal moves in the twin, and the off-by-one's answers in the twin)
    ("n3-x-last-pebble-1", "...ooxooxxxxoxoxoo", 1, [3], 5, 3, 6),
    ("n3-o-last-pebble-1", "...oxxoxxoooxooxxx", 2, [1], 5, 3, 6),
    ("n5-x-last-pebble-1", "......o..xooxooxooxxxoxoxxxxooxooxxxoxxx", 5, [2], 9, 5, 10),
    ("n5-o-last-pebble-1", "...x.xxoo.oxoxxxxoxoxxxxoooooooxoooxxxoo", 3, [2], 8, 5, 9),
    ("n8-x-last-pebble-1", "ooo.x.xxooxxoxoxxoxooxooooxoxxxxoooxxxoxooxooxxoxooxoxxxoxooxxxxxoooooxxoxoxoxooxooooxxx",
     4, [6], 9, 8, 10),
    ("n8-o-last-pebble-1", "x..xxooxoxoooxxxxxoxooxxoxoxoxxxxooxxxxxoooooxxxxooxooxxxooxxoxooooxooxoxxooxxoooxoooxox",
     2, [3], 9, 8, 10),
]
"""The minimal pairs of the default sizes 3, 5 and 8 (the suites are the same on every run)."""


@pytest.mark.parametrize("quick", [True, False], ids=["quick", "default"])
def test_a_student_that_never_drops_its_last_pebble_fails_rules_with_its_minimal_pairs_shown(quick: bool) -> None:
    # sahil6's pattern: its supply count is one short, so it rotates where its last pebble wins; with two
    # in hand (the twin, the same board with one of its pebbles off a column) it drops to win.
    result = run_program([*ARENA, "validate", f"python3 {STUDENTS / 'last_pebble_off_by_one.py'}", "--games", "0",
                          "--json", *(["--quick"] if quick else [])], timeout=300)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    rules, tactics = report["categories"]["rules"], report["categories"]["tactics"]
    missed = {c["id"]: c for c in rules["checks"] if c["status"] == "fail"}
    assert sorted(missed) == sorted(f"n{n}-{p}-last-pebble-1" for n in (3, 5, 8) for p in "xo")
    assert not any("last-pebble" in c["id"] for c in tactics["checks"])
    # The chance, from the legal moves of each case and twin: a rotation in each case, a solving drop in each
    # twin, once per position (a random mover seeded by the board answers every ask alike).
    chance = 1.0
    for _, _, _, solutions, legal, rotations, twin_legal in OFF_BY_ONE_PAIRS:
        chance *= (rotations / legal) * (len(solutions) / twin_legal)
    assert chance == pytest.approx(3.0483158055174e-07, rel=1e-9)
    assert missed["n3-x-last-pebble-1"]["detail"] == (
        "played -1 (rotates column 1) in 3 of 3 asks; in its twin (the same board with one of its pebbles off the "
        "top of column 1, so two in hand) it played the winning drop 3 in 3 of 3 asks: it does not drop its last "
        "pebble (its supply count is one short); 6 pairs, 3 asks each; a random mover shows this pattern with "
        "probability 3e-07")
    assert missed["n5-o-last-pebble-1"]["detail"] == (
        "played -1 (rotates column 1) in 3 of 3 asks; in its twin (the same board with one of its pebbles off the "
        "top of column 3, so two in hand) it played the drop 2 that stops x's line in 3 of 3 asks: it does not drop "
        "its last pebble (its supply count is one short); 6 pairs, 3 asks each; a random mover shows this pattern "
        "with probability 3e-07")
    expected_pairs = {
        case: {"original": case, "solutions": solutions, "wins": not case.startswith("n5-"),
               "legal": legal, "others": rotations, "twin": twin, "twin_column": column, "twin_legal": twin_legal,
               "answers": [-1, -1, -1], "twin_answers": solutions * 3}
        for case, twin, column, solutions, legal, rotations, twin_legal in OFF_BY_ONE_PAIRS}
    for check in missed.values():
        assert (check["basis"], check["verdict"], check["move"]) == ("proved", "ok", -1)
        assert check["chance"] == pytest.approx(chance, rel=1e-9) and check["chance"] < 0.01
        assert check["pairs"][0] == expected_pairs[check["id"]]  # its own pair first, then every other
        assert sorted(check["pairs"], key=lambda pair: pair["original"]) == sorted(expected_pairs.values(),
                                                                                   key=lambda pair: pair["original"])
    assert rules["summary"].endswith("Fix: count the pebble still in hand: the last one can be dropped, and here "
                                     "dropping it wins at once or stops a line")
    # Every ask is a call of the program, timed: 6 cases and 6 twins, 3 asks each, beside the other checks.
    time_summary = report["categories"]["time"]["summary"]
    checks = len([c for name in ("protocol", "rules", "robustness", "tactics", "strength")
                  for c in report["categories"][name]["checks"] if c["command"]]) - 4  # protocol shares one
    assert time_summary.startswith(f"{checks + 6 * 5} calls: {checks + 6 * 5} answered within 1 s")


def test_the_text_report_shows_the_minimal_pairs_and_the_chance() -> None:
    result = run_program([*ARENA, "validate", f"python3 {STUDENTS / 'last_pebble_off_by_one.py'}", "--quick",
                          "--games", "0", "--n", "3,5"], timeout=300)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("- rules/n3-x-last-pebble-1 "))
    assert lines[first] == (
        "- rules/n3-x-last-pebble-1 (and n3-o-last-pebble-1: the same way): played -1 (rotates column 1) in 3 of 3 "
        "asks; in its twin (the same board with one of its pebbles off the top of column 1, so two in hand) it played "
        "the winning drop 3 in 3 of 3 asks: it does not drop its last pebble (its supply count is one short); 4 pairs, "
        "3 asks each; a random mover shows this pattern with probability 3.9e-05")
    pairs = lines.index("    pairs   : n3-x-last-pebble-1  played -1 -1 -1; twin (a pebble off column 1): played 3 3 3, "
                        "solving 3")
    assert lines[pairs + 1:pairs + 5] == [
        "              n3-o-last-pebble-1  played -1 -1 -1; twin (a pebble off column 2): played 1 1 1, solving 1",
        "              n5-x-last-pebble-1  played -1 -1 -1; twin (a pebble off column 5): played 2 2 2, solving 2",
        "              n5-o-last-pebble-1  played -1 -1 -1; twin (a pebble off column 3): played 2 2 2, solving 2",
        "    chance  : 3.9e-05: the probability that a random mover answers as seen (a supply count one short stands "
        "below 1%)",
    ]


def test_two_pairs_at_chance_one_percent_exactly_prove_nothing_and_the_misses_are_tactics() -> None:
    # At n = 3 alone: 3/5 rotations x 1/6 solving drops, twice: exactly 1/100, not below the bar (exact arithmetic).
    code, report = validate(f"python3 {STUDENTS / 'last_pebble_off_by_one.py'}", "--n", "3")
    assert code == 0
    assert [c["id"] for c in report["categories"]["rules"]["checks"] if "-last-pebble-" in c["id"]] == []
    missed = {c["id"]: c for c in report["categories"]["tactics"]["checks"] if "-last-pebble-" in c["id"]}
    assert sorted(missed) == ["n3-o-last-pebble-1", "n3-x-last-pebble-1"]
    assert missed["n3-x-last-pebble-1"]["detail"] == (
        "played -1 (rotates column 1): missed a winning drop as x with its last pebble; a random mover shows the "
        "answers of the 2 minimal pairs with probability 0.01, not below 1%: this is a tactics miss, not a supply "
        "count")
    assert (missed["n3-x-last-pebble-1"]["basis"], missed["n3-x-last-pebble-1"]["chance"]) == (
        "oracle", pytest.approx(0.01))  # a tactics miss: a move outside the proven solving moves


def test_a_student_that_misses_drop_wins_as_o_is_weak_at_tactics_not_failed_on_rules() -> None:
    # patidev's pattern: its supply count is right, it finds wins by rotation, and as o it misses wins by
    # a drop, with two pebbles in hand too (the twin): a tactics miss, not a rules fault.
    code, report = validate(f"python3 {STUDENTS / 'misses_drop_wins_as_o.py'}")
    assert code == 0
    rules, tactics = report["categories"]["rules"], report["categories"]["tactics"]
    assert rules["status"] == "pass"
    assert {c["id"] for c in rules["checks"] if "-last-pebble-" in c["id"]} == {
        "n3-x-last-pebble-1", "n5-x-last-pebble-1", "n5-o-last-pebble-1", "n8-x-last-pebble-1"}
    by_id = {c["id"]: c for c in tactics["checks"]}
    assert by_id["n3-o-last-pebble-1"]["status"] == "fail"
    assert by_id["n3-o-last-pebble-1"]["detail"] == (
        "played -1 (rotates column 1): missed a winning drop as o with its last pebble; the minimal pairs refute a "
        "supply count one short: the twin of n3-o-last-pebble-1 (two in hand) was answered with -1 (ask 1 of 3), not "
        "a solving move [1]: this is a tactics miss, not a supply count")
    assert [(p["original"], p["answers"], p["twin_answers"]) for p in by_id["n3-o-last-pebble-1"]["pairs"]][:2] == [
        ("n3-o-last-pebble-1", [-1, -1, -1], [-1, -1, -1]), ("n3-x-last-pebble-1", [3], [])]
    assert (by_id["n3-o-last-pebble-1"]["basis"], by_id["n3-o-last-pebble-1"]["chance"]) == ("oracle", None)
    assert tactics["status"] == "weak"
    assert tactics["summary"].endswith(
        "Fix: look at every move, drops and rotations alike, for one that completes your line at once or stops "
        "the opponent's")
    assert report["verdict"].startswith("PASS: protocol, rules, time and robustness are all right; tactics weak (")


@pytest.mark.parametrize(("student", "run"), [("random_legal.py", 1), *(("random_unseeded.py", run) for run in range(1, 7))])
def test_a_random_mover_is_never_failed_on_rules_for_its_last_pebble(student: str, run: int) -> None:
    # random_legal.py draws its move from a generator seeded by the position (the same report every run);
    # random_unseeded.py draws afresh at every call, 6 runs. At n = 3 and 5 (4 pairs: a diagnosis could reach
    # the bar) its rotations are tactics misses, never a supply count.
    result = run_program([*ARENA, "validate", f"python3 {STUDENTS / student}", "--quick", "--games", "0", "--n", "3,5",
                          "--json"], timeout=300)
    assert result.returncode == 0, result.stdout
    report = json.loads(result.stdout)
    assert (report["categories"]["rules"]["status"], report["categories"]["protocol"]["status"]) == ("pass", "pass")
    moved = [c for c in report["categories"]["tactics"]["checks"] if "-last-pebble-" in c["id"]]
    assert all(c["status"] == "fail" and c["basis"] == "oracle" and c["detail"].endswith(
        ": this is a tactics miss, not a supply count") for c in moved)


def test_student_ignoring_the_supply_is_caught_dropping_with_no_pebble_in_hand() -> None:
    _, report = validate(f"python3 {STUDENTS / 'ignores_supply.py'}")
    check = first_failure(report, "rules")
    assert "no-pebbles-in-hand" in check["id"]
    assert check["detail"].startswith("illegal-move: cannot drop: ")
    assert "has no pebbles in hand" in check["detail"]
    assert check["command"].endswith(f"{check['n']} {check['player']} {check['board']} 1")


def test_student_rotating_the_wrong_way_is_caught_with_the_expected_board() -> None:
    _, report = validate(f"python3 {STUDENTS / 'rotates_wrong_way.py'}")
    check = first_failure(report, "rules")
    assert check["detail"].startswith("board-mismatch: move -")
    assert ", but the engine printed " in check["detail"]


def test_student_hardcoded_for_n5_fails_on_the_seed_example() -> None:
    _, report = validate(f"python3 {STUDENTS / 'hardcoded_n5.py'}")
    answers = next(c for c in report["categories"]["protocol"]["checks"] if c["id"] == "answers")
    assert not answers["passed"]
    assert answers["detail"].startswith("no-answer: exited with status 1")
    assert "IndexError" in answers["stderr"]


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ("python3 {tmp}/missing.py", "engine 'python3 {tmp}/missing.py': script '{tmp}/missing.py' not found (looked "
                                     "for {tmp}/missing.py); check the path (relative paths start from {root})"),
        ("{tmp}/noexec.py", "{tmp}/noexec.py is not executable; run chmod +x {tmp}/noexec.py, or validate "
                            "'python3 {tmp}/noexec.py' instead"),
    ],
)
def test_a_program_that_is_missing_or_cannot_run_is_one_line_before_any_check(tmp_path: Path, program: str,
                                                                              message: str) -> None:
    (tmp_path / "noexec.py").write_text("print('hi')\n")
    (tmp_path / "noexec.py").chmod(0o644)
    done = run_program([*ARENA, "validate", program.format(tmp=tmp_path), "--quick"])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"arena: error: {message.format(tmp=tmp_path, root=ROOT)}\n"


@pytest.mark.parametrize(
    ("program", "detail"),
    [
        ("python3 {tmp}/py2.py", "no-answer: exited with status 1"),
        ("python3 {tmp}/crash.py", "no-answer: exited with status 1"),
    ],
)
def test_broken_programs_get_a_report_not_a_traceback(tmp_path: Path, program: str, detail: str) -> None:
    (tmp_path / "py2.py").write_text("print '1 ..................'\n")
    (tmp_path / "crash.py").write_text("raise SystemExit('I crashed')\n")
    program = program.format(tmp=tmp_path)
    code, report = validate(program)
    assert code == 1
    assert report["program"] == program
    assert failing(report) >= {"protocol", "rules", "robustness"}
    protocol = report["categories"]["protocol"]["checks"]
    failed = next(c for c in protocol if not c["passed"])
    assert detail.format(tmp=tmp_path) in failed["detail"]
    # No check passes without evidence; everything past the root cause is "not judged".
    assert [c["id"] for c in protocol if c["status"] == "pass"] == (["starts"] if "no-answer" in detail else [])
    assert {name: category["status"] for name, category in report["categories"].items() if name != "protocol"} == {
        name: "not judged" for name in ("rules", "time", "robustness", "tactics", "strength")}


@pytest.mark.parametrize(("source", "first_line", "fix"), [
    ("print '1 ..................'\n",
     "FAIL: protocol; not judged: rules, time, robustness (first failure: answers: no-answer: exited with "
     "status 1, printed nothing on stdout; stderr: SyntaxError: Missing parentheses in call to 'print'. "
     "Did you mean print(...)?)",
     "    fix     : this is Python 2 code: run it with Python 3 and make print a function, print(...)"),
    ("import numpy_that_is_not_here\n",
     "FAIL: protocol; not judged: rules, time, robustness (first failure: answers: no-answer: exited with "
     "status 1, printed nothing on stdout; stderr: ModuleNotFoundError: No module named "
     "'numpy_that_is_not_here')",
     "    fix     : a module it imports is not installed here: install it, or do without it"),
])
def test_a_program_that_never_answers_gets_one_short_report_with_the_fix(
    tmp_path: Path, source: str, first_line: str, fix: str
) -> None:
    program = tmp_path / "betsy.py"
    program.write_text(source)
    result = run_program([*ARENA, "validate", f"python3 {program}", "--quick"])
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == first_line
    assert len(lines) <= 15, result.stdout
    assert lines[3].startswith("  protocol    fail       2 of 3 checks failed (3 not judged): at n = 3 (1 of 2), "
                               "n = 5 (1 of 1); ")
    assert lines[3].endswith(f". Fix: {fix.split(': ', 1)[1]}")
    assert lines[4:9] == [f"  {name:<11} not judged not judged: the program never answered"
                          for name in ("rules", "time", "robustness", "tactics", "strength")]
    assert sum(line.startswith("- ") for line in lines) == 1  # one root cause, reported once
    assert "(and first-move-n5: the same way)" in result.stdout
    assert lines[-1] == fix
    assert " pass " not in result.stdout


def test_hanging_program_fails_on_time_without_stalling(tmp_path: Path) -> None:
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(600)\n")
    code, report = validate(f"python3 {hang}", "--n", "3")
    assert code == 1
    assert {"protocol", "rules", "time", "robustness"} <= failing(report)
    check = first_failure(report, "time")
    assert check["detail"].startswith("2 of 2 calls had no answer by 1 s + 0.5 s grace: at n = 3 (1 of 1), n = 5 (1 of 1)")


def test_text_report_names_the_failure_with_evidence() -> None:
    result = run_program([*ARENA, "validate", f"python3 {STUDENTS / 'ignores_supply.py'}", "--quick",
                          "--games", "0", "--n", "3"])
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("FAIL: rules (first failure: n3-x-no-pebbles-in-hand-1: illegal-move: ")
    assert ("  rules       fail       2 of 7 checks failed: at n = 3 (2 of 7); as x (1 of 4) and o "
            "(1 of 3); in no-pebbles-in-hand (2 of 2) positions. Fix: with no pebble in hand only rotations are legal: "
            "a side has n(n+3)/2 pebbles, less those of its colour on the board\n") in result.stdout
    assert "    command : " in result.stdout and "    expected: " in result.stdout


def test_html_report_is_written_with_boards(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    code, _ = validate(f"python3 {STUDENTS / 'random_legal.py'}", "--n", "3", "--html", str(page))
    assert code == 0
    html = page.read_text()
    assert html.startswith("<!doctype html>")
    assert "<svg class=\"board\"" in html and "Betsy validation" in html
    assert ("<table class='summary'><thead><tr><th>category</th><th>status</th><th>summary</th></tr></thead>"
            in html)
    assert re.findall(r'<text class="colno" x="\d+" y="\d+">(\d+)</text>', html)[:3] == ["1", "2", "3"]  # numbered


def test_html_report_shows_the_programs_board_beside_the_one_its_move_gives(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    code, report = validate(f"python3 {STUDENTS / 'rotates_wrong_way.py'}", "--n", "3", "--html", str(page))
    assert code == 1
    html = page.read_text()
    check = first_failure(report, "rules")
    move, printed = check["printed"][-1].split()
    from harness.games.betsy.rules import Position

    right = Position.from_text(3, check["player"], check["board"]).after(int(move)).board()
    assert printed != right
    section = html.split(f"<summary class='fail'>✗ rules/{check['id']}: ")[1].split("</details>")[0]
    assert section.startswith(f"board-mismatch: move {move} gives {right}, but the engine printed {printed}")
    boards = section.split("<figcaption>")[1:]
    assert [board.split("</figcaption>")[0] for board in boards] == [
        "asked", "the program&#x27;s board", "its move gives"]
    drawn = ["".join(cell.replace("e", ".") for cell in re.findall(r'<circle class="cell ([xoe])"', board))
             for board in boards]
    assert drawn == [check["board"], printed, right]
    # The move is marked on the boards after it (its column, and the rotation said), as the game pages do.
    column = abs(int(move))
    marked = f'<rect class="lastcol" x="{6 + (column - 1) * 30}" y="6" width="30" height="180" visibility="visible"/>'
    assert [marked in board for board in boards] == [False, True, True]
    assert [">&#x21bb; rotated</text>" in board and 'visibility="visible">&#x21bb;' in board
            for board in boards] == [False, True, True]
    assert f"<li>Its move: {move} (rotates column {column})</li>" in section


@pytest.mark.parametrize("args", [["--n", "3,x"], ["--time", "0"], ["--games", "-1"]])
def test_validate_usage_errors_exit_2(args: list[str]) -> None:
    result = run_program([*ARENA, "validate", "random", *args])
    assert result.returncode == 2
    assert result.stderr.startswith("arena: error: invalid --")


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["alphabeta", "mcts_alphabeta"])
def test_our_engines_pass_every_category(engine: str) -> None:
    code, report = validate(f"python3 {ROOT / 'engines' / f'{engine}.py'}", timeout=600)
    assert code == 0
    assert failing(report) == set()
    assert all(report["categories"][name]["passed"] for name in REQUIRED)


def test_performance_rating_matches_hand_values() -> None:
    # Even score against a 400-rated field: 400. One win and one loss against 0 and 800: 400 too.
    assert performance_rating([(400.0, 1.0), (400.0, 0.0)], prior_games=0) == pytest.approx(400.0)
    assert performance_rating([(0.0, 1.0), (800.0, 0.0)], prior_games=0) == pytest.approx(400.0)
    # 3/4 against a 0-rated opponent: 400 * log10(3) = 190.85.
    results = [(0.0, 1.0), (0.0, 1.0), (0.0, 1.0), (0.0, 0.0)]
    assert performance_rating(results, prior_games=0) == pytest.approx(190.85, abs=0.01)
    assert performance_rating([]) == 0.0


def test_progress_goes_to_stderr_when_asked_on_a_pipe_and_quiet_silences_it() -> None:
    program = f"python3 {STUDENTS / 'random_legal.py'}"
    base = [*ARENA, "validate", program, "--quick", "--games", "0", "--n", "3", "--json"]
    assert run_program(base).stderr == sandbox_warning()  # not a terminal: no bar unless asked
    shown = run_program([*base, "--progress"])
    assert shown.returncode == 0
    assert "validating" in shown.stderr and "check" in shown.stderr
    json.loads(shown.stdout)  # stdout is the report alone
    quiet = run_program([*base, "--progress", "--quiet"])
    assert (quiet.returncode, quiet.stderr) == (0, sandbox_warning())


def test_fractional_time_follows_the_same_rule_as_match() -> None:
    program = f"python3 {STUDENTS / 'random_legal.py'}"
    refused = run_program([*ARENA, "validate", program, "--time", "0.5"])
    assert (refused.returncode, refused.stderr) == (2, (
        "arena: error: invalid --time 0.5: expected a whole number of seconds (or give --allow-fractional-time)\n"))
    code, report = validate(f"python3 {FAKES / 'echoes_seconds.py'}", "--time", "0.5", "--allow-fractional-time",
                            "--n", "3")
    assert report["categories"]["protocol"]["checks"][0]["command"].endswith(" 0.5")


def test_a_program_killed_at_every_deadline_is_timed_by_its_last_answer_not_the_kill() -> None:
    code, report = validate(f"python3 {STUDENTS / 'answers_twice_then_hangs.py'}", "--n", "3")
    assert code == 0  # killed after answering: warnings, not faults
    time = report["categories"]["time"]
    calls = len([c for name in ("protocol", "rules", "robustness", "tactics")
                 for c in report["categories"][name]["checks"] if c["command"]]) - 4  # protocol shares one
    assert time["status"] == "pass"
    assert time["summary"].startswith(f"{calls} calls: {calls} answered within 1 s, median ")
    assert time["summary"].endswith(f"; {calls} of them killed at the deadline after answering")
    worst = float(time["summary"].split(", worst ")[1].split(" s;")[0])
    # Its last answer comes 0.3 s after its first, both well before the kill at 1 s + 0.5 s grace.
    assert 0.3 <= worst < 1.5
    killed = next(c for c in time["checks"] if c["id"] == "killed-after-answering")
    assert killed["warning"] and killed["detail"] == (
        f"{calls} of {calls} calls that answered were still running at the deadline and were killed (their last "
        "answer counted)")


def _pair(case: str, answers: list[int | None], twin_answers: list[int | None], legal: int = 5, others: int = 3,
          twin_legal: int = 6, solutions: tuple[int, ...] = (3,), wins: bool = True) -> dict:
    return {"original": case, "solutions": list(solutions), "wins": wins, "legal": legal, "others": others,
            "twin": "...ooxooxxxxoxoxoo",
            "twin_column": 1, "twin_legal": twin_legal, "answers": answers, "twin_answers": twin_answers}


def _judged(*pairs: dict) -> tuple[Category, Category]:
    """Rules and tactics after judging made-up last-pebble checks, one per pair, each answered with its
    pair's first answer (a check passes when that answer solves it)."""
    from harness.validate.validator import judge_last_pebbles

    checks = [Check(pair["original"], pair["answers"][0] in pair["solutions"], f"played {pair['answers'][0]}",
                    board="x..ooxooxxxxoxoxoo", size=pair["original"][1], player=pair["original"].split("-")[1],
                    verdict="ok", move=pair["answers"][0], kind="last-pebble", solutions=pair["solutions"],
                    pairs=[pair])
              for pair in pairs]
    rules = Category("rules", checks)
    tactics = Category("tactics", [], role=Role.GRADED)
    judge_last_pebbles(rules, tactics, get_game("betsy"))
    return rules, tactics


def test_a_supply_count_stands_when_nothing_refutes_it_and_chance_is_below_one_percent() -> None:
    # 3/5 rotations x 1/75 solving drops: 0.008 (once per position, however many asks).
    rules, tactics = _judged(_pair("n3-x-last-pebble-1", [-1, -1, -1], [3, 3, 3], twin_legal=75))
    assert tactics.checks == []
    check, = rules.checks
    assert (check.basis, check.passed) == ("proved", False)
    assert check.chance == pytest.approx(0.008, rel=1e-12)
    assert check.detail == (
        "played -1 (rotates column 1) in 3 of 3 asks; in its twin (the same board with one of its pebbles off the top "
        "of column 1, so two in hand) it played the winning drop 3 in 3 of 3 asks: it does not drop its last pebble "
        "(its supply count is one short); 1 pair, 3 asks each; a random mover shows this pattern with probability "
        "0.008")


def test_a_supply_count_does_not_stand_when_chance_is_just_above_one_percent() -> None:
    # 2/3 rotations x 1/60 solving drops: 0.0111 >= 1%.
    rules, tactics = _judged(_pair("n3-x-last-pebble-1", [-1, -1, -1], [3, 3, 3], legal=3, others=2, twin_legal=60))
    assert rules.checks == []
    check, = tactics.checks
    assert check.basis == "" and check.chance == pytest.approx(2 / 180, rel=1e-12)
    assert check.detail == (
        "played -1 (rotates column 1): missed a winning drop as x with its last pebble; a random mover shows the "
        "answers of the 1 minimal pair with probability 0.011, not below 1%: this is a tactics miss, not a supply "
        "count")


def test_a_drop_in_any_last_pebble_position_refutes_a_supply_count() -> None:
    # n3-o dropped (right): it drops its last pebble, so n3-x's rotation is a tactics miss.
    rules, tactics = _judged(_pair("n3-x-last-pebble-1", [-1, -1, -1], [3, 3, 3]),
                             _pair("n3-o-last-pebble-1", [1], [], solutions=(1,)))
    assert [c.id for c in rules.checks] == ["n3-o-last-pebble-1"] and rules.checks[0].passed
    check, = tactics.checks
    assert (check.id, check.basis, check.chance) == ("n3-x-last-pebble-1", "", None)
    assert check.detail == (
        "played -1 (rotates column 1): missed a winning drop as x with its last pebble; the minimal pairs refute a "
        "supply count one short: n3-o-last-pebble-1 was answered with the drop 1 (ask 1 of 1): it drops its last "
        "pebble: this is a tactics miss, not a supply count")
    assert [pair["original"] for pair in check.pairs] == ["n3-x-last-pebble-1", "n3-o-last-pebble-1"]
    # A drop at a repeated ask refutes it too, and a wrong drop is a tactics miss of its own.
    rules, tactics = _judged(_pair("n3-x-last-pebble-1", [-1, 2, -1], [3, 3, 3]))
    assert rules.checks == [] and tactics.checks[0].detail.endswith(
        "refute a supply count one short: n3-x-last-pebble-1 was answered with the drop 2 (ask 2 of 3): it drops its "
        "last pebble: this is a tactics miss, not a supply count")
    rules, tactics = _judged(_pair("n3-x-last-pebble-1", [1], []))
    assert rules.checks == [] and tactics.checks[0].detail == (
        "played 1 (drops into column 1): missed a winning drop as x with its last pebble; its move is a drop too, so "
        "it counts that pebble: this is a tactics miss, not a supply count")


def test_a_missed_or_unanswered_twin_refutes_a_supply_count() -> None:
    rules, tactics = _judged(_pair("n3-x-last-pebble-1", [-1, -1, -1], [3, -2, 3]))
    assert rules.checks == [] and tactics.checks[0].detail.endswith(
        "the minimal pairs refute a supply count one short: the twin of n3-x-last-pebble-1 (two in hand) was answered "
        "with -2 (ask 2 of 3), not a solving move [3]: this is a tactics miss, not a supply count")
    rules, tactics = _judged(_pair("n3-x-last-pebble-1", [-1, -1, -1], [3, 3, None]))
    assert rules.checks == [] and tactics.checks[0].detail.endswith(
        "the minimal pairs refute a supply count one short: the twin of n3-x-last-pebble-1 had no legal answer (ask 3 "
        "of 3): this is a tactics miss, not a supply count")
    # A case without a twin diagnoses nothing, though the other pair's diagnosis stands.
    rules, tactics = _judged(_pair("n3-x-last-pebble-1", [-1, -1, -1], [3, 3, 3], twin_legal=75),
                             {**_pair("n3-o-last-pebble-1", [-1], [], solutions=(1,)), "twin": "", "twin_column": 0})
    assert [c.id for c in rules.checks] == ["n3-x-last-pebble-1"] and rules.checks[0].basis == "proved"
    assert [c.id for c in tactics.checks] == ["n3-o-last-pebble-1"] and tactics.checks[0].detail == (
        "played -1 (rotates column 1): missed a winning drop as o with its last pebble; its position has no twin (the "
        "same board with one more pebble in hand and the same solving moves), so nothing tells a supply count from a "
        "tactics miss: this is a tactics miss, not a supply count")


def test_a_fix_that_names_a_cause_is_given_only_where_the_move_shows_that_cause() -> None:
    from harness.games.betsy.rules import Position
    from harness.games.betsy.suites import BetsySuites, rotated_wrong_way

    suites = BetsySuites()
    no_pebbles = Position.from_text("3", "o", "..xx.oooooxxoxooxo")  # o has all 9 on the board
    assert no_pebbles.pebbles_in_hand(1) == 0
    assert suites.proves_fix("no-pebbles-in-hand/illegal-move", no_pebbles, 2, None)
    assert not suites.proves_fix("no-pebbles-in-hand/illegal-move", no_pebbles, 4, None)  # out of range
    # Column 2 holds (top first) o x x x: the right way brings its bottom x to the top, the wrong way
    # its top o to the bottom.
    assert no_pebbles.after(-2).board() == "..xx.ooxoooxoxooxo"
    assert rotated_wrong_way(no_pebbles, 1) == "..xx.ooxooxxoxoooo"
    assert suites.proves_fix("no-pebbles-in-hand/board-mismatch", no_pebbles, -2, "..xx.ooxooxxoxoooo")
    assert not suites.proves_fix("no-pebbles-in-hand/board-mismatch", no_pebbles, -2, "..xx.ooxoooxoxooxx")
    full = Position.from_text("3", "x", "x..o..x..o..xo.oxx")
    assert suites.proves_fix("full-columns/illegal-move", full, 1, None)
    assert not suites.proves_fix("full-columns/illegal-move", full, -1, None)


@pytest.mark.parametrize(("stderr", "hint"), [
    ("SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?",
     "this is Python 2 code: run it with Python 3 and make print a function, print(...)"),
    ("    print(1\nSyntaxError: '(' was never closed", "fix the syntax error shown on stderr"),
    ("ModuleNotFoundError: No module named 'numpy'", "a module it imports is not installed here: install it, or do "
                                                    "without it"),
    ("ImportError: cannot import name 'solve' from 'helpers'", "an import failed: fix what the ImportError on stderr "
                                                               "names"),
])
def test_a_hint_from_the_error_output_says_only_what_the_interpreter_said(stderr: str, hint: str) -> None:
    from harness.validate.validator import fix_hint

    assert fix_hint(Check("answers", False, "no-answer: exited with status 1", stderr=stderr)) == hint


def test_a_connect4_full_column_fix_is_given_only_for_a_move_into_a_full_column() -> None:
    from harness.games.connect4.rules import initial_position
    from harness.games.connect4.suites import ConnectFourSuites

    position = initial_position(7, 6)
    for _ in range(6):
        position.push(3)
    suites = ConnectFourSuites()
    assert suites.proves_fix("full-column/illegal-move", position, 3, None)
    assert not suites.proves_fix("full-column/illegal-move", position, 8, None)  # a column that does not exist
    assert not suites.proves_fix("full-column/illegal-move", position, 0, None)


def test_failed_checks_draw_the_move_played_the_right_moves_and_the_reply_that_wins(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    result = run_program([*ARENA, "validate", f"python3 {STUDENTS / 'misses_drop_wins_as_o.py'}", "--quick",
                          "--games", "0", "--quiet", "--html", str(page)], timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("- tactics/n3-o-last-pebble-1 "))
    assert lines[first + 2:first + 15] == [
        "    position: n = 3, o to move",
        "      . o .",
        "      o x x",
        "      o x x",
        "      o o o",
        "      x o o",
        "      x x x",
        "      1 2 3",
        "      ^      ^ its move: -1 (rotates column 1)",
        "      *      * the right moves: 1 (drops into column 1)",
        "    then    : x wins: the move completes x's line",
        "    pairs   : n3-o-last-pebble-1  played -1 -1 -1; twin (a pebble off column 2): played -1 -1 -1, solving 1",
        "              n3-x-last-pebble-1  played 3; twin (a pebble off column 1): not asked",
    ]
    first = next(i for i, line in enumerate(lines) if line.startswith("- tactics/n5-o-win-in-three-1: "))
    assert lines[first + 12:first + 15] == [
        "        ^        ^ its move: -2 (rotates column 2)",
        "          *      * the right moves: -3 (rotates column 3)",
        "    then    : x rotates column 1 and wins within 3 plies, whatever o plays",
    ]
    html = page.read_text()
    section = html.split("<summary class='fail'>✗ tactics/n5-o-win-in-three-1: ")[1].split("</details>")[0]
    boards = section.split("<figcaption>")[1:]
    assert [board.split("</figcaption>")[0] for board in boards] == ["asked", "after its move", "then x&#x27;s reply"]
    # The right move's column outlined on the board asked; each later board marks the move that led to it.
    assert re.findall(r'<rect class="outlined" x="(\d+)"', boards[0]) == [str(6 + 2 * 30 + 1)]
    assert [re.findall(r'<rect class="lastcol" x="(\d+)" y="6" width="30" height="\d+" visibility="visible"/>', board)
            for board in boards] == [[], ["36"], ["6"]]
    assert ("<li>The right moves: -3 (rotates column 3)</li><li>Its move: -2 (rotates column 2)</li>"
            "<li>Then x rotates column 1 and wins within 3 plies, whatever o plays</li>") in section
    assert section.count('<rect class="shade"') == 3  # Betsy's top n rows, on every board


def test_a_drawn_failure_fits_80_columns_at_n_12_and_on_an_8x8_connect_four_board() -> None:
    from harness.games.betsy.suites import random_position
    from harness.games.connect4.rules import initial_position
    from harness.validate.render import render_text
    from harness.validate.validator import ValidationReport

    betsy = random_position(12, 40, 11)
    assert betsy is not None
    rotation = min(move for move in betsy.legal_moves())
    connect4 = initial_position(8, 8)
    for move in (1, 8, 1, 8, 4):
        connect4.push(move)
    for game, position, move, solutions in (("betsy", betsy, rotation, [10, 11]), ("connect4", connect4, 7, [1, 8])):
        check = Check("x-1", False, f"played {move}", board=position.board(), size=position.size_text,
                      player=position.player, verdict="ok", move=move, solutions=solutions, kind="x")
        report = ValidationReport("p", "FAIL: rules", False, {"rules": Category("rules", [check])}, {}, game)
        text = render_text(report).splitlines()
        drawn = text[text.index(f"    position: {get_game(game).position_phrase(position.size_text, position.player)}"):]
        assert any(f"^ its move: {move} (" in line for line in drawn), text
        assert any(f"* the right moves: {solutions[0]}, {solutions[1]}" in line for line in drawn), text
        assert max(len(line) for line in drawn) <= 80, text
