#!/usr/bin/env python3
"""Hangs silently: prints nothing and never exits."""
import time

time.sleep(1000)
