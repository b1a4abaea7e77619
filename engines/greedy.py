"""Greedy engine: one ply of look-ahead plus a check of the opponent's replies.

In order of preference it plays: a move that wins at once; a move after which the opponent has no
winning reply (and that does not hand the opponent a line itself), the best of them by
``evaluation.line_balance``; failing that, the best move that does not lose on the spot; failing that,
any move. Ties are broken by the seeded generator. In Connect Four the score is
``connect4_evaluation.balance`` (threats and centre) instead; in All The King's Horses (``--move``)
``kings_horses_play.balance``, the race count (a move wins at once when it leaves the opponent no move).
``python -m engines.greedy N PLAYER BOARD SECONDS [--seed S]`` (N is ``WxH`` for Connect Four).
"""

from __future__ import annotations

if __name__ == "__main__" and not __package__:  # run as a file: import engines.* from the project root
    import os
    import sys

    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from engines.evaluation import line_balance
from engines.protocol import Request, Rng, run
from harness.games.betsy import Move, Position

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from engines.protocol import AnyPosition

# Move classes, best first.
_WINS, _SAFE, _ALLOWS_WIN, _LOSES = range(4)


def choose_move(position: AnyPosition, rng: Rng) -> Move:
    """The greedy choice described in the module docstring."""
    score_of: Callable[[Any, int], int] = line_balance
    if hasattr(position, "knights"):
        from engines.kings_horses_play import balance as score_of
    elif not isinstance(position, Position):
        from engines.connect4_evaluation import balance as score_of
    me = position.turn
    best_class = _LOSES + 1
    best_score = 0
    best: list[Move] = []
    for move in position.legal_moves():
        position.push(move)
        winner = position.winner()
        if winner == me:
            move_class, score = _WINS, 0
        elif winner is not None:
            move_class, score = _LOSES, 0
        else:
            move_class = _ALLOWS_WIN if position.has_winning_move() else _SAFE
            score = score_of(position, me)
        position.pop()
        if move_class < best_class or (move_class == best_class and score > best_score):
            best_class, best_score, best = move_class, score, [move]
        elif move_class == best_class and score == best_score:
            best.append(move)
    return rng.choice(best)


def _choose(request: Request) -> Move:
    return choose_move(request.position, Rng(request.seed))


OPTION_HELP = {
    "seed": ("S", "seed of the tie-break between equally good moves (a whole number)"),
}
SUMMARY = (
    "Wins at once if it can, avoids moves that allow an immediate win, and otherwise\n"
    "plays the move with the best line balance (engines/evaluation.py; Connect Four:\n"
    "engines/connect4_evaluation.py)."
)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    return run("greedy", _choose, argv, None, OPTION_HELP, SUMMARY, kings_horses=True)


if __name__ == "__main__":
    raise SystemExit(main())
