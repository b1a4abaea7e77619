#!/usr/bin/env python3
"""Floods 200 MB of dots to stdout."""
import sys

chunk = b"." * 65535 + b"\n"
for _ in range(200 * 16):
    sys.stdout.buffer.write(chunk)
