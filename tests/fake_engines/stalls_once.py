#!/usr/bin/env python3
"""Sleeps past any deadline the first time it is called (it leaves the file named by
$FAKE_STALL_MARKER), then answers at once (a drop into column 1 on the empty n = 3 board, column 2 on the
seed): a program that the machine stalled once."""
import os
import sys
import time

marker = os.environ["FAKE_STALL_MARKER"]
if not os.path.exists(marker):
    open(marker, "w").close()
    time.sleep(1000)
board = sys.argv[3]
print("1 ...............x.." if board == "." * 18 else "2 ...x..o.oxooxxxoxo")  # x on the empty n = 3 board, or o on the seed
