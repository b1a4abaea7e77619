#!/usr/bin/env python3
"""A right but slow bestmove.py: plain memoized minimax over every position, with --move."""
import sys
from functools import lru_cache

sys.setrecursionlimit(1_000_000)
STEPS = ((-2, -1), (-1, -2), (-2, 1), (1, -2))


def children(turn, knights):
    for slot in (2 * turn, 2 * turn + 1):
        row, col = knights[slot]
        for dr, dc in STEPS:
            square = (row + dr, col + dc)
            if square[0] >= 1 and square[1] >= 1 and square not in knights:
                yield knights[:slot] + (square,) + knights[slot + 1:]


@lru_cache(maxsize=None)
def wins(turn, knights):
    return any(not wins(1 - turn, child) for child in children(turn, knights))


def main(args):
    move = args[:1] == ["--move"]
    if move:
        args = args[1:]
    turn = ("BLACK", "WHITE").index(args[0])
    v = [int(a) for a in args[1:]]
    knights = tuple((v[i], v[i + 1]) for i in range(0, 8, 2))
    names = ("BLACK", "WHITE")
    if move:
        options = list(children(turn, knights))
        best = next((c for c in options if not wins(1 - turn, c)), options[0] if options else None)
        if best is not None:
            print(names[1 - turn], " ".join(str(x) for square in best for x in square))
    print(f"{names[turn] if wins(turn, knights) else names[1 - turn]} WILL WIN")


main(sys.argv[1:])
