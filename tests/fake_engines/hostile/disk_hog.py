#!/usr/bin/env python3
"""Fills its working directory and /tmp (targets.json's "places") with files, each as large as the
file size limit lets it, up to 1.5 GiB a place (its "budget_bytes"), then plays on."""
import errno
import os
import sys

from _attack import blocked, finish, leaked, targets

aims = targets()
cap = aims.get("cap_bytes", 64 << 20)
budget = aims.get("budget_bytes", 1536 << 20)
chunk = b"x" * (1 << 20)
for place in aims.get("places", [".", "/tmp"]):
    written, files, why = 0, 0, "the budget ran out"
    while written < budget:
        try:
            fd = os.open(os.path.join(place, f"hog-{files}.bin"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except OSError as error:
            why = error.strerror
            break
        before = written
        try:
            while written < budget:
                written += os.write(fd, chunk[:budget - written])
        except OSError as error:
            why = error.strerror
            # A file at the size limit: start another; else (or nothing written) the folder is full.
            if error.errno != errno.EFBIG or written == before:
                break
        finally:
            os.close(fd)
            files += written > before
    if written > cap:
        leaked(f"wrote {written} bytes to {place} in {files} file{'s' * (files != 1)} (cap {cap})")
    else:
        blocked(f"write over {cap} bytes to {place}", f"stopped at {written} bytes: {why}")
finish(sys.argv)
