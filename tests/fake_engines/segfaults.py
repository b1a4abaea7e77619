#!/usr/bin/env python3
"""Kills itself with SIGSEGV before answering, as a crashing native program would."""
import os
import signal
import sys

print("about to crash", file=sys.stderr, flush=True)
os.kill(os.getpid(), signal.SIGSEGV)
