"""`arena` as users run it: a real subprocess of the installed console script."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import SEED_BOARD, TYPO_BOARD, run_program


@pytest.fixture(scope="module")
def arena() -> list[str]:
    script = Path(sys.executable).parent / "arena"
    if script.exists():
        return [str(script)]
    found = shutil.which("arena")
    return [found] if found else [sys.executable, "-m", "harness"]


def test_moves_lists_every_legal_move_with_board_and_effect(arena: list[str]) -> None:
    result = run_program([*arena, "moves", "3", "o", SEED_BOARD])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "n = 3, o to move, 6 legal moves",
        " 1  drop   1  o..x..o.ox.oxxxoxo  game goes on",
        " 2  drop   2  ...x..o.oxooxxxoxo  game goes on",
        " 3  drop   3  ...x.oo.ox.oxxxoxo  game goes on",
        "-1  rotate 1  ...o..x.oo.oxxxxxo  game goes on",
        "-2  rotate 2  ...x..o.ox.oxxxoxo  game goes on",
        "-3  rotate 3  ...x..o.ox.oxxooxx  game goes on",
    ]


def test_moves_json_lists_move_board_and_winner(arena: list[str]) -> None:
    result = run_program([*arena, "moves", "3", "x", "x..o..xoooooxxxxxo", "--json"])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        {"move": 2, "board": "x..ox.xoooooxxxxxo", "winner": None},
        {"move": 3, "board": "x..o.xxoooooxxxxxo", "winner": None},
        {"move": -1, "board": "x..x..oooxoooxxxxo", "winner": "o"},
        {"move": -2, "board": "x..o..xxooooxoxxxo", "winner": None},
        {"move": -3, "board": "x..o..xoooooxxoxxx", "winner": None},
    ]


def test_moves_rejects_the_typo_board_naming_the_floating_pebble(arena: list[str]) -> None:
    result = run_program([*arena, "moves", "3", "o", TYPO_BOARD])
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "arena: error: floating pebble in column 2, row 5 from the top: the cell below it is empty, "
        "but pebbles fall to the bottom of their column\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["0", "x", ""], "invalid board size '0': n must be a whole number >= 1"),
        (["3", "y", SEED_BOARD], "invalid player 'y': use x (blue) or o (red)"),
        (["3", "x", SEED_BOARD + "."],
         "board has 19 characters, expected 18 for n = 3 (3 columns x 6 rows)"),
        (["3", "x", SEED_BOARD, "--win-priority", "red"], "invalid --win-priority 'red': use mover or blue"),
    ],
)
def test_moves_bad_input_is_one_line_and_exit_2(arena: list[str], args: list[str], message: str) -> None:
    result = run_program([*arena, "moves", *args])
    assert result.returncode == 2
    assert result.stderr == f"arena: error: {message}\n"
    assert "Traceback" not in result.stderr


# A full board, o to move: rotating column 1 moves its bottom x to the top, completing x's top row
# "xxx" and o's second row "ooo" at once.
DOUBLE_LINE = "oxxxooxoxoxoooxxxo"


@pytest.mark.parametrize(("priority", "winner"), [("mover", "o"), ("blue", "x")])
def test_moves_double_line_goes_to_the_side_the_priority_names(
    arena: list[str], priority: str, winner: str
) -> None:
    result = run_program([*arena, "moves", "3", "o", DOUBLE_LINE, "--json", "--win-priority", priority])
    assert result.returncode == 0, result.stderr
    by_move = {entry["move"]: entry for entry in json.loads(result.stdout)}
    assert sorted(by_move) == [-3, -2, -1]  # o has no pebble in hand
    assert by_move[-1] == {"move": -1, "board": "xxxoooxoxxxoooxoxo", "winner": winner}


def test_python_m_harness_help_runs(arena: list[str]) -> None:
    result = run_program([sys.executable, "-m", "harness", "--help"])
    assert result.returncode == 0
    assert "moves" in result.stdout


def test_match_json_prints_one_record_per_game_with_colours_alternating(arena: list[str]) -> None:
    result = run_program([*arena, "match", "random", "greedy", "--n", "5", "--time", "1", "--games", "2",
                          "--json"], timeout=600)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["x"], r["o"]) for r in records] == [("random", "greedy"), ("greedy", "random")]
    for record in records:
        assert record["result"] in ("1-0", "0-1", "1/2-1/2")
        assert record["reason"]
        assert record["plies"] == len(record["moves"]) > 0
        assert {m["verdict"] for m in record["moves"]} == {"ok"}


def test_match_against_a_hanging_program_ends_at_its_first_move_on_time(
    arena: list[str], tmp_path: Path
) -> None:
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(600)\n")
    import time as clock

    started = clock.monotonic()
    result = run_program([*arena, "match", f"python3 {hang}", "random", "--n", "5", "--time", "1", "--json"])
    elapsed = clock.monotonic() - started
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["plies"] == 1
    assert record["moves"][0]["verdict"] == "time"
    assert record["result"] == "0-1"
    # Limit 1 s + grace 0.5 s; the rest is the CLI's own start-up, with a wide margin for load.
    assert elapsed < 8


def test_match_text_shows_moves_boards_and_the_result(arena: list[str]) -> None:
    result = run_program([*arena, "match", "greedy", "greedy", "--n", "3", "--time", "1", "--max-plies", "2"])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "game 1: greedy (x) vs greedy (o), Betsy n = 3, 1 s per move"
    assert lines[1].startswith("   1. x greedy: drops into column ")
    assert len(lines[2].split()) == 3  # a drawn board row: three cells
    assert lines[-1] == "result: 1/2-1/2 (draw: 2 plies without a line)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rnd", "random"], "unknown engine 'rnd': use a built-in (alphabeta, bestmove, greedy, homework, "
                            "mcts-alphabeta, random) or a command such as 'python3 path/betsy.py' or './my_engine'"),
        (["random", "random", "--time", "0.5"],
         "invalid --time 0.5: expected a whole number of seconds (or give --allow-fractional-time)"),
        (["random", "random", "--n", "0"], "invalid --n 0: n must be a whole number >= 1"),
        (["random", "random", "--game", "connect4", "--n", "5"],
         "invalid --n 5: a Betsy option; give Connect Four's size as --size (e.g. --size 8x8)"),
        (["random", "random", "--game", "chess"], "invalid --game 'chess': use betsy, connect4 or kings-horses"),
        (["random", "random", "--games", "0"], "invalid --games 0: play at least one game"),
        (["random", "random", "--win-priority", "red"], "invalid --win-priority 'red': use mover or blue"),
    ],
)
def test_match_bad_input_is_one_line_and_exit_2(arena: list[str], args: list[str], message: str) -> None:
    result = run_program([*arena, "match", *args])
    assert result.returncode == 2
    assert result.stderr == f"arena: error: {message}\n"


def test_match_program_without_exec_bit_is_refused_before_the_game(arena: list[str], tmp_path: Path) -> None:
    program = tmp_path / "engine.py"
    program.write_text("print('hi')\n")
    program.chmod(0o644)
    result = run_program([*arena, "match", str(program), "random"])
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"arena: error: engine '{program}': {program} is not executable; run chmod +x {program}, or "
        f"prefix the command with python3 (python3 {program})\n"
    )
