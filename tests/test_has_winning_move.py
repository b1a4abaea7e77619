"""Position.has_winning_move against trying every move, over many random positions."""

from __future__ import annotations

import pytest

from engines.protocol import Rng
from harness.games.betsy.rules import Position, initial_position


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("priority", ["mover", "blue"])
def test_has_winning_move_agrees_with_trying_every_move(n: int, priority: str) -> None:
    with_win = 0
    for seed in range(60):
        rng = Rng(seed * 31 + n)
        position = initial_position(n, priority)  # type: ignore[arg-type]
        for _ in range(120):
            if position.winner() is not None:
                break
            expected = any(position.after(m).winner() == position.turn for m in position.legal_moves())
            assert position.has_winning_move() == expected, (position, priority)
            with_win += expected
            position.push(rng.choice(position.legal_moves()))
    assert with_win > 0


def test_rotation_of_a_full_column_completing_its_line_is_a_winning_move() -> None:
    # n = 3, column 1 full, bottom-up x o o o x x: its top three cells are o x x. Rotating moves the
    # bottom x to the top and the rest down one: top three x x x, x's column line.
    position = Position.from_text("3", "x", "x.." "x.." "o.." "o.." "o.." "x..")
    assert position.winner() is None
    assert position.after(-1).board() == "x.." "x.." "x.." "o.." "o.." "o.."
    assert position.after(-1).winner() == 0
    assert position.has_winning_move()
    assert Position.from_text("3", "o", "x.." "x.." "o.." "o.." "o.." "x..").has_winning_move() is False


def test_opponent_has_winning_move_is_the_threat_of_the_side_not_to_move() -> None:
    # x threatens to complete its row by dropping into column 3.
    position = Position.from_text("3", "o", "......xx.oxoxooxox")
    assert position.opponent_has_winning_move()
    assert not position.has_winning_move()
    assert position.turn == 1  # unchanged
    assert Position.from_text("3", "x", "......xx.oxoxooxox").opponent_has_winning_move() is False
