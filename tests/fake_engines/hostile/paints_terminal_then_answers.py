#!/usr/bin/env python3
"""Prints escape sequences and bidi controls on stdout and stderr, then a legal answer (Betsy)."""
import sys

from _attack import answer_legally
from _paint import paint

paint()
answer_legally(sys.argv)
