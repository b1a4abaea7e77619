"""Tests of the Betsy rules core (harness/games/betsy/rules.py) against docs/rules.md.

Besides exact examples (the seed's Figure 1, error messages, hand-built positions), the core is
cross-checked against a slow reference implementation written here straight from the rules text:
exhaustively over every position a few plies deep for n = 3 and n = 4, and over seeded random
playouts for other sizes.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.games.betsy.rules import (
    BLUE,
    PLAYERS,
    RED,
    WIN_PRIORITIES,
    Outcome,
    Position,
    PositionError,
    board_problem,
    geometry,
    initial_position,
    parse_move,
    parse_n,
    parse_player,
)

if TYPE_CHECKING:
    from harness.games.betsy.rules import WinPriority

FIGURE_1A = "...x..o.ox.oxxxoxo"
"""The seed's Figure 1(a), n = 3, red (o) to move."""
TYPO_BOARD = "...x..o.ox.oxxxo.o"
"""The seed's first command example's board: a typo with a floating pebble in column 2."""


# --- slow reference implementation, straight from RULES.md ------------------------------------------
# A board is a list of columns, each a list of "x"/"o" from the bottom pebble up.

Columns = list[list[str]]


def slow_parse(n: int, board: str) -> Columns:
    """Columns bottom-to-top from a valid top-first row-major board string."""
    height = n + 3
    assert len(board) == n * height
    columns: Columns = [[] for _ in range(n)]
    for row_from_bottom in range(height):
        row = height - 1 - row_from_bottom
        for c in range(n):
            char = board[row * n + c]
            if char != ".":
                # Pebbles fall: a pebble may only sit directly on the column's pebbles.
                assert len(columns[c]) == row_from_bottom, "floating pebble"
                columns[c].append(char)
    return columns


def slow_board(n: int, columns: Columns) -> str:
    """The top-first row-major board string of ``columns``."""
    height = n + 3
    chars: list[str] = []
    for row in range(height):
        level = height - 1 - row
        for c in range(n):
            chars.append(columns[c][level] if level < len(columns[c]) else ".")
    return "".join(chars)


def slow_legal_moves(n: int, columns: Columns, player: str) -> list[int]:
    """Drops 1..n (column not full, a pebble in hand), then rotations -1..-n (column not empty)."""
    supply = n * (n + 3) // 2
    on_board = sum(column.count(player) for column in columns)
    drops = [c + 1 for c in range(n) if len(columns[c]) < n + 3] if on_board < supply else []
    rotations = [-(c + 1) for c in range(n) if columns[c]]
    return drops + rotations


def slow_apply(columns: Columns, move: int, player: str) -> Columns:
    """A new board: drop on top of column ``move``, or move the bottom pebble of ``-move`` to its top."""
    result = [column[:] for column in columns]
    if move > 0:
        result[move - 1].append(player)
    else:
        column = result[-move - 1]
        result[-move - 1] = column[1:] + column[:1]
    return result


def slow_line_owners(n: int, columns: Columns) -> set[str]:
    """The colours that fill a row, a column's top n cells or a diagonal of the top n rows."""
    # grid[r][c]: top row first, as on the wire; only the top n rows count.
    grid = [
        [columns[c][n + 2 - r] if n + 2 - r < len(columns[c]) else "." for c in range(n)]
        for r in range(n)
    ]
    lines = list(grid)
    lines += [[grid[r][c] for r in range(n)] for c in range(n)]
    lines.append([grid[i][i] for i in range(n)])
    lines.append([grid[i][n - 1 - i] for i in range(n)])
    return {line[0] for line in lines if line[0] != "." and line.count(line[0]) == n}


def slow_winner(owners: set[str], mover: str, priority: str) -> str | None:
    """The winner after ``mover``'s move: the mover's lines first, or blue's under ``blue`` priority."""
    order = [mover, other(mover)] if priority == "mover" else ["x", "o"]
    for player in order:
        if player in owners:
            return player
    return None


def colour_letter(colour: int | None) -> str | None:
    """The wire letter of a winner, or None."""
    return None if colour is None else PLAYERS[colour]


def other(player: str) -> str:
    """The opponent's letter."""
    return "o" if player == "x" else "x"


def random_position(n: int, seed: int, plies: int, priority: WinPriority = "mover") -> Position:
    """The position after ``plies`` random legal moves from the empty board (lines are ignored)."""
    rng = random.Random(seed)
    position = initial_position(n, priority)
    for _ in range(plies):
        position.push(rng.choice(position.legal_moves()))
    return position


def column_of(position: Position, c: int) -> str:
    """Column ``c`` (1-based) of the board string, bottom pebble first."""
    board, n = position.board(), position.n
    return "".join(board[row * n + c - 1] for row in range(n + 2, -1, -1)).rstrip(".")


def check_against_slow(
    position: Position, blue_priority: Position, columns: Columns, keys: dict[tuple[str, str], int]
) -> list[tuple[str, str, set[str]]]:
    """Compare every move of ``position`` with the slow rules; return (board, side, line owners) per move.

    ``position`` has mover priority and ``blue_priority`` is the same position under blue priority.
    ``keys`` collects the key of every (board, side) seen and fails on any disagreement.
    """
    n = position.n
    player = position.player
    moves = slow_legal_moves(n, columns, player)
    assert position.legal_moves() == moves
    assert blue_priority.legal_moves() == moves
    assert [m for m in range(-n - 1, n + 2) if position.is_legal(m)] == sorted(moves)
    assert all(position.illegal_reason(m) is None for m in moves)
    before = (position.board(), list(position.heights), position.turn, position.key())
    children: list[tuple[str, str, set[str]]] = []
    for move in moves:
        child = slow_apply(columns, move, player)
        child_board = slow_board(n, child)
        owners = slow_line_owners(n, child)
        mover_winner = slow_winner(owners, player, "mover")
        blue_winner = slow_winner(owners, player, "blue")
        for fast, expected in ((position, mover_winner), (blue_priority, blue_winner)):
            fast.push(move)
            if fast is position:
                assert fast.board() == child_board, (position.board(), player, move)
            assert colour_letter(fast.winner()) == expected, (position.board(), player, move)
            assert colour_letter(fast.winner_after_push(move)) == expected, (child_board, move)
            child_key = fast.key()
            fast.pop()
        state = (child_board, other(player))
        assert keys.setdefault(state, child_key) == child_key
        children.append((child_board, other(player), owners))
    assert (position.board(), position.heights, position.turn, position.key()) == before
    return children


# --- the seed's examples ----------------------------------------------------------------------------


def test_figure_1_sequence_ends_with_red_rotation_win_and_exact_boards() -> None:
    position = Position.from_text("3", "o", FIGURE_1A)
    assert position.outcome() is None
    steps = [
        (2, "...x..o.oxooxxxoxo"),
        (-1, "...o..x.ooooxxxxxo"),
        (2, "...o..xoooooxxxxxo"),
        (1, "x..o..xoooooxxxxxo"),
        (-1, "x..x..oooxoooxxxxo"),
    ]
    for ply, (move, expected_board) in enumerate(steps, start=1):
        assert position.player == "oxoxo"[ply - 1]
        assert position.is_legal(move)
        position = position.after(move)
        assert position.board() == expected_board
        if ply < len(steps):
            assert position.outcome() is None
            assert position.winner_after_push(move) is None
    # The winning line is the third row from the top, "ooo": heights 3 of the three columns.
    height = 6
    third_row = sum(1 << (c * height + 3) for c in range(3))
    assert position.outcome() == Outcome(RED, third_row)
    assert position.winner() == RED
    assert position.winner_after_push(-1) == RED
    assert position.player == "x"


def test_figure_1_sequence_agrees_with_slow_rules() -> None:
    columns = slow_parse(3, FIGURE_1A)
    player = "o"
    winners: list[str | None] = []
    for move in (2, -1, 2, 1, -1):
        assert move in slow_legal_moves(3, columns, player)
        columns = slow_apply(columns, move, player)
        winners.append(slow_winner(slow_line_owners(3, columns), player, "mover"))
        player = other(player)
    assert slow_board(3, columns) == "x..x..oooxoooxxxxo"
    assert winners == [None, None, None, None, "o"]


def test_seed_command_example_with_figure_board_drops_into_column_2() -> None:
    position = Position.from_text("3", "o", FIGURE_1A)
    assert 2 in position.legal_moves()
    assert position.legal_moves() == [1, 2, 3, -1, -2, -3]
    assert position.after(2).board() == "...x..o.oxooxxxoxo"
    assert f"2 {position.after(2).board()}" == "2 ...x..o.oxooxxxoxo"


def test_seed_typo_board_is_rejected_for_floating_pebble_in_column_2() -> None:
    with pytest.raises(PositionError, match="floating pebble in column 2") as info:
        Position.from_text("3", "o", TYPO_BOARD)
    assert str(info.value) == (
        "floating pebble in column 2, row 5 from the top: the cell below it is empty, but pebbles "
        "fall to the bottom of their column"
    )


# --- board validation messages ------------------------------------------------------------------------


def test_board_problem_is_none_for_valid_boards() -> None:
    assert board_problem(3, FIGURE_1A) is None
    assert board_problem(3, "." * 18) is None
    assert board_problem(1, "xoxo") is None


def test_board_problem_names_expected_length() -> None:
    assert board_problem(3, FIGURE_1A[:-1]) == (
        "board has 17 characters, expected 18 for n = 3 (3 columns x 6 rows)"
    )
    assert board_problem(5, "") == "board has 0 characters, expected 40 for n = 5 (5 columns x 8 rows)"


def test_board_problem_names_bad_character_and_its_position() -> None:
    assert board_problem(3, "...x..o.ox.oxxxoXo") == (
        "bad character 'X' at position 17 (row 6, column 2): use . (empty), x (blue) or o (red)"
    )
    assert board_problem(3, "-" + "." * 17) == (
        "bad character '-' at position 1 (row 1, column 1): use . (empty), x (blue) or o (red)"
    )


def test_board_problem_names_floating_pebble_row_from_top() -> None:
    assert board_problem(3, "x" + "." * 17) == (
        "floating pebble in column 1, row 1 from the top: the cell below it is empty, but pebbles "
        "fall to the bottom of their column"
    )


def test_board_problem_names_pebble_counts_when_a_colour_has_too_many() -> None:
    assert board_problem(1, "xxxx") == (
        "too many blue pebbles: 4 x on the board, but each colour has only 2 for n = 1"
    )
    assert board_problem(1, ".ooo") == (
        "too many red pebbles: 3 o on the board, but each colour has only 2 for n = 1"
    )
    # n = 3: ten blue pebbles, one more than the supply of 9.
    board = "..." + "..." + "xxx" + "xxx" + "xxx" + "xoo"
    assert board_problem(3, board) == (
        "too many blue pebbles: 10 x on the board, but each colour has only 9 for n = 3"
    )
    with pytest.raises(PositionError) as info:
        Position(3, board)
    assert str(info.value) == board_problem(3, board)


# --- parsing ----------------------------------------------------------------------------------------------


def test_parse_player_accepts_x_and_o_only() -> None:
    assert parse_player("x") == BLUE
    assert parse_player("o") == RED
    for text in ("X", "b", "", "xo"):
        with pytest.raises(PositionError) as info:
            parse_player(text)
        assert str(info.value) == f"invalid player {text!r}: use x (blue) or o (red)"


def test_parse_n_accepts_whole_numbers_from_1() -> None:
    assert parse_n("1") == 1
    assert parse_n("12") == 12
    for text in ("0", "-3", "three", "3.5", "", "1_0", " 3", "+3", "\u0663"):
        with pytest.raises(PositionError) as info:
            parse_n(text)
        assert str(info.value) == f"invalid board size {text!r}: n must be a whole number >= 1"


def test_parse_move_reads_drops_and_rotations_and_rejects_other_text() -> None:
    assert parse_move("3") == 3
    assert parse_move("-2") == -2
    for text in ("a", "", "1.0", "--1", "1_0", " 3", "-", "\u0663"):
        with pytest.raises(PositionError) as info:
            parse_move(text)
        assert str(info.value) == (
            f"invalid move {text!r}: use c to drop into column c, or -c to rotate column c"
        )


def test_from_text_reports_bad_player_and_bad_size() -> None:
    with pytest.raises(PositionError) as info:
        Position.from_text("3", "z", FIGURE_1A)
    assert str(info.value) == "invalid player 'z': use x (blue) or o (red)"
    with pytest.raises(PositionError) as info:
        Position.from_text("0", "x", "")
    assert str(info.value) == "invalid board size '0': n must be a whole number >= 1"
    with pytest.raises(PositionError) as info:
        Position.from_text(0, "x", "")
    assert str(info.value) == "invalid board size 0: n must be a whole number >= 1"


def test_invalid_win_priority_and_board_size_are_rejected() -> None:
    with pytest.raises(PositionError) as info:
        Position(3, None, BLUE, "red")  # type: ignore[arg-type]
    assert str(info.value) == "invalid win priority 'red': use mover or blue"
    with pytest.raises(PositionError) as info:
        geometry(0)
    assert str(info.value) == "board size n must be at least 1, got 0"


# --- geometry ---------------------------------------------------------------------------------------------


def test_geometry_n3_has_8_lines_supply_9_and_18_cells() -> None:
    g = geometry(3)
    assert (g.n, g.height, g.cells, g.supply) == (3, 6, 18, 9)

    def bits(*indices: int) -> int:
        return sum(1 << i for i in indices)

    # Cell (column c, height h) is bit c * 6 + h; the top three rows are heights 5, 4, 3.
    assert g.lines == (
        bits(5, 11, 17), bits(4, 10, 16), bits(3, 9, 15),  # rows, top first
        bits(3, 4, 5), bits(9, 10, 11), bits(15, 16, 17),  # top three cells of each column
        bits(5, 10, 15), bits(17, 10, 3),  # the two diagonals
    )
    assert len(g.lines) == 8
    assert g.column_masks == (0b111111, 0b111111 << 6, 0b111111 << 12)
    assert geometry(3) is g


def test_geometry_n1_has_one_distinct_line_supply_2_and_4_cells() -> None:
    g = geometry(1)
    assert (g.n, g.height, g.cells, g.supply) == (1, 4, 4, 2)
    # Row, column and both diagonals are all the single top cell, height 3.
    assert g.lines == (1 << 3,)


def test_geometry_n2_has_6_distinct_lines() -> None:
    g = geometry(2)
    assert (g.cells, g.supply) == (10, 5)
    assert len(g.lines) == 6


def test_n1_game_is_won_by_whoever_fills_the_top_cell() -> None:
    position = initial_position(1)
    for move, board in ((1, "...x"), (1, "..ox"), (-1, "..xo"), (1, ".oxo")):
        position = position.after(move)
        assert position.board() == board
        assert position.outcome() is None
    assert position.legal_moves() == [1, -1]
    position = position.after(1)
    assert position.board() == "xoxo"
    assert position.outcome() == Outcome(BLUE, 1 << 3)


# --- moves ------------------------------------------------------------------------------------------------


def test_rotation_of_one_colour_column_is_legal_and_leaves_board_unchanged() -> None:
    # Column 1 is x x x, column 2 a single o, column 3 empty.
    board = "." * 9 + "x.." + "x.." + "xo."
    position = Position(3, board, RED)
    for move in (-1, -2):
        assert position.is_legal(move)
        assert position.illegal_reason(move) is None
        assert move in position.legal_moves()
        child = position.after(move)
        assert child.board() == board
        assert child.player == "x"
        assert child.key() != position.key()
        assert child.key() == Position(3, board, BLUE).key()
    assert not position.is_legal(-3)
    assert position.illegal_reason(-3) == "cannot rotate column 3: it is empty"
    assert position.legal_moves() == [1, 2, 3, -1, -2]


def test_rotation_moves_bottom_pebble_to_top_of_column() -> None:
    position = Position.from_text("3", "x", FIGURE_1A)
    assert position.after(-1).board() == "...o..x.oo.oxxxxxo"
    assert position.after(-3).board() == "...x..o.ox.oxxooxx"
    assert position.after(-2).board() == FIGURE_1A  # column 2 is x x


def test_exhausted_supply_forbids_drops_but_allows_rotations() -> None:
    # Columns bottom-up: o x o x o x | o x o o x | o x o o: red has all 9 pebbles on the board.
    board = "x.." + "ox." + "xoo" + "ooo" + "xxx" + "ooo"
    red = Position(3, board, RED)
    assert (red.board().count("o"), red.board().count("x")) == (9, 6)
    assert red.pebbles_in_hand(RED) == 0
    assert red.pebbles_in_hand(BLUE) == 3
    assert red.outcome() is None
    assert red.legal_moves() == [-1, -2, -3]
    assert all(move < 0 for move in red.legal_moves())
    for drop in (2, 3):
        assert not red.is_legal(drop)
        assert red.illegal_reason(drop) == (
            "cannot drop: o has no pebbles in hand (all 9 are on the board); rotate a column instead"
        )
        with pytest.raises(PositionError) as info:
            red.after(drop)
        assert str(info.value) == red.illegal_reason(drop)
    assert red.illegal_reason(1) == "cannot drop into column 1: it is full"
    blue = Position(3, board, BLUE)
    assert blue.legal_moves() == [2, 3, -1, -2, -3]
    assert blue.after(3).board() == "x.." + "oxx" + "xoo" + "ooo" + "xxx" + "ooo"


def test_illegal_reason_names_out_of_range_and_non_integer_moves() -> None:
    position = Position.from_text("3", "o", FIGURE_1A)
    for move in (0, 4, -4):
        assert not position.is_legal(move)
        assert position.illegal_reason(move) == (
            f"move {move} is out of range: use 1..3 to drop or -1..-3 to rotate"
        )
    assert not position.is_legal(True)
    assert position.illegal_reason(True) == "move True is not a whole number"
    assert not position.is_legal("2")  # type: ignore[arg-type]
    assert position.illegal_reason("2") == "move '2' is not a whole number"  # type: ignore[arg-type]
    assert list(position.generate_legal_moves()) == position.legal_moves()


BOTH_LINES_BEFORE = "oxx" + "xoo" + "oox" + "xxo" + "oox" + "xxo"
"""n = 3, full board: rotating column 1 gives blue the top row and red the second row."""
BOTH_LINES_AFTER = "xxx" + "ooo" + "xox" + "oxo" + "xox" + "oxo"


def test_rotation_completing_lines_of_both_colours_is_won_by_mover_under_mover_priority() -> None:
    before = Position(3, BOTH_LINES_BEFORE, RED)
    assert before.outcome() is None
    assert before.legal_moves() == [-1, -2, -3]
    after = before.after(-1)
    assert after.board() == BOTH_LINES_AFTER
    second_row = sum(1 << (c * 6 + 4) for c in range(3))
    assert after.outcome() == Outcome(RED, second_row)
    assert after.winner_after_push(-1) == RED


def test_rotation_completing_lines_of_both_colours_is_won_by_blue_under_blue_priority() -> None:
    before = Position(3, BOTH_LINES_BEFORE, RED, "blue")
    after = before.after(-1)
    assert after.board() == BOTH_LINES_AFTER
    top_row = sum(1 << (c * 6 + 5) for c in range(3))
    assert after.outcome() == Outcome(BLUE, top_row)
    assert after.winner_after_push(-1) == BLUE
    # Blue making the same rotation wins under either priority.
    for priority in WIN_PRIORITIES:
        blue_moves = Position(3, BOTH_LINES_BEFORE, BLUE, priority)
        assert blue_moves.after(-1).winner() == BLUE
        assert blue_moves.after(-1).winner_after_push(-1) == BLUE


def test_both_colour_lines_agree_with_slow_rules() -> None:
    columns = slow_apply(slow_parse(3, BOTH_LINES_BEFORE), -1, "o")
    assert slow_board(3, columns) == BOTH_LINES_AFTER
    assert slow_line_owners(3, columns) == {"x", "o"}
    assert slow_winner({"x", "o"}, "o", "mover") == "o"
    assert slow_winner({"x", "o"}, "o", "blue") == "x"
    keys: dict[tuple[str, str], int] = {}
    for player in "xo":
        position = Position.from_text("3", player, BOTH_LINES_BEFORE)
        blue_priority = Position.from_text("3", player, BOTH_LINES_BEFORE, "blue")
        children = check_against_slow(
            position, blue_priority, slow_parse(3, BOTH_LINES_BEFORE), keys
        )
        assert children[0] == (BOTH_LINES_AFTER, other(player), {"x", "o"})


def test_pop_returns_touched_column_and_restores_position() -> None:
    position = Position.from_text("3", "o", FIGURE_1A)
    key = position.key()
    position.push(2)
    position.push(-3)
    assert position.pop() == 2
    assert position.pop() == 1
    assert position.key() == key
    assert position.board() == FIGURE_1A
    assert position.heights == [5, 2, 4]


def test_text_forms_of_a_position() -> None:
    position = Position.from_text("3", "o", FIGURE_1A)
    assert repr(position) == "Position(3, '...x..o.ox.oxxxoxo', 'o')"
    assert str(position) == "...\nx..\no.o\nx.o\nxxx\noxo"
    assert repr(Outcome(RED, 0x38)) == "Outcome(winner='o', line=0x38)"
    assert position == Position(3, FIGURE_1A, RED)
    assert position != Position(3, FIGURE_1A, BLUE)
    assert hash(position) == hash(Position(3, FIGURE_1A, RED))


# --- exhaustive cross-check against the slow rules ---------------------------------------------------------


def enumerate_and_check(n: int, plies: int) -> list[tuple[int, int, int]]:
    """Check every position within ``plies`` plies of the empty board against the slow rules.

    Positions are deduplicated by (board, side to move) and won positions are not expanded; every
    move of every other position is checked, so moves up to ply ``plies + 1`` are covered. Returns,
    per depth, (new positions, how many of them are won, how many have lines of both colours); the
    list is shorter than ``plies + 1`` when no new position is reachable.
    """
    keys: dict[tuple[str, str], int] = {}
    empty = "." * (n * (n + 3))
    frontier: list[tuple[str, str]] = [(empty, "x")]
    owners_of: dict[tuple[str, str], set[str]] = {(empty, "x"): set()}
    counts: list[tuple[int, int, int]] = []
    for depth in range(plies + 1):
        if not frontier:
            break
        next_frontier: list[tuple[str, str]] = []
        for board, player in frontier:
            parent = Position.from_text(str(n), player, board)
            assert keys.setdefault((board, player), parent.key()) == parent.key()
            if owners_of[board, player]:
                # Won: its lines were checked as its parent's move; the game is over.
                continue
            assert parent.outcome() is None
            blue_priority = Position.from_text(str(n), player, board, "blue")
            children = check_against_slow(parent, blue_priority, slow_parse(n, board), keys)
            if depth == plies:
                continue
            for child_board, child_player, owners in children:
                state = (child_board, child_player)
                if state not in owners_of:
                    owners_of[state] = owners
                    next_frontier.append(state)
        won = [owners_of[state] for state in frontier if owners_of[state]]
        counts.append((len(frontier), len(won), sum(len(owners) == 2 for owners in won)))
        frontier = next_frontier
    # Keys are equal exactly when (board, side to move) are.
    assert len(set(keys.values())) == len(keys)
    return counts


def test_every_position_within_10_plies_n3_matches_slow_rules() -> None:
    # Per depth: new (board, side) positions, won ones, ones with lines of both colours.
    assert enumerate_and_check(3, 10) == [
        (1, 0, 0), (3, 0, 0), (12, 0, 0), (39, 0, 0), (117, 0, 0), (307, 0, 0), (809, 0, 0),
        (1943, 3, 0), (4729, 27, 0), (10263, 240, 0), (21351, 822, 0),
    ]


def test_every_position_within_8_plies_n4_matches_slow_rules() -> None:
    # No line this early for n = 4: even a column line needs a full column of 7 pebbles.
    assert enumerate_and_check(4, 8) == [
        (1, 0, 0), (4, 0, 0), (20, 0, 0), (78, 0, 0), (278, 0, 0), (838, 0, 0), (2522, 0, 0),
        (6785, 0, 0), (18636, 0, 0),
    ]


def test_every_reachable_position_n1_matches_slow_rules() -> None:
    # The whole game: no new position after depth 9.
    assert enumerate_and_check(1, 100) == [
        (1, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0), (5, 1, 0), (3, 1, 0), (3, 1, 0), (3, 1, 0),
        (2, 1, 0), (2, 1, 0),
    ]


def test_every_reachable_position_n2_matches_slow_rules() -> None:
    # The whole game: 3419 positions, no new one after depth 13.
    assert enumerate_and_check(2, 100) == [
        (1, 0, 0), (2, 0, 0), (6, 0, 0), (15, 0, 0), (36, 0, 0), (78, 0, 0), (173, 4, 0),
        (337, 30, 0), (595, 101, 0), (829, 291, 0), (863, 440, 0), (446, 246, 0), (36, 22, 0),
        (2, 2, 0),
    ]


# --- random playouts against the slow rules ------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_random_playouts_match_slow_rules_under_both_priorities(n: int) -> None:
    """300 seeded random games of up to 60 plies, stopped at a line.

    Every position's legal moves and every played move are compared; all moves are compared every
    eighth ply and wherever the side to move has no pebble in hand.
    """
    rng = random.Random(2024 + n)
    keys: dict[tuple[str, str], int] = {}
    exhausted = wins = 0
    for _ in range(300):
        position = initial_position(n)
        blue_priority = initial_position(n, "blue")
        columns: Columns = [[] for _ in range(n)]
        for ply in range(60):
            player = position.player
            moves = slow_legal_moves(n, columns, player)
            assert position.legal_moves() == moves
            assert blue_priority.legal_moves() == moves
            if position.pebbles_in_hand(position.turn) == 0:
                exhausted += 1
                assert all(move < 0 for move in moves)
                assert not any(position.is_legal(c) for c in range(1, n + 1))
                check_against_slow(position, blue_priority, columns, keys)
            elif ply % 8 == 0:
                check_against_slow(position, blue_priority, columns, keys)
            move = rng.choice(moves)
            columns = slow_apply(columns, move, player)
            board = slow_board(n, columns)
            owners = slow_line_owners(n, columns)
            for fast, priority in ((position, "mover"), (blue_priority, "blue")):
                fast.push(move)
                assert fast.board() == board
                expected = slow_winner(owners, player, priority)
                assert colour_letter(fast.winner()) == expected
                assert colour_letter(fast.winner_after_push(move)) == expected
            assert keys.setdefault((board, other(player)), position.key()) == position.key()
            assert blue_priority.key() == position.key()
            if owners:
                wins += 1
                break
    assert len(set(keys.values())) == len(keys)
    if n <= 5:
        # Long games at small n run a colour out of pebbles; at n = 8, 60 plies cannot (supply 44).
        assert exhausted > 0
        assert wins > 0


# --- properties over random positions ------------------------------------------------------------------

SIZES = st.integers(min_value=1, max_value=8)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PLIES = st.integers(min_value=0, max_value=80)
PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(n=SIZES, seed=SEEDS, plies=PLIES)
def test_rotating_a_column_as_often_as_its_pebbles_restores_the_board(
    n: int, seed: int, plies: int
) -> None:
    position = random_position(n, seed, plies)
    board, turn = position.board(), position.turn
    for c in range(1, n + 1):
        pebbles = position.heights[c - 1]
        for _ in range(pebbles):
            position.push(-c)
        assert position.board() == board
        assert position.turn == (turn + pebbles) % 2
        turn = position.turn


@PROPERTY_SETTINGS
@given(n=SIZES, seed=SEEDS, plies=PLIES)
def test_rotation_preserves_counts_and_cycles_only_its_column(n: int, seed: int, plies: int) -> None:
    position = random_position(n, seed, plies)
    board = position.board()
    for move in position.legal_moves():
        if move > 0:
            continue
        child = position.after(move)
        new_board = child.board()
        assert (new_board.count("x"), new_board.count("o")) == (board.count("x"), board.count("o"))
        assert child.heights == position.heights
        column = column_of(position, -move)
        assert column_of(child, -move) == column[1:] + column[:1]
        for c in range(1, n + 1):
            if c != -move:
                assert column_of(child, c) == column_of(position, c)


@PROPERTY_SETTINGS
@given(n=SIZES, seed=SEEDS, plies=PLIES)
def test_drop_adds_exactly_one_pebble_of_the_mover_on_top_of_its_column(
    n: int, seed: int, plies: int
) -> None:
    position = random_position(n, seed, plies)
    board = position.board()
    mover = position.player
    for move in position.legal_moves():
        if move < 0:
            continue
        child = position.after(move)
        height = position.heights[move - 1]
        index = (n + 2 - height) * n + move - 1
        assert board[index] == "."
        assert child.board() == board[:index] + mover + board[index + 1:]
        assert child.heights[move - 1] == height + 1
        assert child.pebbles_in_hand(position.turn) == position.pebbles_in_hand(position.turn) - 1


@PROPERTY_SETTINGS
@given(n=SIZES, seed=SEEDS, plies=PLIES)
def test_push_then_pop_restores_board_heights_turn_and_key(n: int, seed: int, plies: int) -> None:
    position = random_position(n, seed, plies)
    before = (position.board(), list(position.heights), position.turn, position.key())
    for move in position.legal_moves():
        position.push(move)
        assert position.key() != before[3]
        position.pop()
        assert (position.board(), position.heights, position.turn, position.key()) == before
    # Two plies deep, undone in reverse order.
    for first in position.legal_moves():
        position.push(first)
        for second in position.legal_moves():
            position.push(second)
            position.pop()
        position.pop()
        assert (position.board(), position.heights, position.turn, position.key()) == before


@PROPERTY_SETTINGS
@given(
    n=SIZES,
    seeds=st.tuples(SEEDS, SEEDS),
    plies=st.tuples(st.integers(0, 12), st.integers(0, 12)),
)
def test_keys_are_equal_exactly_when_board_and_side_to_move_are(
    n: int, seeds: tuple[int, int], plies: tuple[int, int]
) -> None:
    # Short games from few seeds collide often (same board, same or other side to move).
    a = random_position(n, seeds[0] % 4, plies[0])
    b = random_position(n, seeds[1] % 4, plies[1])
    same = (a.board(), a.turn) == (b.board(), b.turn)
    assert (a.key() == b.key()) is same
    assert (a == b) is same
    flipped = Position(n, a.board(), a.turn ^ 1)
    assert flipped.key() != a.key()
    assert Position(n, a.board(), a.turn).key() == a.key()


@PROPERTY_SETTINGS
@given(n=SIZES, seed=SEEDS, plies=PLIES, priority=st.sampled_from(WIN_PRIORITIES))
def test_from_text_round_trips_board_and_copy_is_independent(
    n: int, seed: int, plies: int, priority: WinPriority
) -> None:
    position = random_position(n, seed, plies, priority)
    parsed = Position.from_text(str(n), position.player, position.board(), priority)
    assert parsed.board() == position.board()
    assert parsed.key() == position.key()
    assert parsed.heights == position.heights
    assert parsed.masks == position.masks
    assert parsed.win_priority == priority
    copy = position.copy()
    assert copy.key() == position.key()
    assert copy.win_priority == priority
    board, key = position.board(), position.key()
    moves = copy.legal_moves()
    copy.push(moves[0])
    copy.push(copy.legal_moves()[-1])
    assert (position.board(), position.key()) == (board, key)
    position.push(moves[-1])
    copy.pop()
    copy.pop()
    assert (copy.board(), copy.key()) == (board, key)
