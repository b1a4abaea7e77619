#!/usr/bin/env python3
"""Touches 200 MiB of memory, then exits with status 3 without an answer (a peak-memory witness)."""
import sys

block = bytearray(200 << 20)
for index in range(0, len(block), 4096):
    block[index] = 1
print("allocated 200 MiB", file=sys.stderr)
sys.exit(3)
