"""Engines and games agree before a game starts: each built-in plays the games its table says, and
every command that starts games refuses a built-in of another game in one line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pexpect
import pytest

from harness.engines import BUILTIN_GAMES, BUILTIN_OPTIONS, builtin_engine, engines_playing
from harness.games.registry import GAMES
from tests.conftest import ARENA, ROOT, SEED_BOARD, arena_here

POSITIONS = {
    "betsy": ["3", "o", SEED_BOARD, "1"],
    "connect4": ["7x6", "x", "." * 42, "1"],
    "kings-horses": ["--move", "BLACK", "2", "2", "3", "3", "1", "2", "3", "1"],
}
"""A position of each game on the engines' command line."""

BETSY_REFUSAL = ("homework does not play Betsy, only Connect Four; the built-in engines that play Betsy are "
                 "alphabeta, greedy, mcts-alphabeta, random (or give a command)")


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("builtin", sorted(BUILTIN_GAMES))
def test_each_builtin_answers_the_games_its_table_lists_and_refuses_the_others(builtin: str, game: str) -> None:
    quick = {name: 1 for name in ("depth", "playouts") if name in BUILTIN_OPTIONS[builtin]}
    spec = builtin_engine(builtin, quick)
    done = subprocess.run([*spec.command, *POSITIONS[game], *spec.extra_args], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    if game in BUILTIN_GAMES[builtin]:
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip(), "no answer"
    else:
        assert (done.returncode, done.stdout) == (2, ""), done.stderr


def test_the_table_names_every_builtin_and_only_known_games() -> None:
    assert set(BUILTIN_GAMES) == set(BUILTIN_OPTIONS)
    assert {game for games in BUILTIN_GAMES.values() for game in games} == set(GAMES)
    assert engines_playing("kings-horses") == ["bestmove", "greedy", "random"]


def test_match_refuses_an_engine_of_another_game_before_any_game() -> None:
    assert arena_here("match", "homework", "random", "--games", "4") == (2, "", f"arena: error: {BETSY_REFUSAL}\n")
    assert arena_here("match", "random", "bestmove", "--game", "connect4") == (2, "", (
        "arena: error: bestmove does not play Connect Four, only All The King's Horses; the built-in engines that "
        "play Connect Four are alphabeta, greedy, homework, mcts-alphabeta, random (or give a command)\n"))
    assert arena_here("match", "alphabeta", "greedy", "--game", "kings-horses") == (2, "", (
        "arena: error: alphabeta does not play All The King's Horses, only Betsy and Connect Four; the built-in "
        "engines that play All The King's Horses are bestmove, greedy, random (or give a command)\n"))


def test_sprt_refuses_an_engine_of_another_game_before_its_database(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    assert arena_here("sprt", "homework", "random", "--elo0", "0", "--elo1", "10", "--db", db) == (
        2, "", f"arena: error: {BETSY_REFUSAL}\n")
    assert list(tmp_path.iterdir()) == []


def test_a_config_with_a_builtin_of_another_game_names_the_file_and_key(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("name: c\nengines:\n  - {name: a, builtin: random}\n  - {name: hw, builtin: homework}\n")
    assert arena_here("tournament", config, "--db", tmp_path / "c.sqlite") == (2, "", (
        f"arena: error: {config}: engines[1].builtin: 'hw' (built-in homework) does not play Betsy, only Connect "
        "Four; the built-in engines that play Betsy are alphabeta, greedy, mcts-alphabeta, random (or give a "
        "command)\n"))
    assert list(tmp_path.iterdir()) == [config]


def test_validate_plays_only_reference_engines_of_the_game() -> None:
    from harness.validate import REFERENCE_ELO

    for game, references in REFERENCE_ELO.items():
        assert set(references) <= set(engines_playing(game)), game
    assert "betsy" in BUILTIN_GAMES["alphabeta"]  # the judge of Betsy games stopped at the ply cap


def spawn_play(args: list[str], cwd: Path) -> pexpect.spawn:
    return pexpect.spawn(ARENA, ["play", *args], cwd=str(cwd), encoding="utf-8", timeout=60, dimensions=(24, 80),
                         env={"PATH": "/usr/bin:/bin", "TERM": "dumb", "HOME": str(cwd)})


@pytest.mark.parametrize(("game", "opening"), [
    ("betsy", "Betsy n = 5: you play x (moves first) against mcts-alphabeta, 1 s per move."),
    ("connect4", "Connect Four 8x8: you play x (moves first) against mcts-alphabeta, 1 s per move."),
    ("kings-horses", "All The King's Horses coordinates 1..8: you play x (moves first) against bestmove, 1 s per move."),
])
def test_play_meets_the_strongest_engine_of_its_game_by_default(game: str, opening: str, tmp_path: Path) -> None:
    child = spawn_play(["--game", game, "--db", str(tmp_path / "p.sqlite")], tmp_path)
    child.expect_exact(opening)
    child.expect(r"your move \(x\): ")
    child.sendline("q")
    child.expect_exact("You quit; an unfinished game is not stored.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_play_refuses_an_opponent_of_another_game_before_the_board(tmp_path: Path) -> None:
    child = spawn_play(["--engine", "homework", "--db", str(tmp_path / "p.sqlite")], tmp_path)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert child.before.strip() == f"arena: error: {BETSY_REFUSAL}"
    assert list(tmp_path.iterdir()) == []


def test_readme_engine_table_lists_the_games_of_the_table() -> None:
    rows = [line.split(" | ") for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| `") and line.count(" | ") == 3]
    listed = {row[0].strip("| `"): row[2].split(", ") for row in rows if row[0].strip("| `") in BUILTIN_GAMES}
    assert listed == {name: [GAMES[game].title for game in games] for name, games in BUILTIN_GAMES.items()}
