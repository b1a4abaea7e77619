#!/usr/bin/env python3
"""Reads a line from stdin; answers only if that hits EOF at once."""
try:
    input()
except EOFError:
    print("2 ...x..o.oxooxxxoxo")
