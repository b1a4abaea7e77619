#!/usr/bin/env python3
"""Reports what it can read: for each path of targets.json's "read" list, "read" (a file read, or a
folder listed) or why not ("missing", "denied"), as one JSON object on stderr; then forfeits (no
answer), so that the game's record keeps the report."""
import errno
import json
import os
import sys

from _attack import targets

seen = {}
for path in targets().get("read", []):
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as file:
                file.read(1)
        seen[path] = "read"
    except OSError as error:
        seen[path] = {errno.ENOENT: "missing", errno.EACCES: "denied"}.get(error.errno, error.strerror)
print(json.dumps(seen, sort_keys=True), file=sys.stderr, flush=True)
sys.exit(3)
