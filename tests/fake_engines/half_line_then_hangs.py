#!/usr/bin/env python3
"""Prints a complete answer, then half a line (itself well-formed) without newline, then hangs."""
import sys
import time

print("2 ...x..o.oxooxxxoxo")
sys.stdout.write("-1 ...x")
sys.stdout.flush()
time.sleep(1000)
