"""`arena play` driven as a person would: a real pseudo-terminal (pexpect), typed keys, the screen read back."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pexpect
import pytest

from harness.games.connect4.rules import Position
from tests.conftest import ARENA, ROOT

PROMPT = r"your move \((x|o)\): "
ENDINGS = [r"Tie game!", r"You win! \(.*\)", r"random wins\. \(.*\)"]


def spawn(args: list[str], colour: bool = False) -> pexpect.spawn:
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    env["TERM"] = "xterm-256color" if colour else "dumb"
    return pexpect.spawn(ARENA, args, cwd=str(ROOT), env=env, encoding="utf-8", timeout=60, dimensions=(24, 80))


def legal_moves(child: pexpect.spawn) -> list[int]:
    child.sendline("?")
    child.expect(r"legal moves:\r\n((?:\s+-?\d+ .*\r\n)+)")
    listed = [int(line.split()[0]) for line in child.match.group(1).splitlines() if line.strip()]
    child.expect(PROMPT)
    return listed


def test_a_full_connect4_game_against_random_refuses_bad_input_and_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "play.sqlite"
    child = spawn(["play", "--game", "connect4", "--size", "4x4", "--engine", "random", "--db", str(db)])
    child.expect(r"Connect Four 4x4: you play x \(moves first\) against random, 1 s per move\.")
    child.expect(PROMPT)
    child.sendline("9")
    child.expect_exact("'9' is illegal: column 9 does not exist: columns are 1 to 4; the legal moves are 1 2 3 4 "
                       "(a column drops a disc into it; ? explains each)")
    child.expect(PROMPT)
    child.sendline("abc")
    child.expect_exact("'abc' is not a move; the legal moves are 1 2 3 4")
    child.expect(PROMPT)
    assert legal_moves(child) == [1, 2, 3, 4]
    typed = 0
    while True:
        moves = legal_moves(child)
        child.sendline(str(moves[0]))
        typed += 1
        index = child.expect([PROMPT, *ENDINGS])
        if index:
            ending = child.after
            break
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        games = connection.execute("SELECT id, x, o, game, size, result, termination, plies FROM games").fetchall()
        assert len(games) == 1
        row_id, x, o, game, size, result, termination, plies = games[0]
        moves_stored = connection.execute("SELECT engine, move, board FROM moves WHERE game = ? ORDER BY ply",
                                          (row_id,)).fetchall()
    assert (x, o, game, size) == ("human", "random", "connect4", "4x4")
    assert [engine for engine, _, _ in moves_stored][::2] == ["human"] * ((plies + 1) // 2) and typed == (plies + 1) // 2
    position = Position.from_text("4x4", "x", "." * 16)
    for _, move, board in moves_stored:
        position.push(move)
        assert position.board() == board
    expected = {"1-0": "You win!", "0-1": "random wins.", "1/2-1/2": "Tie game!"}[result]
    assert ending.startswith(expected)
    assert termination == ("full-board" if result == "1/2-1/2" else "line")


def test_take_back_and_quit_in_betsy(tmp_path: Path) -> None:
    db = tmp_path / "play.sqlite"
    child = spawn(["play", "--n", "3", "--engine", "greedy", "--db", str(db)])
    child.expect(r"Betsy n = 3: you play x \(moves first\) against greedy")
    child.expect(PROMPT)
    child.sendline("u")
    child.expect_exact("nothing to take back yet")
    child.expect(PROMPT)
    child.sendline("-1")
    child.expect_exact("'-1' is illegal: ")
    child.expect(PROMPT)
    child.sendline("2")
    child.expect(r"greedy plays (-?\d+): (drops into|rotates) column \d \((\d+\.\d\d) s\)")
    child.expect(PROMPT)
    child.sendline("u")
    child.expect_exact("took back 2 moves")
    child.expect(r"\. \. \.\r\n" * 6 + r"1 2 3\r\n")
    child.expect(PROMPT)
    assert legal_moves(child) == [1, 2, 3]
    child.sendline("q")
    child.expect_exact("You quit; an unfinished game is not stored.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert not db.exists()


@pytest.mark.parametrize("colour", [True, False])
def test_colour_only_where_the_terminal_has_it(tmp_path: Path, colour: bool) -> None:
    child = spawn(["play", "--n", "3", "--engine", "random", "--db", str(tmp_path / "p.sqlite")], colour=colour)
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    shown = child.before
    child.sendline("q")
    child.expect(pexpect.EOF)
    assert (re.search(r"\x1b\[34;1mx\x1b\[0m", shown) is not None) == colour
    assert ("\x1b[" in shown) == colour


def test_a_program_that_misbehaves_forfeits_and_the_person_wins(tmp_path: Path) -> None:
    db = tmp_path / "play.sqlite"
    program = f"python3 {ROOT / 'tests' / 'fake_engines' / 'illegal_move.py'}"
    child = spawn(["play", "--n", "3", "--engine", program, "--human", "o", "--db", str(db)])
    child.expect_exact(f"{program} forfeits (illegal-move: move 9 is out of range: use 1..3 to drop or -1..-3 to "
                       f"rotate (position 3 x ..................)).")
    child.expect_exact(f"You win! (o wins: x ({program}) forfeits by illegal-move: ")
    child.expect(pexpect.EOF)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        assert connection.execute("SELECT x, o, result, termination FROM games").fetchall() == [
            (program, "human", "0-1", "forfeit")]


def test_replay_steps_through_a_game_with_enter_and_arrow_keys(tmp_path: Path) -> None:
    from tests.conftest import TINY, run_program

    (tmp_path / "tiny.yaml").write_text(TINY)
    db = tmp_path / "tiny.sqlite"
    assert run_program([ARENA, "tournament", str(tmp_path / "tiny.yaml"), "--db", str(db), "--no-progress"],
                       timeout=120).returncode == 0
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        plies, result = connection.execute("SELECT plies, result FROM games WHERE id = 1").fetchone()
    pages = plies + 1
    child = spawn(["replay", str(db), "1"])
    child.expect_exact("start (x to move)")
    child.expect_exact(f"[1/{pages}] Enter/-> next")
    child.send("\r")
    child.expect(rf"ply 1/{plies}: x \(a\) (drops into|rotates) column \d")
    child.expect_exact(f"[2/{pages}]")
    child.send("\x1b[C")  # right arrow
    child.expect_exact(f"[3/{pages}]")
    child.send("\x1b[D")  # left arrow
    child.expect_exact(f"[2/{pages}]")
    child.send("\x1b[F")  # End
    child.expect_exact(f"result: {result} (")
    child.expect_exact(f"[{pages}/{pages}]")
    child.send("\x1b[H")  # Home
    child.expect_exact(f"[1/{pages}]")
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
