#!/usr/bin/env python3
"""A strategy opponent: answers with the move that leaves the board most like its mirror image
with the colours exchanged (column c against column n + 1 - c, x against o): it copies the
opponent's last move on the other side of the board. Usage: mirror.py N PLAYER BOARD SECONDS."""
import os
import sys

sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.games.betsy import Position  # noqa: E402

n_text, player, board = sys.argv[1:4]
n = int(n_text)
swap = {"x": "o", "o": "x", ".": "."}


def symmetry(text: str) -> int:
    rows = [text[r * n:(r + 1) * n] for r in range(len(text) // n)]
    return sum(row[c] == swap[row[n - 1 - c]] for row in rows for c in range(n))


position = Position.from_text(n_text, player, board)
move = max(position.legal_moves(), key=lambda m: (symmetry(position.after(m).board()), m > 0, -abs(m)))
print(move, position.after(move).board())
