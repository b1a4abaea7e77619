#!/usr/bin/env python3
"""Rewrites the results database (its path from targets.json, or any *.sqlite in a process's
command line), as a hostile student would, then plays on."""
import os
import sqlite3
import sys

from _attack import answer_legally, leaked, targets

paths = {targets().get("db")}
for pid in os.listdir("/proc"):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            words = file.read().decode(errors="replace").split("\0")
    except OSError:
        continue
    paths.update(word for word in words if word.endswith(".sqlite"))
for path in sorted(p for p in paths if p):
    try:
        with sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=2) as db:
            changed = db.execute("UPDATE games SET result='1-0', winner='x', reason='TAMPERED'").rowcount
        leaked(f"rewrote {changed} games in {path}")
    except sqlite3.Error:
        pass
answer_legally(sys.argv)
