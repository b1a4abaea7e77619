"""arena validate --game connect4 against sample Connect Four students (small real programs)."""

from __future__ import annotations

import json
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from harness.games.connect4.rules import Position
from tests.conftest import ROOT, run_program

STUDENTS = ROOT / "tests" / "fake_engines" / "students_connect4"
ARENA = [str(Path(sys.executable).parent / "arena")]
SCORED = ("protocol", "rules", "time", "robustness", "tactics")


@cache
def validated(student: str, *options: str) -> tuple[int, dict[str, Any], str]:
    """Exit status, JSON report and HTML page of ``arena validate --game connect4 --quick`` (run once)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "report.html"
        result = run_program([*ARENA, "validate", str(STUDENTS / student), "--game", "connect4", "--quick",
                              "--json", "--quiet", "--html", str(page), *(options or ("--games", "0"))],
                             timeout=300)
        assert result.returncode in (0, 1), result.stderr
        assert "Traceback" not in result.stderr
        return result.returncode, json.loads(result.stdout), page.read_text()


def failing(report: dict[str, Any]) -> set[str]:
    return {name for name in SCORED if not report["categories"][name]["passed"]}


def checks(report: dict[str, Any], category: str) -> list[dict[str, Any]]:
    return list(report["categories"][category]["checks"])


@pytest.mark.parametrize(("student", "expected", "exit_code", "verdict"), [
    ("random_legal.py", {"tactics"}, 0,
     "PASS: protocol, rules, time and robustness are all right; tactics weak (1/6 checks passed)"),
    ("wins_and_blocks.py", set(), 0, "PASS: protocol, rules, time and robustness are all right"),
    ("ignores_wins.py", {"tactics"}, 0,
     "PASS: protocol, rules, time and robustness are all right; tactics weak (4/6 checks passed)"),
    ("plays_full_columns.py", {"rules", "robustness", "tactics"}, 1,
     "FAIL: rules, robustness (first failure: 7x6-x-full-column: illegal-move: column 7 is full (position "
     "7x6 x ......o......x......o..o...x.xx...xxox.ooo))"),
    ("flipped_board.py", {"protocol", "rules", "robustness", "tactics"}, 1,
     "FAIL: protocol, rules, robustness (first failure: first-move-8x8: board-mismatch: move 4 gives "
     f"{'.' * 59}x...., but the engine printed ...x{'.' * 60})"),
])
def test_sample_connect4_student_gets_exactly_its_verdict(
    student: str, expected: set[str], exit_code: int, verdict: str
) -> None:
    code, report, _ = validated(student)
    assert (code, failing(report), report["verdict"]) == (exit_code, expected, verdict)
    assert report["game"] == "connect4"
    assert list(report["categories"]) == ["protocol", "rules", "time", "robustness", "tactics", "strength"]
    assert report["categories"]["strength"]["summary"] == "not played (--games 0)"
    every = [check for name in SCORED for check in checks(report, name)]
    assert not any("last-pebble" in check["id"] or "no-pebbles" in check["id"] for check in every)
    asked = [check for check in every if check["board"] and check["command"]]
    assert {check["size"] for check in asked} >= {"7x6", "8x8"} and all("n" not in check for check in every)
    for check in asked:  # the exact command line of the protocol: PROGRAM WxH PLAYER BOARD SECONDS
        assert check["command"].endswith(f"{student} {check['size']} {check['player']} {check['board']} 1")


def test_a_program_playing_into_full_columns_fails_exactly_where_a_column_is_full() -> None:
    _, report, _ = validated("plays_full_columns.py")
    for name in ("rules", "robustness"):
        for check in checks(report, name):
            width = int(check["size"].split("x")[0])
            full = [c + 1 for c in range(width) if check["board"][c] != "."]
            assert check["passed"] == (not full), check["id"]
            if full:
                move = int(check["printed"][-1].split()[0])
                assert move in full
                assert check["detail"].startswith(f"illegal-move: column {move} is full (position {check['size']} ")
    failed = [check["id"] for check in checks(report, "rules") if not check["passed"]]
    assert failed == [f"{size}-{player}-{name}" for size in ("7x6", "8x8") for name in ("full-column", "near-full")
                      for player in "xo"]
    assert [check["id"] for check in checks(report, "robustness") if not check["passed"]] == ["4x4-near-full"]


def test_a_program_printing_the_rows_bottom_first_fails_every_board_with_the_right_one_shown() -> None:
    _, report, _ = validated("flipped_board.py")
    answered = [check for name in ("rules", "robustness") for check in checks(report, name)]
    assert answered and not any(check["passed"] for check in answered)
    for check in answered:
        width = int(check["size"].split("x")[0])
        move, printed = check["printed"][-1].split()
        right = Position.from_text(check["size"], check["player"], check["board"]).after(int(move)).board()
        flipped = "".join(right[r:r + width] for r in range(len(right) - width, -1, -width))
        assert printed == flipped != right
        assert check["detail"] == f"board-mismatch: move {move} gives {right}, but the engine printed {printed}"


def test_tactics_tell_a_missed_win_from_a_missed_block() -> None:
    _, sound, _ = validated("wins_and_blocks.py")
    assert {check["status"] for check in checks(sound, "tactics")} == {"pass"}  # every case can be solved
    _, report, _ = validated("ignores_wins.py")
    tactics = checks(report, "tactics")
    assert [check["id"].split("-", 2)[2] for check in tactics] == [
        "win-in-one-1", "win-in-one-1", "win-in-one-1", "block-1", "block-1", "block-1"]
    missed = [check for check in tactics if not check["passed"]]
    assert missed and all("-win-in-one-" in check["id"] for check in missed)
    for check in missed:
        move = int(check["printed"][-1].split()[0])
        solving = sorted(Position.from_text(check["size"], check["player"], check["board"]).winning_moves())
        assert check["detail"] == f"played {move}; the solving moves are {solving}"


def test_connect4_html_report_draws_boards_with_the_games_width() -> None:
    _, report, html = validated("flipped_board.py")
    assert "<title>Connect Four validation</title>" in html and "<h1>Connect Four validation</h1>" in html
    numbers = re.findall(r'<svg class="board".*?</svg>', html)
    widths = {max(int(n) for n in re.findall(r'<text class="colno" x="\d+" y="\d+">(\d+)</text>', svg))
              for svg in numbers}
    assert {7, 8, 12} <= widths  # 7x6, 8x8 and the 12x12 robustness board, columns numbered
    assert 'class="shade"' not in html  # no shading: Betsy's lines count in its top rows only
    check = checks(report, "rules")[0]
    move, printed = check["printed"][-1].split()
    right = Position.from_text(check["size"], check["player"], check["board"]).after(int(move)).board()
    section = html.split(f"<summary class='fail'>✗ rules/{check['id']}: ")[1].split("</details>")[0]
    assert f"<p>Position: {check['size']}, {check['player']} to move</p>" in section
    boards = section.split("<figcaption>")[1:]
    assert [board.split("</figcaption>")[0] for board in boards] == [
        "asked", "the program&#x27;s board", "its move gives"]
    drawn = ["".join(cell.replace("e", ".") for cell in re.findall(r'<circle class="cell ([xoe])"', board))
             for board in boards]
    assert drawn == [check["board"], printed, right]


def test_connect4_text_report_draws_the_position_with_column_numbers() -> None:
    result = run_program([*ARENA, "validate", str(STUDENTS / "plays_full_columns.py"), "--game", "connect4",
                          "--size", "7x6", "--quick", "--games", "0", "--quiet"])
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    first = lines.index("- rules/7x6-x-full-column: illegal-move: column 7 is full (position 7x6 x "
                        "......o......x......o..o...x.xx...xxox.ooo)")
    assert lines[first + 2:first + 12] == [
        "    position: 7x6, x to move",
        "      . . . . . . o",
        "      . . . . . . x",
        "      . . . . . . o",
        "      . . o . . . x",
        "      . x x . . . x",
        "      x o x . o o o",
        "      1 2 3 4 5 6 7",
        "                  ^  ^ its move: 7 (not legal here)",  # the move played marked
        "    printed : 7 ......o......x......o..o...x.xx...xxox.ooo",
    ]
    assert "8x8" not in result.stdout.split("Failed checks:")[1].split("robustness/")[0]  # --size 7x6 only


def test_strength_games_are_played_out_at_8x8_against_the_built_in_engines() -> None:
    code, report, html = validated("wins_and_blocks.py", "--games", "1")
    assert code == 0
    strength = report["strength"]
    assert (strength["size"], strength["max_plies"], list(strength["opponents"])) == ("8x8", 64, ["random", "greedy"])
    assert "n" not in strength and "exact" not in strength
    for game in strength["games"]:
        assert game["termination"] in ("line", "full-board") and game["adjudication"] is None
        assert len(game["moves"]) == game["plies"] <= 64
        assert all(len(board) == 64 for *_, board, _verdict, _seconds in game["moves"] if board)
    assert report["categories"]["strength"]["summary"].endswith(
        "over 2 games (random = 0, greedy ~ +645, alphabeta ~ +1090)")
    assert "<h2 id='games'>Strength games</h2>" in html and "<figcaption>final board</figcaption>" in html


def test_a_connect4_program_that_never_answers_is_told_the_connect4_answer_form(tmp_path: Path) -> None:
    program = tmp_path / "c4.py"
    program.write_text("import sys\n")
    result = run_program([*ARENA, "validate", f"python3 {program}", "--game", "connect4", "--quick"])
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == ("FAIL: protocol; not judged: rules, time, robustness (first failure: answers: no-answer: "
                        "exited with status 0, printed nothing on stdout)")
    assert "(and first-move-8x8: the same way)" in result.stdout
    assert lines[-2].endswith(f"{program} 7x6 o {'.' * 31}o{'.' * 5}oxxx. 1")
    assert lines[-1] == ("    fix     : print the answer as the last line of stdout, 'COLUMN NEWBOARD'; run the "
                         "command above yourself to see what happens")


@pytest.mark.parametrize(("args", "message"), [
    (["--n", "3"], "invalid --n '3': a Betsy option; give Connect Four's sizes as --size (e.g. --size 7x6,8x8)"),
    (["--size", "3x3"], "invalid --size '3x3': width and height from 4 to 12 are supported, e.g. 8x8 or 7x6"),
    (["--size", "7x6,8"], "invalid --size '7x6,8': use WxH, columns x rows, e.g. 8x8 or 7x6"),
    (["--size", "7x6", "--n", "3"], "give the board sizes once, as --n or --size"),
])
def test_connect4_size_errors_exit_2(args: list[str], message: str) -> None:
    result = run_program([*ARENA, "validate", "random", "--game", "connect4", *args])
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"arena: error: {message}\n")


def test_an_unknown_game_exits_2() -> None:
    result = run_program([*ARENA, "validate", "random", "--game", "chess"])
    assert (result.returncode, result.stderr) == (2, "arena: error: invalid --game 'chess': use betsy, connect4 or kings-horses\n")


@pytest.mark.slow
def test_our_alphabeta_passes_every_connect4_category() -> None:
    result = run_program([*ARENA, "validate", f"python3 {ROOT / 'engines' / 'alphabeta.py'}", "--game", "connect4",
                          "--quick", "--games", "0", "--json", "--quiet"], timeout=600)
    report = json.loads(result.stdout)
    assert (result.returncode, failing(report)) == (0, set())
