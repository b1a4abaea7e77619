"""Stored games shown and exported: `arena games`, `arena replay`, `arena export`, `arena import`."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from harness.games.betsy.rules import Position
from tests.conftest import ARENA, ROOT, run_program

CONFIG = f"""
name: log
n: [3]
time: 1
grace: 5
rounds: 1
max_plies: 12
openings: {{plies: 0}}
concurrency: 2
engines:
  - {{name: rnd, builtin: random, options: {{seed: 4}}}}
  - {{name: greedy, builtin: greedy, options: {{seed: 5}}}}
  - {{name: crash, command: {sys.executable} crash/answers_then_crashes.py}}
  - {{name: illegal, command: {sys.executable} illegal/illegal_move.py}}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("log")
    for name, program in (("crash", "answers_then_crashes.py"), ("illegal", "illegal_move.py")):
        (folder / name).mkdir()  # a folder per program: side by side, each could read the other
        shutil.copy(ROOT / "tests" / "fake_engines" / program, folder / name / program)
    (folder / "log.yaml").write_text(CONFIG)
    path = folder / "log.sqlite"
    done = run_program([ARENA, "tournament", str(folder / "log.yaml"), "--db", str(path), "--no-progress"], timeout=300)
    assert done.returncode == 0, done.stderr
    return path


def rows(db: Path, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return connection.execute(query).fetchall()


def test_games_lists_every_game_with_its_number_players_result_and_end(db: Path) -> None:
    stored = rows(db, "SELECT id, x, o, size, result, termination, plies, game_id FROM games ORDER BY id")
    listed = run_program([ARENA, "games", str(db)])
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["id", "x", "o", "size", "result", "end", "plies", "key"]
    assert [line.split() for line in lines[1:]] == [[str(v) for v in row] for row in stored]
    assert len(stored) == 12  # 6 pairings x 2 colours


def test_games_filters_by_engine_and_result(db: Path) -> None:
    by_illegal = run_program([ARENA, "games", str(db), "--engine", "illegal"]).stdout.splitlines()[1:]
    assert len(by_illegal) == 6 and all("illegal" in line.split()[1:3] for line in by_illegal)
    losses = run_program([ARENA, "games", str(db), "--engine", "illegal", "--result", "loss"]).stdout.splitlines()[1:]
    expected = rows(db, "SELECT count(*) FROM games WHERE (x = 'illegal' AND result = '0-1') "
                        "OR (o = 'illegal' AND result = '1-0')")[0][0]
    assert len(losses) == expected >= 5
    refused = run_program([ARENA, "games", str(db), "--result", "win"])
    assert (refused.returncode, refused.stderr) == (2, "arena: error: --result win needs --engine NAME (whose win or loss)\n")
    none = run_program([ARENA, "games", str(db), "--engine", "nobody"])
    assert none.stdout == "no games match\n"


def test_replay_all_shows_every_position_and_ends_on_the_stored_board(db: Path) -> None:
    game_id, key, plies, final_board, result = rows(
        db, "SELECT g.id, g.game_id, g.plies, (SELECT board FROM moves WHERE game = g.id ORDER BY ply DESC LIMIT 1), "
            "g.result FROM games g WHERE g.x = 'rnd' AND g.o = 'greedy'")[0]
    shown = run_program([ARENA, "replay", str(db), str(game_id), "--all"])
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert text.startswith(f"game {game_id} ({key}, tournament 'log'): rnd (x) vs greedy (o), Betsy n = 3, 1 s per move\n")
    assert text.count("\nply ") == plies and f"ply {plies}/{plies}: " in text
    last_block = text.split("\n\n")[-2].splitlines()
    board_rows = [line.replace(" ", "") for line in last_block[1:7]]
    assert "".join(board_rows) == final_board
    assert text.rstrip().endswith(f"result: {result} " + text.rstrip().rsplit(f"result: {result} ", 1)[1])
    by_key = run_program([ARENA, "replay", str(db), str(key), "--all"])
    assert by_key.stdout == text
    missing = run_program([ARENA, "replay", str(db), "999"])
    assert (missing.returncode, missing.stderr) == (
        2, f"arena: error: {db} has no game '999'; list them with 'arena games {db}'\n")


def test_replay_of_a_forfeit_shows_the_verdict(db: Path) -> None:
    game_id, detail = rows(db, "SELECT g.id, m.detail FROM games g JOIN moves m ON m.game = g.id "
                               "WHERE g.x = 'illegal' AND m.verdict = 'illegal-move'")[0]
    text = run_program([ARENA, "replay", str(db), str(game_id), "--all"]).stdout
    assert f"x (illegal) forfeits: illegal-move: {detail}" in text


def test_export_import_round_trip_loses_nothing(db: Path, tmp_path: Path) -> None:
    exported = run_program([ARENA, "export", str(db)])
    assert exported.returncode == 0, exported.stderr
    lines = exported.stdout.splitlines()
    assert len(lines) == 12
    first = json.loads(lines[0])
    match_keys = {"x", "o", "game", "size", "n", "time", "start_board", "start_player", "max_plies", "win_priority",
                  "moves", "result", "winner", "termination", "reason", "fault", "plies", "time_scale"}
    assert set(first) == match_keys | {"game_id", "key", "pair_key", "round", "finished_at", "tournament"}
    (tmp_path / "games.jsonl").write_text(exported.stdout)
    copy = tmp_path / "copy.sqlite"
    imported = run_program([ARENA, "import", str(copy), str(tmp_path / "games.jsonl")])
    assert imported.stdout == f"{tmp_path / 'games.jsonl'}: 12 games added to {copy}, 0 already there\n"
    again = run_program([ARENA, "export", str(copy)])
    assert again.stdout == exported.stdout
    columns = "game_id, pair_key, round, n, x, o, time, max_plies, win_priority, start_board, start_player, result, " \
              "winner, termination, reason, plies, fault_json, finished_at, game, size, time_scale"
    assert rows(copy, f"SELECT {columns} FROM games ORDER BY id") == rows(db, f"SELECT {columns} FROM games ORDER BY id")
    assert rows(copy, "SELECT * FROM moves ORDER BY game, ply") == rows(db, "SELECT * FROM moves ORDER BY game, ply")
    assert rows(copy, "SELECT name, config_json, config_hash FROM tournaments") == rows(
        db, "SELECT name, config_json, config_hash FROM tournaments")
    assert rows(copy, "SELECT name, command, program, sha256 FROM engines") == rows(
        db, "SELECT name, command, program, sha256 FROM engines")
    twice = run_program([ARENA, "import", str(copy), str(tmp_path / "games.jsonl")])
    assert twice.stdout == f"{tmp_path / 'games.jsonl'}: 0 games added to {copy}, 12 already there\n"
    report_a = run_program([ARENA, "report", str(db), "--json"]).stdout
    report_b = run_program([ARENA, "report", str(copy), "--json"]).stdout
    assert report_a == report_b


def test_import_refuses_a_tampered_game_and_writes_nothing(db: Path, tmp_path: Path) -> None:
    lines = run_program([ARENA, "export", str(db)]).stdout.splitlines()
    game = json.loads(lines[1])
    ok_move = next(m for m in game["moves"] if m["verdict"] == "ok")
    position = Position.from_text(game["size"], game["start_player"], game["start_board"])
    ok_move["board"] = position.after(position.legal_moves()[-1]).board() if ok_move["move"] != position.legal_moves()[-1] \
        else position.after(position.legal_moves()[0]).board()
    (tmp_path / "bad.jsonl").write_text(lines[0] + "\n" + json.dumps(game) + "\n")
    target = tmp_path / "t.sqlite"
    refused = run_program([ARENA, "import", str(target), str(tmp_path / "bad.jsonl")])
    assert (refused.returncode, refused.stderr) == (
        2, f"arena: error: {tmp_path / 'bad.jsonl'} line 2: ply 1: the board after move {ok_move['move']} is not the "
           f"rules' board\n")
    assert not target.exists() or rows(target, "SELECT count(*) FROM games") == [(0,)]
    (tmp_path / "junk.jsonl").write_text("{not json\n")
    junk = run_program([ARENA, "import", str(target), str(tmp_path / "junk.jsonl")])
    assert junk.stderr.startswith(f"arena: error: {tmp_path / 'junk.jsonl'} line 1: not JSON (")


def test_export_text_writes_a_game_sheet_per_game(db: Path) -> None:
    sheets = run_program([ARENA, "export", str(db), "--format", "text"]).stdout
    assert sheets.count("\nresult: ") == 12
    assert "   1. x drops into column " in sheets or "   1. x rotates column " in sheets
    refused = run_program([ARENA, "export", str(db), "--format", "pgn"])
    assert (refused.returncode, refused.stderr) == (2, "arena: error: invalid --format 'pgn': use jsonl or text\n")
