#!/usr/bin/env python3
"""Looks for what it should not see: the operator's secret variable (in its environment or another
process's), the opponent's source, files of the project, the results folder and the operator's
home, other engines' scratch folders."""
import glob
import os
import sys

from _attack import blocked, finish, leaked, targets

aims = targets()
secret = aims.get("secret_variable", "ARENA_SECRET")
if secret in os.environ:
    leaked(f"the environment holds {secret}={os.environ[secret]}")
else:
    blocked(f"read {secret} in the environment", "not there")
others = [pid for pid in os.listdir("/proc") if pid.isdigit() and int(pid) != os.getpid()]
holders = []
for pid in others:  # the environments of every other process it can see
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            if secret.encode() + b"=" in file.read():
                holders.append(pid)
    except OSError:
        pass
for pid in holders:
    leaked(f"/proc/{pid}/environ holds {secret}")
if not holders:
    blocked(f"find {secret} in another process's environment", f"none of the {len(others)} others seen holds it")
for path in aims.get("files", []):
    try:
        with open(path, "rb") as file:
            leaked(f"read {len(file.read())} bytes of {path}")
    except OSError as error:
        blocked(f"read {path}", error.strerror)
for folder in aims.get("folders", []):
    try:
        found = os.listdir(folder)
    except OSError as error:
        blocked(f"list {folder}", error.strerror)
        continue
    if found:
        leaked(f"listed {folder}: {sorted(found)[:5]}")
    else:
        blocked(f"list {folder}", "empty")
mine = os.path.realpath(os.getcwd())
scratch = sorted(path for path in glob.glob(aims.get("scratch", "/tmp/arena-engine-*")) if os.path.realpath(path) != mine)
if scratch:
    leaked(f"found other engines' scratch folders: {scratch[:3]}")
else:
    blocked("find other engines' scratch folders", "none seen")
finish(sys.argv)
