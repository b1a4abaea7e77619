#!/usr/bin/env python3
"""Plays sound one-ply moves, but prints the board bottom row first (the rows flipped)."""
import sys

from _common import answer, one_ply, parse, play

width, height, player, rows = parse(sys.argv)
column = one_ply(width, rows, player)
answer(column, play(rows, column, player), bottom_first=True)
