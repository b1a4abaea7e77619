"""Shared by the sample students: a deliberately naive, self-contained Betsy implementation (no
project imports), with switches for the classic mistakes."""
import sys


def parse(argv):
    n = int(argv[1])
    player = argv[2]
    board = argv[3]
    seconds = int(argv[4])
    columns = []
    for c in range(n):
        column = [board[r * n + c] for r in range(n + 3)][::-1]  # bottom first
        columns.append([cell for cell in column if cell != "."])
    return n, player, columns, seconds


def encode(n, columns):
    rows = []
    for r in range(n + 3):
        height = n + 2 - r
        rows.append("".join(col[height] if height < len(col) else "." for col in columns))
    return "".join(rows)


def moves(n, player, columns, respect_supply=True):
    supply = n * (n + 3) // 2
    mine = sum(col.count(player) for col in columns)
    drops = [c + 1 for c in range(n) if len(columns[c]) < n + 3 and (mine < supply or not respect_supply)]
    rotations = [-(c + 1) for c in range(n) if columns[c]]
    return drops, rotations


def play(n, player, columns, move, wrong_rotation=False):
    columns = [col[:] for col in columns]
    c = abs(move) - 1
    if move > 0:
        columns[c].append(player)
    elif wrong_rotation:
        columns[c].insert(0, columns[c].pop())  # top pebble to the bottom: the wrong way
    else:
        columns[c].append(columns[c].pop(0))
    return columns


def lines(n, columns):
    def cell(c, h):
        return columns[c][h] if h < len(columns[c]) else "."
    top = [n + 2 - r for r in range(n)]
    result = [[cell(c, h) for c in range(n)] for h in top]
    result += [[cell(c, h) for h in top] for c in range(n)]
    result.append([cell(i, top[i]) for i in range(n)])
    result.append([cell(n - 1 - i, top[i]) for i in range(n)])
    return result


def winner(n, columns, mover):
    other = "o" if mover == "x" else "x"
    for colour in (mover, other):
        if any(all(cell == colour for cell in line) for line in lines(n, columns)):
            return colour
    return None


def answer(n, move, columns):
    print(f"{move} {encode(n, columns)}")
    sys.stdout.flush()


def one_ply_choice(n, player, columns, candidates):
    """A winning move if one of ``candidates`` wins, else the first that leaves the opponent no
    immediate win, else the first candidate."""
    other = "o" if player == "x" else "x"
    safe = []
    for move in candidates:
        after = play(n, player, columns, move)
        who = winner(n, after, player)
        if who == player:
            return move
        if who is None:
            d, r = moves(n, other, after)
            if not any(winner(n, play(n, other, after, reply), other) == other for reply in d + r):
                safe.append(move)
    return safe[0] if safe else candidates[0]
