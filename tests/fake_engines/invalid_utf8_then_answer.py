#!/usr/bin/env python3
"""Prints a line of non-UTF-8 bytes, then a valid answer line."""
import sys

sys.stdout.buffer.write(b"\xff\xfe\xc3( garbage \x80\x81\n2 ...x..o.oxooxxxoxo\n")
