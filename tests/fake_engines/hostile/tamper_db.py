#!/usr/bin/env python3
"""Rewrites the results database (its path from targets.json, and any *.sqlite on a process's command
line), as a hostile student would, then plays on."""
import os
import sqlite3
import sys

from _attack import blocked, finish, fenced, leaked, targets

named = targets().get("db")
seen = set()
for pid in os.listdir("/proc"):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            words = file.read().decode(errors="replace").split("\0")
    except OSError:
        continue
    seen.update(word for word in words if word.endswith(".sqlite") and fenced(word))
if not seen:
    blocked("find a database on a process's command line", "none seen")
for path in sorted(seen | {named} - {None}):
    if not fenced(path):
        blocked(f"rewrite {path}", "outside the fence targets.json draws")
        continue
    try:
        connection = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=2)
        try:
            with connection:
                changed = connection.execute(
                    "UPDATE games SET result='1-0', winner='x', reason='TAMPERED'").rowcount
        finally:
            connection.close()
        leaked(f"rewrote {changed} games in {path}")
    except sqlite3.Error as error:
        blocked(f"rewrite {path}", error)
finish(sys.argv)
