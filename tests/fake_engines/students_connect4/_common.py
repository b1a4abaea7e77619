"""Shared by the Connect Four sample students: a deliberately naive, self-contained Connect Four
(no project imports), with switches for the classic mistakes."""
import sys


def parse(argv):
    """``WxH PLAYER BOARD SECONDS`` -> (width, height, player, rows), rows top first."""
    width, height = (int(part) for part in argv[1].split("x"))
    player = argv[2]
    board = argv[3]
    int(argv[4])
    rows = [list(board[r * width:(r + 1) * width]) for r in range(height)]
    return width, height, player, rows


def discs_in(rows, column):
    return sum(row[column - 1] != "." for row in rows)


def has_room(rows, column, off_by_one=False):
    if off_by_one:
        return discs_in(rows, column) <= len(rows)  # should be <: a full column looks open
    return rows[0][column - 1] == "."


def open_columns(width, rows):
    return [c for c in range(1, width + 1) if has_room(rows, c)]


def play(rows, column, player):
    """The rows after ``player`` drops into ``column`` (unchanged if the column is full)."""
    rows = [row[:] for row in rows]
    for r in range(len(rows) - 1, -1, -1):
        if rows[r][column - 1] == ".":
            rows[r][column - 1] = player
            break
    return rows


def four(rows, player):
    height, width = len(rows), len(rows[0])
    for r in range(height):
        for c in range(width):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(4)]
                if all(0 <= rr < height and 0 <= cc < width and rows[rr][cc] == player for rr, cc in cells):
                    return True
    return False


def centre_first(width, columns):
    return sorted(columns, key=lambda c: (abs(2 * c - width - 1), c))


def one_ply(width, rows, player, take_wins=True):
    """A winning column if ``take_wins`` and there is one, else one that stops the opponent's
    immediate win, else the centre-most open column."""
    other = "o" if player == "x" else "x"
    columns = centre_first(width, open_columns(width, rows))
    if take_wins:
        for c in columns:
            if four(play(rows, c, player), player):
                return c
    for c in columns:
        if four(play(rows, c, other), other):
            return c
    return columns[0]


def answer(column, rows, bottom_first=False):
    lines = rows[::-1] if bottom_first else rows
    print(f"{column} {''.join(''.join(row) for row in lines)}")
    sys.stdout.flush()
