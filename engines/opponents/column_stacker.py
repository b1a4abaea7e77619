#!/usr/bin/env python3
"""A strategy opponent: drops into one column every move (column 1, or --column K), the nearest
other column once it is full, and rotates only when no drop is left. Usage: column_stacker.py N
PLAYER BOARD SECONDS [--column K]."""
import os
import sys

sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.games.betsy import Position  # noqa: E402

n, player, board = sys.argv[1:4]
column = int(sys.argv[sys.argv.index("--column") + 1]) if "--column" in sys.argv else 1
position = Position.from_text(n, player, board)
legal = position.legal_moves()
drops = sorted((move for move in legal if move > 0), key=lambda move: (abs(move - column), move))
move = drops[0] if drops else legal[0]
print(move, position.after(move).board())
