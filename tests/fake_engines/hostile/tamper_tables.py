#!/usr/bin/env python3
"""Overwrites the engines' n = 3 tables and drops a file beside them, then plays on."""
import os
import sys

from _attack import answer_legally, leaked, targets

table = targets().get("table", os.path.expanduser("~/.cache/betsy-arena/betsy3-mover.tb"))
try:
    with open(table, "r+b") as file:
        file.write(b"\0" * 16)
    leaked(f"overwrote {table}")
except OSError:
    pass
try:
    with open(os.path.join(os.path.dirname(table), "planted.tb"), "wb") as file:
        file.write(b"x")
    leaked("created a file beside the tables")
except OSError:
    pass
answer_legally(sys.argv)
