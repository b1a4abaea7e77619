"""Shared by the hostile engines: their targets, how they report a successful attack, and one
legal move (no project imports: inside the sandbox only this folder and the interpreter are seen)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def targets():
    """What the test told the engine to attack (targets.json beside it; {} if there is none)."""
    try:
        with open(os.path.join(HERE, "targets.json")) as file:
            return json.load(file)
    except OSError:
        return {}


def leaked(what):
    """An attack worked: say so and forfeit (no answer), so that the game records the evidence."""
    print(f"LEAKED: {what}", file=sys.stderr, flush=True)
    sys.exit(3)


def answer_legally(argv):
    """Drop into the first column with room (or rotate the first non-empty one) and print it."""
    n, player, board = int(argv[1]), argv[2], argv[3]
    columns = [[board[r * n + c] for r in range(n + 3)][::-1] for c in range(n)]
    columns = [[cell for cell in column if cell != "."] for column in columns]
    in_hand = n * (n + 3) // 2 - sum(column.count(player) for column in columns)
    move = next((c + 1 for c in range(n) if len(columns[c]) < n + 3 and in_hand > 0), None)
    if move is None:
        move = -next(c + 1 for c in range(n) if columns[c])
        columns[-move - 1].append(columns[-move - 1].pop(0))
    else:
        columns[move - 1].append(player)
    rows = ["".join(col[n + 2 - r] if n + 2 - r < len(col) else "." for col in columns) for r in range(n + 3)]
    print(f"{move} {''.join(rows)}", flush=True)
