#!/usr/bin/env python3
"""Starts as many processes as it can (up to 300, each sleeping a minute), then plays on."""
import os
import sys
import time

from _attack import answer_legally, leaked, targets

cap = targets().get("cap_processes", 64)
started = 0
for _ in range(300):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    started += 1
if started >= cap:
    leaked(f"started {started} processes (cap {cap})")
answer_legally(sys.argv)
