#!/usr/bin/env python3
"""Answers, then forks a child that leaves the process group (setsid) and sleeps for minutes."""
import os
import time

print("2 ...x..o.oxooxxxoxo", flush=True)
child = os.fork()
if child == 0:
    os.setsid()
    grandchild = os.fork()  # and one more level below the escapee
    if grandchild == 0:
        time.sleep(300)
        os._exit(0)
    with open(os.environ.get("FAKE_ENGINE_PIDS", os.devnull), "a") as pids:
        print(os.getpid(), grandchild, file=pids)
    time.sleep(300)
    os._exit(0)
time.sleep(0.3)  # let the escapee record its pids
with open(os.environ.get("FAKE_ENGINE_PIDS", os.devnull), "a") as pids:
    print(os.getpid(), file=pids)
