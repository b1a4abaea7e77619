#!/usr/bin/env python3
"""A sound one-ply student: wins at once if it can, else stops the opponent's immediate win."""
import sys

from _common import answer, one_ply, parse, play

width, height, player, rows = parse(sys.argv)
column = one_ply(width, rows, player)
answer(column, play(rows, column, player))
