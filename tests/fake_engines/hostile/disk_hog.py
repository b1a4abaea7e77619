#!/usr/bin/env python3
"""Writes up to 1.5 GB into its working directory and /tmp, then plays on."""
import sys

from _attack import answer_legally, leaked, targets

cap = targets().get("cap_bytes", 64 << 20)
chunk = b"x" * (1 << 20)
for place in ("hog.bin", "/tmp/hog.bin"):
    written = 0
    try:
        with open(place, "wb") as file:
            while written < 1536 << 20:
                file.write(chunk)
                written += len(chunk)
            file.flush()
    except OSError:
        pass
    if written > cap:
        leaked(f"wrote {written} bytes to {place} (cap {cap})")
answer_legally(sys.argv)
