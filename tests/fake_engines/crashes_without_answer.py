#!/usr/bin/env python3
"""Crashes with an exception before printing any answer (exit status 1)."""
print("thinking...")
raise RuntimeError("engine exploded")
