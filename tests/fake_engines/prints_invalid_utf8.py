#!/usr/bin/env python3
"""Prints non-UTF-8 bytes on stdout and no answer."""
import sys

sys.stdout.buffer.write(b"\xff\xfe\xc3( garbage \x80\x81\n2 \xff...x..o.oxooxxxoxo\n")
