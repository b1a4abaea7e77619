"""``betsy``: the strongest engine we have, under the assignment's exact command line.

``betsy N PLAYER BOARD SECONDS`` prints a friendly line, then the best move found so far after each
completed search depth; the last line is the answer ``MOVE NEWBOARD``. Which engine is strongest is
decided by measurement (see README, "Engines"); it is named once, here.
"""

from __future__ import annotations

if __name__ == "__main__" and not __package__:  # run as a file: import engines.* from the project root
    import os
    import sys

    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import sys

from engines import mcts_alphabeta as strongest
from engines.protocol import Request, run
from harness.games.betsy import Move

STRONGEST = {"betsy": "mcts-alphabeta", "connect4": "mcts-alphabeta", "kings-horses": "bestmove"}
"""The strongest built-in engine of each game (``arena play``'s default opponent): measured for Betsy
and Connect Four (docs/measurements.md; the two searches are level in Connect Four, and this one is
the one ``betsy`` runs for both), exact by proof for All The King's Horses (the solver)."""

ENGINE = STRONGEST["betsy"]


def _choose(request: Request) -> Move:
    size = request.position.size_text
    board = f"n = {size}" if "x" not in size else size
    print(f"Shhh... I'm thinking! ({ENGINE}, {request.seconds:g} s, {board})", flush=True)
    return strongest._choose(request)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    summary = (f"The strongest engine of this project, currently {ENGINE}; its first line is a\n"
               f"friendly remark.\n{strongest.SUMMARY}")
    return run("betsy", _choose, argv, strongest.OPTIONS, strongest.OPTION_HELP, summary)


if __name__ == "__main__":
    sys.exit(main())
