"""Shared by the hostile engines: their targets, how each attack reports whether it worked, and one
legal move (no project imports: inside the sandbox only this folder and the interpreter are seen).

Every attempt ends in one line on stderr: ``LEAKED: what it did`` when it worked, ``BLOCKED: what it
tried: why not`` when it did not, so that an attack that is broken (not stopped) shows instead of
passing. An engine with any LEAKED line forfeits (exit 3, no answer) once all its attacks are made;
otherwise it plays a legal move."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_LEAKS = []


def targets():
    """What the test told the engine to attack (targets.json beside it; {} if there is none)."""
    try:
        with open(os.path.join(HERE, "targets.json")) as file:
            return json.load(file)
    except OSError:
        return {}


def leaked(what):
    """An attack worked: say so (the engine forfeits in ``finish``, so the game keeps the evidence)."""
    print(f"LEAKED: {what}", file=sys.stderr, flush=True)
    _LEAKS.append(what)


def blocked(what, why):
    """An attack did not work: say what was tried and why it failed."""
    print(f"BLOCKED: {what}: {why}", file=sys.stderr, flush=True)


def fenced(path):
    """Whether the engine may write to ``path``: inside a folder of targets.json's "fence" list, when
    it has one (a test that runs an attack unconfined keeps it inside the test's own folders)."""
    fence = targets().get("fence")
    if fence is None:
        return True
    real = os.path.realpath(path)
    return any(real == os.path.realpath(folder) or real.startswith(os.path.realpath(folder) + os.sep)
               for folder in fence)


def finish(argv):
    """After every attack: forfeit (no answer) if one worked, otherwise answer legally."""
    if _LEAKS:
        sys.exit(3)
    answer_legally(argv)


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
