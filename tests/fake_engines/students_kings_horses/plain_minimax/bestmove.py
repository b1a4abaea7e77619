#!/usr/bin/env python3
"""A right but slow bestmove.py: plain memoized minimax over every position, with --move."""
from _common import play

play()
