#!/usr/bin/env python3
"""Starved the first time it is called (it leaves the file named by $FAKE_STALL_MARKER): it becomes
starved.py, which lowers its own priority as far as it goes and computes without end, so that beside
busy loops the machine gives it almost no CPU; then answers at once (a drop into column 1 on the empty
n = 3 board, column 2 on the seed): a program that the machine starved once."""
import os
import sys

marker = os.environ["FAKE_STALL_MARKER"]
if not os.path.exists(marker):
    open(marker, "w").close()
    starved = os.path.join(os.path.dirname(os.path.abspath(__file__)), "starved.py")
    os.execv(sys.executable, [sys.executable, starved])
board = sys.argv[3]
print("1 ...............x.." if board == "." * 18 else "2 ...x..o.oxooxxxoxo")  # x on the empty n = 3 board, or o on the seed
