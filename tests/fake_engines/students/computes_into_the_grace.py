#!/usr/bin/env python3
"""A correct student that computes for its time limit and 0.2 s more (CPU time, its own), then plays a
random legal move (seeded by the position): it answers inside the grace on any machine, as real
programs that answer in 1.0-1.5 s on a 1 s limit do."""
import random
import sys
import time

from _common import answer, moves, parse, play

n, player, columns, seconds = parse(sys.argv)
drops, rotations = moves(n, player, columns)
random.seed(sys.argv[3] + player)
move = random.choice(drops + rotations)
start = time.process_time()
while time.process_time() - start < seconds + 0.2:
    pass
answer(n, move, play(n, player, columns, move))
