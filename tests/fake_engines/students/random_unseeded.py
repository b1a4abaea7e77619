#!/usr/bin/env python3
"""A correct student that plays a uniformly random legal move, drawn afresh at every call (its
generator is seeded by the system): the mover the chance figure of a last-pebble diagnosis is about."""
import random
import sys

from _common import answer, moves, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
move = random.SystemRandom().choice(drops + rotations)
answer(n, move, play(n, player, columns, move))
