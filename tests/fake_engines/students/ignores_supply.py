#!/usr/bin/env python3
"""Drops whenever a column has room, even with no pebble left in hand."""
import sys

from _common import answer, moves, parse, play

n, player, columns, _ = parse(sys.argv)
drops, rotations = moves(n, player, columns, respect_supply=False)
move = (drops + rotations)[0]
answer(n, move, play(n, player, columns, move))
