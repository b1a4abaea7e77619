"""What the sample students share: a plain memoized minimax over every position, with --move.

Each student submits a copy of it in a folder of their own (a student's program sees only its own
folder), and is this search with one of its own habits: ``order`` lists which coordinates are
black's and white's knights, ``blocking`` whether occupied squares are refused, ``debug`` whether a
debug line is left in."""
import sys
from functools import lru_cache

sys.setrecursionlimit(1_000_000)
STEPS = ((-2, -1), (-1, -2), (-2, 1), (1, -2))
NAMES = ("BLACK", "WHITE")


def play(order=(0, 2, 4, 6), blocking=True, debug=False):
    def children(turn, knights):
        for slot in (2 * turn, 2 * turn + 1):
            row, col = knights[slot]
            for dr, dc in STEPS:
                square = (row + dr, col + dc)
                if square[0] >= 1 and square[1] >= 1 and not (blocking and square in knights):
                    yield knights[:slot] + (square,) + knights[slot + 1:]

    @lru_cache(maxsize=None)
    def wins(turn, knights):
        return any(not wins(1 - turn, child) for child in children(turn, knights))

    args = sys.argv[1:]
    move = args[:1] == ["--move"]
    if move:
        args = args[1:]
    turn = NAMES.index(args[0])
    v = [int(a) for a in args[1:]]
    knights = tuple((v[i], v[i + 1]) for i in order)
    if debug:
        print("debug: knights", knights, "turn", turn)
    if move:
        options = list(children(turn, knights))
        best = next((c for c in options if not wins(1 - turn, c)), options[0] if options else None)
        if best is not None:
            print(NAMES[1 - turn], " ".join(str(x) for square in best for x in square))
    print(f"{NAMES[turn] if wins(turn, knights) else NAMES[1 - turn]} WILL WIN")
