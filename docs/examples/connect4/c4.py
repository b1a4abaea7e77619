#!/usr/bin/env python3
"""A small Connect Four player to start from: it takes a win, blocks the opponent's win, avoids
dropping a disc right under a cell where the opponent would then win, and otherwise plays near the
centre.

    c4.py WxH PLAYER BOARD SECONDS        e.g.  c4.py 7x6 x ...............................ooo....xxx. 1

It prints its answer as its last line, MOVE NEWBOARD: the column (from 1) and the board after it.
The rules are in docs/connect4.md; `arena validate "python3 c4.py" --game connect4` checks a program
like this one. To make it stronger, replace choose() with a search that looks further ahead.
"""
import sys


def drop(width, height, player, board, column):
    """The board after ``player`` drops a disc into ``column`` (from 1), or None if it is full."""
    for row in range(height - 1, -1, -1):  # from the bottom row up
        index = row * width + column - 1
        if board[index] == ".":
            return board[:index] + player + board[index + 1:]
    return None


def has_four(width, height, board, player):
    for row in range(height):
        for column in range(width):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(row + k * dr, column + k * dc) for k in range(4)]
                if all(0 <= r < height and 0 <= c < width and board[r * width + c] == player for r, c in cells):
                    return True
    return False


def choose(width, height, player, board):
    other = "o" if player == "x" else "x"
    after = {c: drop(width, height, player, board, c) for c in range(1, width + 1)}
    after = {c: new for c, new in after.items() if new is not None}
    for c, new in after.items():  # win at once
        if has_four(width, height, new, player):
            return c
    for c in after:  # block the opponent's win
        if has_four(width, height, drop(width, height, other, board, c), other):
            return c

    def gives_a_win(c):
        reply = drop(width, height, other, after[c], c)  # the opponent drops on top of our disc
        return reply is not None and has_four(width, height, reply, other)

    safe = [c for c in after if not gives_a_win(c)] or list(after)
    centre = (width + 1) / 2
    return min(safe, key=lambda c: (abs(c - centre), c))


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: c4.py WxH PLAYER BOARD SECONDS")
    width, height = (int(part) for part in sys.argv[1].split("x"))
    player, board = sys.argv[2], sys.argv[3]
    column = choose(width, height, player, board)
    print(column, drop(width, height, player, board, column))


if __name__ == "__main__":
    main()
