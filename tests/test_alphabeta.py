"""The alpha-beta search and engine: tactics, limits and time."""

from __future__ import annotations

import re
import sys
import time

import pytest

from engines.alphabeta import choose_move
from engines.native import pure
from engines.evaluation import evaluate
from engines.protocol import Rng
from engines.search.alphabeta import WIN, AlphaBeta
from harness.games.betsy.rules import BLUE, Position, initial_position
from harness.referee.protocol import Verdict, check_answer, find_answer
from tests.conftest import ROOT, SEED_BOARD, run_program

ENGINE = [sys.executable, str(ROOT / "engines" / "alphabeta.py")]
X_THREATENS_ROW = "......xx.oxoxooxox"


def forced_win_moves(position: Position, plies: int) -> set[int]:
    """Moves that win by force within ``plies`` plies (odd), by plain exhaustive minimax."""
    mover = position.turn

    def wins(p: Position, left: int) -> bool:
        # The side to move is the original mover: can it force a win within `left` plies?
        for move in p.legal_moves():
            child = p.after(move)
            if child.winner() == mover:
                return True
            if child.winner() is not None or left < 3:
                continue
            if all(_reply_loses(child, reply, left) for reply in child.legal_moves()):
                return True
        return False

    def _reply_loses(child: Position, reply: int, left: int) -> bool:
        after = child.after(reply)
        if after.winner() is not None:
            return after.winner() == mover
        return wins(after, left - 2)

    found = set()
    for move in position.legal_moves():
        child = position.after(move)
        if child.winner() == mover:
            found.add(move)
        elif child.winner() is None and plies >= 3 and child.legal_moves() and all(
            _reply_loses(child, reply, plies) for reply in child.legal_moves()
        ):
            found.add(move)
    return found


def random_position(n: int, seed: int, plies: int) -> Position | None:
    """A position after ``plies`` random moves (seeded), or None if the game ended on the way."""
    rng = Rng(seed)
    position = initial_position(n)
    for _ in range(plies):
        position.push(rng.choice(position.legal_moves()))
        if position.winner() is not None:
            return None
    return position


def positions_with_forced_win_in_three(n: int, count: int) -> list[tuple[Position, set[int]]]:
    found = []
    seed = 0
    while len(found) < count and seed < 5000:
        seed += 1
        position = random_position(n, seed, 8 + seed % 14)
        if position is None or forced_win_moves(position, 1):
            continue
        wins = forced_win_moves(position, 3)
        if wins:
            found.append((position, wins))
    return found


def test_search_takes_a_win_in_one() -> None:
    position = Position.from_text("3", "x", X_THREATENS_ROW)
    result = AlphaBeta(evaluate).search(position, 4)
    assert result.move == 3
    assert result.score == WIN - 1


def test_search_blocks_a_loss_in_one() -> None:
    position = Position.from_text("3", "o", X_THREATENS_ROW)
    result = AlphaBeta(evaluate).search(position, 4)
    assert result.move == -2  # the only move after which x has no winning reply


@pytest.mark.parametrize("n", [3, 4])
def test_search_finds_forced_wins_in_three_plies(n: int) -> None:
    cases = positions_with_forced_win_in_three(n, 6)
    assert len(cases) == 6
    for position, winning in cases:
        result = AlphaBeta(evaluate).search(position, 3)
        assert result.move in winning, (position, winning, result)
        assert result.score == WIN - 3, (position, result)


def test_seed_figure_position_is_a_forced_win_for_red() -> None:
    # Figure 1: from (a), red wins; the search proves it.
    position = Position.from_text("3", "o", SEED_BOARD)
    result = choose_move(position, time.monotonic() + 5)
    assert result.score >= WIN - 7
    assert result.move in forced_win_moves(position, 7) or result.score == WIN - 7


def test_repetition_on_the_search_path_scores_as_a_draw() -> None:
    # Only rotations of one-pebble columns and drops: if every position repeats, the score is 0.
    position = Position.from_text("3", "x", "." * 15 + "xo.")
    searcher = AlphaBeta(lambda p: 0)
    searcher.search(position, 6)
    # A history containing every child makes all root moves draws.
    history = set()
    for move in position.legal_moves():
        child = position.after(move)
        history.add(child.key())
    result = None
    for result in AlphaBeta(evaluate).iterate(position, 4, history_keys=history):
        pass
    assert result is not None and result.score == 0


def test_search_rejects_bad_depth() -> None:
    with pytest.raises(ValueError, match="max_depth must be at least 1, got 0"):
        list(AlphaBeta(evaluate).iterate(initial_position(3), 0))


def _run(args: list[str], limit: str = "1") -> tuple[list[str], list[str], float]:
    """(stdout lines, stderr lines after --info's first line, wall seconds) of one engine call."""
    start = time.monotonic()
    result = run_program([*ENGINE, *args[:3], limit, *args[3:]])
    wall = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    err = result.stderr.splitlines()
    if "--info" in args:  # first, what the search runs on (the suite's set-up builds the core)
        assert err[:1] == ["info core native"] or pure(), err[:1]
        err = err[1:]
    return result.stdout.splitlines(), err, wall


def test_engine_respects_depth() -> None:
    out, err, _ = _run(["5", "x", "." * 40, "--depth", "3", "--info"], limit="5")
    depths = [int(re.search(r"depth (\d+)", line).group(1)) for line in err]  # type: ignore[union-attr]
    assert depths == [1, 2, 3]
    # An answer line per completed depth, unless it repeats the line before.
    assert 1 <= len(out) <= 3
    assert all(a != b for a, b in zip(out, out[1:]))


def test_engine_respects_a_node_limit() -> None:
    _, err, _ = _run(["5", "x", "." * 40, "--nodes", "2000", "--info"], limit="5")
    nodes = [int(re.search(r"nodes (\d+)", line).group(1)) for line in err]  # type: ignore[union-attr]
    # The search stops at the first node past the limit; that node's horizon scan (at most 2n
    # positions) may still be counted.
    assert nodes[-1] <= 2000 + 2 * 5
    _, unlimited, _ = _run(["5", "x", "." * 40, "--info", "--depth", "8"], limit="5")
    assert len(err) < len(unlimited)


def test_engine_answers_well_within_the_limit_at_n_12() -> None:
    rng = Rng(5)
    position = initial_position(12)
    for _ in range(40):
        position.push(rng.choice(position.legal_moves()))
    out, err, wall = _run(["12", position.player, position.board(), "--info"], limit="2")
    answer = find_answer(out)
    assert answer is not None
    assert check_answer(position, answer.move, answer.board) == (Verdict.OK, "")
    # Judged by the engine's own clock (its search times), which a loaded machine does not stretch as
    # it stretches the start-up and the exit: it aims at 0.9 x the limit from its own start.
    searched = [float(re.search(r" time (\d+\.\d+) ", line).group(1)) for line in err]  # type: ignore[union-attr]
    assert searched and max(searched) < 2.0
    assert wall < 15  # it stops: an unbounded search at n = 12 goes on for minutes


def test_engine_prints_each_new_best_answer_as_it_finds_it() -> None:
    out, err, _ = _run(["3", "o", SEED_BOARD, "--info"])
    assert 1 <= len(out) <= len(err)
    assert all(a != b for a, b in zip(out, out[1:]))
    assert out[-1].startswith("2 ")  # red's winning drop of the figure
    position = Position.from_text("3", "o", SEED_BOARD)
    for line in out:
        answer = find_answer([line])
        assert answer is not None
        assert check_answer(position, answer.move, answer.board) == (Verdict.OK, "")


def test_choose_move_plays_the_only_safe_move_for_blue_too() -> None:
    # Colour symmetry: swap colours of the blocking test; blue must block red's row.
    board = X_THREATENS_ROW.translate(str.maketrans("xo", "ox"))
    position = Position.from_text("3", "x", board)
    assert position.turn == BLUE
    assert choose_move(position, time.monotonic() + 2).move == -2


@pytest.mark.parametrize("n", [4, 5])
def test_wins_within_agrees_with_exhaustive_minimax(n: int) -> None:
    searcher = AlphaBeta(evaluate)
    searcher.reductions = False
    checked = {True: 0, False: 0}
    for seed in range(1, 5000):
        position = random_position(n, seed, 10 + seed % 30)
        if position is None:
            continue
        board = position.board()
        for plies in (1, 3):
            expected = bool(forced_win_moves(position, plies))
            assert searcher.wins_within(position, plies) is expected, (board, plies)
            checked[expected] += 1
        assert position.board() == board
        if checked[True] >= 10 and checked[False] >= 100:
            break
    assert checked[True] >= 10 and checked[False] >= 100  # both answers were checked


def test_wins_within_gives_up_at_its_deadline() -> None:
    searcher = AlphaBeta(evaluate)
    assert searcher.wins_within(initial_position(8), 9, time.monotonic() - 1) is None
