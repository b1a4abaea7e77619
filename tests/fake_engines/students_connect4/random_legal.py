#!/usr/bin/env python3
"""A correct student that plays a random open column (seeded by the position, so reproducible)."""
import random
import sys

from _common import answer, open_columns, parse, play

width, height, player, rows = parse(sys.argv)
random.seed(sys.argv[3] + player)
column = random.choice(open_columns(width, rows))
print("Thinking about", len(open_columns(width, rows)), "columns...")
answer(column, play(rows, column, player))
