#!/usr/bin/env python3
"""A strategy opponent: rotates a column every move (the first column whose rotation is legal,
starting from --column K, default 1), and drops only when no rotation is legal. Usage:
rotation_spammer.py N PLAYER BOARD SECONDS [--column K]."""
import os
import sys

sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.games.betsy import Position  # noqa: E402

n_text, player, board = sys.argv[1:4]
n = int(n_text)
start = int(sys.argv[sys.argv.index("--column") + 1]) if "--column" in sys.argv else 1
position = Position.from_text(n_text, player, board)
legal = position.legal_moves()
rotations = [-(((start - 1 + k) % n) + 1) for k in range(n)]
move = next((m for m in rotations if m in legal), legal[0])
print(move, position.after(move).board())
