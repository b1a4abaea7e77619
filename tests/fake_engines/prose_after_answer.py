#!/usr/bin/env python3
"""Prints its answer, then two lines of prose (and a blank line)."""
print("2 ...x..o.oxooxxxoxo")
print("nodes searched: 1234")
print()
print("good game!")
