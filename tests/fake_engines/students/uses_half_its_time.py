#!/usr/bin/env python3
"""A correct student that thinks for half of its time limit, then plays a random legal move (seeded by
the position): a slow engine that never loses on time."""
import random
import sys
import time

from _common import answer, moves, parse, play

n, player, columns, seconds = parse(sys.argv)
drops, rotations = moves(n, player, columns)
random.seed(sys.argv[3] + player)
move = random.choice(drops + rotations)
time.sleep(seconds / 2)
answer(n, move, play(n, player, columns, move))
