#!/usr/bin/env python3
"""A correct student that plays a random legal move (seeded by the position, so reproducible)."""
import random
import sys

from _common import answer, moves, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
random.seed(sys.argv[3] + player)
move = random.choice(drops + rotations)
print("Shhh... I'm thinking!")
answer(n, move, play(n, player, columns, move))
