"""The engines as real programs: the protocol, argument errors, seeding and greedy's tactics."""

from __future__ import annotations

import pytest

from engines import greedy, random_mover
from engines.evaluation import line_balance, line_potential
from engines.protocol import Rng, UsageError, parse_request
from harness.games.betsy.rules import BLUE, RED, Position
from harness.referee.protocol import check_answer, find_answer, Verdict
from tests.conftest import ROOT, SEED_BOARD, TYPO_BOARD, run_program

ENGINES = ["random_mover", "greedy"]

# x to move: dropping into column 3 completes the row "xxx" (the only winning move).
X_THREATENS_ROW = "......xx.oxoxooxox"


def engine_argv(python: str, name: str, form: str) -> list[str]:
    if form == "module":
        return [python, "-m", f"engines.{name}"]
    return [python, str(ROOT / "engines" / f"{name}.py")]


@pytest.mark.parametrize("form", ["module", "file"])
@pytest.mark.parametrize("name", ENGINES)
def test_engine_answers_the_seed_example_with_a_legal_move_and_its_board(
    python: str, name: str, form: str
) -> None:
    result = run_program([*engine_argv(python, name, form), "3", "o", SEED_BOARD, "5"])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    answer = find_answer(lines)
    assert answer is not None and answer.line_number == len(lines)
    position = Position.from_text("3", "o", SEED_BOARD)
    assert check_answer(position, answer.move, answer.board) == (Verdict.OK, "")


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["3", "o", TYPO_BOARD, "5"],
         "floating pebble in column 2, row 5 from the top: the cell below it is empty, but pebbles "
         "fall to the bottom of their column"),
        (["0", "x", "", "5"], "invalid board size '0': n must be a whole number >= 1"),
        (["three", "x", SEED_BOARD, "5"], "invalid board size 'three': n must be a whole number >= 1"),
        (["3", "blue", SEED_BOARD, "5"], "invalid player 'blue': use x (blue) or o (red)"),
        (["3", "x", SEED_BOARD, "soon"], "invalid time limit 'soon': give a positive number of seconds"),
        (["3", "x", SEED_BOARD, "0"], "invalid time limit '0': give a positive number of seconds"),
        (["3", "x", SEED_BOARD], f"expected 4 arguments N PLAYER BOARD SECONDS, got 3: 3 x {SEED_BOARD}"),
        (["3", "x", SEED_BOARD, "5", "--seed", "abc"], "invalid value 'abc' for --seed: expected a whole number"),
        (["3", "x", SEED_BOARD, "5", "--depth", "3"], "unknown option --depth: the options are --seed"),
    ],
)
def test_engine_rejects_bad_arguments_with_one_line_and_exit_2(
    python: str, name: str, args: list[str], message: str
) -> None:
    result = run_program([*engine_argv(python, name, "file"), *args])
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"{name}: error: {message}\n"


@pytest.mark.parametrize("name", ENGINES)
def test_engine_accepts_fractional_seconds_and_seed_with_equals(python: str, name: str) -> None:
    result = run_program([*engine_argv(python, name, "file"), "5", "x", "." * 40, "0.5", "--seed=3"])
    assert result.returncode == 0, result.stderr


def test_random_mover_is_reproducible_with_a_seed_and_varies_across_seeds() -> None:
    position = Position(5)
    by_seed = {seed: random_mover.choose_move(position, Rng(seed)) for seed in range(40)}
    assert by_seed == {seed: random_mover.choose_move(position, Rng(seed)) for seed in range(40)}
    assert set(by_seed.values()) == {1, 2, 3, 4, 5}


def test_rng_matches_the_splitmix64_reference_sequence() -> None:
    import harness.rng

    assert Rng is harness.rng.Rng  # one generator for harness and engines
    rng = Rng(0)
    assert [rng.next64() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F,
    ]


def test_rng_randrange_stays_in_range_and_covers_it() -> None:
    rng = Rng(7)
    values = [rng.randrange(3) for _ in range(300)]
    assert set(values) == {0, 1, 2}
    assert 0.0 <= Rng(1).random() < 1.0
    with pytest.raises(ValueError):
        rng.randrange(0)


def test_greedy_takes_a_win_in_one() -> None:
    position = Position.from_text("3", "x", X_THREATENS_ROW)
    assert {greedy.choose_move(position, Rng(seed)) for seed in range(10)} == {3}


def test_greedy_blocks_an_immediate_loss() -> None:
    position = Position.from_text("3", "o", X_THREATENS_ROW)
    # Rotating column 2 puts an o into the row. Dropping into column 3 does not save o: x then
    # rotates column 3, whose bottom x lands in the row.
    safe = set()
    for move in position.legal_moves():
        child = position.after(move)
        if not any(child.after(reply).winner() == BLUE for reply in child.legal_moves()):
            safe.add(move)
    assert safe == {-2}
    assert {greedy.choose_move(position, Rng(seed)) for seed in range(10)} <= safe


def test_greedy_does_not_hand_the_opponent_a_line() -> None:
    # x to move: rotating column 1 completes o's top row (o wins at once); greedy must avoid it.
    position = Position.from_text("3", "x", "x..o..xoooooxxxxxo")
    assert position.after(-1).winner() == RED
    for seed in range(10):
        assert greedy.choose_move(position, Rng(seed)) != -1


def test_line_potential_counts_squares_of_pebbles_on_open_lines() -> None:
    # n = 3: the top three rows hold only "xx." in row 3.
    position = Position.from_text("3", "o", "......xx.oxoxoooxx")
    # x: row 3 (2 pebbles) -> 4, column 1 (1) -> 1, column 2 (1) -> 1, the anti-diagonal through
    # row 3 column 1 -> 1; empty lines count 0. Every line through an x is closed to o.
    assert line_potential(position, BLUE) == 4 + 1 + 1 + 1
    assert line_potential(position, RED) == 0
    assert line_balance(position, BLUE) == 7
    assert line_balance(position, RED) == -7


def test_parse_request_reads_position_time_and_options() -> None:
    request = parse_request(["--seed", "9", "3", "o", SEED_BOARD, "1.5"])
    assert request.position.board() == SEED_BOARD
    assert request.position.player == "o"
    assert request.seconds == 1.5
    assert request.seed == 9
    assert parse_request(["3", "o", SEED_BOARD, "2"]).seed is None


def test_parse_request_flags_and_typed_options() -> None:
    request = parse_request(["3", "o", SEED_BOARD, "2", "--info", "--depth=4"], {"info": bool, "depth": int})
    assert request.options == {"info": True, "depth": 4}
    with pytest.raises(UsageError, match="option --info takes no value"):
        parse_request(["3", "o", SEED_BOARD, "2", "--info=1"], {"info": bool})
    with pytest.raises(UsageError, match="option --depth needs a value"):
        parse_request(["3", "o", SEED_BOARD, "2", "--depth"], {"depth": int})


@pytest.mark.parametrize("name", ENGINES)
def test_engine_help_prints_usage(python: str, name: str) -> None:
    result = run_program([*engine_argv(python, name, "file"), "--help"])
    assert result.returncode == 0
    assert result.stdout.startswith(f"usage: {name} N PLAYER BOARD SECONDS [--seed S]\n")
