#!/usr/bin/env python3
"""Prints the legal answer every 50 ms (plain print, no flush) and never exits."""
import os
import time

with open(os.environ.get("FAKE_ENGINE_PIDS", os.devnull), "a") as pids:
    print(os.getpid(), file=pids)
while True:
    print("2 ...x..o.oxooxxxoxo")
    time.sleep(0.05)
