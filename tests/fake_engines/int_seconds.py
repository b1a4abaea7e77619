#!/usr/bin/env python3
"""Parses SECONDS with int() (crashes on "0.5"), then answers."""
import sys

int(sys.argv[4])
print("2 ...x..o.oxooxxxoxo")
