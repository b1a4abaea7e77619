"""Connect Four through the whole tournament path: config, schedule, referee, store, report."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from harness.games.connect4.rules import Position
from harness.games.registry import PLAYERS
from tests.conftest import ARENA, run_program

CONFIG = """
name: c4
game: connect4
size: [4x4, 7x6]
time: 1
grace: 5
format: round-robin
rounds: 1
openings: {plies: 2, seed: 3}
concurrency: 2
engines:
  - {name: random, builtin: random, options: {seed: 1}}
  - {name: greedy, builtin: greedy, options: {seed: 2}}
"""


def replay(db: Path) -> list[tuple[str, str, str, str, str]]:
    """(game_id, game, size, result, how the rules end it) for every stored game, each replayed."""
    rows = []
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        games = connection.execute(
            "SELECT id, game_id, game, size, n, start_player, start_board, result, winner, termination, plies "
            "FROM games ORDER BY game_id").fetchall()
        for row_id, game_id, game, size, n, player, board, result, winner, termination, plies in games:
            assert n == 0  # Betsy's n column is 0 for other games
            position = Position.from_text(size, player, board)
            moves = connection.execute("SELECT move, board FROM moves WHERE game = ? ORDER BY ply", (row_id,)).fetchall()
            assert len(moves) == plies
            for move, after in moves:
                assert position.is_legal(move)
                position.push(move)
                assert position.board() == after, game_id
            outcome = position.outcome()
            if termination == "line":
                assert outcome is not None and (winner, result) == (PLAYERS[outcome.winner],
                                                                    {"x": "1-0", "o": "0-1"}[winner])
            else:
                assert (termination, result, outcome, position.legal_moves()) == ("full-board", "1/2-1/2", None, [])
            rows.append((game_id, game, size, result, termination))
    return rows


def test_a_connect4_round_robin_is_played_stored_replayable_and_reported_by_colour(tmp_path: Path) -> None:
    config = tmp_path / "c4.yaml"
    config.write_text(CONFIG)
    db = tmp_path / "c4.sqlite"
    done = run_program([ARENA, "tournament", str(config), "--db", str(db), "--no-progress"], timeout=300)
    assert done.returncode == 0, done.stderr
    assert "4 games played now, 0 already in" in done.stdout
    rows = replay(db)
    assert [(game_id, game, size) for game_id, game, size, _, _ in rows] == [
        ("4x4:r1:random:greedy:a", "connect4", "4x4"), ("4x4:r1:random:greedy:b", "connect4", "4x4"),
        ("7x6:r1:random:greedy:a", "connect4", "7x6"), ("7x6:r1:random:greedy:b", "connect4", "7x6"),
    ]
    report = json.loads(run_program([ARENA, "report", str(db), "--json"]).stdout)
    assert report["config"]["game"] == "connect4" and report["config"]["size"] == ["4x4", "7x6"]
    colours = report["by_colour"]["random vs greedy"]
    assert sum(colours["x"][k] + colours["o"][k] for k in ("wins", "draws", "losses")) == 4
    assert [colours[c]["wins"] + colours[c]["draws"] + colours[c]["losses"] for c in "xo"] == [2, 2]
    text = run_program([ARENA, "report", str(db)]).stdout
    assert "Tournament 'c4' (#1): 4 connect4 games, 4x4, 7x6, 1 s per move, round-robin" in text
    assert "By colour (the first engine's points / games as x, which moves first, and as o; W-D-L)" in text
    again = run_program([ARENA, "tournament", str(config), "--db", str(db), "--no-progress"], timeout=120)
    assert "0 games played now, 4 already in" in again.stdout


def test_connect4_config_problems_name_the_key(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text(CONFIG.replace("size: [4x4, 7x6]", "n: 5"))
    result = run_program([ARENA, "tournament", str(config), "--db", str(tmp_path / "x.sqlite")])
    assert (result.returncode, result.stderr) == (
        2, f"arena: error: {config}: n: a Betsy key; give Connect Four sizes as size: (e.g. size: 8x8)\n")
    config.write_text(CONFIG.replace("size: [4x4, 7x6]", "size: [4x4, 13x6]"))
    result = run_program([ARENA, "tournament", str(config), "--db", str(tmp_path / "x.sqlite")])
    assert (result.returncode, result.stderr) == (
        2, f"arena: error: {config}: size[1]: invalid board size '13x6': width and height from 4 to 12 are "
           f"supported, e.g. 8x8 or 7x6\n")
    assert not (tmp_path / "x.sqlite").exists()
