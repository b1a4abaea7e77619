#!/usr/bin/env python3
"""Prefers rotating its fullest column, but rotates the wrong way (top pebble to the bottom)."""
import sys

from _common import answer, moves, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
if rotations:
    move = max(rotations, key=lambda m: (len(columns[-m - 1]), m))
else:
    move = drops[0]
answer(n, move, play(n, player, columns, move, wrong_rotation=True))
