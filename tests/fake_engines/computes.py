#!/usr/bin/env python3
"""Computes for $FAKE_CPU_SECONDS seconds of CPU time (its own, however loaded the machine), then
answers the seed position (n = 3, o to move): a program whose speed is a fact about it."""
import os
import time

need = float(os.environ.get("FAKE_CPU_SECONDS", "0.6"))
start = time.process_time()
while time.process_time() - start < need:
    pass
print("2 ...x..o.oxooxxxoxo")
