"""All The King's Horses: the rules core, its wire forms, and our players through the referee.

Besides exact examples, the rules core is cross-checked against a plain reference written here from
docs/kings_horses.md alone, on seeded random positions of every band and on random games played to
their end.
"""

from __future__ import annotations

import random
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from harness.referee.engine_specs import builtin_engine
from harness.games.kings_horses.rules import Position, PositionError, lone_moves, race_lead, random_position, render
from harness.games.registry import get_game
from harness.match.match import Termination, play_game
from harness.referee.protocol import Clock, Verdict, check_answer, engine_argv
from harness.rng import Rng
from harness.match.settings import GameSettings

ROOT = Path(__file__).resolve().parent.parent
STEPS = ((-2, -1), (-1, -2), (-2, 1), (1, -2))


# --- a plain reference, straight from docs/kings_horses.md -------------------------------------------
# "The side to move moves one of its own knights, always toward the corner, by one of four knight
# steps: two up and one left (-2, -1), one up and two left (-1, -2), two up and one right (-2, +1),
# or one down and two left (+1, -2)." A side is BLACK or WHITE, a square (row, column).
PLAIN_STEPS = {"two up, one left": (-2, -1), "one up, two left": (-1, -2), "two up, one right": (-2, 1),
               "one down, two left": (1, -2)}
Knights = tuple[tuple[int, int], tuple[int, int]]
COLOUR = {"BLACK": 0, "WHITE": 1}
"""The core's colour numbers: "x (BLACK) and o (WHITE)"."""


def plain_moves(side: str, black: Knights, white: Knights) -> dict[int, tuple[str, Knights, Knights]]:
    """Every move of the side to move, by its number, with the position it leaves (the other side to
    move). "A move is a number 1 to 8: the mover's knight (move - 1) // 4 + 1 (first or second) and
    the step (move - 1) % 4 in the order above"; "a knight may not leave the board (row and column
    stay at least 1) and may not land on a square any knight holds, its own side's or the other's"."""
    own = black if side == "BLACK" else white
    held = {*black, *white}
    found = {}
    for knight in (1, 2):
        row, col = own[knight - 1]
        for step, (down, right) in enumerate(PLAIN_STEPS.values()):
            square = (row + down, col + right)
            if square[0] < 1 or square[1] < 1 or square in held:
                continue
            moved: Knights = (square, own[1]) if knight == 1 else (own[0], square)
            other = "WHITE" if side == "BLACK" else "BLACK"
            found[4 * (knight - 1) + step + 1] = (other, moved, white) if side == "BLACK" else (other, black, moved)
    return found


def plain_winner(side: str, black: Knights, white: Knights) -> str | None:
    """The winner once the side to move has no move ("the side to move with no move loses"), else None."""
    if plain_moves(side, black, white):
        return None
    return "WHITE" if side == "BLACK" else "BLACK"


def plain_random_position(rng: random.Random, band: int) -> tuple[str, Knights, Knights]:
    """Four distinct squares with coordinates in 1..band ("two knights share a square" is invalid)."""
    squares: list[tuple[int, int]] = []
    while len(squares) < 4:
        square = (rng.randint(1, band), rng.randint(1, band))
        if square not in squares:
            squares.append(square)
    return rng.choice(["BLACK", "WHITE"]), (squares[0], squares[1]), (squares[2], squares[3])


def as_position(side: str, black: Knights, white: Knights) -> Position:
    return Position.from_words([side, *(str(v) for square in (*black, *white) for v in square)])


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


def check_against_plain(position: Position, side: str, black: Knights, white: Knights) -> dict[int, tuple[str, Knights,
                                                                                                       Knights]]:
    """Assert that the rules core agrees with the plain reference on this position (every move number,
    legal or not, what each legal one leaves, the winner, a winning move); the plain moves."""
    expected = plain_moves(side, black, white)
    assert position.legal_moves() == sorted(expected)
    for move in range(-1, 11):
        assert position.is_legal(move) is (move in expected), move
        assert (position.illegal_reason(move) is None) is (move in expected), move
    for move, (other, new_black, new_white) in expected.items():
        child = position.after(move)
        assert (child.word, child.knights) == (other, [*new_black, *new_white]), move
        # The same position with a side's knights printed in the other order is the same move.
        assert position.move_to(as_position(other, new_black[::-1], new_white[::-1])) == move
        assert child.key() == as_position(other, new_black[::-1], new_white[::-1]).key()
    assert position.winner() == (None if expected else COLOUR[plain_winner(side, black, white) or ""])
    assert position.is_game_over() is (plain_winner(side, black, white) is not None)
    assert position.has_winning_move() is any(plain_winner(*after) == side for after in expected.values())
    counts = {colour: longest(*knights[0]) + longest(*knights[1]) for colour, knights in (("BLACK", black),
                                                                                         ("WHITE", white))}
    assert race_lead(position) == counts[side] - counts["WHITE" if side == "BLACK" else "BLACK"]
    return expected


@pytest.mark.parametrize("band", [3, 4, 5, 8, 15, 30])
def test_rules_agree_with_the_plain_reference_on_random_positions(band: int) -> None:
    rng = random.Random(band)
    seen = {"moves": 0, "stuck": 0, "blocked": 0}
    for _ in range(1500):
        side, black, white = plain_random_position(rng, band)
        position = as_position(side, black, white)
        assert (position.word, position.knights) == (side, [*black, *white])
        assert position.line() == " ".join([side, *(str(v) for square in (*black, *white) for v in square)])
        expected = check_against_plain(position, side, black, white)
        seen["moves"] += len(expected)
        seen["stuck"] += not expected
        # A move off the board or onto a knight is refused, whatever the number says.
        own = black if side == "BLACK" else white
        seen["blocked"] += sum((r + dr, c + dc) in {*black, *white} for r, c in own for dr, dc in PLAIN_STEPS.values())
    assert seen["moves"] > 1500
    if band <= 5:  # near the corner, sides without a move and knights in each other's way are common
        assert seen["stuck"] > 20 and seen["blocked"] > 100


def test_random_games_agree_with_the_plain_reference_move_by_move_to_their_end() -> None:
    rng = random.Random(39)
    plies = ended = 0
    for _ in range(200):
        side, black, white = plain_random_position(rng, rng.choice([5, 8, 12, 20]))
        position = as_position(side, black, white)
        total = sum(r + c for r, c in (*black, *white))
        rows, cols = position.reach()
        while True:
            # Every knight of every position of the game stays inside the start's reach.
            assert all(r <= rows and c <= cols for r, c in (*black, *white)), (position.reach(), black, white)
            expected = check_against_plain(position, side, black, white)
            if not expected:
                break
            move = rng.choice(sorted(expected))
            position.push(move)
            side, black, white = expected[move]
            assert (position.word, position.knights) == (side, [*black, *white])
            # "Every step takes row + column down (by 3 or by 1), so every game ends."
            after = sum(r + c for r, c in (*black, *white))
            assert total - after in (1, 3)
            total = after
            plies += 1
        ended += 1
        assert position.winner() == COLOUR["WHITE" if side == "BLACK" else "BLACK"]
        for _ in range(len(position._history)):  # unmake every move: back to the start
            position.pop()
    assert ended == 200 and plies > 2000


def test_the_reach_of_a_knight_is_where_it_can_get_going_down_or_right() -> None:
    # (8, 8) gets to row 11 going down, (9, 6), (10, 4), (11, 2), and to column 11 going right,
    # (6, 9), (4, 10), (2, 11); the other knights reach less far.
    assert Position.from_words("BLACK 8 8 1 1 2 1 1 2".split()).reach() == (11, 11)
    assert Position.from_words("WHITE 1 1 2 1 1 2 3 1".split()).reach() == (4, 4)  # never smaller than 4 x 4
    assert Position.from_words("WHITE 1 9 2 1 1 2 3 1".split()).reach() == (5, 9)  # (1, 9) goes down to row 5


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
