#!/usr/bin/env python3
"""Prints its (legal) answer on stderr only."""
import sys

print("2 ...x..o.oxooxxxoxo", file=sys.stderr)
