#!/usr/bin/env python3
"""Prints prose instead of an answer and exits 0: malformed output."""
print("I think column 2 is best")
