#!/usr/bin/env python3
"""A small exact All The King's Horses program to start from: it searches every position the game
can reach (remembering each one it has solved) and says who wins with perfect play.

    bestmove.py [--move] PLAYER b1r b1c b2r b2c w1r w1c w2r w2c     e.g.  bestmove.py BLACK 2 2 3 3 1 2 3 1

prints BLACK WILL WIN or WHITE WILL WIN; with --move, first the position after its move (a winning
one when there is one), with the other side to move. The rules are in docs/kings_horses.md; `arena
validate --game kings-horses bestmove.py` checks a program like this one.

Searching everything is exact but slow when the knights are far from the corner: the validation
report shows where it runs out of time. docs/kings_horses.md says how the project's own solver
avoids most of the search (knights that can never meet, and counting their moves).
"""
import sys
from functools import lru_cache

STEPS = ((-2, -1), (-1, -2), (-2, 1), (1, -2))
"""The four knight steps toward the corner."""


def moves(own, other):
    """Each position of the mover's two knights after one of its moves (sorted: order does not matter)."""
    taken = set(own) | set(other)
    for index, (row, column) in enumerate(own):
        for dr, dc in STEPS:
            square = (row + dr, column + dc)
            if square[0] >= 1 and square[1] >= 1 and square not in taken:
                moved = list(own)
                moved[index] = square
                yield tuple(sorted(moved))


@lru_cache(maxsize=None)
def wins(mover, other):
    """Whether the side to move, with knights ``mover``, wins against knights ``other``."""
    return any(not wins(other, moved) for moved in moves(mover, other))


def main():
    args = sys.argv[1:]
    want_move = bool(args) and args[0] == "--move"
    args = args[1:] if want_move else args
    if len(args) != 9 or args[0] not in ("BLACK", "WHITE"):
        sys.exit("usage: bestmove.py [--move] PLAYER b1r b1c b2r b2c w1r w1c w2r w2c")
    sys.setrecursionlimit(100_000)
    numbers = [int(word) for word in args[1:]]
    black = tuple(sorted([(numbers[0], numbers[1]), (numbers[2], numbers[3])]))
    white = tuple(sorted([(numbers[4], numbers[5]), (numbers[6], numbers[7])]))
    player = args[0]
    mover, other = (black, white) if player == "BLACK" else (white, black)
    opponent = "WHITE" if player == "BLACK" else "BLACK"
    if want_move:
        options = list(moves(mover, other))
        if options:
            best = next((moved for moved in options if not wins(other, moved)), options[0])
            new_black, new_white = (best, other) if player == "BLACK" else (other, best)
            print(opponent, *(number for square in new_black + new_white for number in square))
    print(f"{player if wins(mover, other) else opponent} WILL WIN")


if __name__ == "__main__":
    main()
