#!/usr/bin/env python3
"""A correct student that computes for 80% of its time limit (CPU time, its own), then plays a random
legal move (seeded by the position): a busy program that answers in time on any machine."""
import random
import sys
import time

from _common import answer, moves, parse, play

n, player, columns, seconds = parse(sys.argv)
drops, rotations = moves(n, player, columns)
random.seed(sys.argv[3] + player)
move = random.choice(drops + rotations)
start = time.process_time()
while time.process_time() - start < 0.8 * seconds:
    pass
answer(n, move, play(n, player, columns, move))
