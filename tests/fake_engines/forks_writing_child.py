#!/usr/bin/env python3
"""Forks a child that, once the parent has answered and exited, keeps running and printing."""
import os
import time

parent = os.getpid()
child = os.fork()
if child == 0:
    while os.getppid() == parent:
        time.sleep(0.005)
    while True:
        print("child still thinking")
        time.sleep(0.01)
with open(os.environ.get("FAKE_ENGINE_PIDS", os.devnull), "a") as pids:
    print(parent, child, file=pids)
print("2 ...x..o.oxooxxxoxo")
