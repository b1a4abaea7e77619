#!/usr/bin/env python3
"""Sleeps for the time limit + 0.5 s grace + 1 s, then prints a legal answer."""
import sys
import time

time.sleep(float(sys.argv[4]) + 0.5 + 1)
print("2 ...x..o.oxooxxxoxo")
