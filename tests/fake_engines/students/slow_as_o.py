#!/usr/bin/env python3
"""Correct moves, but as o (red, the second player) it "thinks" 2 s whatever the limit: every call
as o runs out of time at 1 s, at every size; as x it answers at once."""
import sys
import time

from _common import answer, moves, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
if player == "o":
    time.sleep(2)
move = (drops + rotations)[0]
answer(n, move, play(n, player, columns, move))
