#!/usr/bin/env python3
"""Echoes its SECONDS argument on stderr, then answers."""
import sys

print(sys.argv[4], file=sys.stderr)
print("2 ...x..o.oxooxxxoxo")
