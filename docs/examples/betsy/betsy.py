#!/usr/bin/env python3
"""A small Betsy player to start from: it takes a win in one move, never makes a move after which
the opponent can win at once (when it has another), and otherwise drops near the centre.

    betsy.py N PLAYER BOARD SECONDS        e.g.  betsy.py 3 o ...x..o.ox.oxxxoxo 5

It prints its answer as its last line, MOVE NEWBOARD: c drops a pebble into column c, -c rotates
column c (its bottom pebble goes on top). The rules are in docs/rules.md; `arena validate
"python3 betsy.py"` checks a program like this one. To make it stronger, replace choose() with a
search that looks further ahead, within SECONDS.
"""
import sys


def cell(n, board, row, column):
    """The cell in row ``row`` and column ``column`` (both from 0; row 0 is the top)."""
    return board[row * n + column]


def legal_moves(n, player, board):
    """Drops (the column is not full and the player has a pebble in hand), then rotations (the
    column is not empty)."""
    in_hand = n * (n + 3) // 2 - board.count(player)
    drops = [c + 1 for c in range(n) if in_hand > 0 and cell(n, board, 0, c) == "."]
    rotations = [-(c + 1) for c in range(n) if cell(n, board, n + 2, c) != "."]
    return drops + rotations


def play(n, player, board, move):
    """The board after ``player`` makes ``move``."""
    column = abs(move) - 1
    pebbles = [cell(n, board, row, column) for row in range(n + 3) if cell(n, board, row, column) != "."]
    if move > 0:
        pebbles = [player] + pebbles  # the new pebble lands on top
    else:
        pebbles = [pebbles[-1]] + pebbles[:-1]  # the bottom pebble goes on top
    pebbles = ["."] * (n + 3 - len(pebbles)) + pebbles
    cells = list(board)
    for row in range(n + 3):
        cells[row * n + column] = pebbles[row]
    return "".join(cells)


def lines(n):
    """The rows and columns of the top n x n square, and its two diagonals."""
    rows = [[(r, c) for c in range(n)] for r in range(n)]
    columns = [[(r, c) for r in range(n)] for c in range(n)]
    return rows + columns + [[(i, i) for i in range(n)], [(i, n - 1 - i) for i in range(n)]]


def has_line(n, board, player, all_lines):
    return any(all(cell(n, board, r, c) == player for r, c in line) for line in all_lines)


def winner(n, board, mover, all_lines):
    """Who has won after ``mover`` moved: the mover first, when a move completes lines of both."""
    other = "o" if mover == "x" else "x"
    for player in (mover, other):
        if has_line(n, board, player, all_lines):
            return player
    return None


def choose(n, player, board):
    other = "o" if player == "x" else "x"
    all_lines = lines(n)
    after = {move: play(n, player, board, move) for move in legal_moves(n, player, board)}
    for move, new in after.items():
        if winner(n, new, player, all_lines) == player:
            return move

    def loses(move):
        new = after[move]
        return winner(n, new, player, all_lines) == other or any(
            winner(n, play(n, other, new, reply), other, all_lines) == other
            for reply in legal_moves(n, other, new))

    safe = [move for move in after if not loses(move)] or list(after)
    centre = (n + 1) / 2
    return min(safe, key=lambda move: (move < 0, abs(abs(move) - centre), abs(move)))


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: betsy.py N PLAYER BOARD SECONDS")
    n, player, board = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    move = choose(n, player, board)
    print(move, play(n, player, board, move))


if __name__ == "__main__":
    main()
