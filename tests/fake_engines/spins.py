#!/usr/bin/env python3
"""Computes without end: a busy loop on one core, printing nothing (a slow program, never a stall)."""
while True:
    pass
