"""The engines playing Connect Four: the protocol's WxH form, answers, tactics, the searches on full
boards, the threat evaluation, and the seed's homework player (its printed values reproduced)."""

from __future__ import annotations

import random
import sys
import time

import pytest

from engines import alphabeta, connect4_endgame, greedy, homework, mcts_alphabeta, random_mover
from engines.connect4_evaluation import (
    CENTRE,
    FREE,
    GREEDY_THREAT,
    GREEDY_WEAK_THREAT,
    THREAT,
    WEAK_THREAT,
    balance,
    evaluate,
    features,
    weights,
    windows_through,
)
from engines.protocol import Rng, UsageError, parse_request
from engines.search.alphabeta import WIN, AlphaBeta
from engines.search.mcts import MCTS
from harness.games.betsy import rules as betsy
from harness.games.connect4.rules import PLAYER_O, PLAYER_X, Position, initial_position
from tests.conftest import ROOT, run_counting_cpu, run_program

ENGINES = ["random_mover", "greedy", "alphabeta", "mcts_alphabeta", "homework"]
SIZES = [(4, 4), (7, 6), (8, 8), (12, 12)]


def rows(*lines: str) -> str:
    """A board string from its rows, top first."""
    return "".join(lines)


def engine(name: str) -> list[str]:
    return [sys.executable, str(ROOT / "engines" / f"{name}.py")]


def random_position(width: int, height: int, seed: int) -> Position:
    """A game in progress after a seeded number of random moves (no four, not full)."""
    rng = random.Random(seed)
    while True:
        position = initial_position(width, height)
        for _ in range(rng.randrange(width * height // 2)):
            move = rng.choice(position.legal_moves())
            position.push(move)
            if position.winner_after_push(move) is not None:
                break
        else:
            if position.legal_moves() and not position.has_winning_move():
                return position


def answer_of(position: Position, stdout: str) -> int:
    """The column of the last line ``COLUMN NEWBOARD``, checked: a legal move and its board."""
    column_text, board = stdout.splitlines()[-1].split()
    column = int(column_text)
    assert position.is_legal(column), (position, column)
    assert position.after(column).board() == board
    return column


# --- the protocol ---------------------------------------------------------------------------------


def test_parse_request_tells_connect4_by_its_wxh_size() -> None:
    request = parse_request(["7x6", "o", "." * 38 + "x" + "...", "1.5", "--seed", "4"])
    assert request.game == "connect4"
    assert isinstance(request.position, Position)
    assert (request.position.size, request.position.player) == ((7, 6), "o")
    assert request.position.board() == "." * 38 + "x..."
    assert (request.seconds, request.seed) == (1.5, 4)
    betsy_request = parse_request(["5", "x", "." * 40, "1"])
    assert betsy_request.game == "betsy" and isinstance(betsy_request.position, betsy.Position)


@pytest.mark.parametrize(("args", "message"), [
    (["8x", "x", "." * 64, "1"], "invalid board size '8x': use WxH, columns x rows, e.g. 8x8 or 7x6"),
    (["3x9", "x", "." * 27, "1"],
     "invalid board size '3x9': width and height from 4 to 12 are supported, e.g. 8x8 or 7x6"),
    (["8x8", "o", "." * 64, "1"],
     "invalid player 'o' for this board: x and o have 0 discs each, so it is x's turn (x moves first)"),
    (["8x8", "x", "." * 63, "1"], "board has 63 characters, expected 64 for 8x8 (8 columns x 8 rows)"),
    (["4x4", "o", rows("....", "....", "ooo.", "xxxx"), "1"],
     "the game is over: x has four in a row, so there is no move to make"),
    (["4x4", "x", rows("oxox", "oxox", "xoxo", "xoxo"), "1"],
     "the game is over: the board is full (a draw), so there is no move to make"),
    (["8x8", "x", "." * 64, "0"], "invalid time limit '0': give a positive number of seconds"),
])
def test_parse_request_names_each_connect4_problem(args: list[str], message: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_request(args)
    assert str(info.value) == message


@pytest.mark.parametrize("name", ENGINES)
def test_engine_rejects_a_bad_connect4_board_with_one_line_and_exit_2(name: str) -> None:
    board = rows("....", "....", "..o.", "x...")
    result = run_program([*engine(name), "4x4", "x", board, "1"])
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"{name}: error: floating disc in column 3, row 3 from the top: the cell below it is empty, but "
        f"discs fall to the bottom of their column\n"
    )


def test_homework_refuses_betsy_arguments_with_one_line_and_exit_2() -> None:
    result = run_program([*engine("homework"), "5", "x", "." * 40, "1"])
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "homework: error: invalid board size '5': this engine plays Connect Four only; give WxH, columns x "
        "rows, e.g. 8x8 or 7x6\n"
    )


@pytest.mark.parametrize("name", ENGINES[:4])
def test_help_describes_both_games(name: str) -> None:
    result = run_program([*engine(name), "--help"])
    assert result.returncode == 0
    assert result.stdout.startswith(f"usage: {name} N PLAYER BOARD SECONDS")
    assert "N for Betsy, N columns and N + 3 rows (1 to 16)" in result.stdout
    assert "WxH for Connect Four, W columns and H rows (4 to 12 each, e.g. 8x8 or 7x6)" in result.stdout
    assert "in Connect Four MOVE is the column c (1 to W)" in result.stdout


def test_homework_help_describes_connect4_only() -> None:
    result = run_program([*engine("homework"), "--help"])
    assert result.returncode == 0
    assert result.stdout.startswith("usage: homework N PLAYER BOARD SECONDS [--depth D] [--seed S]\n")
    assert "  N           the board size WxH: W columns and H rows (4 to 12 each, e.g. 8x8 or 7x6)\n" in result.stdout
    assert "Betsy" not in result.stdout


# --- every engine answers ------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("name", ENGINES)
def test_engine_answers_a_legal_column_and_its_board(name: str, size: tuple[int, int]) -> None:
    position = random_position(*size, seed=size[0] * 13 + size[1])
    result = run_program([*engine(name), position.size_text, position.player, position.board(), "0.5", "--seed", "1"])
    assert result.returncode == 0, result.stderr
    answer_of(position, result.stdout)


@pytest.mark.parametrize("name", ENGINES)
def test_engine_answers_in_time_at_8x8_with_one_second(name: str) -> None:
    position = random_position(8, 8, seed=88)
    result, cpu = run_counting_cpu([*engine(name), "8x8", position.player, position.board(), "1"])
    assert result.returncode == 0, result.stderr
    answer_of(position, result.stdout)
    # Its work fits the limit plus the referee's default grace, counted as CPU time, which a loaded
    # machine does not stretch (the engines search on one core, so on an idle one CPU ~ wall).
    assert cpu < 1.5


def test_engines_answer_the_empty_board_and_the_last_empty_cell() -> None:
    last = Position(4, 4, rows(".xox", "oxox", "xoxo", "xoxo"))
    for name in ENGINES:
        for position in (initial_position(), last):
            result = run_program([*engine(name), position.size_text, position.player, position.board(), "0.3"])
            assert result.returncode == 0, (name, result.stderr)
            column = answer_of(position, result.stdout)
            if position is last:
                assert column == 1


# --- tactics --------------------------------------------------------------------------------------

# x to move at 7x6: x wins at once in column 4 (bottom row); o threatens nothing.
X_WINS_IN_ONE = rows(".......", ".......", ".......", ".......", "ooo....", "xxx....")
# o to move: x threatens column 5 (three in the bottom row, columns 2 to 4); o must block there.
O_MUST_BLOCK = rows(".......", ".......", ".......", ".......", "o......", "oxxx...")


def test_alphabeta_finds_a_win_in_one_and_blocks_a_loss_in_one() -> None:
    win = Position.from_text("7x6", "x", X_WINS_IN_ONE)
    result = alphabeta.choose_move(win, time.monotonic() + 5, max_depth=4)
    assert (result.move, result.score) == (4, WIN - 1)
    block = Position.from_text("7x6", "o", O_MUST_BLOCK)
    assert block.opponent_has_winning_move() and block.after(5).opponent_has_winning_move() is False
    for depth in (1, 2, 3, 6):
        assert alphabeta.choose_move(block, time.monotonic() + 5, max_depth=depth).move == 5


def test_engines_take_the_win_and_block_as_programs() -> None:
    for name in ENGINES:
        result = run_program([*engine(name), "7x6", "x", X_WINS_IN_ONE, "0.5"])
        if name != "random_mover":
            assert answer_of(Position.from_text("7x6", "x", X_WINS_IN_ONE), result.stdout) == 4, name
            result = run_program([*engine(name), "7x6", "o", O_MUST_BLOCK, "0.5"])
            assert answer_of(Position.from_text("7x6", "o", O_MUST_BLOCK), result.stdout) == 5, name


def test_greedy_and_mcts_alphabeta_take_the_win_and_block() -> None:
    win = Position.from_text("7x6", "x", X_WINS_IN_ONE)
    block = Position.from_text("7x6", "o", O_MUST_BLOCK)
    assert {greedy.choose_move(win, Rng(seed)) for seed in range(10)} == {4}
    assert {greedy.choose_move(block, Rng(seed)) for seed in range(10)} == {5}
    assert mcts_alphabeta.choose_move(win, time.monotonic() + 1, Rng(1))[0] == 4
    assert mcts_alphabeta.choose_move(block, time.monotonic() + 1, Rng(1), max_depth=3, playouts=50)[0] == 5
    assert random_mover.choose_move(win, Rng(3)) in win.legal_moves()


def test_alphabeta_finds_a_win_in_three_plies() -> None:
    # 7x6, x to move: column 2 or 5 makes an open three in the bottom row, two threats o cannot both stop.
    position = Position.from_text("7x6", "x", rows(".......", ".......", ".......", ".......", "..oo...", "..xx..."))
    result = alphabeta.choose_move(position, time.monotonic() + 5, max_depth=4)
    assert result.move in (2, 5)
    assert result.score == WIN - 3


# --- the searches on a full board -----------------------------------------------------------------


def test_alphabeta_scores_a_board_filled_without_a_four_as_a_draw() -> None:
    # 4x4, x to move, one empty cell: x's last disc fills the board without a four.
    last = Position(4, 4, rows(".xox", "oxox", "xoxo", "xoxo"))
    result = AlphaBeta(evaluate).search(last, 4)
    assert (result.move, result.score) == (1, 0)
    # Two empty cells: o's last disc fills it; whatever x does, a draw.
    two = Position(4, 4, rows("..ox", "oxox", "xoxo", "xoxo"))
    assert AlphaBeta(evaluate).search(two, 6).score == 0


def test_mcts_plays_through_full_boards_as_draws() -> None:
    two = Position(4, 4, rows("..ox", "oxox", "xoxo", "xoxo"))
    mcts = MCTS(evaluate, Rng(5))
    mcts.run(two, max_playouts=50)
    stats = mcts.root_statistics(two)
    assert set(stats) == {1, 2}
    assert all(mean == 0.5 for _visits, mean, _proof in stats.values())
    # From the empty 4x4 board playouts may fill the board: no error, every move visited.
    empty = initial_position(4, 4)
    mcts = MCTS(evaluate, Rng(6), playout_plies=40)
    mcts.run(empty, max_playouts=300)
    assert set(mcts.root_statistics(empty)) == {1, 2, 3, 4}


# --- the threat evaluation ------------------------------------------------------------------------


def test_windows_through_each_cell_of_7x6_is_the_classic_table() -> None:
    g = initial_position(7, 6).geometry
    counts = windows_through(g)
    bottom_up = [[counts[c * g.stride + h] for c in range(7)] for h in range(6)]
    assert bottom_up == [
        [3, 4, 5, 7, 5, 4, 3],
        [4, 6, 8, 10, 8, 6, 4],
        [5, 8, 11, 13, 11, 8, 5],
        [5, 8, 11, 13, 11, 8, 5],
        [4, 6, 8, 10, 8, 6, 4],
        [3, 4, 5, 7, 5, 4, 3],
    ]


def test_evaluation_counts_centre_discs_and_threats_by_row_parity() -> None:
    assert evaluate(initial_position(7, 6)) == 0
    one = Position(7, 6, "." * 35 + "...x...")
    assert evaluate(one) == -CENTRE * 7  # o to move; x's disc is in 7 windows
    assert balance(one, PLAYER_X) == CENTRE * 7 and balance(one, PLAYER_O) == -CENTRE * 7
    # x to move: x's three in the bottom row threatens column 4 in row 1 (odd: x's rows, a threat).
    # Centre: x's cells are in 3 + 4 + 5 windows, o's in 4 + 6 (row 2) + 5 (row 1, column 5).
    odd = Position(7, 6, rows(".......", ".......", ".......", ".......", "oo.....", "xxx.o.."))
    assert odd.winning_cells(PLAYER_X) == 1 << (3 * 7) and odd.winning_cells(PLAYER_O) == 0
    # The threat is free (no o threat under or on it): x's free odd threat.
    assert evaluate(odd) == CENTRE * ((3 + 4 + 5) - (4 + 6 + 5)) + THREAT + FREE[0] == 224
    assert balance(odd, PLAYER_X) == CENTRE * ((3 + 4 + 5) - (4 + 6 + 5)) + GREEDY_THREAT == 54
    # o to move: x's three in row 2 threatens column 4 in row 2 (even: o's rows, a weak threat).
    even = Position(7, 6, rows(".......", ".......", ".......", ".......", "xxx....", "oox.o.."))
    assert even.winning_cells(PLAYER_X) == 1 << (3 * 7 + 1) and even.winning_cells(PLAYER_O) == 0
    assert evaluate(even) == -(CENTRE * ((5 + 4 + 6 + 8) - (3 + 4 + 5)) + WEAK_THREAT + FREE[1]) == -108
    assert balance(even, PLAYER_X) == CENTRE * ((5 + 4 + 6 + 8) - (3 + 4 + 5)) + GREEDY_WEAK_THREAT == 47


def centre_term(position: Position) -> int:
    """The evaluation's centre term, from x's point of view."""
    g = position.geometry
    counts = windows_through(g)
    x, o = position.masks
    return CENTRE * sum(count * ((x >> bit & 1) - (o >> bit & 1)) for bit, count in enumerate(counts))


def test_evaluation_gives_a_bonus_to_each_colours_free_threats_by_row_parity() -> None:
    cell = 9  # bits per column at 8x8
    # x to move. o's three in row 2 threatens column 4 in row 2 (even: o's), x threatens nothing.
    even_o = Position(8, 8, "." * 48 + "ooo....." + "xxxo...x")
    assert even_o.winning_cells(PLAYER_X) == 0
    assert even_o.winning_cells(PLAYER_O) == 1 << (3 * cell + 1)
    assert evaluate(even_o) == centre_term(even_o) - THREAT - FREE[2]
    # x's three in row 1 threatens column 4 in row 1 (odd: x's), under o's threat: only x's is free.
    odd_x = Position(8, 8, "." * 48 + "ooo....." + "xxx.o..x")
    assert odd_x.winning_cells(PLAYER_X) & ~odd_x.masks[1] == 1 << (3 * cell)
    assert odd_x.winning_cells(PLAYER_O) & ~odd_x.masks[0] == 1 << (3 * cell + 1)
    assert evaluate(odd_x) == centre_term(odd_x) + THREAT - THREAT + FREE[0]
    # o to move. o's three in row 1 threatens column 8 in row 1 (odd: x's rows), x threatens nothing.
    odd_o = Position(8, 8, "." * 48 + "x..x...." + "x..xooo.")
    assert odd_o.winning_cells(PLAYER_X) & ~odd_o.masks[1] == 0
    assert odd_o.winning_cells(PLAYER_O) & ~odd_o.masks[0] == 1 << (7 * cell)
    assert evaluate(odd_o) == -(centre_term(odd_o) - WEAK_THREAT - FREE[3])
    # Greedy's balance goes without the bonus, with its own threat weights.
    assert balance(odd_x, PLAYER_X) == centre_term(odd_x)
    assert balance(even_o, PLAYER_O) == GREEDY_THREAT - centre_term(even_o)
    assert balance(odd_o, PLAYER_O) == GREEDY_WEAK_THREAT - centre_term(odd_o)


@pytest.mark.parametrize("size", [(8, 8), (7, 6), (4, 4), (5, 11), (12, 12)])
def test_evaluation_is_its_features_weighted(size: tuple[int, int]) -> None:
    rng = random.Random(size[0] * 100 + size[1])
    width, height = size
    checked = 0
    for _ in range(300):
        position = Position(width, height)
        for _ in range(rng.randrange(width * height + 1)):
            moves = position.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            position.push(move)
            if position.winner_after_push(move) is not None:
                position.pop()
                break
        value = sum(f * w for f, w in zip(features(position), weights()))
        expected = 0 if position.is_full() else -value if position.turn else value
        assert evaluate(position) == expected
        checked += any(features(position)[3:])
    assert checked > 20  # free threats were among the positions


def test_evaluation_of_a_full_board_is_a_draw() -> None:
    assert evaluate(Position(4, 4, rows("oxox", "oxox", "xoxo", "xoxo"))) == 0


# --- the homework player --------------------------------------------------------------------------


def make_example(moves: list[int]) -> Position:
    """The seed's ``makeExample``: its 0-based columns dropped in turn from the empty 8x8 board, x first
    (no check for a four: the seed's ninth board plays on after o's)."""
    position = initial_position(8, 8)
    for move in moves:
        position.push(move + 1)
    return position


R1 = "ox" * 4
"""The seed's ``r1 = [2, 1]*4``: O X O X ... (1 is X, 2 is O)."""
R2 = "xo" * 4
"""The seed's ``r2 = [1, 2]*4``."""
EMPTY_ROW = "........"

# The seed's testEval calls, in its order: the 0-based columns it passes to makeExample, the board that
# builds (rows top first, as printBoard shows row 0 of the array on top; the seed's printouts of the
# eighth and ninth boards show the same rows), and the value its Appendix prints with THREE_SCORE = 50
# and TWO_SCORE = 10. The seed's ninth board plays on after o's four; the tenth is its full board.
SEED_EVAL_EXAMPLES: list[tuple[list[int], list[str], int]] = [
    ([3, 0, 4, 2, 5, 2, 4], ["..o.x...", "o.oxxx.."], -80),
    ([6, 5, 1], [".x...ox."], 0),
    ([0, 2, 6, 1, 2, 1], [".ox.....", "xoo...x."], 20),
    ([2, 6, 6, 1, 4, 0, 3, 3, 3, 2], ["...x....", "..oo..x.", "ooxxx.o."], -20),
    ([4, 3, 2, 6, 5, 3, 7, 5, 4, 4, 1, 2], ["....o...", "..ooxo..", ".xxoxxox"], 90),
    ([3, 5, 6, 2, 2, 5, 7, 3, 6, 6, 5, 4, 6, 4, 4], ["......x.", "....xxo.", "..xooox.", "..oxooxx"], -10),
    ([5, 1, 7, 0, 3, 6, 1, 4, 2, 2, 5, 0, 4, 5, 4, 2, 3, 6, 6, 1, 1, 2, 2, 7, 6, 7, 2, 0, 0, 5, 4, 7, 7, 4, 2],
     ["..x.....", "..x.....", "..x.o..x", "xxo.xoxo", "ooo.xoxo", "oxoxxxoo", "ooxxoxox"], -30),
    ([7, 1, 1, 5, 6, 1, 7, 6, 1, 3, 1, 2, 6, 0, 6], [".x......", ".x....x.", ".o....x.", ".x....ox", "oooo.oxx"],
     9223372036854775807),
    ([7, 7, 7, 4, 0, 0, 7, 6, 7, 2, 6, 6, 7, 6, 1],
     [".......x", ".......x", "......ox", "......ox", "o.....xo", "xxo.o.ox"], -9223372036854775807),
]


def seed_board(lowest_rows: list[str]) -> str:
    """An 8x8 board from its lowest rows (the rows above them empty)."""
    return EMPTY_ROW * (8 - len(lowest_rows)) + "".join(lowest_rows)


@pytest.mark.parametrize(("moves", "lowest_rows", "value"), SEED_EVAL_EXAMPLES)
def test_homework_evaluation_reproduces_the_seeds_printed_values(
    moves: list[int], lowest_rows: list[str], value: int
) -> None:
    position = make_example(moves)
    assert position.board() == seed_board(lowest_rows)
    assert homework.evaluate(position) == value


def test_homework_evaluation_of_the_seeds_full_board_is_0() -> None:
    # testEval(np.array([r1, r2, r2, r1, r2, r2, r1, r2])): no four, every window mixed.
    position = Position(8, 8, R1 + R2 + R2 + R1 + R2 + R2 + R1 + R2)
    assert position.is_full() and position.outcome() is None
    assert homework.evaluate(position) == 0
    assert homework.O_WINS == sys.maxsize == -homework.X_WINS


@pytest.mark.parametrize(("moves", "depth", "expected"), [
    ([3, 4, 2, 5, 2, 6, 2], 1, (sys.maxsize, 8)),  # o completes the bottom row 4-7 (the seed's column 7)
    ([3, 4, 2, 5, 2, 0, 2], 1, (10, 3)),  # o must stop x's column (the seed's 2)
    ([3, 4, 2, 5, 2, 0, 2], 2, (-50, 3)),
    ([3, 0, 4, 4, 3, 4, 5], 2, (-sys.maxsize, 8)),  # x's open three: lost, the seed's default column 7
])
def test_homework_minimax_reproduces_the_seeds_printed_results(
    moves: list[int], depth: int, expected: tuple[int, int]
) -> None:
    """The seed's Problem Two Part B: minMax(board, O, 0, -sys.maxsize, sys.maxsize) with maxDepth 1 or 2
    gives (9223372036854775807, 7), (10, 2), (-50, 2), (-9223372036854775807, 7) in its 0-based columns."""
    position = make_example(moves)
    assert position.player == "o"
    limit = homework.NodeLimit()
    assert homework.minimax(position, 0, -sys.maxsize, sys.maxsize, limit, depth) == expected


def test_homework_examines_at_most_10000_nodes_per_move() -> None:
    assert homework.MAX_NODES == 10_000
    position = initial_position(8, 8)
    move, limit = homework.choose_move(position, max_depth=8)
    assert limit.examined == 10_000  # the budget is used up ...
    assert limit.nodes > 10_000  # ... and the calls past it returned at once
    assert position.is_legal(move)
    _move, shallow = homework.choose_move(position, max_depth=3)
    assert shallow.examined == shallow.nodes < 10_000
    for seed in range(5):
        position = random_position(12, 12, seed)
        move, limit = homework.choose_move(position)
        assert limit.examined <= 10_000 and position.is_legal(move)


def test_homework_default_last_column_falls_back_to_a_legal_one() -> None:
    # 4x4, o to move, column 4 full: x wins whatever o does, so minimax has no best move and gives the
    # seed's default, the last column; the player then takes the last legal column instead.
    position = Position(4, 4, rows(".o.x", ".o.o", ".xxx", "xxoo"))
    assert position.legal_moves() == [1, 3]
    assert homework.minimax(position, 0, -sys.maxsize, sys.maxsize, homework.NodeLimit(), 2) == (-sys.maxsize, 4)
    move, _limit = homework.choose_move(position, max_depth=2)
    assert move == 3


# --- the proven endgame ---------------------------------------------------------------------------

# 8x8 positions of one game lost by alpha-beta as o against homework (the columns played, 1-based).
LOST_GAME = "535567666567877677355733256327322653223221111111144"


def played(moves: str, width: int = 8, height: int = 8) -> Position:
    position = initial_position(width, height)
    for char in moves:
        position.push(int(char))
    return position


def plain_scores(position: Position) -> dict[int, int]:
    """Every legal move's exact score in Pons's convention, by a plain memoised negamax over every
    move: a win with the disc about to be played, when ``discs`` are on the board, scores
    (W*H + 1 - discs) // 2 (one point per own disc left unplayed, plus one: a win with one's last disc
    scores 1); filling the board without a four scores 0; any other move scores minus the best score
    of the position it leaves, for the opponent."""
    cells = position.width * position.height
    memo: dict[tuple[str, int], int] = {}

    def scores(node: Position) -> dict[int, int]:
        found = {}
        for move in node.legal_moves():
            discs = node.plies
            node.push(move)
            if node.winner_after_push(move) is not None:
                found[move] = (cells + 1 - discs) // 2
            elif node.plies == cells:
                found[move] = 0
            else:
                key = (node.board(), node.turn)
                if key not in memo:
                    memo[key] = max(scores(node).values())
                found[move] = -memo[key]
            node.pop()
        return found

    return scores(position.copy())


def test_endgame_solves_every_move_exactly_in_pons_scores() -> None:
    # x to move, 24 empty cells, column 3 full: columns 1 and 2 win (with x's 7th last disc), 4 and 8 lose.
    position = played(LOST_GAME[:40])
    before = position.board()
    expected = plain_scores(position)
    assert sorted(expected) == [1, 2, 4, 8] and expected[1] == expected[2] > 0 > expected[4]
    scores = connect4_endgame.solve_moves(position, position.legal_moves(), time.monotonic() + 30, stop_at_win=False)
    assert scores == expected
    assert position.board() == before
    # o to move, lost: every move is solved, and the longest loss is played.
    lost = played(LOST_GAME[:41])
    expected = plain_scores(lost)
    assert max(expected.values()) < 0
    longest = [move for move, score in expected.items() if score == max(expected.values())]
    assert connect4_endgame.endgame(lost, time.monotonic() + 30) == (longest[0], expected, frozenset())
    assert len(longest) == 1


def test_endgame_stops_at_the_first_win_and_at_an_immediate_win() -> None:
    position = played(LOST_GAME[:36])
    expected = plain_scores(position)
    winning = {move for move, score in expected.items() if score > 0}
    assert winning == {1, 2, 3} and len({expected[move] for move in winning}) == 1  # all three win alike
    # The order: the opponent's evaluation one ply on, lowest first, the centre first among equals.
    order = connect4_endgame.static_order(position)
    assert order == sorted(position.legal_moves(), key=lambda m: (evaluate(position.after(m)), abs(2 * m - 9), m))
    # The position's value is proved (won), with the winning move the proof rests on.
    kept, scores, avoid = connect4_endgame.endgame(position, time.monotonic() + 30)
    assert kept in winning and scores == {kept: 1} and not avoid
    assert connect4_endgame.solve_moves(position, [1, 2, 4, 3, 8], time.monotonic() + 30) == {1: expected[1]}
    # x wins at once in column 4 (bottom row): the fastest win, 8x8 with 6 discs played.
    board = "." * 48 + "ooo....." + "xxx....."
    win = Position.from_text("8x8", "x", board)
    assert connect4_endgame.solve_moves(win, [1, 4], time.monotonic() + 30) == {4: (64 + 1 - 6) // 2}


# 7x6, x to move with 16 empty cells: a drawn position that only column 5 keeps.
DRAWN = "21176541441241553617644266"


def test_endgame_keeps_a_drawn_position_with_its_one_drawing_move() -> None:
    position = played(DRAWN, 7, 6)
    expected = plain_scores(position)
    assert max(expected.values()) == 0 and [move for move, score in expected.items() if score == 0] == [5]
    assert connect4_endgame.static_order(position).index(5) > 0  # not simply the first one tried
    assert connect4_endgame.endgame(position, time.monotonic() + 30) == (5, {5: 0}, frozenset())
    for move in position.legal_moves():  # after each other move the opponent keeps a win; after 5, the draw
        kept, scores, avoid = connect4_endgame.endgame(position.after(move), time.monotonic() + 30)
        assert kept is not None and list(scores) == [kept] and not avoid, move
        assert (scores[kept] > 0) == (move != 5) and (scores[kept] == 0) == (move == 5), move


def test_keep_value_gives_up_at_the_deadline_and_restores_the_alarm_handler() -> None:
    import signal

    position = played(LOST_GAME[:8])  # 56 empty cells: more than 20 s to prove its value
    before = signal.getsignal(signal.SIGALRM)
    start, cpu = time.monotonic(), time.thread_time()
    order = connect4_endgame.static_order(position)
    assert connect4_endgame.keep_value(position, order, start + 0.1) == (None, {}, frozenset())
    assert time.thread_time() - cpu < 1.0
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert connect4_endgame.keep_value(position, order, start - 1) == (None, {}, frozenset())  # no time: nothing tried


def test_endgame_is_not_tried_with_many_empty_cells() -> None:
    position = played(LOST_GAME[:20])  # 44 empty cells
    assert connect4_endgame.endgame(position, time.monotonic() + 30) == (None, {}, frozenset())


def test_endgame_gives_up_at_the_deadline_and_restores_the_alarm_handler() -> None:
    import signal

    position = played(LOST_GAME[:20])  # 44 empty cells: seconds to solve
    before = signal.getsignal(signal.SIGALRM)
    start, cpu = time.monotonic(), time.thread_time()
    scores = connect4_endgame.solve_moves(position, position.legal_moves(), start + 0.1, stop_at_win=False)
    # Stopped by the alarm: well under the seconds of CPU the whole solve takes (CPU time, which a
    # loaded machine does not stretch as it stretches the wall time).
    assert time.thread_time() - cpu < 1.0
    assert len(scores) < len(position.legal_moves())
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert connect4_endgame.solve_moves(position, [5], start - 1) == {}  # no time: nothing solved


def test_endgame_gives_up_even_where_the_first_alarm_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    # An exception raised in a weakref callback or a __del__ is printed and dropped while the code
    # it interrupted runs on: here the first alarm's is dropped, and a fresh solver starts over.
    from engines.connect4_solver import Solver

    solve, lost = Solver.solve, []

    def solve_losing_the_first_alarm(self: Solver, state: object) -> int:
        if not lost:
            try:
                return solve(self, state)
            except connect4_endgame._OutOfTime:
                lost.append(True)
        return solve(Solver(8, 8), state)

    monkeypatch.setattr(Solver, "solve", solve_losing_the_first_alarm)
    position = played(LOST_GAME[:20])  # 44 empty cells: seconds to solve
    start, cpu = time.monotonic(), time.thread_time()
    scores = connect4_endgame.solve_moves(position, position.legal_moves(), start + 0.1, stop_at_win=False)
    assert lost == [True]
    assert len(scores) < len(position.legal_moves())
    assert time.thread_time() - cpu < 1.0  # the alarm fired again: not the seconds of the whole solve


def test_proven_move() -> None:
    order = [3, 1, 2]
    assert connect4_endgame.proven_move({}, order) is None
    assert connect4_endgame.proven_move({1: 4}, order) == 1  # a win settles it
    assert connect4_endgame.proven_move({3: 0, 1: -2}, order) is None  # move 2 might win
    assert connect4_endgame.proven_move({3: -5, 1: 0, 2: 0}, order) == 1  # the first best in order


def out_of_time_at_call(monkeypatch: pytest.MonkeyPatch, call: int) -> list[int]:
    """Make the solver's ``call``-th solve (1-based) run out of time, as the interval timer would
    (every solve before it runs in full); returns the list of calls made."""
    from engines.connect4_solver import Solver

    solve, calls = Solver.solve, []

    def solve_until(self: Solver, state: object, *args: object, **kwargs: object) -> int:
        calls.append(len(calls) + 1)
        if len(calls) == call:
            raise connect4_endgame._OutOfTime
        return solve(self, state, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Solver, "solve", solve_until)
    return calls


def test_keep_value_tries_the_moves_in_order_when_the_proof_names_none(monkeypatch: pytest.MonkeyPatch) -> None:
    # As when the proof of the value ends on a bound, not a move: the moves are tried in the order,
    # each proved to lose the draw (scored -1) or to keep it, and the first that keeps it is played.
    from engines.connect4_solver import Solver

    position = played(DRAWN, 7, 6)
    order = connect4_endgame.static_order(position)
    calls = out_of_time_at_call(monkeypatch, 100)
    assert connect4_endgame.keep_value(position, order, time.monotonic() + 30).move == 5
    assert len(calls) == 1  # the proof of the draw names 5: nothing more to solve
    monkeypatch.setattr(Solver, "root_move", None)
    assert connect4_endgame.keep_value(position, order, time.monotonic() + 30) == (5, {5: 0}, frozenset())
    calls = out_of_time_at_call(monkeypatch, 100)
    assert connect4_endgame.keep_value(position, order, time.monotonic() + 30).move == 5
    assert len(calls) == 2 + order.index(5)  # the value, then each move up to 5


def test_keep_value_out_of_time_avoids_the_moves_proved_not_to_keep_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # The drawn position only column 5 keeps: the value is proved (the first solve, naming no move
    # here), then the moves before 5 in the order are proved to lose it, and time runs out at 5's.
    # Another move keeps the draw, so the search must not play those.
    from engines.connect4_solver import Solver

    monkeypatch.setattr(Solver, "root_move", None)
    position = played(DRAWN, 7, 6)
    order = connect4_endgame.static_order(position)
    tried = order[:order.index(5)]
    assert tried
    calls = out_of_time_at_call(monkeypatch, 2 + len(tried))
    proof = connect4_endgame.keep_value(position, order, time.monotonic() + 30)
    assert proof == (None, dict.fromkeys(tried, -1), frozenset(tried)) and len(calls) == 2 + len(tried)
    # Out of time while the value is proved: nothing is known, nothing avoided.
    out_of_time_at_call(monkeypatch, 1)
    assert connect4_endgame.keep_value(position, order, time.monotonic() + 30) == (None, {}, frozenset())


def test_lost_position_out_of_time_avoids_the_moves_proved_worse(monkeypatch: pytest.MonkeyPatch) -> None:
    # o to move, lost: the value (the first solve), then each move exactly, in the order; time runs
    # out at the third move. The move of the two solved that loses sooner is avoided.
    lost = played(LOST_GAME[:41])
    expected = plain_scores(lost)
    by_score = sorted(expected, key=expected.__getitem__)
    order = [by_score[0], by_score[-1], *by_score[1:-1]]  # the soonest loss, the longest, the rest
    assert len(order) >= 3 and expected[order[0]] < expected[order[1]]
    out_of_time_at_call(monkeypatch, 4)
    proof = connect4_endgame.keep_value(lost, order, time.monotonic() + 30)
    assert proof == (None, {order[0]: expected[order[0]], order[1]: expected[order[1]]}, frozenset(order[:1]))


def test_search_leaves_the_moves_to_avoid_out_of_its_root() -> None:
    block = Position.from_text("7x6", "o", O_MUST_BLOCK)
    legal = block.legal_moves()
    for depth in (1, 4):
        result = alphabeta.choose_move(block, None, depth, avoid={5})
        assert result.move != 5 and result.score == -(WIN - 2), depth  # every other move loses at once
        assert alphabeta.choose_move(block, None, depth, avoid=legal).move == 5  # never every legal move
        assert alphabeta.choose_move(block, None, depth, rng=Rng(3), avoid=[m for m in legal if m != 2]).move == 2
    move, result, _ = mcts_alphabeta.choose_move(block, time.monotonic() + 30, Rng(1), max_depth=3, playouts=50,
                                                 avoid={5})
    assert move != 5 and result.move != 5
    assert mcts_alphabeta.choose_move(block, time.monotonic() + 30, Rng(1), max_depth=3, playouts=50,
                                      avoid=legal)[0] == 5


@pytest.mark.parametrize("name", ["alphabeta", "mcts_alphabeta"])
def test_engine_plays_a_proven_win_in_the_endgame_in_time(name: str) -> None:
    # x to move, 36 empty cells: the solver proves six winning columns (4 and 8 lose).
    position = played(LOST_GAME[:28])
    result, cpu = run_counting_cpu([*engine(name), "8x8", "x", position.board(), "1"])
    assert result.returncode == 0, result.stderr
    assert answer_of(position, result.stdout) in (1, 2, 3, 5, 6, 7)
    assert cpu < 1.5  # as in test_engine_answers_in_time_at_8x8_with_one_second
