#!/usr/bin/env python3
"""Allocates memory in 16 MiB blocks until allocation fails; reports the count, re-raises MemoryError."""
import sys

blocks = []
try:
    while True:
        blocks.append(bytes(16 << 20))
except MemoryError:
    print(f"allocated {len(blocks)} blocks of 16 MiB", file=sys.stderr)
    raise
