"""Deterministic position suites for validation, the parts every game shares: the ``Case`` a
program is asked about, the ``Suites`` each game returns (``Game.suites``), and the proofs of
tactical answers. Each game's own positions live in its package (``harness.games.<game>.suites``).

Every generator is seeded, so a suite is the same on every run and machine (it never depends on
tables built on the machine); tactical answers are proven by exhaustive search, not by an engine
(see "Proofs" below). The proofs use only the rules core, through the methods of ``GamePosition``,
which Betsy's and Connect Four's positions share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Generic, Protocol, TypeVar

from harness.games.game import PLAYERS, Move, Position
from harness.rng import Rng

Colour = int
"""0 for ``x``, 1 for ``o``."""


class GamePosition(Position, Protocol):
    """What the suites and their proofs use of a position (Betsy's and Connect Four's)."""

    def winner_after_push(self, move: int) -> int | None: ...

    def has_winning_move(self) -> bool: ...

    def opponent_has_winning_move(self) -> bool: ...


P = TypeVar("P", bound=GamePosition)
"""A position the proofs can search."""
AskedT = TypeVar("AskedT", bound=Position)
"""A position a suite asks about."""


@dataclass(frozen=True)
class Case(Generic[AskedT]):
    """One position to ask a program about, and what a right answer must satisfy."""

    id: str
    """Stable name, e.g. ``n5-x-no-pebbles-1`` or ``7x6-o-block-1``."""
    position: AskedT
    description: str
    """What the position exercises, in words."""
    expected: frozenset[int] | None = None
    """For tactics and the last pebble: exactly the right moves, every other legal move proven wrong
    (None: any legal move with the right board)."""
    twin: AskedT | None = None
    """The last pebble's minimal pair: the same position with one of the mover's pebbles off the top
    of a column (so one more in hand), proven to have exactly the same right moves (``expected``), of
    the same kind; None for a case without one, which never diagnoses a supply count."""


# --- tactics ----------------------------------------------------------------------------------


def winning_moves(position: GamePosition) -> set[int]:
    """Moves that complete a line for the side to move at once."""
    mover = position.turn
    found = set()
    for move in position.legal_moves():
        position.push(move)
        if position.winner() == mover:
            found.add(move)
        position.pop()
    return found


def safe_moves(position: GamePosition) -> set[int]:
    """Moves after which the game goes on and the opponent has no immediate win."""
    found = set()
    for move in position.legal_moves():
        position.push(move)
        if position.winner() is None and not position.has_winning_move():
            found.add(move)
        position.pop()
    return found


# Proofs. A tactics case claims that the moves in ``expected`` are right and that every other legal
# move is wrong, and a program is marked down for playing one of those others, so every such claim is
# proven before a case is made:
#
# * "wins": the mover completes a line at once, or within 3 plies whatever the opponent replies
#   (exhaustive search of every reply).
# * "loses": the move completes only the opponent's line, or afterwards the opponent wins at once,
#   or wins by force within 3 plies (exhaustive search). A move that loses within 3 plies does not
#   keep a win, nor a draw, in the real game either: the position is asked without history, so no
#   board can occur a third time within those plies, and they are far inside the 200-ply cap.
# * "does not lose" (the moves of a block; the drops that stop a line with the last pebble): for
#   n = 3, the exact value of the position after the move, by retrograde analysis of every position
#   reachable from it (``exact_results``: the same analysis as the n = 3 tables of
#   engines/tablebase.py, done locally so that a suite never depends on whether this machine built
#   them). A side that can avoid a line forever cannot lose by the repetition or move-cap rules,
#   which only draw. For n >= 4 no search can prove that a move never loses; there ``expected``
#   holds the moves that do not lose within 3 plies, and the claim a case makes (and judges) is
#   that every other move loses.
#
# Only the "loses" proofs decide whether a program is marked down, and they are exhaustive at every
# n, so a program is never marked down for a move that keeps a win (or, in a block, a draw).

WINS_NOW, WINS_IN_3, LOSES_NOW, LOSES_IN_1, LOSES_IN_3, OPEN = (
    "wins at once", "wins in 3 plies", "loses at once", "loses in 1 ply", "loses in 3 plies", "open",
)
EXACT_LIMIT = 6000
"""Most positions the exact analysis of one n = 3 case may visit (else the candidate is dropped)."""


def wins_within(position: GamePosition, plies: int) -> bool:
    """Whether the side to move completes a line within ``plies`` plies (1 or 3) whatever the
    opponent does. ``position`` has no complete line; it is restored."""
    if position.has_winning_move():
        return True
    if plies < 3:
        return False
    mover = position.turn
    for move in position.legal_moves():
        position.push(move)
        won = position.winner_after_push(move) is None and every_reply_loses(position, plies - 1, mover)
        position.pop()
        if won:
            return True
    return False


def every_reply_loses(position: GamePosition, plies: int, winner: Colour) -> bool:
    """Whether every move of the side to move lets ``winner`` (its opponent) complete a line within
    ``plies`` more plies (counting that move). No move at all (a full Connect Four board) is a draw."""
    replies = position.legal_moves()
    if not replies:
        return False
    for reply in replies:
        position.push(reply)
        result = position.winner_after_push(reply)
        lost = result == winner if result is not None else wins_within(position, plies - 1)
        position.pop()
        if not lost:
            return False
    return True


def losing_line(position: GamePosition, move: Move) -> list[Move]:
    """After ``move``, the opponent's reply that proves it lost: one that completes its line at once,
    else one after which every answer lets it complete a line at once (a win within 3 plies). Empty
    when ``move`` ends the game itself, or no such reply exists. ``position`` is restored."""
    position.push(move)
    try:
        if position.winner_after_push(move) is not None:
            return []
        opponent = position.turn
        replies = position.legal_moves()
        for plies in (1, 3):
            for reply in replies:
                position.push(reply)
                result = position.winner_after_push(reply)
                won = result == opponent if plies == 1 else (
                    result is None and every_reply_loses(position, 2, opponent))
                position.pop()
                if won:
                    return [reply]
        return []
    finally:
        position.pop()


def quick_verdict(position: GamePosition, move: Move) -> str | None:
    """What ``move`` does within one reply: wins at once, loses at once, lets the opponent win at
    once (``LOSES_IN_1``), or None (the game goes on and the opponent cannot win at once)."""
    mover = position.turn
    position.push(move)
    try:
        result = position.winner_after_push(move)
        if result == mover:
            return WINS_NOW
        if result is not None:
            return LOSES_NOW
        return LOSES_IN_1 if position.has_winning_move() else None
    finally:
        position.pop()


def deep_verdict(position: GamePosition, move: Move, try_win: bool = True) -> str:
    """For a move that neither ends the game nor lets the opponent win at once: ``WINS_IN_3``
    (every reply lets the mover win at once), ``LOSES_IN_3`` (the opponent wins by force within 3
    plies) or ``OPEN``."""
    mover = position.turn
    position.push(move)
    try:
        if try_win and every_reply_loses(position, 2, mover):
            return WINS_IN_3
        return LOSES_IN_3 if wins_within(position, 3) else OPEN
    finally:
        position.pop()


def exact_results(position: GamePosition, limit: int = EXACT_LIMIT) -> dict[Move, int] | None:
    """The exact result of each legal move for the side to move (1 win, 0 draw, -1 loss), by
    retrograde analysis of every position reachable from ``position``; None when more than ``limit``
    positions are reachable. "Win" means a line can be forced (repetitions and the move cap aside),
    "draw" that neither side can force one."""
    root = position.copy()
    index = {root.key(): 0}
    nodes = [root]
    children: list[list[int]] = []
    wins_now: list[bool] = []
    i = 0
    while i < len(nodes):
        node = nodes[i]
        i += 1
        kids: list[int] = []
        won = False
        for move in node.legal_moves():
            node.push(move)
            result = node.winner_after_push(move)
            if result is None:
                key = node.key()
                k = index.get(key)
                if k is None:
                    if len(nodes) >= limit:
                        return None
                    k = index[key] = len(nodes)
                    nodes.append(node.copy())
                kids.append(k)
            elif result != node.turn:
                won = True
            node.pop()
            if won and i > 1:  # the root's moves are all looked up below
                break
        children.append([] if won else kids)
        wins_now.append(won)
    count = len(nodes)
    value = [0] * count  # for the side to move: 1 win, -1 loss, 0 not (yet) decided
    parents: list[list[int]] = [[] for _ in range(count)]
    remaining = [len(kids) for kids in children]
    queue: list[int] = []
    for k in range(count):
        for child in children[k]:
            parents[child].append(k)
        if wins_now[k]:
            value[k] = 1
            queue.append(k)
        elif not children[k]:
            value[k] = -1  # every move completes only the opponent's line
            queue.append(k)
    for k in queue:  # the queue grows while it is read
        for parent in parents[k]:
            if value[parent]:
                continue
            if value[k] < 0:
                value[parent] = 1
                queue.append(parent)
            else:
                remaining[parent] -= 1
                if not remaining[parent]:
                    value[parent] = -1
                    queue.append(parent)
    results: dict[Move, int] = {}
    for move in root.legal_moves():
        verdict = quick_verdict(root, move)
        if verdict == WINS_NOW:
            results[move] = 1
        elif verdict == LOSES_NOW:
            results[move] = -1
        else:
            root.push(move)
            results[move] = -value[index[root.key()]]
            root.pop()
    return results


def moves_text(moves: frozenset[Move] | set[Move]) -> str:
    return str(sorted(moves))


def tactic(position: GamePosition, kind: str, exact: bool = False) -> tuple[frozenset[Move], str] | None:
    """The proven answer to ``position`` as a tactic of ``kind``, with its description, or None
    when the position does not make a case of that kind (see the proofs above). With ``exact`` (a
    game small enough to solve from here: Betsy's n = 3), a block's moves are proven not to lose."""
    moves = position.legal_moves()
    me, other = position.player, PLAYERS[position.turn ^ 1]
    if kind == "win-in-one":
        if not position.has_winning_move():
            return None
        quick = {move: quick_verdict(position, move) for move in moves}
        wins = {m for m, v in quick.items() if v == WINS_NOW}
        if len(wins) > 2 or len(wins) == len(moves):  # no wrong move to tell the right ones from
            return None
        for move, verdict in quick.items():
            if verdict is None and deep_verdict(position, move, try_win=False) != LOSES_IN_3:
                return None
        return frozenset(wins), (
            f"{me} to move wins at once; the only winning moves are {moves_text(wins)} "
            f"(every other move loses by force)")
    if position.has_winning_move():
        return None
    quick = {move: quick_verdict(position, move) for move in moves}
    open_moves = [m for m, v in quick.items() if v is None]
    if not open_moves:
        return None
    if kind == "win-in-three":
        wins = set()
        for move in open_moves:
            verdict = deep_verdict(position, move)
            if verdict == WINS_IN_3:
                wins.add(move)
                if len(wins) > 2:
                    return None
            elif verdict != LOSES_IN_3:
                return None
        if not wins:
            return None
        return frozenset(wins), (
            f"{me} to move wins by force in 3 plies; the only winning moves are {moves_text(wins)} "
            f"(every other move loses by force)")
    # block: the opponent threatens to win at once; some moves stop it, the rest lose.
    if len(open_moves) == len(moves) or not position.opponent_has_winning_move():
        return None
    holds = {m for m in open_moves if deep_verdict(position, m, try_win=False) == OPEN}
    if not holds or len(holds) > 2:
        return None
    if exact:
        results = exact_results(position)
        if results is None or any(results[m] < 0 for m in holds):
            return None
        return frozenset(holds), (
            f"{me} must stop {other}'s line; the only moves that do not lose are {moves_text(holds)}")
    return frozenset(holds), (
        f"{me} must stop {other}'s line; every move but {moves_text(holds)} loses by force "
        f"({other} wins within 3 plies)")


TACTIC_KINDS = ("win-in-one", "block", "win-in-three")

ATTEMPTS = 4000
"""Random positions tried per case before the case is left out."""


def slot_rng(*parts: int) -> Rng:
    """A generator for one case, seeded by everything that names it (and nothing else), so a case
    is the same whatever else the suite holds."""
    seed = 0
    for part in parts:
        seed = (seed * 1_000_003 + part) & 0xFFFFFFFFFFFFFFFF
    return Rng(seed)


S = TypeVar("S")


def spread(
    sizes: tuple[S, ...], kinds: tuple[str, ...], per_kind: int,
    make: Callable[[S, Colour, str, int], Case[P] | None],
) -> list[Case[P]]:
    """``per_kind`` cases of each kind, made by ``make(size, turn, kind, number)``, taking the sizes
    in turn and alternating the colours; each case a copy (the makers cache theirs)."""
    cases: list[Case[P]] = []
    if not sizes:
        return cases
    for kind_index, kind in enumerate(kinds):
        for k in range(per_kind):
            size_index, i = k % len(sizes), k // len(sizes)
            turn = (i + size_index + kind_index) % 2
            case = make(sizes[size_index], turn, kind, i // 2 + 1)
            if case is not None:
                cases.append(replace(case, position=case.position.copy()))
    return cases



def quiet_moves(position: GamePosition) -> list[Move]:
    """The legal moves that complete no line (the game goes on after them, or the board is full)."""
    quiet = []
    for move in position.legal_moves():
        position.push(move)
        if position.winner_after_push(move) is None:
            quiet.append(move)
        position.pop()
    return quiet


# --- the suites of each game ------------------------------------------------------------------------

ANY_MOVE = "any legal move and its exact board"


class Suites(Generic[AskedT]):
    """What the validator asks a program about, for one game. Sizes are size texts (``5``, ``7x6``)."""

    example_move = 1
    """The move of the example answer to ``protocol_position``."""
    has_last_pebble = False
    """Whether the game has a supply of pebbles (Betsy's last-pebble checks)."""
    has_exact_tables = False
    """Whether solved tables judge moves for strength (Betsy n = 3)."""
    fixes: dict[str, str] = {
        "win-in-one": "before anything else, look for a move that completes a line at once, and play it",
        "block": "when the opponent could complete a line with its next move, play a move that stops it",
        "win-in-three": "search 3 plies ahead (your move, each reply, your move) for a win that cannot be stopped",
    }
    """The one change that fixes a failure, by kind of position (a case id without size, colour and
    number), or by ``kind/verdict``; the validator's summaries name it."""

    def proves_fix(self, key: str, position: AskedT, move: int, board: str | None) -> bool:
        """Whether a failed check proves the cause the fix ``key`` (of ``fixes``) names: its position,
        the move the program answered and the board it printed (None if none). A fix of a kind of
        position alone (a tactic missed) is what was seen; a ``kind/verdict`` fix names a cause, and
        is given only where the move shows it."""
        return "/" not in key

    def protocol_position(self) -> AskedT:
        """The first position asked: a well-known one, answered by any working program."""
        raise NotImplementedError

    def first_move(self) -> tuple[str, AskedT]:
        """The empty board of the game's usual size, with its check id."""
        raise NotImplementedError

    def rules(self, sizes: tuple[str, ...], quick: bool) -> Iterator[Case[AskedT]]:
        """Positions that any legal move with its exact board answers (generated as asked)."""
        raise NotImplementedError

    def robustness(self, quick: bool) -> Iterator[Case[AskedT]]:
        """The extremes: the largest and smallest boards, near-full boards, hopeless positions."""
        raise NotImplementedError

    def tactics(self, sizes: tuple[str, ...], quick: bool) -> list[Case[AskedT]]:
        """Proven tactics: ``expected`` holds exactly the right moves."""
        raise NotImplementedError

    def last_pebble(self, sizes: tuple[str, ...]) -> list[Case[AskedT]]:
        """Positions where only dropping the mover's last pebble is right, each with its ``twin``."""
        return []

    def game_plies(self, size: str, quick: bool) -> int:
        """The ply cap of the strength games at ``size``."""
        raise NotImplementedError
