#!/usr/bin/env python3
"""A sound one-ply student with a blind spot: as o it looks for wins among its rotations only, so it
misses every win by a drop as o, with its last pebble or with pebbles to spare. Its supply count is
right (it drops while its pebbles on the board are fewer than n(n+3)/2); as x it finds every win."""
import sys

from _common import answer, moves, one_ply_choice, parse, play, winner

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
candidates = drops + rotations
if player == "o":  # it looks for a win among its rotations first, and never plays a drop that wins
    candidates = rotations + [move for move in drops if winner(n, play(n, player, columns, move), player) != player]
best = one_ply_choice(n, player, columns, candidates)
answer(n, best, play(n, player, columns, best))
