"""The Connect Four homework player of the seed (CS 4100 HW04): its evaluation and its minimax.

``python -m engines.homework WxH PLAYER BOARD SECONDS [--depth D]`` -- Connect Four only.

- ``evaluate`` scores a board from O's point of view: ``sys.maxsize`` if O has four in a row,
  ``-sys.maxsize`` if X has (X is looked at first, as in the seed); otherwise ``THREE_SCORE`` for each
  window of four holding three O and one empty cell, ``TWO_SCORE`` for two O and two empty cells, and
  the same subtracted for X's windows.
- ``minimax`` is the seed's ``minMax``: O maximises and X minimises, with alpha-beta; columns are
  tried left to right; each call is a node, and once a move has used ``MAX_NODES`` (the seed's
  ``maxNodeLimit``) every further call returns ``(0, None)`` at once; at depth ``max_depth``, or when
  the game is over, a node returns the evaluation; a node with no best move plays the last column.

The seed's example boards and printed values are tests (tests/test_engines_connect4.py). Beyond the
seed: boards of any supported size, and a safety stop at the answer deadline (never reached at the
default depth within a second).
"""

from __future__ import annotations

if __name__ == "__main__" and not __package__:  # run as a file: import engines.* from the project root
    import os
    import sys

    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import sys
import time

from engines.protocol import Request, UsageError, parse_request, print_answer, process_age
from harness.games.connect4 import PLAYER_O, Geometry, Move, Position, four_in_a_row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

THREE_SCORE = 50
TWO_SCORE = 10
O_WINS = sys.maxsize
X_WINS = -sys.maxsize
MAX_NODES = 10_000
"""The seed's ``maxNodeLimit``: nodes (calls of minimax) per move."""
MAX_DEPTH = 5
"""The seed's ``maxDepth`` in its sample game ("a vanilla-flavored minMax ... with a maxDepth of 5")."""
OPTIONS: dict[str, type] = {"depth": int}

_WINDOW_STARTS: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}


def _window_starts(g: Geometry) -> tuple[tuple[int, int], ...]:
    """Per direction: (shift between a window's cells, the cells that start a window on the board)."""
    found = _WINDOW_STARTS.get((g.width, g.height))
    if found is None:
        starts = []
        for shift in (1, g.stride, g.stride - 1, g.stride + 1):
            board = g.board_mask
            starts.append((shift, board & board >> shift & board >> 2 * shift & board >> 3 * shift))
        found = _WINDOW_STARTS[(g.width, g.height)] = tuple(starts)
    return found


def _windows(discs: int, shift: int) -> tuple[int, int, int]:
    """For each window start: whether the window holds any of ``discs``, exactly two, exactly three."""
    a, b, c, d = discs, discs >> shift, discs >> 2 * shift, discs >> 3 * shift
    # Count the four cells bit-parallel: count = low + 2 * (carry + pairs).
    half1, pair1 = a ^ b, a & b
    half2, pair2 = c ^ d, c & d
    low = half1 ^ half2
    two = (half1 & half2) ^ pair1 ^ pair2
    return a | b | c | d, two & ~low, two & low


def evaluate(position: Position) -> int:
    """The seed's ``eval``: the board's value from O's point of view."""
    g = position.geometry
    x, o = position.masks
    if four_in_a_row(x, g.stride):
        return X_WINS
    if four_in_a_row(o, g.stride):
        return O_WINS
    score = 0
    for shift, starts in _window_starts(g):
        x_any, x_two, x_three = _windows(x, shift)
        o_any, o_two, o_three = _windows(o, shift)
        o_only = starts & ~x_any
        x_only = starts & ~o_any
        score += THREE_SCORE * ((o_three & o_only).bit_count() - (x_three & x_only).bit_count())
        score += TWO_SCORE * ((o_two & o_only).bit_count() - (x_two & x_only).bit_count())
    return score


class NodeLimit:
    """The seed's node count for one move, and an answer deadline it also stops at."""

    __slots__ = ("nodes", "max_nodes", "examined", "deadline")

    def __init__(self, max_nodes: int = MAX_NODES, deadline: float | None = None) -> None:
        self.nodes = 0
        """Calls of minimax (the seed's ``countNodes``), those past the limit included."""
        self.max_nodes = max_nodes
        self.examined = 0
        """Calls that did any work: never more than ``max_nodes``."""
        self.deadline = deadline

    def exhausted(self) -> bool:
        """Count one call; whether it must return at once."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            return True
        if self.deadline is not None and not self.nodes & 255 and time.monotonic() >= self.deadline:
            self.max_nodes = self.nodes - 1  # from now on, as if the node limit were reached
            return True
        self.examined += 1
        return False


def minimax(
    position: Position, depth: int, alpha: int, beta: int, limit: NodeLimit, max_depth: int = MAX_DEPTH,
    game_over: bool = False,
) -> tuple[int, Move | None]:
    """The seed's ``minMax`` for the side to move: (score from O's point of view, best move).

    ``game_over`` says the move into this position ended the game (a four, or a full board).
    """
    if limit.exhausted():
        return 0, None
    if depth == max_depth or game_over:
        return evaluate(position), None
    player = position.turn
    best_score = X_WINS if player == PLAYER_O else O_WINS
    best_move = None
    for move in position.legal_moves():
        position.push(move)
        over = position.winner_after_push(move) is not None or position.is_full()
        score, _ = minimax(position, depth + 1, alpha, beta, limit, max_depth, over)
        position.pop()
        if player == PLAYER_O:
            if score > best_score:
                best_score, best_move = score, move
            alpha = max(alpha, score)
        else:
            if score < best_score:
                best_score, best_move = score, move
            beta = min(beta, score)
        if alpha >= beta:
            break
    if best_move is None:
        best_move = position.width  # the seed's "bestMove = 7": the last column
    return best_score, best_move


def choose_move(position: Position, max_depth: int = MAX_DEPTH, deadline: float | None = None) -> tuple[Move, NodeLimit]:
    """The seed's ``player``: the root minimax's move (a legal one), and the node count it used."""
    limit = NodeLimit(MAX_NODES, deadline)
    _score, move = minimax(position, 0, X_WINS, O_WINS, limit, max_depth)
    if move is None or not position.is_legal(move):
        # The seed's default, the last column, may be full: take the last legal column then.
        move = position.legal_moves()[-1]
    return move, limit


OPTION_HELP = {
    "depth": ("D", f"search D plies deep (the seed's maxDepth; default {MAX_DEPTH})"),
    "seed": ("S", "accepted and ignored: the homework player makes no random choices"),
}
SUMMARY = (
    "The seed's homework player for Connect Four: minimax with alpha-beta to depth D,\n"
    f"at most {MAX_NODES:,} nodes per move, evaluating windows of four (three discs and an\n"
    f"empty cell {THREE_SCORE}, two and two {TWO_SCORE}). Connect Four only (N is WxH)."
)


def _choose(request: Request) -> Move:
    from engines.alphabeta import answer_deadline
    from engines.protocol import STARTED

    position = request.position
    assert isinstance(position, Position)
    deadline = answer_deadline(request.seconds, STARTED, process_age(STARTED))
    move, _limit = choose_move(position, int(request.options.get("depth", MAX_DEPTH)), deadline)
    return move


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point: like engines.protocol.run, refusing Betsy's arguments."""
    from engines.protocol import HELP_FLAGS, usage

    args = sys.argv[1:] if argv is None else list(argv)
    if any(arg in HELP_FLAGS for arg in args):
        sys.stdout.write(usage("homework", OPTIONS, OPTION_HELP, SUMMARY, connect4_only=True))
        return 0
    try:
        request = parse_request(args, OPTIONS, connect4_only=True)
        if request.options.get("depth", MAX_DEPTH) < 1:
            raise UsageError(f"invalid value {request.options['depth']!r} for --depth: expected a whole number >= 1")
    except UsageError as error:
        print(f"homework: error: {error}", file=sys.stderr)
        return 2
    print_answer(request.position, _choose(request))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
