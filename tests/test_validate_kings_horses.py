"""``arena validate --game kings-horses``: sample students, each with its exact verdicts.

The students are small real programs (tests/fake_engines/students_kings_horses/<student>/, a folder
each with a copy of the code they share): one right but slow
(plain memoized minimax), one that mixes up the colours' coordinates, one that lets knights move onto
occupied squares, one that leaves debug prints in; and our own bestmove.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.referee.engine_specs import command_engine
from harness.errors import EngineError
from harness.match.settings import GameSettings
from harness.validate.validator import ValidationSettings
from harness.validate.kings_horses import validate_kings_horses
from harness.validate.render import render_text
from tests.conftest import ARENA, ROOT, run_program

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


def test_our_bestmove_passes_everything() -> None:
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
