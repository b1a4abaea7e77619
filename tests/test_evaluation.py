"""The evaluation's column-ring term: exact values."""

from __future__ import annotations

import pytest

from engines import mcts_alphabeta
from engines.evaluation import Weights, evaluate, longest_cyclic_run, make_evaluator, ring_value, stack_value
from harness.games.betsy.rules import Position

# n = 5, x to move. Column 4 holds five o's (rows 4-8) and has room for three more pebbles; column 5
# is full, x x o x o x o x (top to bottom): no five of one colour in a row around it.
O_RUN_IN_COLUMN_4 = "....x....x....o...ox...oo...oxxx.ooxx.ox"


@pytest.mark.parametrize(
    ("bits", "length", "expected"),
    [
        (0b0, 4, 0),
        (0b1111, 4, 4),
        (0b0110, 4, 2),
        (0b10011, 5, 3),  # bits 4, 0, 1: the top pebble adjoins the bottom one
        (0b1101, 4, 3),
        (0b10101010, 8, 1),
        (0b01111100, 8, 5),
    ],
)
def test_longest_cyclic_run(bits: int, length: int, expected: int) -> None:
    assert longest_cyclic_run(bits, length) == expected


def test_ring_value_full_column_counts_a_run_of_n_around_the_ring() -> None:
    # n = 5, a full column (8 pebbles), bit 0 the bottom pebble. x at bits 6, 7, 0, 1, 2: a run of 5
    # across the bottom-top join, to be rotated into the top 5 rows.
    assert ring_value(0b11000111, 8, 5, 256) == 256
    assert ring_value(0b00111000, 8, 5, 256) == -256  # o holds bits 6, 7, 0, 1, 2
    assert ring_value(0b11001110, 8, 5, 256) == 0  # runs of 3 and 2 for x, 2 and 1 for o


def test_ring_value_of_a_column_not_yet_full_is_divided_by_the_drops_still_needed_plus_one() -> None:
    assert ring_value(0b11111, 5, 5, 256) == 256 // 4
    assert ring_value(0b011111, 6, 5, 256) == 256 // 3
    assert ring_value(0b0000000, 7, 5, 256) == -(256 // 2)
    assert ring_value(0b1111, 4, 5, 256) == 0  # fewer pebbles than a line


def test_ring_value_counts_both_colours_when_both_have_a_run_of_n() -> None:
    # n = 3, a full column of 6: x x x o o o around the ring.
    assert ring_value(0b000111, 6, 3, 16) == 0
    assert ring_value(0b000111, 5, 3, 16) == 16 // 2  # x x x o o: only x has 3


def test_ring_term_adds_the_column_values_for_the_side_to_move() -> None:
    with_rings = make_evaluator(Weights(ring=1))
    # Column 4: five o's, three drops short of full: -(256 // 4) for x.
    as_x = Position.from_text(5, "x", O_RUN_IN_COLUMN_4)
    as_o = Position.from_text(5, "o", O_RUN_IN_COLUMN_4)
    assert with_rings(as_x) - evaluate(as_x) == -64
    assert with_rings(as_o) - evaluate(as_o) == 64
    assert make_evaluator(Weights(ring=2))(as_x) - evaluate(as_x) == -2 * 64
    assert mcts_alphabeta.WEIGHTS.as_dict() == {**Weights().as_dict(), "ring": 2.0, "stack": 1.0}


def test_ring_term_is_off_by_default() -> None:
    assert Weights().ring == 0
    position = Position.from_text(5, "x", O_RUN_IN_COLUMN_4)
    # The lines of the top 5 rows, by hand (rows top first: ....x, ....x, ....o, ...ox, ...oo). A line
    # with k pebbles of one colour and none of the other is worth 4**k to that colour (base 4); with
    # exactly one of the other's, half that (blocked 0.5); x to move, so x's view:
    #   rows:      ....x +4, ....x +4, ....o -4, ...ox +2 - 2 (each colour's one pebble, blocked), ...oo -16
    #   columns:   1, 2, 3 empty; column 4 (. . . o o) -16; column 5 (x x o x o: 3 x and 2 o) 0
    #   diagonals: (1,1)..(5,5) . . . o o -16; (1,5)..(5,1) x . . . . +4
    assert make_evaluator(Weights())(position) == evaluate(position) == (4 + 4 - 4 + 2 - 2 - 16) - 16 - 16 + 4 == -40


def test_stack_value_counts_the_best_window_of_n_around_the_ring_free_of_the_opponent() -> None:
    values = (0, 8, 32, 128, 512, 2048)  # n = 5: values[k] for k pebbles in a window
    assert stack_value(0b111, 3, 5, values) == 128 // 6  # x x x, 5 drops to go: 3 in one window
    assert stack_value(0b1111, 4, 5, values) == 512 // 5
    # x x o x (bottom first): windows avoiding the o at 2 are 3..7 (one x) and 5..7,0,1 (two x).
    assert stack_value(0b1011, 4, 5, values) == 32 // 5
    assert stack_value(0b00, 2, 5, values) == (0 - 32) // 7  # o o: red's
    assert stack_value(0b0101, 4, 5, values) == 0  # x o x o: each has one pebble in a window free of the other
    assert stack_value(0b0111, 4, 5, values) == (128 - 8) // 5  # x x x o: o's window 3..7 holds one


def test_the_stack_term_makes_a_column_being_filled_by_one_colour_count() -> None:
    # n = 5, x has dropped into column 1 three times and o into column 2 twice; o to move.
    position = Position.from_text("5", "x", "." * 40)
    for move in (1, 2, 1, 2, 1):
        position = position.after(move)
    plain = make_evaluator(Weights(ring=2))
    stacked = make_evaluator(Weights(ring=2, stack=1))
    # From o's view: x's column of three (64 // 6) counts against it, o's column of two for it.
    assert stacked(position) - plain(position) == -(64 // 6 + (0 - 16) // 7) == -7
    assert mcts_alphabeta.evaluate(position) == stacked(position)
