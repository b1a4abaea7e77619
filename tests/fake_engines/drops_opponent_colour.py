#!/usr/bin/env python3
"""Plays the drop into column 2 but writes the opponent's letter (x instead of o) on the board."""
print("2 ...x..o.oxxoxxxoxo")
