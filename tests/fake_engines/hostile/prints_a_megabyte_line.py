#!/usr/bin/env python3
"""A correct program that prints one line of 1,000,000 characters before each legal answer."""
import sys

from _attack import answer_legally

sys.stdout.write("a" * 1_000_000 + "\n")
answer_legally(sys.argv)
