#!/usr/bin/env python3
"""Stops the opponent's immediate wins but never looks for its own: misses wins in one."""
import sys

from _common import answer, one_ply, parse, play

width, height, player, rows = parse(sys.argv)
column = one_ply(width, rows, player, take_wins=False)
answer(column, play(rows, column, player))
