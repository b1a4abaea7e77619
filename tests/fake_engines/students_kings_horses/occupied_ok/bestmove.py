#!/usr/bin/env python3
"""Lets a knight move onto a square another knight holds."""
from _common import play

play(blocking=False)
