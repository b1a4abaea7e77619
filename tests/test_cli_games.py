"""The CLI across games: `arena moves --game`, `arena solve`, Connect Four matches."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import ARENA, run_program

PONS = Path(__file__).resolve().parent / "data" / "pons"


def test_solve_prints_pons_scores_for_his_end_easy_lines() -> None:
    lines = (PONS / "Test_L3_R1").read_text().splitlines()
    assert len(lines) == 50
    result = run_program([ARENA, "solve"], input="\n".join(line.split()[0] for line in lines) + "\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == lines


def test_solve_scores_positions_of_our_own() -> None:
    # After 445566 x holds 4, 5, 6 of the bottom row and is to move: column 3 or 7 wins with its
    # 4th disc, so the score is 7 * 6 / 2 + 1 - 4 = 18.
    result = run_program([ARENA, "solve", "--size", "7x6"], input="445566\n")
    assert (result.returncode, result.stdout) == (0, "445566 18\n")


@pytest.mark.parametrize(("args", "stdin", "message"), [
    (["solve"], "12a\n", "line 1: character 3 of the position is not a column digit (moves are column digits 1..7)"),
    (["solve"], "root:$6$secret::\n",
     "line 1: character 1 of the position is not a column digit (moves are column digits 1..7)"),
    (["solve"], "4" * 5000 + "\n", "standard input line 1: longer than 4,096 characters; give one position per line"),
    (["solve"], "44444444\n", "line 1: column 4 (move 7 of '44444444') is full: it holds 6 discs"),
    (["solve", "--size", "10x6"], "", "invalid --size '10x6': Pons's notation has one digit per move, so widths up to 9"),
    (["solve", "--size", "3x3"], "",
     "invalid --size '3x3': width and height from 4 to 12 are supported, e.g. 8x8 or 7x6"),
    (["solve", "--game", "betsy"], "", "invalid --game 'betsy': 'betsy' is not one of 'connect4'; usage: arena solve "
                                       "[OPTIONS] [FILE] (see arena solve --help)"),
    (["solve", "/nonexistent/positions.txt"], "",
     "no positions file at /nonexistent/positions.txt; check the path, or pipe positions in"),
])
def test_solve_refuses_bad_input_in_one_line(args: list[str], stdin: str, message: str) -> None:
    result = run_program([ARENA, *args], input=stdin)
    assert (result.returncode, result.stderr) == (2, f"arena: error: {message}\n")


def test_the_strongest_engine_answers_a_connect4_argv_too() -> None:
    from harness.games.connect4 import Position

    board = "." * 42
    result = run_program([sys.executable, "scripts/betsy.py", "7x6", "x", board, "1"])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Shhh... I'm thinking! (mcts-alphabeta, 1 s, 7x6)"
    move, after = lines[-1].split()
    assert Position.from_text("7x6", "x", board).after(int(move)).board() == after


def test_moves_lists_connect4_drops_with_the_same_json_shape_as_betsy() -> None:
    board = "." * 38 + "x..."
    text = run_program([ARENA, "moves", "--game", "connect4", "7x6", "o", board])
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[:3] == [
        "7x6, o to move, 7 legal moves",
        "1  drop   1  ...................................o..x...  game goes on",
        "2  drop   2  ....................................o.x...  game goes on",
    ]
    listed = run_program([ARENA, "moves", "--game", "connect4", "7x6", "o", board, "--json"])
    import json

    rows = json.loads(listed.stdout)
    assert [row["move"] for row in rows] == [1, 2, 3, 4, 5, 6, 7]
    assert rows[3] == {"move": 4, "board": "." * 31 + "o" + "." * 6 + "x...", "winner": None}
    # x to move with three in the bottom row: column 4 wins, the others do not.
    three = "." * 35 + "ooo" + ".xxx"
    wins = json.loads(run_program([ARENA, "moves", "--game", "connect4", "7x6", "x", three, "--json"]).stdout)
    assert [row["move"] for row in wins if row["winner"] == "x"] == [4]


@pytest.mark.parametrize(("args", "message"), [
    (["7x6", "x", "." * 41 + "o"],
     "too many o discs: 1 o and 0 x on the board, but x moves first, so o never has more discs than x"),
    (["7x6", "x", "." * 41 + "x"],
     "invalid player 'x' for this board: x has one disc more than o (1 to 0), so it is o's turn"),
    (["4x4", "x", "xoxoxoxooxoxoxo."],
     "floating disc in column 4, row 3 from the top: the cell below it is empty, but discs fall to the bottom of "
     "their column"),
    (["3x3", "x", "." * 9], "invalid board size '3x3': width and height from 4 to 12 are supported, e.g. 8x8 or 7x6"),
    (["7x6", "x", "." * 42, "--win-priority", "blue"], "invalid --win-priority 'blue': a Betsy rule, connect4 has no such option"),
])
def test_moves_refuses_bad_connect4_positions_in_one_line(args: list[str], message: str) -> None:
    result = run_program([ARENA, "moves", "--game", "connect4", *args])
    assert (result.returncode, result.stderr) == (2, f"arena: error: {message}\n")


def test_match_plays_connect4_and_the_json_record_replays_on_the_rules() -> None:
    import json

    from harness.games.connect4 import Position

    result = run_program([ARENA, "match", "greedy", "random", "--game", "connect4", "--size", "5x4", "--json",
                          "--games", "2"], timeout=120)
    assert result.returncode == 0, result.stderr
    for line in result.stdout.splitlines():
        record = json.loads(line)
        assert (record["game"], record["size"]) == ("connect4", "5x4") and "n" not in record
        position = Position.from_text("5x4", record["start_player"], record["start_board"])
        for move in record["moves"]:
            position.push(move["move"])
            assert position.board() == move["board"] and move["verdict"] == "ok"
        if record["termination"] == "line":
            assert record["winner"] == "xo"[position.winner()]
        else:
            assert (record["termination"], position.legal_moves()) == ("full-board", [])
            assert record["reason"] == "draw: the board is full"


def _starts(stdout: str) -> list[tuple[str, str, str]]:
    import json

    return [(d["start_player"], d["start_board"], d["x"]) for d in map(json.loads, stdout.splitlines())]


def test_match_start_plays_every_game_from_the_position_colours_alternating() -> None:
    board = "...x..o.ox.oxxxoxo"
    result = run_program([ARENA, "match", "random", "greedy", "--start", "3", "o", board, "--games", "2", "--json"])
    assert result.returncode == 0, result.stderr
    assert _starts(result.stdout) == [("o", board, "random"), ("o", board, "greedy")]


def test_match_openings_and_seed_give_each_opening_to_a_colour_swapped_pair(tmp_path: Path) -> None:
    from harness.schedule import random_opening

    openings = tmp_path / "openings.txt"
    openings.write_text("4x4 x " + "." * 16 + "  # the empty board\n4x4 o " + "." * 13 + "x" + "." * 2 + "\n")
    result = run_program([ARENA, "match", "random", "greedy", "--game", "connect4", "--openings", str(openings),
                          "--games", "6", "--json"], timeout=120)
    assert result.returncode == 0, result.stderr
    empty, one = ("x", "." * 16), ("o", "." * 13 + "x" + "." * 2)
    assert _starts(result.stdout) == [(*empty, "random"), (*empty, "greedy"), (*one, "random"), (*one, "greedy"),
                                      (*empty, "random"), (*empty, "greedy")]
    seeded = run_program([ARENA, "match", "random", "greedy", "--n", "4", "--seed", "7", "--games", "4", "--json"])
    expected = [random_opening("4", 2, 7, k) for k in (0, 0, 1, 1)]
    assert _starts(seeded.stdout) == [(o.player, o.board, name) for o, name in zip(expected, ["random", "greedy"] * 2)]


@pytest.mark.parametrize(("args", "message"), [
    (["--start", "3", "x", "...", "--seed", "2"], "give at most one of --start, --seed: each chooses the start positions"),
    (["--start", "3", "x", "xxx" + "." * 15],
     "floating pebble in column 1, row 1 from the top: the cell below it is empty, but pebbles fall to the bottom "
     "of their column"),
    (["--game", "connect4", "--start", "4x4", "o", "." * 8 + "ooo.xxxx"],
     "invalid --start: the game is already over in this position"),
])
def test_match_start_problems_are_one_line(args: list[str], message: str) -> None:
    result = run_program([ARENA, "match", "random", "greedy", *args])
    assert (result.returncode, result.stderr) == (2, f"arena: error: {message}\n")
