"""MCTS (generic, with solver) and the MCTS-assisted alpha-beta engine."""

from __future__ import annotations

import sys
import time

from engines import mcts_alphabeta
from engines.evaluation import evaluate
from engines.protocol import Rng
from engines.search.mcts import LOST, MCTS, UNKNOWN, WON
from harness.games.betsy import Position
from harness.protocol import Verdict, check_answer, find_answer
from tests.conftest import ROOT, SEED_BOARD, run_program
from tests.test_alphabeta import X_THREATENS_ROW, forced_win_moves, positions_with_forced_win_in_three

ENGINE = [sys.executable, str(ROOT / "engines" / "mcts_alphabeta.py")]


def test_mcts_proves_a_win_in_one() -> None:
    position = Position.from_text("3", "x", X_THREATENS_ROW)
    mcts = MCTS(evaluate, Rng(1))
    root = mcts.run(position, max_playouts=2000)
    assert root.proof == WON
    stats = mcts.root_statistics(position)
    assert stats[3][2] == WON
    assert [move for move, (_, _, proof) in stats.items() if proof == WON] == [3]


def test_mcts_proves_a_loss_when_every_move_loses() -> None:
    # o to move against x's row threat: every o move loses (checked exhaustively below), the
    # "blocking" rotation -2 only to a win in 7.
    position = Position.from_text("3", "o", X_THREATENS_ROW)
    for move in position.legal_moves():
        assert forced_win_moves(position.after(move), 7), move
    mcts = MCTS(evaluate, Rng(2))
    assert mcts.run(position, max_playouts=50_000).proof == LOST
    assert {proof for _, _, proof in mcts.root_statistics(position).values()} == {LOST}


def test_mcts_solver_proves_forced_wins_in_three() -> None:
    for position, winning in positions_with_forced_win_in_three(3, 4):
        mcts = MCTS(evaluate, Rng(3))
        root = mcts.run(position, max_playouts=20000)
        assert root.proof == WON, position
        proven = {m for m, (_, _, proof) in mcts.root_statistics(position).items() if proof == WON}
        assert proven and proven <= winning


def test_mcts_is_reproducible_with_a_seed() -> None:
    position = Position(4)
    first = MCTS(evaluate, Rng(9))
    root = first.run(position, max_playouts=300)
    second = MCTS(evaluate, Rng(9))
    second.run(position, max_playouts=300)
    assert first.root_statistics(position) == second.root_statistics(position)
    assert root.visits == 300  # each playout passes the root once
    assert first.playouts == 300
    third = MCTS(evaluate, Rng(10))
    third.run(position, max_playouts=300)
    assert third.root_statistics(position) != first.root_statistics(position)


def test_mcts_needs_a_limit() -> None:
    import pytest

    with pytest.raises(ValueError, match="give a deadline or max_playouts"):
        MCTS(evaluate, Rng(1)).run(Position(3))


def test_hybrid_takes_a_win_in_one_and_blocks_a_loss_in_one() -> None:
    win = Position.from_text("3", "x", X_THREATENS_ROW)
    assert mcts_alphabeta.choose_move(win, time.monotonic() + 1, Rng(1))[0] == 3
    block = Position.from_text("3", "o", X_THREATENS_ROW)
    assert mcts_alphabeta.choose_move(block, time.monotonic() + 1, Rng(1))[0] == -2


def test_hybrid_finds_forced_wins_in_three() -> None:
    for position, winning in positions_with_forced_win_in_three(4, 4):
        move, _, _ = mcts_alphabeta.choose_move(position, time.monotonic() + 1, Rng(4))
        assert move in winning, position


def test_hybrid_engine_answers_the_seed_example_deterministically_with_a_seed() -> None:
    answers = []
    for _ in range(2):
        result = run_program([*ENGINE, "5", "x", "." * 40, "5", "--seed", "7", "--depth", "3",
                              "--playouts", "200"])
        assert result.returncode == 0, result.stderr
        answers.append(result.stdout.splitlines()[-1])
    assert answers[0] == answers[1]
    result = run_program([*ENGINE, "3", "o", SEED_BOARD, "1"])
    answer = find_answer(result.stdout.splitlines())
    assert answer is not None
    position = Position.from_text("3", "o", SEED_BOARD)
    assert check_answer(position, answer.move, answer.board) == (Verdict.OK, "")
    assert answer.move == 2  # the figure's winning move: MCTS proves it


def test_unknown_statistics_for_an_unvisited_position() -> None:
    assert MCTS(evaluate, Rng(1)).root_statistics(Position(3)) == {}
    assert UNKNOWN == 0
