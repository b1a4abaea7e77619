#!/usr/bin/env python3
"""The sound one-ply student, with its supply off by one: it thinks its last pebble is gone, so it
never drops it (legal moves only, but it misses wins and blocks that need that pebble)."""
import sys

from _common import answer, moves, parse, play, winner

n, player, columns, _ = parse(sys.argv)
other = "o" if player == "x" else "x"
drops, rotations = moves(n, player, columns)
in_hand = n * (n + 3) // 2 - sum(column.count(player) for column in columns)
if in_hand <= 1:
    drops = []  # the off-by-one: "supply - 1" pebbles counted as all of them
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
