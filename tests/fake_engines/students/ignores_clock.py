#!/usr/bin/env python3
"""Correct moves, but "searches" n * 0.2 s whatever the time limit: too slow from n = 8 at 1 s."""
import sys
import time

from _common import answer, moves, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
time.sleep(n * 0.2)
move = (drops + rotations)[0]
answer(n, move, play(n, player, columns, move))
