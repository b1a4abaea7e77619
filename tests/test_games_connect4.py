"""Tests of the Connect Four rules core (harness/games/connect4/rules.py) against docs/rules.md.

Besides exact examples (error messages, hand-built boards in every direction and at every edge),
the bitboard core is cross-checked against a slow reference written here from the rules text, over
seeded random games at many board sizes.
"""

from __future__ import annotations

import random

import pytest

from harness.games import connect4
from harness.games.connect4.rules import (
    DEFAULT_SIZE,
    MAX_SIZE,
    MIN_SIZE,
    PLAYER_O,
    PLAYERS,
    PLAYER_X,
    Outcome,
    Position,
    PositionError,
    board_problem,
    initial_position,
    parse_move,
    parse_player,
    parse_size,
    size_text,
)
from harness.games.errors import PositionError as SharedPositionError

SIZES = [(4, 4), (5, 4), (4, 5), (6, 5), (7, 6), (8, 8), (9, 7), (10, 10), (12, 12), (12, 4), (4, 12)]


def rows(*lines: str) -> str:
    """A board string from its rows, top first."""
    return "".join(lines)


# --- slow reference, straight from the rules ------------------------------------------------------
# A board is a list of columns, each a list of "x"/"o" from the bottom disc up.

Columns = list[list[str]]


def slow_columns(width: int, height: int, board: str) -> Columns:
    columns: Columns = [[] for _ in range(width)]
    for row in range(height - 1, -1, -1):
        for c in range(width):
            char = board[row * width + c]
            if char != ".":
                columns[c].append(char)
    return columns


def slow_cell(columns: Columns, c: int, h: int) -> str:
    return columns[c][h] if h < len(columns[c]) else "."


def slow_fours(width: int, height: int, columns: Columns) -> set[str]:
    """The colours with four in a row (rows, columns, both diagonals)."""
    owners = set()
    for c in range(width):
        for h in range(height):
            colour = slow_cell(columns, c, h)
            if colour == ".":
                continue
            for dc, dh in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(c + i * dc, h + i * dh) for i in range(4)]
                if all(0 <= cc < width and 0 <= hh < height and slow_cell(columns, cc, hh) == colour
                       for cc, hh in cells):
                    owners.add(colour)
    return owners


def slow_wins_at_once(width: int, height: int, columns: Columns, player: str) -> bool:
    for c in range(width):
        if len(columns[c]) < height:
            child = [column[:] for column in columns]
            child[c].append(player)
            if player in slow_fours(width, height, child):
                return True
    return False


def random_game(width: int, height: int, rng: random.Random) -> list[int]:
    """Random legal moves from the empty board until a four or a full board."""
    position = initial_position(width, height)
    moves: list[int] = []
    while position.legal_moves():
        move = rng.choice(position.legal_moves())
        position.push(move)
        moves.append(move)
        if position.winner_after_push(move) is not None:
            break
    return moves


# --- sizes, players, moves ------------------------------------------------------------------------


def test_constants_and_size_text() -> None:
    assert (PLAYERS, MIN_SIZE, MAX_SIZE, DEFAULT_SIZE) == ("xo", 4, 12, (8, 8))
    assert size_text(7, 6) == "7x6"
    assert PositionError is SharedPositionError


@pytest.mark.parametrize(("text", "size"), [("8x8", (8, 8)), ("7x6", (7, 6)), ("4x12", (4, 12)), ("12x4", (12, 4)),
                                            ("08x06", (8, 6))])
def test_parse_size_reads_columns_then_rows(text: str, size: tuple[int, int]) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize(("text", "problem"), [
    ("3x9", "width and height from 4 to 12 are supported, e.g. 8x8 or 7x6"),
    ("13x6", "width and height from 4 to 12 are supported, e.g. 8x8 or 7x6"),
    ("8x0", "width and height from 4 to 12 are supported, e.g. 8x8 or 7x6"),
    ("9" * 5000 + "x8", "width and height from 4 to 12 are supported, e.g. 8x8 or 7x6"),
    ("8", "use WxH, columns x rows, e.g. 8x8 or 7x6"),
    ("8X8", "use WxH, columns x rows, e.g. 8x8 or 7x6"),
    ("8x", "use WxH, columns x rows, e.g. 8x8 or 7x6"),
    ("x8", "use WxH, columns x rows, e.g. 8x8 or 7x6"),
    ("8x8x8", "use WxH, columns x rows, e.g. 8x8 or 7x6"),
    (" 8x8", "use WxH, columns x rows, e.g. 8x8 or 7x6"),
    ("1_0x8", "use WxH, columns x rows, e.g. 8x8 or 7x6"),
    ("\u0668x8", "use WxH, columns x rows, e.g. 8x8 or 7x6"),
    ("-8x8", "use WxH, columns x rows, e.g. 8x8 or 7x6"),
])
def test_parse_size_names_the_problem(text: str, problem: str) -> None:
    with pytest.raises(PositionError) as info:
        parse_size(text)
    assert str(info.value) == f"invalid board size {text!r}: {problem}"


def test_parse_player_and_move() -> None:
    assert (parse_player("x"), parse_player("o")) == (PLAYER_X, PLAYER_O)
    with pytest.raises(PositionError) as info:
        parse_player("X")
    assert str(info.value) == "invalid player 'X': use x (moves first) or o"
    assert parse_move("3") == 3
    assert parse_move("12") == 12
    for text in ("0", "-3", "+3", "3.0", "", " 3", "c3", "\u0663", "9" * 5000):
        with pytest.raises(PositionError) as info:
            parse_move(text)
        assert str(info.value) == f"invalid move {text!r}: give a column number, 1 for the leftmost column"


# --- board validity -------------------------------------------------------------------------------

EMPTY_4X4 = "." * 16


@pytest.mark.parametrize(("width", "height", "board", "problem"), [
    (4, 4, "." * 15, "board has 15 characters, expected 16 for 4x4 (4 columns x 4 rows)"),
    (7, 6, "." * 43, "board has 43 characters, expected 42 for 7x6 (7 columns x 6 rows)"),
    (4, 4, rows("....", "....", "....", "x.X."),
     "bad character 'X' at position 15 (row 4, column 3): use . (empty), x or o"),
    (4, 4, rows("....", "....", "..o.", "x..."),
     "floating disc in column 3, row 3 from the top: the cell below it is empty, but discs fall to the "
     "bottom of their column"),
    (4, 5, rows("....", "x...", "....", "o...", "x..."),
     "floating disc in column 1, row 2 from the top: the cell below it is empty, but discs fall to the "
     "bottom of their column"),
    (4, 4, rows("....", "....", "....", "o..."),
     "too many o discs: 1 o and 0 x on the board, but x moves first, so o never has more discs than x"),
    (4, 4, rows("....", "....", "....", "xx.."),
     "too many x discs: 2 x and 0 o on the board, but the players take turns, so x has at most one disc "
     "more than o"),
    (5, 4, rows(".....", ".....", ".....", "xxxxo"),
     "too many x discs: 4 x and 1 o on the board, but the players take turns, so x has at most one disc "
     "more than o"),
    (5, 5, rows(".....", "o....", "o....", "o....", "oxxxx"),
     "both x and o have four in a row, but the game ends at the first four"),
    (5, 5, rows(".....", "o....", "o....", "oxx..", "oxxx."),
     "o has four in a row, but x moved last (5 x, 4 o): the game ends at the first four"),
    (5, 4, rows(".....", ".....", "ooo..", "xxxxo"),
     "x has four in a row, but o moved last (4 x, 4 o): the game ends at the first four"),
])
def test_board_problem_names_each_problem(width: int, height: int, board: str, problem: str) -> None:
    assert board_problem(width, height, board) == problem
    with pytest.raises(PositionError) as info:
        Position(width, height, board)
    assert str(info.value) == problem


@pytest.mark.parametrize(("width", "height", "board", "player"), [
    (4, 4, EMPTY_4X4, "x"),
    (4, 4, rows("....", "....", "....", "x..."), "o"),
    (4, 4, rows("....", "....", "o...", "x..."), "x"),
    (5, 5, rows(".....", "o....", "o....", "ox...", "oxxx."), "x"),  # o moved last and has four
    (12, 4, "." * 36 + "xoxoxoxoxoxo", "x"),
])
def test_valid_boards_read_back_exactly(width: int, height: int, board: str, player: str) -> None:
    assert board_problem(width, height, board) is None
    position = Position.from_text(size_text(width, height), player, board)
    assert position.board() == board
    assert position.player == player


def test_last_mover_may_have_four_in_a_row() -> None:
    board = rows(".....", ".....", ".....", "ooo..", "xxxx.")  # 5x5, x moved last
    assert board_problem(5, 5, board) is None
    position = Position.from_text("5x5", "o", board)
    assert position.winner() == PLAYER_X
    assert position.outcome() == Outcome(PLAYER_X, position.geometry.bottom & (2 ** (6 * 4) - 1))


def test_player_must_match_the_disc_counts() -> None:
    with pytest.raises(PositionError) as info:
        Position.from_text("4x4", "o", EMPTY_4X4)
    assert str(info.value) == (
        "invalid player 'o' for this board: x and o have 0 discs each, so it is x's turn (x moves first)")
    with pytest.raises(PositionError) as info:
        Position.from_text("4x4", "x", rows("....", "....", "o...", "xx.."))
    assert str(info.value) == "invalid player 'x' for this board: x has one disc more than o (2 to 1), so it is o's turn"
    with pytest.raises(PositionError) as info:
        Position(4, 4, EMPTY_4X4, turn=PLAYER_O)
    assert str(info.value) == (
        "invalid player 'o' for this board: x and o have 0 discs each, so it is x's turn (x moves first)")
    assert Position(4, 4, rows("....", "....", "....", "x..."), turn=PLAYER_O).turn == PLAYER_O
    assert Position(4, 4, rows("....", "....", "....", "x...")).player == "o"


def test_from_text_checks_size_then_player_then_board() -> None:
    with pytest.raises(PositionError, match=r"^invalid board size '3x3'"):
        Position.from_text("3x3", "x", "." * 9)
    with pytest.raises(PositionError, match=r"^invalid board size '13x4'"):
        Position.from_text((13, 4), "x", "." * 52)
    with pytest.raises(PositionError, match=r"^invalid player 'blue'"):
        Position.from_text("4x4", "blue", EMPTY_4X4)
    with pytest.raises(PositionError, match=r"^board has 15 characters"):
        Position.from_text("4x4", "x", "." * 15)
    assert Position.from_text((7, 6), "x", "." * 42).size == (7, 6)


# --- text, state, moves ---------------------------------------------------------------------------


def test_text_forms_and_attributes() -> None:
    board = rows("....", "....", "o...", "xx..")
    position = Position.from_text("4x4", "o", board)
    assert position.board() == board
    assert str(position) == "....\n....\no...\nxx.."
    assert repr(position) == "Position(4, 4, '........o...xx..')"
    assert (position.width, position.height, position.size, position.size_text) == (4, 4, (4, 4), "4x4")
    assert (position.turn, position.player, position.plies) == (PLAYER_O, "o", 3)
    assert position.heights == [2, 1, 0, 0]
    assert position.masks == [0b100001, 0b10]  # 5 bits per column: 4 cells and the sentinel
    assert not position.is_full() and not position.is_game_over()


def test_initial_position_defaults_to_8x8_with_x_to_move() -> None:
    position = initial_position()
    assert position.size == (8, 8)
    assert position.board() == "." * 64
    assert position.player == "x"
    assert position.legal_moves() == [1, 2, 3, 4, 5, 6, 7, 8]
    assert initial_position(7, 6).legal_moves() == [1, 2, 3, 4, 5, 6, 7]


def test_drops_land_on_the_lowest_empty_cell_and_full_columns_are_illegal() -> None:
    position = initial_position(4, 4)
    for _ in range(4):
        position.push(2)
    assert position.board() == rows(".o..", ".x..", ".o..", ".x..")
    assert position.legal_moves() == [1, 3, 4]
    assert not position.is_legal(2)
    assert position.illegal_reason(2) == "column 2 is full"
    assert position.illegal_reason(5) == "column 5 does not exist: columns are 1 to 4"
    assert position.illegal_reason(0) == "column 0 does not exist: columns are 1 to 4"
    assert position.illegal_reason(-1) == "column -1 does not exist: columns are 1 to 4"
    assert position.illegal_reason(True) == "move True is not a whole number"
    assert position.illegal_reason("1") == "move '1' is not a whole number"  # type: ignore[arg-type]
    assert [m for m in range(-1, 7) if position.is_legal(m)] == [1, 3, 4]
    assert not position.is_legal(True)
    assert position.illegal_reason(3) is None
    with pytest.raises(PositionError, match="^column 2 is full$"):
        position.after(2)
    assert position.after(3).board() == rows(".o..", ".x..", ".o..", ".xx.")
    assert position.board() == rows(".o..", ".x..", ".o..", ".x..")  # after() copies


def test_push_pop_round_trips_restore_everything() -> None:
    rng = random.Random(7)
    for width, height in SIZES:
        position = initial_position(width, height)
        states = []
        for move in random_game(width, height, rng):
            states.append((position.board(), position.heights[:], position.turn, position.key(), move))
            position.push(move)
        while states:
            board, heights, turn, key, move = states.pop()
            assert position.pop() == move
            assert (position.board(), position.heights, position.turn, position.key()) == (board, heights, turn, key)
        assert position == initial_position(width, height)


def test_copy_is_independent_and_equality_is_by_size_and_board() -> None:
    position = initial_position(7, 6)
    position.push(4)
    copy = position.copy()
    copy.push(4)
    assert position.board() != copy.board()
    assert position == Position(7, 6, "." * 35 + "...x...")
    assert hash(position) == hash(Position(7, 6, "." * 35 + "...x..."))
    assert position != copy
    assert initial_position(4, 5) != initial_position(5, 4)
    assert position != "position"


# --- fours ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("width", "height", "board", "winner"), [
    # Horizontal: at the left edge, at the right edge, on the top row.
    (4, 4, rows("....", "....", "ooo.", "xxxx"), PLAYER_X),
    (6, 5, rows("......", "......", "......", "..ooo.", "..xxxx"), PLAYER_X),
    (6, 4, rows("..oooo", "..xxox", "..oxxo", "..xoxx"), PLAYER_O),
    # Vertical: at the left edge, at the right edge reaching the top, the top four of a column.
    (4, 4, rows("x...", "xo..", "xo..", "xo.."), PLAYER_X),
    (5, 4, rows("....o", "...xo", "...xo", "..xxo"), PLAYER_O),
    (4, 6, rows("x...", "x...", "x...", "xo..", "oo..", "xo.."), PLAYER_X),
    # Rising diagonal from the bottom-left corner; falling to the bottom-right corner.
    (4, 4, rows("...x", "..xx", "oxxo", "xooo"), PLAYER_X),
    (4, 4, rows("x...", "ox..", "xoxx", "ooox"), PLAYER_X),
    # Rising diagonal ending in the top-right corner of a larger board.
    (7, 6, rows("......x", ".....xx", "....xox", "...xoxo", "...xoxo", "o..xooo"), PLAYER_X),
])
def test_fours_in_every_direction_and_at_every_edge(width: int, height: int, board: str, winner: int) -> None:
    assert board_problem(width, height, board) is None
    position = Position(width, height, board)
    assert position.winner() == winner
    assert position.has_four(winner) and not position.has_four(winner ^ 1)
    outcome = position.outcome()
    assert outcome is not None and outcome.line.bit_count() == 4
    assert outcome.line & position.masks[winner] == outcome.line


def test_each_direction_found_and_its_line_given() -> None:
    cases = [
        (rows("....", "....", "ooo.", "xxxx"), {(0, 0), (1, 0), (2, 0), (3, 0)}),
        (rows("x...", "xo..", "xo..", "xo.."), {(0, 0), (0, 1), (0, 2), (0, 3)}),
        (rows("...x", "..xx", "oxxo", "xooo"), {(0, 0), (1, 1), (2, 2), (3, 3)}),
        (rows("x...", "ox..", "xoxx", "ooox"), {(0, 3), (1, 2), (2, 1), (3, 0)}),
    ]
    for board, cells in cases:
        position = Position(4, 4, board)
        assert position.outcome() == Outcome(PLAYER_X, sum(1 << (c * 5 + h) for c, h in cells)), board
    assert repr(Outcome(PLAYER_X, 0b1111)) == "Outcome(winner='x', line=0xf)"


@pytest.mark.parametrize("board", [
    # Column 1's top two cells and column 2's bottom two: consecutive bits but for the sentinel.
    rows("x...", "x...", "ox..", "oxo."),
    # The end of one row and the start of the next: four x in a row in the board string.
    rows("....", "....", "o.xx", "xxoo"),
    # x at (column, height) (1, 2), (2, 1), (2, 4), (3, 3): a falling diagonal without sentinels.
    rows(".x..", ".ox.", "xoo.", "oxx."),
])
def test_no_four_wraps_between_columns_or_rows(board: str) -> None:
    assert board_problem(4, 4, board) is None
    position = Position(4, 4, board)
    assert position.outcome() is None
    assert not position.has_four(PLAYER_X) and not position.has_four(PLAYER_O)


def test_full_board_without_four_is_a_draw_at_4x4() -> None:
    position = initial_position(4, 4)
    for move in [1, 2, 1, 2, 2, 1, 2, 1, 3, 4, 3, 4, 4, 3, 4, 3]:
        assert position.is_legal(move)
        position.push(move)
        assert position.winner_after_push(move) is None
    assert position.board() == rows("oxox", "oxox", "xoxo", "xoxo")
    assert position.is_full() and position.is_game_over()
    assert position.outcome() is None and position.winner() is None
    assert position.legal_moves() == []
    assert position.plies == 16
    assert not position.has_winning_move() and not position.opponent_has_winning_move()


def test_winner_after_push_sees_the_movers_new_four() -> None:
    position = Position.from_text("7x6", "x", rows(".......", ".......", ".......", ".......", "ooo....", "xxx...."))
    assert position.winning_moves() == [4]
    position.push(4)
    assert position.winner_after_push(4) == PLAYER_X
    assert position.winner() == PLAYER_X
    position.push(7)  # asked about a column whose top disc is not the mover's: the whole board is looked at
    assert position.winner_after_push(4) is None and position.winner() == PLAYER_X
    position.pop()
    position.pop()
    position.push(5)
    assert position.winner_after_push(5) is None


@pytest.mark.parametrize("cache", [connect4.THREAT_CACHE, 3])
def test_rules_agree_with_the_slow_reference_on_random_games(cache: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # winning_cells is cached by discs; with a cache of 3 entries it starts again all the time.
    monkeypatch.setattr(connect4, "THREAT_CACHE", cache)
    rng = random.Random(2024)
    checked = 0
    for width, height in SIZES:
        for _ in range(5):
            position = initial_position(width, height)
            for move in random_game(width, height, rng):
                columns = slow_columns(width, height, position.board())
                expected_moves = [c + 1 for c in range(width) if len(columns[c]) < height]
                assert position.legal_moves() == expected_moves
                assert position.has_winning_move() == slow_wins_at_once(width, height, columns, position.player)
                assert position.opponent_has_winning_move() == slow_wins_at_once(
                    width, height, columns, PLAYERS[position.turn ^ 1])
                mover = position.turn
                position.push(move)
                owners = slow_fours(width, height, slow_columns(width, height, position.board()))
                assert owners <= {PLAYERS[mover]}
                assert position.winner_after_push(move) == (mover if owners else None)
                assert position.winner() == (mover if owners else None)
                assert position.has_four(mover) == bool(owners)
                checked += 1
    assert checked > 1000


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_has_winning_move_agrees_with_trying_every_move(width: int, height: int) -> None:
    rng = random.Random(width * 100 + height)
    with_win = positions = 0
    for _ in range(40):
        position = initial_position(width, height)
        for move in random_game(width, height, rng):
            tried = []
            for candidate in position.legal_moves():
                position.push(candidate)
                if position.winner_after_push(candidate) is not None:
                    tried.append(candidate)
                position.pop()
            assert position.winning_moves() == tried
            assert position.has_winning_move() == bool(tried), position
            position.turn ^= 1
            threat = position.has_winning_move()
            position.turn ^= 1
            assert position.opponent_has_winning_move() == threat
            with_win += bool(tried)
            positions += 1
            position.push(move)
    assert positions > 500 and with_win > 20


def test_winning_and_playable_cells() -> None:
    position = Position.from_text("4x4", "o", rows("....", "....", "oo..", "xxx."))
    stride = 5
    assert position.playable_cells() == sum(1 << (c * stride + h) for c, h in ((0, 2), (1, 2), (2, 1), (3, 0)))
    assert position.winning_cells(PLAYER_X) == 1 << (3 * stride)
    assert position.winning_cells(PLAYER_O) == 0
    assert position.winning_moves() == []  # o's
    assert position.opponent_has_winning_move()
    position.push(1)
    assert position.winning_moves() == [4]


def test_keys_are_unique_per_board_and_side_to_move() -> None:
    """Every position up to 7 plies at 4x4 and 5 plies at 5x5: one key per board, one board per key."""
    for width, height, depth in ((4, 4, 7), (5, 5, 5)):
        by_key: dict[int, str] = {}
        by_board: dict[str, int] = {}
        position = initial_position(width, height)

        def visit(ply: int) -> None:
            key, board = position.key(), position.board()
            assert by_key.setdefault(key, board) == board
            assert by_board.setdefault(board, key) == key
            if ply == depth:
                return
            for move in position.legal_moves():
                position.push(move)
                visit(ply + 1)
                position.pop()

        visit(0)
        assert len(by_key) == len(by_board) > 1000
        assert Position(width, height, next(iter(by_board))).key() == by_board[next(iter(by_board))]
