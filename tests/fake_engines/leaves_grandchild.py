#!/usr/bin/env python3
"""Answers, then exits leaving a grandchild (sleep 300) that holds stdout open."""
import os
import subprocess

print("2 ...x..o.oxooxxxoxo")
child = subprocess.Popen(["sleep", "300"])
with open(os.environ.get("FAKE_ENGINE_PIDS", os.devnull), "a") as pids:
    print(os.getpid(), child.pid, file=pids)
