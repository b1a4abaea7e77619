#!/usr/bin/env python3
"""Prints its (legal) move at once, then keeps 'improving' it, printing the same move every 50 ms
until the referee kills it at the deadline."""
import sys
import time

from _common import answer, moves, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
move = (drops + rotations)[0]
while True:
    answer(n, move, play(n, player, columns, move))
    time.sleep(0.05)
