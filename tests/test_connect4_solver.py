"""The Connect Four solver: Pons's test sets (a sample), parse errors, scores against brute force."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engines.connect4_solver import (
    LONG_TABLE_SIZE,
    MOVE_TABLE_SIZE,
    PositionError,
    Solver,
    State,
    from_columns,
    parse_moves,
    sign,
    solve,
    solve_lines,
)

PONS = Path(__file__).resolve().parent / "data" / "pons"
"""Samples of Pons's test sets (tests/data/README.md says which lines); scripts/bench_solver.py runs whole sets."""


@pytest.mark.parametrize("name", ["Test_L1_R1", "Test_L1_R2", "Test_L2_R1", "Test_L2_R2", "Test_L3_R1"])
def test_solver_matches_pons_scores_on_a_sample_of_each_set(name: str) -> None:
    lines = (PONS / name).read_text().splitlines()
    assert lines
    assert list(solve_lines(lines)) == lines


def test_solve_lines_skips_blank_lines_and_adds_the_score() -> None:
    assert list(solve_lines(["112233", "", "  ", "22334 5"])) == ["112233 18", "22334 -18"]


def test_solve_lines_names_the_line_of_a_bad_position_without_its_text() -> None:
    with pytest.raises(PositionError) as error:
        list(solve_lines(["2252576253462244111563365343671351441", "", "4x"]))
    assert str(error.value) == "line 3: character 2 of the position is not a column digit (moves are column digits 1..7)"
    with pytest.raises(PositionError) as error:
        list(solve_lines(["1 2 3"]))
    assert str(error.value) == "line 1: expected 'POSITION [SCORE]', got 3 words"


@pytest.mark.parametrize(("text", "size", "message"), [
    ("12a4", (7, 6), "invalid character 'a' at index 2 of '12a4': moves are column digits 1..7"),
    ("1 2", (7, 6), "invalid character ' ' at index 1 of '1 2': moves are column digits 1..7"),
    ("1890", (7, 6), "column 8 (move 2 of '1890') is out of range 1..7"),
    ("0", (7, 6), "column 0 (move 1 of '0') is out of range 1..7"),
    ("1111111", (7, 6), "column 1 (move 7 of '1111111') is full: it holds 6 discs"),
    ("4455667", (7, 6), "move 7 of '4455667' (column 7) wins the game: a finished position has no score"),
    ("44556671", (7, 6), "move 7 of '44556671' (column 7) wins the game, so the moves after it are not legal"),
    ("2334412114421332", (4, 4), "'2334412114421332' fills the board: a finished position (a draw) has no score"),
    ("1", (3, 6), "board 3x6 is not supported: width and height must be in 4..12"),
    ("1", (7, 13), "board 7x13 is not supported: width and height must be in 4..12"),
])
def test_parse_moves_refuses_bad_positions_naming_the_problem(text: str, size: tuple[int, int], message: str) -> None:
    with pytest.raises(ValueError) as error:
        parse_moves(text, *size)
    assert isinstance(error.value, PositionError)
    assert str(error.value) == message


def test_from_columns_reaches_columns_above_nine_on_wide_boards() -> None:
    state = from_columns([12, 12, 11, 11, 10, 10], 12, 4)
    assert solve(state) == 12 * 4 // 2 + 1 - 4  # the first player completes 9-10-11-12 with its 4th disc


def test_parse_moves_builds_pons_bitboards() -> None:
    state = parse_moves("4", 7, 6)
    assert state == State(7, 6, current=0, mask=1 << 21, moves=1)  # column 4 starts at bit 3 * 7
    assert parse_moves("44", 7, 6).current == 1 << 21  # the side to move owns the bottom disc


@pytest.mark.parametrize(("moves", "width", "height", "score"), [
    ("112233", 7, 6, 18),  # the side to move wins at once with its 4th disc: 7*6/2 + 1 - 4
    ("2233", 7, 6, 18),  # an open three on the bottom row: the mover wins with its 4th disc
    ("22334", 7, 6, -18),  # two open ends: the opponent wins with its 4th disc
    ("112233", 4, 4, 5),  # 4*4/2 + 1 - 4
])
def test_scores_follow_pons_convention(moves: str, width: int, height: int, score: int) -> None:
    assert solve(parse_moves(moves, width, height)) == score


_BRUTE_FORCE: dict[tuple[tuple[int, ...], ...], int] = {}
"""Scores found by brute_force, shared by all its calls (a grid's tuple names its size too)."""


def brute_force(moves: list[int], width: int, height: int) -> int:
    """Pons's score by plain minimax over every continuation (memoised), with no pruning."""
    grid = [[0] * height for _ in range(width)]
    for index, column in enumerate(moves):
        grid[column - 1][grid[column - 1].index(0)] = 1 + index % 2

    def makes_four(column: int, row: int, player: int) -> bool:
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            count = 1
            for way in (1, -1):
                c, r = column + way * dc, row + way * dr
                while 0 <= c < width and 0 <= r < height and grid[c][r] == player:
                    count += 1
                    c, r = c + way * dc, r + way * dr
            if count >= 4:
                return True
        return False

    def value(played: int) -> int:
        key = tuple(tuple(column) for column in grid)
        if key in _BRUTE_FORCE:
            return _BRUTE_FORCE[key]
        player = 1 + played % 2
        playable = [(c, grid[c].index(0)) for c in range(width) if 0 in grid[c]]
        best = None
        for c, r in playable:
            if makes_four(c, r, player):
                best = (width * height + 1 - played) // 2
                break
        if best is None:
            for c, r in playable:
                grid[c][r] = player
                score = -value(played + 1)
                grid[c][r] = 0
                best = score if best is None else max(best, score)
        _BRUTE_FORCE[key] = best = 0 if best is None else best
        return best

    return value(len(moves))


def random_position(rng: random.Random, width: int, height: int, discs: int) -> list[int]:
    """Random moves that never make four in a row (retrying when every move would)."""
    while True:
        moves: list[int] = []
        while len(moves) < discs:
            options = list(range(1, width + 1))
            rng.shuffle(options)
            for column in options:
                try:
                    from_columns([*moves, column], width, height)
                except PositionError:
                    continue
                moves.append(column)
                break
            else:
                break
        if len(moves) == discs:
            return moves


@pytest.mark.parametrize(("width", "height", "discs", "count"), [
    (4, 4, 7, 20), (5, 4, 11, 20), (4, 5, 11, 20), (5, 5, 16, 15), (6, 5, 18, 10), (8, 8, 52, 6), (12, 4, 36, 6),
    (4, 12, 36, 6), (12, 12, 132, 3),
])
def test_solver_agrees_with_brute_force_on_random_small_positions(width: int, height: int, discs: int, count: int) -> None:
    rng = random.Random(width * 100 + height)
    solver = Solver(width, height)
    for _ in range(count):
        moves = random_position(rng, width, height, rng.randint(max(0, discs - 3), discs))
        state = from_columns(moves, width, height)
        assert solver.solve(state) == brute_force(moves, width, height), (width, height, moves)


def test_odd_boards_score_a_win_with_ones_last_disc_as_one() -> None:
    # On 5x5 the first player has 13 discs and the second 12: a win with one's last disc scores 1.
    rng = random.Random(7)
    found = set()
    while len(found) < 2:
        discs = rng.choice((23, 24))
        moves = random_position(rng, 5, 5, discs)
        state = from_columns(moves, 5, 5)
        last_disc_wins = False
        for column in range(1, 6):
            try:
                from_columns([*moves, column], 5, 5)
            except PositionError as error:
                last_disc_wins |= "wins the game" in str(error)
        if last_disc_wins:
            assert solve(state) == 1 == brute_force(moves, 5, 5)
            found.add(discs)


def test_solver_keeps_its_table_within_its_size_and_counts_nodes() -> None:
    solver = Solver(7, 6, table_size=64)
    assert solver.solve(parse_moves("2252576253462244111563365343671351441")) == -1
    assert solver.nodes > 0
    assert solver.table_entries <= 64
    solver.reset()
    assert solver.nodes == 0


def test_solver_refuses_a_position_of_another_size() -> None:
    with pytest.raises(PositionError, match="a 6x6 position given to a 7x6 solver"):
        Solver(7, 6).solve(parse_moves("1", 6, 6))


def test_solve_with_a_node_budget_raises_out_of_budget_and_stays_usable() -> None:
    from engines.connect4_solver import OutOfBudget

    solver = Solver(7, 6)
    with pytest.raises(OutOfBudget):
        solver.solve(parse_moves(""), max_nodes=5000)
    assert solver.nodes == 5000
    # The bounds kept from the stopped search are proven ones: the next answers are exact.
    assert solver.solve(parse_moves("2252576253462244111563365343671351441"), max_nodes=100_000) == -1
    assert solver.solve(parse_moves("112233"), max_nodes=1_000_000) == 18


def test_solve_with_a_past_deadline_raises_out_of_budget_at_its_first_look() -> None:
    import time

    from engines.connect4_solver import OutOfBudget

    solver = Solver(7, 6)
    with pytest.raises(OutOfBudget):
        solver.solve(parse_moves("4"), deadline=time.monotonic() - 1)
    assert solver.nodes == 0


# --- the native core (engines/native/connect4_solver.c) against the Python search ---------------------


def native_solver(width: int = 7, height: int = 6, table_size: int = MOVE_TABLE_SIZE) -> Solver:
    solver = Solver(width, height, table_size)
    assert solver.native, "the native core is not built: run .venv/bin/python engines/native/build.py"
    return solver


def test_a_solver_without_a_moves_clock_keeps_what_a_moves_table_drops() -> None:
    from harness.games.connect4.oracle import SolverOracle

    # A Begin-Medium position (Pons's Test_L1_R2) whose proof stores 2.6 M bounds: a move's table
    # drops its older half once, at 2^21, and searches 17% more nodes for the same score.
    position = parse_moves("344163341377")
    move, long = native_solver(table_size=MOVE_TABLE_SIZE), native_solver(table_size=LONG_TABLE_SIZE)
    assert move.solve(position) == long.solve(position) == -2
    assert (move.nodes, move.table_entries) == (4_848_751, 2_073_867)
    assert (long.nodes, long.table_entries) == (4_147_482, 2_608_012)
    # Between positions, tidy empties a table grown past a move's size and keeps the node count;
    # a smaller table stays as it is (both paths).
    long.tidy()
    assert (long.nodes, long.table_entries) == (4_147_482, 0)
    for small in (native_solver(table_size=LONG_TABLE_SIZE), Solver(7, 6, LONG_TABLE_SIZE, native=False)):
        assert small.solve(parse_moves("2252576253462244111563365343671351441")) == -1
        kept = (small.nodes, small.table_entries)
        small.tidy()
        assert (small.nodes, small.table_entries) == kept and 0 < kept[1] <= MOVE_TABLE_SIZE
    # The analysis oracle's solver, kept for many positions, has the long table; an engine's a move's.
    assert SolverOracle(7, 6).solver.table_size == LONG_TABLE_SIZE == 1 << 24
    assert Solver(7, 6).table_size == MOVE_TABLE_SIZE == 1 << 21


def test_a_native_table_that_jumps_to_its_full_size_keeps_the_python_node_counts() -> None:
    # A Middle-Medium position (Pons's Test_L2_R2) whose proof outgrows 2^16 slots: the native table
    # goes at once to 2^18 slots for a table of 2^17 entries (where it then drops its older half) and
    # to 2^22 for a move's table; the Python dict's policy decides what is kept, so the counts agree.
    position = parse_moves("267621632652131")
    for table_size, counts in ((1 << 17, (237_278, 95_168)), (MOVE_TABLE_SIZE, (234_583, 158_538))):
        native, python = native_solver(table_size=table_size), Solver(7, 6, table_size, native=False)
        assert native.solve(position) == python.solve(position) == 3
        assert (native.nodes, native.table_entries) == (python.nodes, python.table_entries) == counts


SIZES = [(w, h) for w in range(4, 13) for h in range(4, 13)]
WIDE_SIZES = [(w, h) for w, h in SIZES if w * (h + 1) > 128]
"""The boards over 128 bits (with their sentinel row): the native core's three-word board type."""
NARROW_SIZES = [size for size in SIZES if size not in WIDE_SIZES]
"""The boards of one or two 64-bit words."""


def test_native_core_takes_every_supported_size() -> None:
    assert WIDE_SIZES == [(10, 12), (11, 11), (11, 12), (12, 10), (12, 11), (12, 12)]  # 130 to 156 bits
    for width, height in SIZES:
        assert native_solver(width, height).native, (width, height)
    assert not Solver(7, 6, native=False).native
    assert not Solver(12, 12, native=False).native


def test_arena_pure_keeps_the_python_search() -> None:
    import subprocess
    import sys

    code = ("from engines.connect4_solver import Solver, parse_moves\n"
            "print(Solver(7, 6).native, Solver(7, 6).solve(parse_moves('112233')))")
    root = Path(__file__).resolve().parent.parent
    for pure, shown in (("1", "False 18"), ("0", "True 18")):
        done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60,
                              env={"PATH": "/usr/bin:/bin", "ARENA_PURE": pure})
        assert (done.returncode, done.stdout.strip(), done.stderr) == (0, shown, "")


@pytest.mark.parametrize(("width", "height"), NARROW_SIZES)
def test_native_and_python_searches_give_the_same_scores_and_node_counts(width: int, height: int) -> None:
    # Random positions with 6 to 13 empty cells, one table kept across them; a tiny table trims often.
    rng = random.Random(f"native:{width}x{height}")
    for table_size in (rng.choice((8, 33, 300)), 1 << 21):
        native, python = native_solver(width, height, table_size), Solver(width, height, table_size, native=False)
        for _ in range(3):
            moves = random_position(rng, width, height, width * height - rng.randint(6, 13))
            state = from_columns(moves, width, height)
            assert native.solve(state) == python.solve(state), (table_size, moves)
            assert (native.nodes, native.table_entries) == (python.nodes, python.table_entries), (table_size, moves)


def careful_position(rng: random.Random, width: int, height: int, discs: int) -> list[int]:
    """Random play in which neither side misses a win in one nor allows one: each move is a random one
    of those that do not make four, block the opponent's playable winning cell when there is one, and
    never go under a cell where the opponent would win; where no move is left, moves are taken back (8,
    then twice as many at each dead end). (Plain random play on a nearly full wide board leaves the side to move a win at once or the
    opponent two: searches of a node or two.)"""
    from engines.connect4_solver import winning_cells

    h1 = height + 1
    bottom = sum(1 << (c * h1) for c in range(width))
    board = bottom * ((1 << height) - 1)
    moves: list[int] = []
    boards = [(0, 0)]  # (current, mask) before each move, and after the last
    back = 8
    while len(moves) < discs:
        current, mask = boards[-1]
        playable = (mask + bottom) & board
        opponent = current ^ mask
        theirs = winning_cells(opponent, board & ~mask, height)
        options = playable & ~(theirs >> 1)
        if theirs & playable:
            options &= theirs
        if not options or winning_cells(current, playable, height):
            del moves[max(0, len(moves) - back):], boards[max(1, len(boards) - back):]
            back *= 2
            continue
        column = rng.choice([c for c in range(width) if options >> (c * h1) & ((1 << h1) - 1)])
        boards.append((opponent, mask | (options & (((1 << h1) - 1) << (column * h1)))))
        moves.append(column + 1)
    return moves


def solve_both(native: Solver, python: Solver, state: State, max_nodes: int | None = None) -> int | None:
    """The score both searches give (None: both ran out of the budget), with the same node counts and tables."""
    from engines.connect4_solver import OutOfBudget

    results: list[int | None] = []
    for solver in (native, python):
        try:
            results.append(solver.solve(state, max_nodes=max_nodes))
        except OutOfBudget:
            results.append(None)
    assert results[0] == results[1]
    assert (native.nodes, native.table_entries) == (python.nodes, python.table_entries)
    return results[0]


@pytest.mark.parametrize(("width", "height"), WIDE_SIZES)
def test_native_and_python_searches_agree_node_for_node_on_boards_over_128_bits(width: int, height: int) -> None:
    # Positions with 18 to 30 empty cells searched for up to 30,000 nodes (most are solved), and ones
    # of 8 to 40 discs for 10,000, one table kept across them; a tiny table trims often. Every column holds discs, so
    # the searches play in the columns that cross from one 64-bit word to the next.
    rng = random.Random(f"wide:{width}x{height}")
    solved = nodes = 0
    for table_size in (rng.choice((8, 33, 300)), 1 << 21):
        native, python = native_solver(width, height, table_size), Solver(width, height, table_size, native=False)
        for _ in range(3):
            moves = careful_position(rng, width, height, width * height - rng.randint(18, 30))
            solved += solve_both(native, python, from_columns(moves, width, height), max_nodes=30_000) is not None
            moves = careful_position(rng, width, height, rng.randint(8, 40))
            solve_both(native, python, from_columns(moves, width, height), max_nodes=10_000)
        nodes += python.nodes
    assert (solved >= 3, nodes > 20_000) == (True, True), (solved, nodes)


def test_a_node_budget_stops_both_searches_at_the_same_node_on_a_wide_board() -> None:
    rng = random.Random("budget:12x12")
    native, python = native_solver(12, 12), Solver(12, 12, native=False)
    assert solve_both(native, python, from_columns([6, 7, 6, 7], 12, 12), max_nodes=20_000) is None
    assert native.nodes == 20_000
    # Only proven bounds were kept: the next answers are the same, with the same node counts.
    for _ in range(3):
        assert solve_both(native, python, from_columns(careful_position(rng, 12, 12, 144 - 24), 12, 12)) is not None


def test_a_deadline_stops_the_native_search_on_a_12x12_board() -> None:
    import time

    from engines.connect4_solver import OutOfBudget

    solver = native_solver(12, 12)
    started = time.monotonic()
    with pytest.raises(OutOfBudget):
        solver.solve(from_columns([], 12, 12), deadline=started + 0.2)
    assert time.monotonic() - started < 5
    moves = [1, 2, 1, 2, 1, 2]
    assert solver.solve(from_columns(moves, 12, 12)) == (144 + 1 - 6) // 2  # the first player's fourth disc wins


def test_the_three_word_board_operations_match_python_integers() -> None:
    from engines.native import load

    lib = load("connect4_solver")
    assert lib is not None, "the native core is not built: run .venv/bin/python engines/native/build.py"
    top, word = (1 << 192) - 1, (1 << 64) - 1

    def op(code: int, a: int, b: int = 0, n: int = 0) -> tuple[int, int]:
        result, board = lib.u192_op(code, a, b, n)
        return board, result

    rng = random.Random("u192")
    # Random values, and values whose words are all ones or zero (the carries and borrows across words).
    pieces = [0, 1, word, word - 1, 1 << 63]
    values = [rng.getrandbits(192) for _ in range(300)]
    values += [rng.choice(pieces) | rng.choice(pieces) << 64 | rng.choice(pieces) << 128 for _ in range(300)]
    for a in values:
        b = rng.choice(values)
        n = rng.randrange(192)
        assert op(0, a, b)[0] == a & b
        assert op(1, a, b)[0] == a | b
        assert op(2, a, b)[0] == a ^ b
        assert op(3, a)[0] == top ^ a
        assert op(4, a, b)[0] == (a + b) & top
        assert op(5, a, b)[0] == (a - b) & top
        assert op(6, a, n=n)[0] == (a << n) & top, n
        assert op(7, a, n=n)[0] == a >> n, n
        assert op(8, a, b)[1] == (a == b)
        assert op(8, a, a)[1] == 1
        assert op(9, a)[1] == (a != 0)
        assert op(10, a)[0] == a & -a
        assert op(11, a)[0] == a & (a - 1) & top
        assert op(12, a)[1] == a.bit_count()
        assert op(13, a)[0] == op(13, a)[0] != op(13, a ^ 1 << 130)[0]
    for n in (0, 1, 63, 64, 65, 127, 128, 129, 191):
        assert op(6, top, n=n)[0] == (top << n) & top
        assert op(7, top, n=n)[0] == top >> n
    assert op(4, (1 << 128) - 1, 1)[0] == 1 << 128  # a carry through two words
    assert op(5, 1 << 128, 1)[0] == (1 << 128) - 1  # a borrow through two words


@pytest.mark.parametrize("name", ["Test_L1_R1", "Test_L1_R2", "Test_L2_R1", "Test_L2_R2", "Test_L3_R1"])
def test_native_and_python_searches_visit_the_same_nodes_on_pons_samples(name: str) -> None:
    lines = [line.split() for line in (PONS / name).read_text().splitlines()][:8]
    native, python = native_solver(table_size=4096), Solver(7, 6, table_size=4096, native=False)
    for moves, score in lines:
        state = parse_moves(moves)
        assert native.solve(state) == python.solve(state) == int(score), moves
        assert native.nodes == python.nodes, moves


def windowed(score: int, low: int, high: int, result: int) -> bool:
    """Whether ``result`` is what a solve with the window (low, high) may say of ``score``."""
    return result <= low if score <= low else result >= high if score >= high else result == score


def test_a_window_proves_only_what_it_asks_the_same_both_ways_and_the_value_alone_costs_less() -> None:
    # The value alone (-1, 1), whether the score reaches each side of its sign or the exact score
    # (v - 1, v), and a wide window: native and Python give the same result with the same nodes. The
    # value alone costs fewer nodes over the sample than the exact score (not on every position: the
    # exact search's first probes below a draw fill the table with easy bounds).
    weak = exact = proved = 0
    for name in ("Test_L2_R1", "Test_L2_R2", "Test_L3_R1"):
        for moves, text in [line.split() for line in (PONS / name).read_text().splitlines()][:6]:
            state, score = parse_moves(moves), int(text)
            solver = native_solver(table_size=4096)
            solver.solve(state)
            exact += solver.nodes
            for low, high in ((-1, 1), (score - 1, score), (score, score + 1), (-1, 0), (0, 1), (-30, 30)):
                native, python = native_solver(table_size=4096), Solver(7, 6, table_size=4096, native=False)
                found = native.solve(state, low=low, high=high)
                assert found == python.solve(state, low=low, high=high), (moves, low, high)
                assert native.nodes == python.nodes, (moves, low, high)
                assert windowed(score, low, high, found), (moves, score, low, high, found)
                # The root move: the same both ways, and it reaches the result (when one was proved).
                assert native.root_move == python.root_move, (moves, low, high)
                if native.root_move is not None:
                    assert -native_solver().solve(parse_moves(moves + str(native.root_move))) >= found
                    proved += 1
                if (low, high) == (-1, 1):
                    assert found == sign(score)  # the value: won, drawn or lost
                    weak += native.nodes
                if (low, high) == (-30, 30) and native.root_move is not None:  # the exact score: a best move
                    assert -native_solver().solve(parse_moves(moves + str(native.root_move))) == score
    assert weak < exact, (weak, exact)
    assert proved == 53, proved  # of 108: a solve that ends failing low, or high on a bound alone, proves none
    with pytest.raises(ValueError, match="a window needs low < high, not 1 and 1"):
        native_solver().solve(parse_moves("4"), low=1, high=1)


def test_a_window_outside_the_scores_possible_is_answered_at_once() -> None:
    # 7x6 after 40 discs: the score lies in [-1, 1]; a window above or below it needs no search.
    rng = random.Random("window")
    for native in (True, False):
        solver = native_solver() if native else Solver(7, 6, native=False)
        for _ in range(5):
            moves = careful_position(rng, 7, 6, 36)
            state = from_columns(moves, 7, 6)
            score = Solver(7, 6, native=False).solve(state)
            before = solver.nodes
            assert solver.solve(state, low=10, high=11) <= 10 and solver.nodes == before
            assert solver.solve(state, low=-11, high=-10) >= -10 and solver.nodes == before
            assert windowed(score, -1, 1, solver.solve(state, low=-1, high=1))


def test_native_core_solves_a_sample_of_begin_hard() -> None:
    # Lines 3 and 6 of Pons's Test_L1_R3 (Begin-Hard; 2.2 M and 1.3 M nodes): too slow in Python for the suite.
    solver = native_solver()
    assert solver.solve(parse_moves("573154743")) == 2
    assert solver.nodes == 2_182_920
    assert solver.solve(parse_moves("13234664")) == -3


@pytest.mark.parametrize("native", [True, False])
def test_a_node_budget_stops_both_searches_at_the_same_node(native: bool) -> None:
    from engines.connect4_solver import OutOfBudget

    solver = Solver(7, 6, native=native)
    assert solver.native == native
    with pytest.raises(OutOfBudget):
        solver.solve(parse_moves(""), max_nodes=12_345)
    assert solver.nodes == 12_345
    with pytest.raises(OutOfBudget):
        solver.solve(parse_moves("4455"), max_nodes=0)
    assert solver.nodes == 12_345
    # Only proven bounds were kept: the next answers are exact, with the node counts of the other path.
    assert solver.solve(parse_moves("2252576253462244111563365343671351441")) == -1
    assert solver.solve(parse_moves("37313333717124171162542")) == 3
    assert solver.nodes == 13_582


@pytest.mark.parametrize("native", [True, False])
def test_a_deadline_stops_a_long_search_within_a_few_seconds(native: bool) -> None:
    import time

    from engines.connect4_solver import OutOfBudget

    solver = Solver(7, 6, native=native)
    started = time.monotonic()
    with pytest.raises(OutOfBudget):
        solver.solve(parse_moves(""), deadline=started + 0.2)
    assert time.monotonic() - started < 5
    assert solver.solve(parse_moves("112233")) == 18


def test_a_timer_signal_stops_the_native_search_and_reads_its_progress() -> None:
    import signal

    class Alarm(Exception):
        pass

    solver = native_solver()
    seen: list[tuple[int, tuple[int, int]]] = []

    def tick(signum: int, frame: object) -> None:
        # Stops once two readings show the count grown while the search runs: on a busy machine the
        # search may get no CPU between two ticks, so how many ticks that takes is the scheduler's
        # (at most 600, a minute, against hanging).
        seen.append((solver.nodes, solver.bounds))
        counted = [nodes for nodes, _ in seen if nodes > 0]
        if (len(seen) >= 3 and counted and counted[-1] > counted[0]) or len(seen) == 600:
            raise Alarm

    previous = signal.signal(signal.SIGALRM, tick)
    signal.setitimer(signal.ITIMER_REAL, 0.1, 0.1)
    try:
        with pytest.raises(Alarm):
            solver.solve(parse_moves(""))  # minutes of search: only the alarm ends it
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    counts = [nodes for nodes, _ in seen]
    counted = [nodes for nodes in counts if nodes > 0]
    assert counts == sorted(counts) and counted and counted[0] < counted[-1], counts  # read while it runs
    low, high = seen[-1][1]
    assert -21 <= low <= 1 <= high <= 21  # bounds of the empty board's score (1), narrowed as proven
    assert solver.solve(parse_moves("2252576253462244111563365343671351441")) == -1


WATCHED_RACE = """
import signal, sys, threading
sys.path.insert(0, sys.argv[1])
from engines.connect4_solver import Solver, parse_moves

class Interrupt(Exception):
    pass

real_lock = threading.Lock

class LateLock:
    # The timed wait takes the lock (the search has ended), then the timer handler's exception comes.
    def __init__(self):
        self.lock = real_lock()
    def acquire(self, blocking=True, timeout=-1):
        got = self.lock.acquire(blocking, timeout)
        if got and timeout != -1:
            raise Interrupt
        return got
    def release(self):
        self.lock.release()
    def locked(self):
        return self.lock.locked()
    def __enter__(self):
        self.lock.acquire()
        return self
    def __exit__(self, *exc):
        self.lock.release()

solver = Solver(7, 6)
assert solver.native
signal.signal(signal.SIGALRM, lambda signum, frame: None)
signal.setitimer(signal.ITIMER_REAL, 100)  # armed: the search runs on a helper thread
threading.Lock = LateLock
try:
    solver.solve(parse_moves("2252576253462244111563365343671351441"))
except Interrupt:
    print("interrupted")
threading.Lock = real_lock
print(solver.solve(parse_moves("2252576253462244111563365343671351441")))
"""


def test_a_timer_exception_just_after_the_search_ended_is_raised_without_waiting_forever(tmp_path: Path) -> None:
    import subprocess
    import sys

    native_solver()  # skips with the reason where the core is not built
    script = tmp_path / "race.py"
    script.write_text(WATCHED_RACE)
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(script), str(root)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["interrupted", "-1"]
