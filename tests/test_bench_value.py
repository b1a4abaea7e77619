"""scripts/bench_value.py: the start positions it proves, the engine's first move that lost value, and a
small run under the real referee reported per colour."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

from engines.connect4_solver import Solver, State
from harness.games.connect4.rules import Position
from tests.conftest import load_script

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_value.py"


def python_value(position: Position) -> int:
    """The value for the side to move by the pure-Python solver (the native one is under test)."""
    if position.has_winning_move():
        return 1
    own, other = position.masks[position.turn], position.masks[position.turn ^ 1]
    score = Solver(position.width, position.height, native=False).solve(
        State(position.width, position.height, own, own | other, position.plies))
    return (score > 0) - (score < 0)


def test_the_first_move_that_lost_value_is_the_engines_and_names_the_move_that_kept_it() -> None:
    bench = load_script("bench_value")
    position = Position(7, 6)
    for move in (1, 7, 2, 7, 3, 7):  # x holds 1-3 on the bottom row (4 wins), o holds three in column 7
        position.push(move)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE moves (game INTEGER, ply INTEGER, player TEXT, move INTEGER)")
    conn.executemany("INSERT INTO moves VALUES (1, ?, ?, ?)", [(1, "x", 5), (2, "o", 7)])
    row = {"id": 1, "start_player": "x", "start_board": position.board()}
    # x (the engine) plays 5 instead of winning with 4; o then wins in column 7.
    assert bench.first_lost_value(conn, row, "x", 7, 6) == "ply 1 (x plays 5): won -> lost; kept by 4"
    # o made no move that lost value (it was lost and it won).
    assert bench.first_lost_value(conn, row, "o", 7, 6) == (
        "no move of the engine lost value (the referee ended the game: see its reason)")


def test_start_positions_are_distinct_unfinished_and_their_values_are_the_solvers() -> None:
    bench = load_script("bench_value")
    # Deeper than the script's default 8-12 plies, so the Python solver checks them in seconds.
    found, replaced, _seconds = bench.start_positions(7, 6, 5, (14, 16), 3, 60.0)
    assert len(found) == 5 and replaced == 0
    assert len({position.board() for position, _ in found}) == 5
    for position, value in found:
        assert 14 <= position.plies <= 16
        assert not position.is_game_over() and not position.has_winning_move()
        assert value == python_value(position)


def test_a_small_run_plays_every_start_position_with_both_colours_and_reports_per_colour(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--positions", "2", "--opponents", "greedy", "--seed", "5", "--plies", "14-16",
                           "--concurrency", "2", "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "7x6" / "openings.txt").read_text().splitlines()
    assert len(lines) == 2
    values = {}
    for line in lines:
        size, player, board, _, word, _, colour = line.split()
        assert size == "7x6" and colour == player
        value = python_value(Position.from_text("7x6", player, board))
        assert word == {1: "won", 0: "drawn", -1: "lost"}[value]
        values[(player, board)] = value
    rows = {match[0]: match for match in re.findall(
        r"^greedy\s+([xo])\s+(\d+)\s+(\d+)/(\d+)\s+(\d+)/(\d+)\s+(\d+)\s+(\d+)/(\d+)/(\d+)\s+(\d+)$", done.stdout, re.M)}
    assert set(rows) == {"x", "o"}
    conn = sqlite3.connect(tmp_path / "7x6" / "value.sqlite")
    games = conn.execute("SELECT x, o, start_player, start_board, winner FROM games").fetchall()
    assert len(games) == 4
    for colour in ("x", "o"):
        mine = [game for game in games if game[0 if colour == "x" else 1] == "engine"]
        assert len(mine) == 2  # each start position once with the engine on this side
        had = [values[(player, board)] * (1 if player == colour else -1) for _, _, player, board, _ in mine]
        result = [0 if winner is None else (1 if winner == colour else -1) for *_, winner in mine]
        _, count, won_kept, won, drawn_kept, drawn, lost, wins, draws, losses, dropped = rows[colour]
        assert int(count) == 2
        assert (int(won), int(drawn), int(lost)) == (had.count(1), had.count(0), had.count(-1))
        assert (int(wins), int(draws), int(losses)) == (result.count(1), result.count(0), result.count(-1))
        assert int(won_kept) == sum(1 for h, r in zip(had, result) if h == 1 and r == 1)
        assert int(drawn_kept) == sum(1 for h, r in zip(had, result) if h == 0 and r >= 0)
        assert int(dropped) == sum(1 for h, r in zip(had, result) if r < h)
