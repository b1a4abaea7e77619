#!/usr/bin/env python3
"""Prints a legal answer 0.3 s before the time limit, counted from its own start (its start-up, slow
on a loaded machine, counts), then exits."""
import os
import sys
import time

with open("/proc/self/stat") as stat, open("/proc/uptime") as uptime:
    started = int(stat.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
    age = float(uptime.read().split()[0]) - started
time.sleep(max(0.0, float(sys.argv[4]) - 0.3 - age))
print("2 ...x..o.oxooxxxoxo")
