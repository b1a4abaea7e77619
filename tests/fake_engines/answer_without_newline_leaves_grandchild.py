#!/usr/bin/env python3
"""Answers without a final newline, then exits leaving a grandchild (sleep 300) holding stdout."""
import os
import subprocess
import sys

sys.stdout.write("2 ...x..o.oxooxxxoxo")
sys.stdout.flush()
child = subprocess.Popen(["sleep", "300"])
with open(os.environ.get("FAKE_ENGINE_PIDS", os.devnull), "a") as pids:
    print(os.getpid(), child.pid, file=pids)
