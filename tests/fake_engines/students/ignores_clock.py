#!/usr/bin/env python3
"""Correct moves, but "searches" as long as the board size says, whatever the time limit: 0.05 s at
n = 3, until 1.1 s after its own start at n = 5 (past a 1 s limit, inside the 0.5 s grace, however
slow its start-up), 5 s from n = 8 (no answer by the deadline, by far)."""
import os
import sys
import time

from _common import answer, moves, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns)
if n < 5:
    time.sleep(0.05)
elif n < 8:
    with open("/proc/self/stat") as stat, open("/proc/uptime") as uptime:
        started = int(stat.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        age = float(uptime.read().split()[0]) - started
    time.sleep(max(0.0, 1.1 - age))
else:
    time.sleep(5)
move = (drops + rotations)[0]
answer(n, move, play(n, player, columns, move))
