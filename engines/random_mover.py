"""Random engine: a uniformly random legal move, in Betsy or Connect Four.

``python -m engines.random_mover N PLAYER BOARD SECONDS`` (N is ``WxH`` for Connect Four).
"""

from __future__ import annotations

if __name__ == "__main__" and not __package__:  # run as a file: import engines.* from the project root
    import os
    import sys

    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from engines.protocol import Request, Rng, run
from harness.games.betsy import Move

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engines.protocol import AnyPosition


def choose_move(position: AnyPosition, rng: Rng) -> Move:
    """A legal move drawn uniformly."""
    return rng.choice(position.legal_moves())


def _choose(request: Request) -> Move:
    return choose_move(request.position, Rng(request.seed))


OPTION_HELP = {
    "seed": ("S", "seed of the random choice (a whole number): the same seed gives the same move"),
}
SUMMARY = "Plays a legal move drawn uniformly at random."


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    return run("random_mover", _choose, argv, None, OPTION_HELP, SUMMARY, kings_horses=True)


if __name__ == "__main__":
    raise SystemExit(main())
