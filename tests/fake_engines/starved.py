#!/usr/bin/env python3
"""Lowers its own priority as far as it goes and computes without end: beside busy loops the machine
gives it a small share of a CPU, so its time waiting for one outgrows the time it runs (a program the
machine starves, every time). Where the scheduler groups each session (autogroup), its session's
group is lowered too: the referee starts every call in a session of its own."""
import os

os.nice(19)
if os.getsid(0) == os.getpid():
    try:
        with open("/proc/self/autogroup", "w") as group:
            group.write("19")
    except OSError:
        pass
while True:
    pass
