#!/usr/bin/env python3
"""Stacks on its tallest column (to build a vertical four), but its room check is off by one: a
full column looks open, so it plays into full columns."""
import sys

from _common import answer, discs_in, has_room, parse, play

width, height, player, rows = parse(sys.argv)
columns = [c for c in range(1, width + 1) if has_room(rows, c, off_by_one=True)]
column = max(columns, key=lambda c: (discs_in(rows, c), -c))
answer(column, play(rows, column, player))
