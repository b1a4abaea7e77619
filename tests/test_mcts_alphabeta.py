"""MCTS (generic, with solver) and the MCTS-assisted alpha-beta engine."""

from __future__ import annotations

import sys
import time

import pytest

from engines import mcts_alphabeta
from engines.evaluation import evaluate
from engines.protocol import Rng
from engines.search.alphabeta import WIN, WIN_BOUND
from engines.search.mcts import LOST, MCTS, UNKNOWN, WON
from harness.games.betsy.rules import Position
from harness.referee.protocol import Verdict, check_answer, find_answer
from tests.conftest import ROOT, SEED_BOARD, run_program
from tests.test_alphabeta import X_THREATENS_ROW, forced_win_moves, positions_with_forced_win_in_three

ENGINE = [sys.executable, str(ROOT / "engines" / "mcts_alphabeta.py")]


# --- a plain fixed-depth minimax, the reference for the searches' scores ------------------------------
# Written from what the search documents (engines/search/alphabeta.py), without its pruning, table,
# ordering or reductions: a move that completes the mover's line wins, scored WIN - plies; at the
# horizon a side with a winning move scores that win, otherwise the evaluation for the side to move;
# a position already on the path from the root is a draw by repetition, worth -contempt to the side
# that was to move at the root (and +contempt to the other).


def plain_value(node: Position, depth: int, ply: int, path: frozenset[int], contempt: int, root_turn: int) -> int:
    key = node.key()
    if key in path:
        return -contempt if node.turn == root_turn else contempt
    if depth <= 0:
        return WIN - ply - 1 if node.has_winning_move() else mcts_alphabeta.evaluate(node)
    best = -10 * WIN
    for move in node.legal_moves():
        mover = node.turn
        node.push(move)
        winner = node.winner_after_push(move)
        if winner is not None:
            score = WIN - ply - 1 if winner == mover else -(WIN - ply - 1)
        else:
            score = -plain_value(node, depth - 1, ply + 1, path | {key}, contempt, root_turn)
        node.pop()
        best = max(best, score)
    return best


def plain_root_scores(position: Position, depth: int, contempt: int) -> dict[int, int]:
    """Every root move's score after a ``depth``-ply plain minimax."""
    node = position.copy()
    scores = {}
    for move in node.legal_moves():
        mover = node.turn
        node.push(move)
        winner = node.winner_after_push(move)
        scores[move] = ((WIN - 1 if winner == mover else -(WIN - 1)) if winner is not None
                        else -plain_value(node, depth - 1, 1, frozenset({position.key()}), contempt, position.turn))
        node.pop()
    return scores


def plain_traps(position: Position, moves: list[int]) -> dict[int, int]:
    """For each move, the opponent's replies that lose by force: that complete the mover's line, or
    after which the mover has a win the plain minimax proves within TRAP_DEPTH plies (a score beyond
    WIN_BOUND, draws by repetition worth 0)."""
    counts = {}
    for move in moves:
        node = position.after(move)
        mover = position.turn
        count = 0
        for reply in node.legal_moves():
            node.push(reply)
            winner = node.winner_after_push(reply)
            if winner is not None:
                count += winner == mover
            else:
                count += plain_value(node, mcts_alphabeta.TRAP_DEPTH, 0, frozenset(), 0, node.turn) > WIN_BOUND
            node.pop()
        counts[move] = count
    return counts


def tied_best(scores: dict[int, int]) -> set[int]:
    best = max(scores.values())
    return {move for move, score in scores.items() if score > best - mcts_alphabeta.MARGIN}


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


def test_mcts_root_moves_restrict_the_root() -> None:
    position = Position(4)
    for move in (2, 2, 3):
        position.push(move)
    chosen = [position.legal_moves()[-1], 1]
    assert len(set(chosen)) == 2
    mcts = MCTS(evaluate, Rng(5))
    root = mcts.run(position, max_playouts=200, root_moves=[*chosen, 99])
    assert sorted(root.moves) == sorted(chosen)
    assert root.visits == 200
    assert set(mcts.root_statistics(position)) == set(chosen)


def test_mcts_root_moves_must_include_a_legal_move() -> None:
    import pytest

    with pytest.raises(ValueError, match="none of root_moves is legal here"):
        MCTS(evaluate, Rng(1)).run(Position(3), max_playouts=10, root_moves=[99])


def test_hybrid_lets_mcts_choose_only_among_moves_alpha_beta_cannot_separate() -> None:
    position = Position(5)
    for move in (3, 3, 2, 4):
        position.push(move)
    scores = plain_root_scores(position, 3, mcts_alphabeta.CONTEMPT)
    tied = tied_best(scores)
    traps = plain_traps(position, sorted(tied))
    near = {m for m in tied if traps[m] == max(traps.values())}  # those setting the most traps
    assert len(near) >= 2
    move, result, stats = mcts_alphabeta.choose_move(
        position, time.monotonic() + 60, Rng(9), max_depth=3, playouts=400)
    assert (result.score, result.depth) == (max(scores.values()), 3) and result.move in tied
    assert set(stats) == near
    assert all(visits >= 1 for visits, _, _ in stats.values())
    assert move == max(near, key=lambda m: (stats[m][0], m == result.move))


def test_hybrid_skips_mcts_when_alpha_beta_proves_the_result() -> None:
    win = Position.from_text("3", "x", X_THREATENS_ROW)
    move, result, stats = mcts_alphabeta.choose_move(win, time.monotonic() + 1, Rng(1))
    assert (move, result.is_proven, stats) == (3, True, {})


def test_hybrid_plays_on_where_a_low_contempt_settles_for_a_repetition() -> None:
    from engines.search.alphabeta import AlphaBeta

    # n = 5, from a game drawn by repetition against greedy: -5 and greedy's -5 restore the board.
    position = Position.from_text(5, "x", "xx.xooo.oxxx.xoxo.xxox.oooxoxxxoooooxoxx")
    assert position.after(-5).after(-5).board() == position.board()
    low = plain_root_scores(position, 2, 20)
    assert low[-5] == -20 and tied_best(low) == {-5}  # the repetition is the best at contempt 20
    settles = AlphaBeta(mcts_alphabeta.evaluate, contempt=20).search(position, 2)
    assert (settles.move, settles.score) == (-5, -20)
    high = plain_root_scores(position, 2, mcts_alphabeta.CONTEMPT)
    (best,) = tied_best(high)
    assert best != -5 and high[-5] == -mcts_alphabeta.CONTEMPT
    move, result, _stats = mcts_alphabeta.choose_move(
        position, time.monotonic() + 60, Rng(1), max_depth=2, playouts=100)
    assert (move, result.move, result.score) == (best, best, high[best])


# n = 5, red to move, from a game betsy drew by repetition against the mirror program, where the
# search tied drops 1, 5 and 2 and MCTS chose 1: only after 5 do most replies lose by force.
TRAP_BOARD = "..........x...ox...oo...xxx.ooxx.ooxoxxo"


def test_trap_counts_count_the_replies_that_lose_by_force() -> None:
    position = Position.from_text(5, "o", TRAP_BOARD)
    counts = mcts_alphabeta.trap_counts(position, [1, 5, 2], mcts_alphabeta.evaluate, time.monotonic() + 60)
    assert counts == plain_traps(position, [1, 5, 2])
    assert counts == {1: 0, 5: 9, 2: 0}  # (the plain search's counts: after 5, 9 of 10 replies lose)
    assert position.board() == TRAP_BOARD  # pushed and popped back
    assert mcts_alphabeta.trap_counts(position, [1, 5, 2], mcts_alphabeta.evaluate, time.monotonic() - 1) is None


# n = 4, x to move: at depth 3 drops 2 and 3 tie, and after 3 six of o's replies lose by force,
# after 2 none (found by the plain search among random positions).
TIED_BOARD = "..........x.oxx.oox.xxxooxoo"


def test_hybrid_prefers_the_tied_move_that_sets_the_most_traps() -> None:
    position = Position.from_text(4, "x", TIED_BOARD)
    scores = plain_root_scores(position, 3, mcts_alphabeta.CONTEMPT)
    tied = tied_best(scores)
    traps = plain_traps(position, sorted(tied))
    assert (tied, traps) == ({2, 3}, {2: 0, 3: 6})
    for seed in (1, 2, 3):
        move, result, stats = mcts_alphabeta.choose_move(
            Position.from_text(4, "x", TIED_BOARD), time.monotonic() + 60, Rng(seed), max_depth=3, playouts=200)
        assert (move, result.score, stats) == (3, scores[3], {})  # settled before MCTS


# Red to move at ply 38 of a game the hybrid drew by repetition against the mirror program (n = 5):
# every mirror reply so far had left the board its own mirror image with the colours exchanged.
MIRROR_BOARD = ".x.o..o.x.xo.xooo.xxxxoooxooxoxxxooxooxo"
MIRROR = [sys.executable, str(ROOT / "engines" / "opponents" / "mirror.py")]


def test_asymmetry_counts_the_cells_off_their_mirror_image() -> None:
    # MIRROR_BOARD by rows, top first: .x.o. / .o.x. / xo.xo / oo.xx / xxooo / xooxo / xxxoo / xooxo.
    # Columns 1 and 5, 2 and 4 hold opposite colours in every row (or are both empty): 0 off their
    # image; the middle column holds 4 pebbles (rows 5 to 8).
    empty = "." * 40
    assert mcts_alphabeta.asymmetry(empty, 5) == 0
    assert mcts_alphabeta.asymmetry(empty[:35] + "x...o", 5) == 0  # x in column 1, o in column 5
    assert mcts_alphabeta.asymmetry(empty[:35] + "x...x", 5) == 1
    assert mcts_alphabeta.asymmetry(empty[:35] + "x....", 5) == 1
    assert mcts_alphabeta.asymmetry(empty[:35] + "x.x.o", 5) == 0  # the middle column is not counted
    assert mcts_alphabeta.asymmetry(empty[:35] + "x.x.o", 5, middle=True) == 1
    assert mcts_alphabeta.asymmetry(MIRROR_BOARD, 5) == 0
    assert mcts_alphabeta.asymmetry(MIRROR_BOARD, 5, middle=True) == 4
    assert mcts_alphabeta.asymmetry("." * 24 + "xo.o", 4) == 1  # n = 4: columns 1-4 and 2-3


def test_mirror_win_beats_the_real_mirror_program_where_alpha_beta_does_not_look() -> None:
    position = Position.from_text(5, "o", MIRROR_BOARD)
    assert mcts_alphabeta.mirror_win(position, mcts_alphabeta.MIRROR_MOVES, time.monotonic() + 60) == 5
    # Alpha-beta alone prefers another move: against the best reply the drop is not the best.
    searcher = mcts_alphabeta.AlphaBeta(mcts_alphabeta.evaluate, contempt=mcts_alphabeta.CONTEMPT)
    assert mcts_alphabeta.deepen(searcher, position, None, 8).move != 5
    # Against the mirror program itself, asking mirror_win again before each move wins in 4.
    red = position.turn
    for own_moves in range(1, 5):
        move = mcts_alphabeta.mirror_win(position, mcts_alphabeta.MIRROR_MOVES, time.monotonic() + 60)
        if move is None:  # a win at once, which the search plays
            move = next(m for m in position.legal_moves() if position.after(m).winner() == position.turn)
        position.push(move)
        if position.winner() is not None:
            break
        reply = run_program([*MIRROR, "5", position.player, position.board(), "1"])
        answer = find_answer(reply.stdout.splitlines())
        assert answer is not None, reply
        position.push(answer.move)
        assert position.winner() is None
    assert position.winner() == red and own_moves == 4


def test_mirror_win_stays_out_of_ordinary_positions() -> None:
    deadline = time.monotonic() + 60
    ordinary = Position.from_text(5, "x", "." * 30 + "x....xo.o.")
    assert mcts_alphabeta.asymmetry(ordinary.board(), 5) == 3
    assert mcts_alphabeta.mirror_win(ordinary, 4, deadline) is None
    # A win at once: left to the search.
    won = Position.from_text(3, "x", X_THREATENS_ROW)
    assert won.has_winning_move() and mcts_alphabeta.mirror_win(won, 4, deadline) is None
    assert mcts_alphabeta.mirror_win(Position.from_text(5, "o", MIRROR_BOARD), 4, time.monotonic() - 1) is None


def test_mirror_win_waits_for_2n_pebbles(monkeypatch: pytest.MonkeyPatch) -> None:
    # n = 4, 5 pebbles, as in a game against the mirror: x dropping into 4 wins in 4 moves against
    # the mirroring replies, but a board this sparse is near its mirror image by chance.
    sparse = Position.from_text(4, "x", "." * 19 + "xo..xo..x")
    assert mcts_alphabeta.asymmetry(sparse.board(), 4) == 1
    assert mcts_alphabeta.mirror_win(sparse, 4, time.monotonic() + 60) is None
    monkeypatch.setattr(mcts_alphabeta, "MIRROR_PEBBLES", 1)
    assert mcts_alphabeta.mirror_win(sparse, 4, time.monotonic() + 60) == 4


def test_hybrid_plays_the_win_against_a_mirror() -> None:
    move, _result, stats = mcts_alphabeta.choose_move(
        Position.from_text(5, "o", MIRROR_BOARD), time.monotonic() + 5, Rng(1))
    assert move == 5 and stats == {}
