#!/usr/bin/env python3
"""Mixes up the colours: reads the first two knights as white's and the last two as black's."""
from _common import play

play(order=(4, 6, 0, 2))
