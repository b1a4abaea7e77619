#!/usr/bin/env python3
"""Looks for what it should not see: the operator's secret variable (in its environment or another
process's), the opponent's source, files of the project, the results folder and the operator's
home, other engines' scratch folders."""
import glob
import os
import sys

from _attack import answer_legally, leaked, targets

aims = targets()
secret = aims.get("secret_variable", "ARENA_SECRET")
if secret in os.environ:
    leaked(f"the environment holds {secret}={os.environ[secret]}")
for pid in os.listdir("/proc"):  # the environments of every process it can see
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            if secret.encode() + b"=" in file.read():
                leaked(f"/proc/{pid}/environ holds {secret}")
    except OSError:
        pass
for path in aims.get("files", []):
    try:
        with open(path, "rb") as file:
            leaked(f"read {len(file.read())} bytes of {path}")
    except OSError:
        pass
for folder in aims.get("folders", []):
    try:
        found = os.listdir(folder)
    except OSError:
        continue
    if found:
        leaked(f"listed {folder}: {sorted(found)[:5]}")
others = glob.glob("/tmp/arena-engine-*")
if others:
    leaked(f"found other engines' scratch folders: {others[:3]}")
answer_legally(sys.argv)
