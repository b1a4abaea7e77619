#!/usr/bin/env python3
"""Overwrites the engines' n = 3 table and drops a file beside it, then plays on."""
import os
import sys

from _attack import blocked, finish, fenced, leaked, targets

table = targets().get("table", os.path.expanduser("~/.cache/betsy-arena/betsy3-mover-v2.tb"))
planted = os.path.join(os.path.dirname(table), "planted.tb")
for what, path, mode, done in ((f"overwrite {table}", table, "r+b", f"overwrote {table}"),
                               ("create a file beside the tables", planted, "xb", "created a file beside the tables")):
    if not fenced(path):
        blocked(what, "outside the fence targets.json draws")
        continue
    try:
        with open(path, mode) as file:
            file.write(b"\0" * 16)
        leaked(done)
    except OSError as error:
        blocked(what, error.strerror)
finish(sys.argv)
