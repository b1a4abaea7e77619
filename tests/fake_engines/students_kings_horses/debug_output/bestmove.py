#!/usr/bin/env python3
"""Right, but leaves its debug prints in."""
from _common import play

play(debug=True)
