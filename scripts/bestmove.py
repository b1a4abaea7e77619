#!/usr/bin/env python3
"""bestmove.py: who wins All The King's Horses with perfect play (and the best move, with --move).

    ./bestmove.py [--move] PLAYER b1r b1c b2r b2c w1r w1c w2r w2c    e.g.  ./bestmove.py BLACK 2 2 3 3 1 2 3 1

Prints ``WHITE WILL WIN`` or ``BLACK WILL WIN``; with --move, first the position after the best move,
with the other player to move. The solver is engines/kings_horses_solver.py.
"""
import os
import sys

sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from engines.kings_horses_solver import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
