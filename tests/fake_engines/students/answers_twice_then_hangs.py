#!/usr/bin/env python3
"""Prints its (legal) move at once, prints it again 0.3 s later (an 'improved' answer), then thinks on
without a word until the referee kills it at the deadline."""
import sys
import time

from _common import answer, moves, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
move = (drops + rotations)[0]
answer(n, move, play(n, player, columns, move))
time.sleep(0.3)
answer(n, move, play(n, player, columns, move))
time.sleep(600)
