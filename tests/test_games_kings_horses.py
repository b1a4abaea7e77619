"""All The King's Horses: the rules core, its wire forms, and our players through the referee."""

from __future__ import annotations

import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from harness.referee.engine_specs import builtin_engine
from harness.games.kings_horses.rules import Position, PositionError, lone_moves, random_position, render
from harness.games.registry import get_game
from harness.match.match import Termination, play_game
from harness.referee.protocol import Clock, Verdict, check_answer, engine_argv
from harness.rng import Rng
from harness.match.settings import GameSettings

ROOT = Path(__file__).resolve().parent.parent
STEPS = ((-2, -1), (-1, -2), (-2, 1), (1, -2))


@lru_cache(maxsize=None)
def longest(row: int, col: int) -> int:
    """The most moves of a lone knight, by brute force."""
    return max((1 + longest(row + dr, col + dc) for dr, dc in STEPS if row + dr >= 1 and col + dc >= 1), default=0)


def test_lone_knight_moves_have_a_closed_form() -> None:
    for row in range(1, 41):
        for col in range(1, 41):
            assert lone_moves(row, col) == longest(row, col), (row, col)
    assert [lone_moves(1, 1), lone_moves(2, 2), lone_moves(3, 3), lone_moves(8, 8), lone_moves(1, 10)] == [0, 0, 2, 12, 7]


def test_positions_from_the_wire_and_their_errors() -> None:
    position = Position.from_text("8", "x", "2,2,3,3,1,2,3,1")
    assert (position.player, position.word, position.board(), position.line()) == (
        "x", "BLACK", "2,2,3,3,1,2,3,1", "BLACK 2 2 3 3 1 2 3 1")
    assert Position.from_text(None, "WHITE", "2 2 3 3 1 2 3 1").player == "o"
    for player, board, message in (
        ("x", "2,2,3,3,1,2,3", "expected 8 coordinates b1r b1c b2r b2c w1r w1c w2r w2c, got 7"),
        ("x", "2,2,3,3,1,2,3,0", "invalid coordinate '0' (w2c): coordinates are whole numbers from 1 to 1000000, "
                                 "1 at the top-left"),
        ("x", "2,2,3,3,1,2,3,-1", "invalid coordinate '-1' (w2c): coordinates are whole numbers from 1 to 1000000, "
                                  "1 at the top-left"),
        ("x", "2,2,3,3,3,3,3,1", "two knights on one square: black's second knight and white's first knight are "
                                 "both on row 3, column 3"),
        ("RED", "2,2,3,3,1,2,3,1", "invalid player 'RED': use BLACK (x) or WHITE (o)"),
    ):
        with pytest.raises(PositionError) as error:
            Position.from_text("8", player, board)
        assert str(error.value) == message
    with pytest.raises(PositionError, match="N from 3 to 1000"):
        get_game("kings-horses").parse_size("2")


def test_moves_respect_the_edges_and_occupied_squares() -> None:
    # The seed's example: black's knight on (2,2) cannot move; the one on (3,3) has (2,1), (1,4) and
    # (4,1), not (1,2): white's knight is there.
    position = Position.from_words("BLACK 2 2 3 3 1 2 3 1".split())
    assert position.legal_moves() == [6, 7, 8]
    assert [position.after(m).line() for m in position.legal_moves()] == [
        "WHITE 2 2 2 1 1 2 3 1", "WHITE 2 2 1 4 1 2 3 1", "WHITE 2 2 4 1 1 2 3 1"]
    assert position.illegal_reason(5) == "move 5 takes the knight on (3,3) to (1,2), which a knight holds"
    assert position.illegal_reason(1) == "move 1 takes the knight on (2,2) off the board"
    assert position.illegal_reason(9) == "move 9 is out of range: moves are 1 to 8 (knight and direction)"
    assert position.winner() is None
    position.push(8)
    assert position.player == "o" and position.pop() == 8 and position.line() == "BLACK 2 2 3 3 1 2 3 1"
    # Knights in the top-left 2 x 2 cannot move: the side to move has lost.
    stuck = Position.from_words("WHITE 3 3 5 5 1 1 2 2".split())
    assert (stuck.legal_moves(), stuck.winner()) == ([], 0)
    # No move only because knights hold the targets: (3,1) -> (1,2) is black's.
    blocked = Position.from_words("WHITE 1 2 4 4 3 1 2 2".split())
    assert (blocked.legal_moves(), blocked.winner()) == ([], 0)


def test_random_starts_are_valid_seeded_and_never_over() -> None:
    rng = Rng(7)
    starts = [random_position(8, rng) for _ in range(300)]
    for start in starts:
        assert start.legal_moves() and len(set(start.knights)) == 4
        assert all(1 <= v <= 8 for square in start.knights for v in square)
    assert {start.player for start in starts} == {"x", "o"}
    again = Rng(7)
    assert [random_position(8, again).line() for _ in range(300)] == [start.line() for start in starts]


def test_render_shows_every_knight_with_coordinates() -> None:
    position = Position.from_words("BLACK 2 2 3 3 1 2 3 1".split())
    assert render(position) == "\n".join([
        "1 . o . .",
        "2 . x . .",
        "3 o . x .",
        "4 . . . .",
        "  1 2 3 4",
    ])


def test_the_referee_asks_with_the_seeds_command_line_and_reads_the_next_position() -> None:
    game = get_game("kings-horses")
    position = game.position("8", "x", "2,2,3,3,1,2,3,1")
    assert engine_argv(["prog"], position, Clock(2)) == ["prog", "--move", "BLACK", "2", "2", "3", "3", "1", "2", "3", "1"]
    answer = game.find_answer(position, ["thinking", "WHITE 2 2 2 1 1 2 3 1", "BLACK WILL WIN"])
    assert (answer.move, answer.board, answer.line_number, answer.lines_after) == (6, "2,2,2,1,1,2,3,1", 2, 0)
    assert check_answer(position, answer.move, answer.board, answer.text) == (Verdict.OK, "")
    # The knights of a side in the other order are the same position.
    assert game.find_answer(position, ["WHITE 2 1 2 2 1 2 3 1"]).move == 6
    for printed in ("WHITE 2 2 1 2 1 2 3 1",   # onto white's knight
                    "BLACK 2 2 2 1 1 2 3 1",   # names the mover again
                    "WHITE 2 2 3 3 1 2 3 1"):  # no move at all
        answer = game.find_answer(position, [printed, "BLACK WILL WIN"])
        assert answer.move == 0
        assert check_answer(position, answer.move, answer.board, answer.text) == (
            Verdict.ILLEGAL_MOVE,
            f"no legal move gives the printed position {printed} (position BLACK 2 2 3 3 1 2 3 1)")
    assert game.find_answer(position, ["BLACK WILL WIN"]) is None
    assert game.find_answer(position, ["WHITE 2 2 2 1 1 2 3 1", "BLACK WILL WIN", "done"]).lines_after == 1


@pytest.mark.parametrize("engine", ["random_mover", "greedy"])
def test_our_players_answer_the_move_form(engine: str) -> None:
    argv = [sys.executable, str(ROOT / "engines" / f"{engine}.py"), "--move", "BLACK", "2", "2", "3", "3", "1", "2",
            "3", "1"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout in (
        "WHITE 2 2 2 1 1 2 3 1\n", "WHITE 2 2 1 4 1 2 3 1\n", "WHITE 2 2 4 1 1 2 3 1\n")
    refused = subprocess.run([*argv[:3], "BLACK", "1", "1", "2", "2", "5", "5", "6", "6"],
                             capture_output=True, text=True, timeout=30)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == f"{engine}: error: BLACK has no move here, so the game is over (WHITE wins)\n"


def test_greedy_takes_a_move_that_leaves_the_opponent_none() -> None:
    # White's knights are stuck; black's (4,3) can go to (2,2)... which is white's, or (3,1), (2,4):
    # any move wins here, and greedy must see that the game ends.
    argv = [sys.executable, str(ROOT / "engines" / "greedy.py"), "--move", "BLACK", "9", "9", "3", "3", "1", "1",
            "2", "1"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0
    after = Position.from_words(done.stdout.split())
    assert after.legal_moves() == []


def test_a_game_through_the_referee_ends_when_the_side_to_move_has_no_move() -> None:
    settings = GameSettings(game="kings-horses", time=5)
    start = Position.from_words("BLACK 6 7 7 5 5 6 8 8".split())
    record = play_game(builtin_engine("greedy"), builtin_engine("random", {"seed": 3}), settings, "8", start=start)
    assert record.termination is Termination.NO_MOVE
    assert all(move.verdict is Verdict.OK for move in record.moves)
    replayed = start.copy()
    for move in record.moves:
        assert move.move is not None and replayed.is_legal(move.move)
        replayed.push(move.move)
        assert replayed.board() == move.board
    assert replayed.legal_moves() == []
    loser = replayed.player
    assert record.winner == ("o" if loser == "x" else "x")
    assert record.reason.endswith("and leaves the opponent no move")
