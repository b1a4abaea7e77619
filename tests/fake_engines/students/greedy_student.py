#!/usr/bin/env python3
"""A sound one-ply student: wins if it can, otherwise avoids moves that let the opponent win next."""
import sys

from _common import answer, moves, parse, play, winner

n, player, columns, _ = parse(sys.argv)
other = "o" if player == "x" else "x"
drops, rotations = moves(n, player, columns)
candidates = drops + rotations
best = candidates[0]
safe = []
for move in candidates:
    after = play(n, player, columns, move)
    who = winner(n, after, player)
    if who == player:
        best = move
        safe = None
        break
    if who is None:
        d, r = moves(n, other, after)
        if not any(winner(n, play(n, other, after, reply), other) == other for reply in d + r):
            safe.append(move)
if safe:
    best = safe[0]
answer(n, best, play(n, player, columns, best))
