"""The strategy opponents (engines/opponents/): real programs with one fixed idea each."""

from __future__ import annotations

import subprocess
import sys

from harness.games.betsy.rules import Position
from tests.conftest import ROOT

OPPONENTS = ROOT / "engines" / "opponents"


def answer(program: str, n: int, player: str, board: str, *extra: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, str(OPPONENTS / program), str(n), player, board, "1", *extra],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    move, after = done.stdout.split()
    position = Position.from_text(str(n), player, board)
    assert position.is_legal(int(move)) and position.after(int(move)).board() == after
    return int(move), after


def test_the_column_stacker_drops_into_its_column_then_the_nearest() -> None:
    empty = "." * 40
    assert answer("column_stacker.py", 5, "x", empty)[0] == 1
    assert answer("column_stacker.py", 5, "x", empty, "--column", "4")[0] == 4
    # Column 1 full (8 rows of 5 columns): the nearest other column, 2.
    full_first = "".join(("x" if r % 2 else "o") + "...." for r in range(8))
    position = Position.from_text("5", "x", full_first)
    assert 1 not in position.legal_moves()
    assert answer("column_stacker.py", 5, "x", full_first)[0] == 2


def test_the_mirror_copies_the_last_move_on_the_other_side() -> None:
    # x dropped into column 1 of an empty n = 5 board: o answers in column 5.
    board = "." * 35 + "x...."
    assert answer("mirror.py", 5, "o", board)[0] == 5
    board = "." * 30 + "x...." + "x...o"  # x 1, o 5, x 1: o answers on column 5 again
    assert answer("mirror.py", 5, "o", board)[0] == 5
    board = "." * 35 + ".x..."
    assert answer("mirror.py", 5, "o", board)[0] == 4


def test_the_rotation_spammer_rotates_whenever_it_can() -> None:
    board = "." * 35 + "xo..."
    assert answer("rotation_spammer.py", 5, "x", board)[0] == -1
    assert answer("rotation_spammer.py", 5, "x", board, "--column", "2")[0] == -2
    assert answer("rotation_spammer.py", 5, "x", "." * 40)[0] > 0  # nothing to rotate: a drop
