#!/usr/bin/env python3
"""The sound one-ply student, with its supply off by one: it thinks its last pebble is gone, so it
never drops it (legal moves only, but it misses wins and blocks that need that pebble)."""
import sys

from _common import answer, moves, one_ply_choice, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
if n * (n + 3) // 2 - sum(column.count(player) for column in columns) <= 1:
    drops = []  # the off-by-one: "supply - 1" pebbles counted as all of them
best = one_ply_choice(n, player, columns, drops + rotations)
answer(n, best, play(n, player, columns, best))
