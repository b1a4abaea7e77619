#!/usr/bin/env python3
"""Drops into the first full column (top cell occupied), echoing the board unchanged."""
import sys

n, board = int(sys.argv[1]), sys.argv[3]
column = next(c for c in range(n) if board[c] != ".")
print(column + 1, board)
