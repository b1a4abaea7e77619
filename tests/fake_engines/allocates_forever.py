#!/usr/bin/env python3
"""Allocates memory in 16 MiB blocks until allocation fails; reports the count, re-raises MemoryError.

It waits 0.3 s first: without the sandbox the referee sets the limits from outside just
after the start, and on a loaded machine a program that allocates at once can get there first."""
import sys
import time

time.sleep(0.3)
blocks = []
try:
    while True:
        blocks.append(bytes(16 << 20))
except MemoryError:
    print(f"allocated {len(blocks)} blocks of 16 MiB", file=sys.stderr)
    raise
