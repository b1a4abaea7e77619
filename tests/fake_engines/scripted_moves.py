#!/usr/bin/env python3
"""Plays the moves listed in a JSON file {"PLAYER BOARD": move}; usage: scripted_moves.py FILE N PLAYER BOARD SECONDS."""
import json
import os
import sys

sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.games.betsy.rules import Position  # noqa: E402

table_path, n, player, board, _seconds = sys.argv[1:6]
move = json.load(open(table_path))[f"{player} {board}"]
position = Position.from_text(n, player, board)
print(move, position.after(move).board())
