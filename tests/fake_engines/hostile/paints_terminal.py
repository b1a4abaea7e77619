#!/usr/bin/env python3
"""Prints escape sequences (screen clear, window title, clipboard, link, C1 CSI) and bidi controls
on stdout and stderr, then exits 1 without an answer: it forfeits, and its output is the evidence."""
import sys

from _paint import paint

paint()
sys.exit(1)
