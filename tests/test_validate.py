"""arena validate against sample students (small real programs) and against our own engines."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import pytest

from harness.validate import REQUIRED, performance_rating
from tests.conftest import ROOT, run_program

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
    assert all(c["n"] >= 8 for c in unjudged)  # it sleeps 5 s from n = 8, 0.05 s below
    assert report["categories"]["rules"]["status"] == "pass"
    time = report["categories"]["time"]
    assert time["status"] == "fail"
    assert time["checks"][0]["detail"].endswith("calls ran past 1 s + grace with no answer")


def test_a_student_that_never_drops_its_last_pebble_fails_rules_and_a_weak_one_is_not_blamed() -> None:
    _, report = validate(f"python3 {STUDENTS / 'last_pebble_off_by_one.py'}")
    missed = [c for c in report["categories"]["rules"]["checks"] if c["status"] == "fail"]
    assert missed and all("-last-pebble-" in c["id"] for c in missed)
    assert all(c["detail"].endswith("so it does not see its last pebble (its supply count is off by one?)")
               for c in missed)
    # A random mover misses such drops too, but it takes no wins anywhere: not a supply fault.
    _, report = validate(f"python3 {STUDENTS / 'random_legal.py'}")
    pebbles = [c for c in report["categories"]["rules"]["checks"] if "-last-pebble-" in c["id"]]
    assert {c["status"] for c in pebbles} <= {"pass", "not judged"}
    assert report["categories"]["rules"]["status"] == "pass"


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
    ("program", "detail"),
    [
        ("python3 {tmp}/missing.py", "engine 'python3 {tmp}/missing.py': script '{tmp}/missing.py' not found"),
        ("{tmp}/noexec.py", "{tmp}/noexec.py is not executable; run chmod +x"),
        ("python3 {tmp}/py2.py", "no-answer: exited with status 1"),
        ("python3 {tmp}/crash.py", "no-answer: exited with status 1"),
    ],
)
def test_broken_programs_get_a_report_not_a_traceback(tmp_path: Path, program: str, detail: str) -> None:
    (tmp_path / "noexec.py").write_text("print('hi')\n")
    (tmp_path / "noexec.py").chmod(0o644)
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
    assert lines[3:9] == ["  protocol    FAIL  1/3 checks passed, 3 not judged"] + [
        f"  {name:<11} -     not judged: the program never answered"
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
    assert "ran past 1 s + grace with no answer" in check["detail"]


def test_text_report_names_the_failure_with_evidence() -> None:
    result = run_program([*ARENA, "validate", f"python3 {STUDENTS / 'ignores_supply.py'}", "--quick",
                          "--games", "0", "--n", "3"])
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("FAIL: rules (first failure: n3-x-no-pebbles-in-hand-1: illegal-move: ")
    assert "  rules       FAIL " in result.stdout
    assert "    command : " in result.stdout and "    expected: " in result.stdout


def test_html_report_is_written_with_boards(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    code, _ = validate(f"python3 {STUDENTS / 'random_legal.py'}", "--n", "3", "--html", str(page))
    assert code == 0
    html = page.read_text()
    assert html.startswith("<!doctype html>")
    assert "<table class=\"board\">" in html and "Betsy validation" in html
    assert "<table class='summary'><tr><th>category</th><th>status</th><th>summary</th></tr>" in html
    assert "<tr><th>1</th><th>2</th><th>3</th></tr>" in html  # numbered columns


def test_html_report_shows_the_programs_board_beside_the_one_its_move_gives(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    code, report = validate(f"python3 {STUDENTS / 'rotates_wrong_way.py'}", "--n", "3", "--html", str(page))
    assert code == 1
    html = page.read_text()
    check = first_failure(report, "rules")
    move, printed = check["printed"][-1].split()
    from harness.games.betsy import Position

    right = Position.from_text(3, check["player"], check["board"]).after(int(move)).board()
    assert printed != right
    section = html.split(f"<summary class='fail'>✗ {check['id']}: ")[1].split("</details>")[0]
    assert section.startswith(f"board-mismatch: move {move} gives {right}, but the engine printed {printed}")
    boards = section.split("<caption>")[1:]
    assert [board.split("</caption>")[0] for board in boards] == [
        "asked", "the program&#x27;s board", "the board its move gives"]
    drawn = ["".join("x" if 'class="x' in cell else "o" if 'class="o' in cell else "."
                     for cell in board.split("<td")[1:]) for board in boards]
    assert drawn == [check["board"], printed, right]


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


def test_progress_goes_to_stderr_in_every_mode_and_quiet_silences_it() -> None:
    program = f"python3 {STUDENTS / 'random_legal.py'}"
    base = [*ARENA, "validate", program, "--quick", "--games", "0", "--n", "3", "--json"]
    shown = run_program(base)
    assert shown.returncode == 0
    assert "validating" in shown.stderr and "check" in shown.stderr
    json.loads(shown.stdout)  # stdout is the report alone
    quiet = run_program([*base, "--quiet"])
    assert (quiet.returncode, quiet.stderr) == (0, "")


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
    assert f"killed at the deadline {calls} of {calls} calls" in time["summary"]
    worst = float(time["summary"].split("answers after ")[1].split(" s at worst")[0])
    # Its last answer comes 0.3 s after its first, both well before the kill at 1 s + 0.5 s grace.
    assert 0.3 <= worst < 1.5
    killed = next(c for c in time["checks"] if c["id"] == "exits-by-itself")
    assert killed["warning"] and killed["detail"].startswith(f"{calls} of {calls} calls were still running")
