"""scripts/bench_connect4_matches.py: its openings, its games and its report."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from harness.games.connect4.rules import Position
from tests.conftest import load_script

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_connect4_matches.py"


def replay_result(width: int, height: int, moves: str, colour: int) -> float:
    """The engine's points in the game ``moves``, from the rules: every move legal, the game over
    exactly at the last move."""
    position = Position(width, height)
    for index, char in enumerate(moves):
        move = int(char)
        assert position.is_legal(move), (moves, index)
        assert position.winner() is None, (moves, index)
        position.push(move)
    winner = position.winner()
    if winner is None:
        assert position.is_full()
        return 0.5
    assert winner == (len(moves) - 1) % 2  # the last mover won
    return 1.0 if winner == colour else 0.0


def test_openings_are_every_pair_of_columns_once() -> None:
    bench = load_script("bench_connect4_matches")
    found = bench.openings(5)
    assert len(found) == 25 and len(set(found)) == 25
    assert found[:6] == [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 1)]
    assert {column for pair in found for column in pair} == {1, 2, 3, 4, 5}


def test_games_start_from_the_opening_and_score_what_the_rules_say() -> None:
    bench = load_script("bench_connect4_matches")
    for opponent in ("greedy", "homework"):
        for opening in ((3, 3), (1, 5)):
            for colour in (0, 1):
                got_colour, moves, points = bench.play(("5x4", opponent, 300, 1.0, opening, colour))
                assert got_colour == colour
                assert moves.startswith(f"{opening[0]}{opening[1]}")
                assert points == replay_result(5, 4, moves, colour)


def test_command_line_reports_the_score_per_colour_and_each_game_not_won() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--size", "5x4", "--nodes", "300", "--openings", "0:4", "--workers", "1"],
        capture_output=True, text=True, timeout=300, check=True)
    lines = done.stdout.splitlines()
    head = re.fullmatch(r"5x4 against greedy, 300 nodes: ([\d.]+)/8 \(x ([\d.]+)/4, o ([\d.]+)/4\) in \d+ s",
                        lines[0])
    assert head is not None, lines[0]
    total, x_points, o_points = (float(value) for value in head.groups())
    assert total == x_points + o_points
    lost = 0.0
    for line in lines[1:]:
        colour, moves, points = line.split()
        assert line.startswith("  ") and colour in "xo"
        assert float(points) == replay_result(5, 4, moves, "xo".index(colour)) < 1
        lost += 1 - float(points)
    assert total == 8 - lost


def test_bad_arguments_get_one_line_and_status_2() -> None:
    for args, message in (
        (["--size", "10x8"], "bench_connect4_matches: one digit per move: at most 9 columns"),
        (["--nodes", "0"], "bench_connect4_matches: node budgets must be at least 1"),
        (["--openings", "8"], "bench_connect4_matches: invalid --openings '8': use FIRST:LAST, e.g. 0:8"),
        (["--size", "8by8"], "bench_connect4_matches: invalid board size '8by8': use WxH, columns x rows, "
                             "e.g. 8x8 or 7x6"),
    ):
        done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")
