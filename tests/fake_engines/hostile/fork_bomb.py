#!/usr/bin/env python3
"""Starts as many processes as targets.json's "cap_processes" (64 without one), each sleeping a
minute, then plays on."""
import os
import sys
import time

from _attack import blocked, finish, leaked, targets

cap = targets().get("cap_processes", 64)
started, why = 0, ""
for _ in range(cap):
    try:
        pid = os.fork()
    except OSError as error:
        why = error.strerror
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    started += 1
if started >= cap:
    leaked(f"started {started} processes (cap {cap})")
else:
    blocked(f"start {cap} processes", f"stopped at {started}: {why}")
finish(sys.argv)
