#!/usr/bin/env python3
"""Prints its answer without a final newline and exits."""
import sys

sys.stdout.write("2 ...x..o.oxooxxxoxo")
