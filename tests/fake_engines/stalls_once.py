#!/usr/bin/env python3
"""Starved the first time it is called (it leaves the file named by $FAKE_STALL_MARKER): it lowers its
own priority as far as it goes and computes without end, so that beside busy loops the machine gives it
almost no CPU; then answers at once (a drop into column 1 on the empty n = 3 board, column 2 on the
seed): a program that the machine starved once."""
import os
import sys

marker = os.environ["FAKE_STALL_MARKER"]
if not os.path.exists(marker):
    open(marker, "w").close()
    os.nice(19)
    if os.getsid(0) == os.getpid():  # the scheduler's group of its own session too (autogroup)
        try:
            with open("/proc/self/autogroup", "w") as group:
                group.write("19")
        except OSError:
            pass
    while True:
        pass
board = sys.argv[3]
print("1 ...............x.." if board == "." * 18 else "2 ...x..o.oxooxxxoxo")  # x on the empty n = 3 board, or o on the seed
