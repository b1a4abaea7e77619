#!/usr/bin/env python3
"""Prints a legal answer, then crashes with an exception (exit status 1)."""
print("2 ...x..o.oxooxxxoxo")
raise RuntimeError("crashed after answering")
