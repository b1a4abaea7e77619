#!/usr/bin/env python3
"""Correct moves, but always waits until just before the time limit (9/10 of SECONDS) to answer."""
import sys
import time

from _common import answer, moves, parse, play

started = time.monotonic()
n, player, columns, seconds = parse(sys.argv)
drops, rotations = moves(n, player, columns)
move = (drops + rotations)[0]
time.sleep(max(0.0, 0.9 * seconds - (time.monotonic() - started)))
answer(n, move, play(n, player, columns, move))
