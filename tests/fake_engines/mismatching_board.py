#!/usr/bin/env python3
"""Answers a legal move (drop into column 2) but prints the board unchanged."""
print("2 ...x..o.ox.oxxxoxo")
