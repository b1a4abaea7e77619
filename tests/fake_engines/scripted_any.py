#!/usr/bin/env python3
"""Plays the moves of a JSON file {"PLAYER BOARD": move} in any game, PLAYER and BOARD as the harness
writes a position (x/o, Position.board()); usage: scripted_any.py FILE GAME PROTOCOL-ARGUMENTS..."""
import json
import os
import sys

sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.games.kings_horses.rules import Position as KingsHorsesPosition  # noqa: E402
from harness.games.registry import get_game  # noqa: E402

table_path, game = sys.argv[1:3]
args = sys.argv[3:]
position = (KingsHorsesPosition.from_words(args[1:10]) if args[0] == "--move"
            else get_game(game).position(args[0], args[1], args[2]))
with open(table_path) as file:
    move = json.load(file)[f"{position.player} {position.board()}"]
after = position.after(move)
print(" ".join(after.words()) if args[0] == "--move" else f"{move} {after.board()}")
