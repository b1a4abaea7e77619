#!/usr/bin/env python3
"""Answers a well-formed but out-of-range move: a drop into column 9 on n = 3."""
print("9 ...x..o.oxooxxxoxo")
