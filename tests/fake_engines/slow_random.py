#!/usr/bin/env python3
"""A legal random mover that first sleeps DELAY seconds; usage: slow_random.py DELAY N PLAYER BOARD SECONDS."""
import os
import random
import sys
import time

sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.games.betsy.rules import Position  # noqa: E402

delay, n, player, board, _seconds = sys.argv[1:6]
time.sleep(float(delay))
position = Position.from_text(n, player, board)
move = random.choice(position.legal_moves())
print(move, position.after(move).board())
