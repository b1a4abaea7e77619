"""Proven Connect Four endgames for the searching engines: the exact solver
(engines/connect4_solver.py) finds a move that keeps the position's value within a time budget.

``keep_value`` first proves the value of the position itself (won, drawn or lost: a weak solve, two
null-window searches at most). The proof of a won or drawn position mostly names the root move it
rests on (``Solver.root_move``), which keeps the value; otherwise the moves are tried in the order
given until one provably keeps it (one null-window search each, most of it already in the solver's
table): a won position is kept by a winning move, a drawn one by a move that does not lose. That is
all a move must do: keeping the value at every move keeps the game's result. In a lost position
every move loses, and the exact scores of ``solve_moves`` choose the longest loss. The solver has
no clock of its own, so an interval timer (SIGALRM) interrupts it.

Scores are the solver's (Pons's convention), from the mover's point of view: positive wins (the
larger, the sooner), 0 draws, negative losses (the more negative, the sooner); ``keep_value``'s are
values (1, 0, -1), a move proved not to keep the value scoring one below it.

``proven_move`` turns exact scores into a move when they settle the choice: a proven win, or every
move solved (the best score; the earliest in the given order among equals). A partial result leaves
the choice to the caller's search, apart from the moves it proved worse than another move (a
``Proof``'s ``avoid``): those the search must not play.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import NamedTuple

from engines.connect4_solver import Solver, State, sign, state_of
from harness.games.connect4 import Move, Position, four_in_a_row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")

ENDGAME_SHARE = 0.6
"""The share of the move's time the exact solver may take first, in the endgame, when it runs in
Python; the search has the rest when it proves nothing."""

NATIVE_ENDGAME_SHARE = 0.85
"""``ENDGAME_SHARE`` when the solver runs in the native core. A move is lost only where the solver
proves nothing, and there the search decides: at 7x6 with 8 to 13 discs, 12 of the 231 won or drawn
positions of scripts/bench_endgame.py take more CPU than 0.85 of a move (0.74 s of a 1 s move) to
prove a move that keeps the value, while the native search still reaches 16 or 17 plies in the
rest."""

ENDGAME_EMPTY = 36
"""The solver is tried when at most this many cells are empty (8x8 positions with 36 empty cells
take it from a few hundredths of a second to a few seconds)."""


class Proof(NamedTuple):
    """What the solver proved before its deadline."""

    move: Move | None
    """A move that keeps the position's value (in a lost position, the longest loss once every move
    is solved), or None: the search decides."""
    scores: dict[Move, int]
    """The scores found (see ``keep_value`` and ``solve_moves``)."""
    avoid: frozenset[Move] = frozenset()
    """With no move proved: moves proved worse than another legal move, which the search must not
    play (never every legal move)."""


class _OutOfTime(Exception):
    """Raised by the interval timer inside the solver."""


_ARMED = False
"""Whether the solver is running under the timer (the alarm raises only then)."""
_AGAIN = 0.01
"""Seconds after which the alarm fires again while the solver still runs: an exception raised where
Python cannot pass it on (a weakref callback, a __del__) is printed and lost, and the solver runs on."""


def _alarm(_signum: int, _frame: object) -> None:
    if _ARMED:
        signal.setitimer(signal.ITIMER_REAL, _AGAIN)
        raise _OutOfTime


def can_interrupt() -> bool:
    """Whether the solver can be stopped by a timer here (the main thread of a Unix process)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def win_score(position: Position) -> int:
    """The solver's score of a win by the move about to be played (the fastest possible)."""
    return (position.width * position.height + 1 - position.plies) // 2


def solve_moves(position: Position, order: list[Move], deadline: float,
                solver: Solver | None = None, stop_at_win: bool = True) -> dict[Move, int]:
    """The exact score of each move of ``order`` for the side to move, solved in that order until
    ``deadline`` (a time.monotonic() value), or (with ``stop_at_win``) until a move wins; moves
    not reached are left out. ``position`` is only
    read (the timer may fire anywhere inside the solver, never inside a change of it)."""
    if not can_interrupt():
        return {}
    wins, children = _split(position, order)
    if wins and stop_at_win:
        return {wins[0]: win_score(position)}
    scores = dict.fromkeys(wins, win_score(position))
    if not children:
        return scores
    searcher = Solver(position.width, position.height) if solver is None else solver

    def work() -> None:
        for move, state in children:
            score = scores[move] = -searcher.solve(state)
            if score > 0 and stop_at_win:
                break

    try:
        _timed(deadline, work)
    except _OutOfTime:
        pass
    return scores


def keep_value(position: Position, order: list[Move], deadline: float,
               solver: Solver | None = None) -> Proof:
    """A move of ``order`` (every legal move) that keeps the value of ``position`` (see the module's
    doc), and what was proved until ``deadline``: the move and its value, or, when time ran out
    first, no move and the moves proved not to keep the value, each scored one below it (the moves
    to avoid: another move keeps it). A lost position's moves are solved exactly (``solve_moves``):
    the longest loss is played once every move is solved; until then the moves to avoid are those
    proved worse than another. ``position`` is only read."""
    if not can_interrupt():
        return Proof(None, {})
    wins, children = _split(position, order)
    if wins:
        return Proof(wins[0], {wins[0]: win_score(position)})
    searcher = Solver(position.width, position.height) if solver is None else solver
    scores: dict[Move, int] = {}

    def prove() -> tuple[int, Move | None]:
        """The position's value, and the first move that keeps it (None in a lost position)."""
        value = sign(searcher.solve(state_of(position), low=-1, high=1))
        if value < 0:
            return value, None
        if searcher.root_move is not None:  # the move the proof itself found: it keeps the value
            return value, searcher.root_move
        for move, child in children:
            # The move keeps the value when the opponent's score after it is at most -value.
            if searcher.solve(child, low=-value, high=1 - value) <= -value:
                return value, move
            scores[move] = value - 1
        raise AssertionError("no move keeps the value of the position")  # its value is one of its moves'

    try:
        value, kept = _timed(deadline, prove)
    except _OutOfTime:
        return Proof(None, scores, frozenset(scores))  # the value is proved once a move is scored
    if kept is not None:
        return Proof(kept, {kept: value})
    scores = solve_moves(position, order, deadline, searcher)
    move = proven_move(scores, order)
    if move is not None or not scores:
        return Proof(move, scores)
    best = max(scores.values())
    return Proof(None, scores, frozenset(move for move, score in scores.items() if score < best))


def _split(position: Position, order: list[Move]) -> tuple[list[Move], list[tuple[Move, State]]]:
    """The moves of ``order`` that win at once, and each other move with the position after it, as
    the solver takes it (the opponent to move)."""
    mover = position.turn
    own, other = position.masks[mover], position.masks[mover ^ 1]
    stride = position.geometry.stride
    wins, children = [], []
    for move in order:
        cell = position.tops[move - 1]
        if four_in_a_row(own | cell, stride):
            wins.append(move)
        else:
            children.append((move, State(position.width, position.height, other, own | other | cell, position.plies + 1)))
    return wins, children


def _timed(deadline: float, work: Callable[[], T]) -> T:
    """``work()`` under the interval timer: ``_OutOfTime`` when ``deadline`` comes first (or is less
    than 2 ms away). The timer is disarmed and the previous SIGALRM handler put back, however it ends."""
    global _ARMED
    budget = deadline - time.monotonic()
    if budget <= 0.002:
        raise _OutOfTime
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        _ARMED = True
        signal.setitimer(signal.ITIMER_REAL, budget)
        return work()
    finally:
        _ARMED = False  # first: an alarm still due now does nothing
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def proven_move(scores: dict[Move, int], order: list[Move]) -> Move | None:
    """The move the scores settle (see the module's doc), or None."""
    if not scores:
        return None
    best = max(scores.values())
    if best > 0 or len(scores) == len(order):
        return next(move for move in order if scores.get(move) == best)
    return None


def static_order(position: Position) -> list[Move]:
    """The legal moves, best first by the evaluation one ply on (centre first among equals)."""
    from engines.connect4_evaluation import evaluate

    width = position.width
    keyed = []
    for move in position.legal_moves():
        position.push(move)
        keyed.append((evaluate(position), abs(2 * move - width - 1), move))  # the opponent's view
        position.pop()
    keyed.sort()
    return [move for _, _, move in keyed]


def endgame(position: Position, deadline: float, empty_limit: int | None = None) -> Proof:
    """``keep_value`` until ``deadline`` when at most ``empty_limit`` (default ``ENDGAME_EMPTY``)
    cells are empty, else nothing proved."""
    limit = ENDGAME_EMPTY if empty_limit is None else empty_limit
    if position.width * position.height - position.plies > limit or not can_interrupt():
        return Proof(None, {})
    return keep_value(position, static_order(position), deadline)


def endgame_first(position: Position, deadline: float) -> Proof:
    """``endgame`` with the first ``NATIVE_ENDGAME_SHARE`` (``ENDGAME_SHARE`` in Python) of the time
    left until the move's ``deadline`` (the engines' way in: the search gets the rest)."""
    from engines.native import load

    share = ENDGAME_SHARE if load("connect4_solver") is None else NATIVE_ENDGAME_SHARE
    now = time.monotonic()
    return endgame(position, now + share * max(0.0, deadline - now))
