#!/usr/bin/env python3
"""A sound one-ply student: wins if it can, otherwise avoids moves that let the opponent win next."""
import sys

from _common import answer, moves, one_ply_choice, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
best = one_ply_choice(n, player, columns, drops + rotations)
answer(n, best, play(n, player, columns, best))
