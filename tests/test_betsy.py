"""``betsy`` and ``scripts/betsy.py``: the strongest engine under the assignment's exact command line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engines import strongest
from harness.engines import BUILTINS
from harness.games.betsy import Position
from harness.protocol import Verdict, check_answer, parse_answer_line
from tests.conftest import ROOT, SEED_BOARD, run_program

SCRIPT = ROOT / "scripts" / "betsy.py"
CONSOLE_SCRIPT = Path(sys.executable).parent / "betsy"
"""Installed into the environment by ``pip install -e .`` (the README's set-up does it)."""

COMMANDS = {
    "python3 scripts/betsy.py": [sys.executable, str(SCRIPT)],
    "./scripts/betsy.py": [str(SCRIPT)],
    "betsy": [str(CONSOLE_SCRIPT)],
}


def test_betsy_runs_the_engine_it_names() -> None:
    assert strongest.ENGINE in BUILTINS
    assert strongest.strongest.__name__ == "engines." + strongest.ENGINE.replace("-", "_")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_betsy_answers_the_seed_example_with_a_legal_move_and_its_board(command: str) -> None:
    # 5 s, not 1: the engine's budget counts from its own start, and on a loaded machine starting up
    # can take most of a second; it answers once the win is proven, long before.
    result = run_program([*COMMANDS[command], "3", "o", SEED_BOARD, "5"])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"Shhh... I'm thinking! ({strongest.ENGINE}, 5 s, n = 3)"
    answer = parse_answer_line(lines[-1])
    assert answer is not None, lines
    position = Position.from_text("3", "o", SEED_BOARD)
    move, board = answer
    assert check_answer(position, move, board) == (Verdict.OK, "")
    assert (move, board) == (2, "...x..o.oxooxxxoxo")  # the figure's winning drop


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_betsy_rejects_a_bad_player_in_one_line_with_status_2(command: str) -> None:
    result = run_program([*COMMANDS[command], "3", "z", SEED_BOARD, "1"])
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == "betsy: error: invalid player 'z': use x (blue) or o (red)\n"
