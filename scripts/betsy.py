#!/usr/bin/env python3
"""betsy.py: the strongest engine of this project under the assignment's command line.

    ./betsy.py N PLAYER BOARD SECONDS        e.g.  ./betsy.py 3 o ...x..o.ox.oxxxoxo 5

The last line printed is the answer: MOVE NEWBOARD.
"""
import os
import sys

sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from engines.strongest import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
