#!/usr/bin/env python3
"""Sleeps until 0.3 s before the time limit, prints a legal answer and exits."""
import sys
import time

time.sleep(float(sys.argv[4]) - 0.3)
print("2 ...x..o.oxooxxxoxo")
