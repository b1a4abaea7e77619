"""`arena import` and `arena merge` believe nothing a file claims: each attack on them, with the
exact one-line refusal, and that a refused file or share writes nothing.

The games are real (a tournament of two built-ins and a forfeiting program, round 1 of 2 played);
attacks edit its exported lines or its SQLite file the way a forger would.
"""

from __future__ import annotations

import copy
import json
import resource
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ARENA, ROOT, run_program
from tests.conftest import arena_here as arena
from tests.conftest import set_at

CONFIG = f"""
name: log
n: [4]
time: 1
grace: 5
rounds: 2
max_plies: 40
openings: {{plies: 2, seed: 5}}
concurrency: 2
engines:
  - {{name: rnd, builtin: random, options: {{seed: 4}}}}
  - {{name: grd, builtin: greedy, options: {{seed: 5}}}}
  - {{name: ill, command: {sys.executable} {ROOT / 'tests' / 'fake_engines' / 'illegal_move.py'}}}
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Round 1 of tournament 'log' (6 games); round 2 is yet to play."""
    folder = tmp_path_factory.mktemp("log")
    (folder / "log.yaml").write_text(CONFIG)
    db = folder / "log.sqlite"
    done = run_program([ARENA, "tournament", str(folder / "log.yaml"), "--db", str(db), "--rounds", "1",
                        "--no-progress"], timeout=300)
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture(scope="module")
def lines(played: Path) -> list[dict[str, Any]]:
    code, out, err = arena("export", played)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def count(db: Path, table: str) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return int(connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def write(path: Path, games: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(game) + "\n" for game in games))
    return path


def won_by_a_line(lines: list[dict[str, Any]]) -> dict[str, Any]:
    return copy.deepcopy(next(game for game in lines if game["termination"] == "line"))


def refusal(tmp_path: Path, games: list[dict[str, Any]], into: Path | None = None) -> str:
    """Import ``games`` (into a new database unless ``into``): the error line; nothing written."""
    target = into if into is not None else tmp_path / "new.sqlite"
    before = count(target, "games") if target.exists() else None
    code, out, err = arena("import", target, write(tmp_path / "in.jsonl", games))
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith("arena: error: "), err
    assert (count(target, "games") if target.exists() else None) == before  # a new database is not left behind
    return err.removeprefix("arena: error: ").removeprefix(f"{tmp_path / 'in.jsonl'} ").rstrip("\n")


# --- what the moves say ---------------------------------------------------------------------------


def test_a_game_without_moves_cannot_claim_a_win(tmp_path: Path, lines: list[dict[str, Any]]) -> None:
    game = won_by_a_line(lines)
    game.update(moves=[], plies=0, result="1-0", winner="x", termination="line", fault=None)
    assert refusal(tmp_path, [game]) == "line 1: no moves: a game ends only by a move or a forfeit"


def test_a_flipped_result_is_refused_with_what_the_moves_give(tmp_path: Path, lines: list[dict[str, Any]]) -> None:
    game = won_by_a_line(lines)
    true_result, reason = game["result"], game["reason"]
    game.update(result="0-1" if true_result == "1-0" else "1-0", winner="o" if game["winner"] == "x" else "x")
    assert refusal(tmp_path, [game]) == (f"line 1: the record says {game['result']} (line: {reason}), but its moves "
                                         f"give {true_result} (line: {reason})")


@pytest.mark.parametrize("result", ["banana", "2-0"])
def test_a_result_that_is_no_result_is_refused(tmp_path: Path, lines: list[dict[str, Any]], result: str) -> None:
    game = won_by_a_line(lines)
    game["result"] = result
    assert refusal(tmp_path, [game]) == f"line 1: result: expected one of 1-0, 0-1, 1/2-1/2, got {result!r}"


def test_a_forfeit_claimed_for_the_other_engine_is_refused(tmp_path: Path, lines: list[dict[str, Any]]) -> None:
    game = copy.deepcopy(next(game for game in lines if game["termination"] == "forfeit"))
    game["moves"][-1]["verdict"] = "ok"
    game["moves"][-1]["move"] = 9
    assert refusal(tmp_path, [game]) == f"line 1: ply {len(game['moves'])}: move 9 is not legal"


# --- whose game, and which ----------------------------------------------------------------------


def test_an_engine_outside_the_tournament_cannot_join_it(tmp_path: Path, played: Path, lines: list[dict[str, Any]]) -> None:
    copy_db = tmp_path / "copy.sqlite"
    copy_db.write_bytes(played.read_bytes())
    game = won_by_a_line(lines)
    renamed = game["x"]
    game["x"] = "eve"
    for move in game["moves"]:
        if move["engine"] == renamed:
            move["engine"] = "eve"
    game["reason"] = game["reason"].replace(f"({renamed})", "(eve)")
    assert refusal(tmp_path, [game], copy_db) == "line 1: x: engine 'eve' is not listed with tournament 'log'"
    game["tournament"]["engines"].append({"name": "eve", "command": "eve", "program": None, "sha256": None})
    assert refusal(tmp_path, [game], copy_db) == (
        "line 1: x: engine 'eve' is not an engine of tournament 'log' (its engines: rnd, grd, ill)")
    assert refusal(tmp_path, [game]) == (
        "line 1: tournament 'log': its engines (rnd, grd, ill, eve) are not its config's (rnd, grd, ill)")


def test_an_engine_with_another_program_is_refused(tmp_path: Path, played: Path, lines: list[dict[str, Any]]) -> None:
    copy_db = tmp_path / "copy.sqlite"
    copy_db.write_bytes(played.read_bytes())
    game = won_by_a_line(lines)
    engine = next(e for e in game["tournament"]["engines"] if e["name"] == game["x"])
    engine["sha256"] = "0" * 64
    assert refusal(tmp_path, [game], copy_db) == (
        f"line 1: x: engine {game['x']!r} of tournament 'log' is another program in {copy_db} (its SHA-256 "
        f"differs), so this is not a game of that engine")


def test_a_game_the_tournament_has_yet_to_play_cannot_be_forged(tmp_path: Path, lines: list[dict[str, Any]]) -> None:
    from harness.tournament.config import load_config
    from harness.tournament.schedule import schedule

    game = won_by_a_line(lines)
    later = game["key"].replace(":r1:", ":r2:")
    game.update(key=later, pair_key=game["pair_key"].replace(":r1:", ":r2:"), round=2)
    folder = tmp_path / "cfg"
    folder.mkdir()
    (folder / "log.yaml").write_text(CONFIG)
    scheduled = next(g for g in schedule(load_config(folder / "log.yaml")) if g.game_id == later)
    assert scheduled.start_board != game["start_board"]  # each round has its own opening
    assert refusal(tmp_path, [game]) == (
        f"line 1: start_board is {game['start_board']!r}, but game {later} has {scheduled.start_board!r}")
    game.update(key=game["key"].replace(":r2:", ":r3:"), pair_key=game["pair_key"].replace(":r2:", ":r3:"), round=3)
    assert refusal(tmp_path, [game]) == (
        f"line 1: key {game['key']!r} is not a game of the schedule of tournament 'log'")


def test_a_game_under_another_pairing_or_colours_is_refused(tmp_path: Path, lines: list[dict[str, Any]]) -> None:
    game = won_by_a_line(lines)
    swapped = game["key"][:-1] + ("b" if game["key"].endswith("a") else "a")
    game["key"] = swapped
    assert refusal(tmp_path, [game]) == f"line 1: x is {game['x']!r}, but game {swapped} has {game['o']!r}"


def test_the_same_key_with_other_content_is_refused_and_the_same_content_is_already_there(
        tmp_path: Path, played: Path, lines: list[dict[str, Any]]) -> None:
    copy_db = tmp_path / "copy.sqlite"
    copy_db.write_bytes(played.read_bytes())
    code, out, _ = arena("import", copy_db, write(tmp_path / "all.jsonl", lines))
    assert (code, out) == (0, f"{tmp_path / 'all.jsonl'}: 0 games added to {copy_db}, 6 already there\n")
    game = won_by_a_line(lines)
    game["moves"][1]["seconds"] += 0.5
    assert refusal(tmp_path, [game], copy_db) == (
        f"line 1: game {game['key']!r} of tournament 'log' is already in {copy_db} with other content "
        f"(moves[1].seconds differs); import it into another database")
    again = won_by_a_line(lines)
    again["finished_at"] = "2030-01-01T00:00:00+00:00"
    assert refusal(tmp_path, [again], copy_db).endswith("with other content (finished_at differs); import it into "
                                                        "another database")


def test_a_bad_second_line_writes_nothing_of_the_first(tmp_path: Path, lines: list[dict[str, Any]]) -> None:
    bad = copy.deepcopy(lines[1])
    bad["round"] = "1"
    target = tmp_path / "new.sqlite"
    assert refusal(tmp_path, [lines[0], bad]) == "line 2: round: expected a whole number from 1, got '1'"
    assert not target.exists()


def test_an_exported_file_goes_back_whole(tmp_path: Path, played: Path, lines: list[dict[str, Any]]) -> None:
    target = tmp_path / "new.sqlite"
    code, out, err = arena("import", target, write(tmp_path / "all.jsonl", lines))
    assert (code, out, err) == (0, f"{tmp_path / 'all.jsonl'}: 6 games added to {target}, 0 already there\n", "")
    assert arena("export", target)[1] == arena("export", played)[1]


# --- types, names, JSON -----------------------------------------------------------------------------


def at(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    """An edit of one exported game: set the value at a dotted path (``moves.0.ply``)."""
    def edit(game: dict[str, Any]) -> None:
        set_at(game, path, value)
    return edit


@pytest.mark.parametrize(("edit", "message"), [
    (at("time", "1"), "time: expected a number above 0 to 3600, got '1'"),
    (at("time", True), "time: expected a number above 0 to 3600, got true"),
    (at("max_plies", 12.0), "max_plies: expected a whole number from 1 to 10000, got 12.0"),
    (at("max_plies", False), "max_plies: expected a whole number from 1 to 10000, got false"),
    (at("max_plies", 10_001), "max_plies: expected a whole number from 1 to 10000, got 10001"),
    (at("round", 1.5), "round: expected a whole number from 1, got 1.5"),
    (at("moves", {}), "moves: expected a list, got an object"),
    (at("moves.0.ply", "1"), "moves[0].ply: expected a whole number from 1, got '1'"),
    (at("moves.0.seconds", None), "moves[0].seconds: expected a number from 0 to 36000, got null"),
    (at("moves.0.move", 1.0), "moves[0].move: expected a whole number, got 1.0"),
    (at("moves.0.verdict", "won"), "moves[0].verdict: expected one of ok, time, no-answer, output-limit, "
                                   "illegal-move, board-mismatch, failed-to-start, got 'won'"),
    (at("moves.0.warnings", [{"kind": "boom", "text": ""}]),
     "moves[0].warnings[0].kind: expected one of lines-after-answer, exit-status-after-answer, "
     "signal-after-answer, killed-at-deadline, stall-replayed, got 'boom'"),
    (at("winner", 1), "winner: expected one of x, o, null, got 1"),
    (at("x", "rnd\x1b[2J"), "x 'rnd\\x1b[2J': character 4 is \\x1b, which is not printable; use printable "
                            "characters only"),
    (at("x", ""), "x '': a name cannot be empty"),
    (at("x", 7), "x: expected a name (text), got 7"),
    (at("reason", "\ud800"), "reason: not Unicode text (a lone surrogate)"),
    (at("plies", 99), "plies: 99, but {moves} moves are recorded"),
    (at("tournament.engines", "rnd"), "tournament.engines: expected a list, got 'rnd'"),
    (at("tournament.name", "log\u202e"), "tournament.name 'log\\u202e': character 4 is \\u202e, which is not "
                                          "printable; use printable characters only"),
    (at("tournament.engines.0.sha256", "abc"), "tournament.engines[0].sha256: expected a SHA-256 (64 hex digits) or "
                                               "null, got 'abc'"),
    (at("tournament.config", []), "tournament.config: expected an object, got a list"),
    (at("extra", 1), "unknown key 'extra' (the keys are x, o, game, size, time, start_board, start_player, "
                     "max_plies, win_priority, moves, result, winner, termination, reason, fault, time_scale, plies, n, "
                     "game_id, "
                     "key, pair_key, round, finished_at, tournament)"),
])
def test_a_wrong_type_or_name_is_refused_with_its_line_and_field(
        tmp_path: Path, lines: list[dict[str, Any]], edit: Callable[[dict[str, Any]], None], message: str) -> None:
    game = copy.deepcopy(lines[1])
    edit(game)
    assert refusal(tmp_path, [lines[0], game]) == f"line 2: {message.format(moves=len(lines[1]['moves']))}"


@pytest.mark.parametrize(("text", "message"), [
    ('{"x": 1, "x": 2}', "not JSON as 'arena export' writes it (the key 'x' is given twice)"),
    ('{"time": NaN}', "not JSON as 'arena export' writes it (NaN is not a number JSON allows)"),
    ("[" * 100_000 + "]" * 100_000, "not JSON as 'arena export' writes it (nested too deeply)"),
    ("[1, 2]", "expected a JSON object (one game), got a list"),
    ('"a secret"', "expected a JSON object (one game), got text"),
    ("{not json", "not JSON (Expecting property name enclosed in double quotes); give a file written by 'arena export'"),
])
def test_a_line_that_is_not_an_exported_object_is_refused(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "in.jsonl").write_text("\n" + text + "\n")
    code, _, err = arena("import", tmp_path / "new.sqlite", tmp_path / "in.jsonl")
    assert (code, err) == (2, f"arena: error: {tmp_path / 'in.jsonl'} line 2: {message}\n")


def test_bytes_that_are_not_utf8_are_refused(tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_bytes(b'{"x": "\xff"}\n')
    code, _, err = arena("import", tmp_path / "new.sqlite", tmp_path / "in.jsonl")
    assert (code, err) == (2, f"arena: error: {tmp_path / 'in.jsonl'} line 1: not UTF-8 text; give a file written "
                              f"by 'arena export'\n")


# --- size -----------------------------------------------------------------------------------------------------


def test_dev_zero_is_refused_at_once_in_bounded_memory(tmp_path: Path) -> None:
    """Under a 512 MiB address-space limit: the import reads one capped line, not the endless file."""
    limit = 512 << 20
    started = time.monotonic()
    done = subprocess.run([ARENA, "import", str(tmp_path / "new.sqlite"), "/dev/zero"], capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "arena: error: /dev/zero line 1: longer than 16 MiB, so not a game 'arena export' writes; give a "
               "file written by 'arena export'\n")
    assert time.monotonic() - started < 60


def test_a_huge_line_and_a_huge_file_are_refused(tmp_path: Path, lines: list[dict[str, Any]]) -> None:
    game = copy.deepcopy(lines[0])
    game["reason"] = "x" * (16 << 20)
    write(tmp_path / "huge.jsonl", [lines[1], game])
    code, _, err = arena("import", tmp_path / "new.sqlite", tmp_path / "huge.jsonl")
    assert (code, err) == (2, f"arena: error: {tmp_path / 'huge.jsonl'} line 2: longer than 16 MiB, so not a game "
                              f"'arena export' writes; give a file written by 'arena export'\n")
    sparse = tmp_path / "sparse.jsonl"
    with open(sparse, "wb") as file:
        file.truncate((1 << 30) + 1)
    code, _, err = arena("import", tmp_path / "new.sqlite", sparse)
    assert (code, err) == (2, f"arena: error: {sparse}: 1073741825 bytes, over the 1 GiB that one import reads; split "
                              f"it (arena export --tournament K) or import its parts one by one\n")
    assert not (tmp_path / "new.sqlite").exists()


# --- merge -----------------------------------------------------------------------------------------------------


def share_with(played: Path, tmp_path: Path, *statements: str, name: str = "share.sqlite") -> Path:
    """A copy of the played database, edited by hand with ``statements``."""
    share = tmp_path / name
    share.write_bytes(played.read_bytes())
    with sqlite3.connect(share) as connection:
        connection.execute("PRAGMA journal_mode=DELETE")  # the edits in the file itself, no -wal beside it
        for statement in statements:
            connection.execute(statement)
    return share


def merge_refusal(tmp_path: Path, share: Path) -> str:
    target = tmp_path / "all.sqlite"
    code, out, err = arena("merge", target, share)
    assert (code, out) == (2, ""), err
    assert not target.exists() or count(target, "games") == 0
    return err.removeprefix("arena: error: ").rstrip("\n")


def test_a_share_with_a_forged_result_adds_nothing(tmp_path: Path, played: Path) -> None:
    with sqlite3.connect(played) as connection:
        game_id, key, result, termination, reason = connection.execute(
            "SELECT id, game_id, result, termination, reason FROM games WHERE termination = 'line' LIMIT 1").fetchone()
    flipped = "0-1" if result == "1-0" else "1-0"
    share = share_with(played, tmp_path, f"UPDATE games SET result = '{flipped}', winner = "
                                         f"'{'o' if flipped == '0-1' else 'x'}' WHERE id = {game_id}")
    assert merge_refusal(tmp_path, share) == (
        f"{share} game {game_id} ({key!r}): the record says {flipped} (line: {reason}), but its moves give {result} "
        f"(line: {reason})")


def test_a_share_with_an_engine_outside_the_tournament_adds_nothing(tmp_path: Path, played: Path) -> None:
    with sqlite3.connect(played) as connection:
        game_id, key, x = connection.execute("SELECT id, game_id, x FROM games ORDER BY id LIMIT 1").fetchone()
    share = share_with(played, tmp_path, f"UPDATE games SET x = 'eve' WHERE id = {game_id}",
                       f"UPDATE moves SET engine = 'eve' WHERE game = {game_id} AND engine = '{x}'")
    assert merge_refusal(tmp_path, share) == (
        f"{share} game {game_id} ({key!r}): x: engine 'eve' is not listed with tournament 'log'")


def test_a_share_with_a_wrong_type_names_the_game_and_field(tmp_path: Path, played: Path) -> None:
    share = share_with(played, tmp_path, "UPDATE moves SET seconds = 'slow' WHERE ply = 2 AND game = "
                                         "(SELECT min(id) FROM games)")
    with sqlite3.connect(played) as connection:
        game_id, key = connection.execute("SELECT id, game_id FROM games ORDER BY id LIMIT 1").fetchone()
    assert merge_refusal(tmp_path, share) == (
        f"{share} game {game_id} ({key!r}): moves[1].seconds: expected a number from 0 to 36000, got 'slow'")


def test_a_share_whose_config_hash_is_not_its_configs_adds_nothing(tmp_path: Path, played: Path) -> None:
    share = share_with(played, tmp_path, "UPDATE tournaments SET config_hash = 'forged'")
    assert merge_refusal(tmp_path, share) == f"{share}: tournament 1: config_hash: not the SHA-256 of its config"


def test_merging_the_same_share_twice_adds_it_once(tmp_path: Path, played: Path) -> None:
    target = tmp_path / "all.sqlite"
    assert arena("merge", target, played)[1] == f"{played}: 6 games of tournament 'log' added to {target} (#1), 0 already there\n"
    assert arena("merge", target, played)[1] == f"{played}: 0 games of tournament 'log' added to {target} (#1), 6 already there\n"


# --- a database damaged by hand (or by an older version): readers name the damage -------------------------

DAMAGES = {
    "outsider": ["UPDATE moves SET engine = 'eve' WHERE game = {game} AND engine = (SELECT x FROM games WHERE id = {game})",
                 "UPDATE games SET x = 'eve' WHERE id = {game}"],
    "banana": ["UPDATE games SET result = 'banana' WHERE id = {game}"],
    "round": ["UPDATE games SET round = '<b>1</b>' WHERE id = {game}"],
    "illegal": ["UPDATE moves SET move = 99 WHERE game = {game} AND ply = 1"],
    "fault": ["UPDATE games SET fault_json = '{{' WHERE id = {forfeit}"],
    "config": ["UPDATE tournaments SET config_json = '['"],
}
COMMANDS = {
    "report": ["report", "{db}"], "html": ["report", "{db}", "--html", "{pages}"],
    "tournament": ["tournament", "{config}", "--db", "{db}", "--rounds", "1", "--no-progress"],
    "games": ["games", "{db}"], "replay": ["replay", "{db}", "{game}", "--all"], "export": ["export", "{db}"],
}
OUTSIDER = "game {key!r} of tournament 'log': engine 'eve' is not one of its engines"
DAMAGE_SEEN = {
    "outsider": {"report": OUTSIDER + " (rnd, grd, ill)", "html": OUTSIDER + " (rnd, grd, ill)", "tournament": OUTSIDER},
    "banana": dict.fromkeys(COMMANDS, "game {game}: result: expected one of 1-0, 0-1, 1/2-1/2, got 'banana'"),
    "round": dict.fromkeys(COMMANDS, "game {game}: round: expected a whole number from 0, got '<b>1</b>'"),
    "illegal": dict.fromkeys(("html", "replay", "export"), "game {game}: ply 1: move 99 is not legal"),
    "fault": dict.fromkeys(("report", "html", "tournament", "export"), "game {forfeit}: fault: not JSON"),
    "config": dict.fromkeys(("report", "html", "tournament", "export"), "tournament 1: config: not JSON"),
}
"""What each command says of each damage (in one line, exit status 2); a command not listed still works."""


@pytest.mark.parametrize("damage", DAMAGES)
def test_readers_of_a_damaged_database_name_the_damage_in_one_line(tmp_path: Path, played: Path, damage: str) -> None:
    with sqlite3.connect(played) as connection:
        game, key = connection.execute(
            "SELECT id, game_id FROM games WHERE termination != 'forfeit' ORDER BY id LIMIT 1").fetchone()
        forfeit = connection.execute("SELECT id FROM games WHERE fault_json IS NOT NULL ORDER BY id LIMIT 1").fetchone()[0]
    values = {"game": game, "key": key, "forfeit": forfeit, "db": tmp_path / "d.sqlite", "pages": tmp_path / "pages",
              "config": played.parent / "log.yaml"}
    share_with(played, tmp_path, *(statement.format(**values) for statement in DAMAGES[damage]), name="d.sqlite")
    for command, args in COMMANDS.items():
        code, _, err = arena(*(arg.format(**values) for arg in args))
        expected = DAMAGE_SEEN[damage].get(command)
        if expected is None:
            assert (code, err) == (0, ""), (command, err)
        else:
            assert (code, err) == (2, f"arena: error: {values['db']} is damaged ({expected.format(**values)}); "
                                      f"restore it from a copy, or give another database\n"), command


def test_the_per_move_name_test_is_the_name_rule_of_harness_text() -> None:
    import random

    from harness.store.records import is_name
    from harness.text import name_problem

    alphabet = [chr(code) for code in range(0x3000)] + ["\u202e", "\u2066", "\ud800", "\U000e0001", "\U0001f600"]
    rng = random.Random(1)
    for _ in range(20_000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))
        assert is_name(name) == (name_problem(name) is None), repr(name)
