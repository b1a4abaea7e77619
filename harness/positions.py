"""Deterministic position suites for validation: rules coverage, robustness, tactics and (Betsy)
the last pebble in hand, for each game (``suites``).

Every generator is seeded, so a suite is the same on every run and machine (it never depends on
tables built on the machine); tactical answers are proven by exhaustive search, not by an engine
(see "Proofs" below). The proofs use only the rules core, through the methods of ``GamePosition``,
which Betsy's and Connect Four's positions share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Generic, Protocol, TypeVar

from harness.games import connect4, registry
from harness.games.betsy import BLUE, PLAYERS, RED, Colour, Move, Position, geometry, initial_position
from harness.rng import Rng


class GamePosition(registry.Position, Protocol):
    """What the suites and their proofs use of a position (Betsy's and Connect Four's)."""

    def winner_after_push(self, move: int) -> int | None: ...

    def has_winning_move(self) -> bool: ...

    def opponent_has_winning_move(self) -> bool: ...


P = TypeVar("P", bound=GamePosition)


@dataclass(frozen=True)
class Case(Generic[P]):
    """One position to ask a program about, and what a right answer must satisfy."""

    id: str
    """Stable name, e.g. ``n5-x-no-pebbles-1`` or ``7x6-o-block-1``."""
    position: P
    description: str
    """What the position exercises, in words."""
    expected: frozenset[int] | None = None
    """For tactics and the last pebble: exactly the right moves, every other legal move proven wrong
    (None: any legal move with the right board)."""


def random_position(n: int, plies: int, seed: int, avoid_wins: bool = True) -> Position | None:
    """``plies`` random moves from the empty board that never end the game, or None."""
    rng = Rng(seed)
    position = initial_position(n)
    for _ in range(plies):
        moves = position.legal_moves()
        if avoid_wins:
            moves = [m for m in moves if position.after(m).winner() is None]
        if not moves:
            return None
        position.push(rng.choice(moves))
    return position


def _fill_columns(
    n: int, heights: list[int], x_count: int, seed: int, mixed_ends: bool = False
) -> str | None:
    """A board with the given column heights holding exactly ``x_count`` x (the rest o), shuffled.

    With ``mixed_ends``, each column of 2+ pebbles gets different bottom and top pebbles where its
    contents allow (a swap inside the column keeps the counts).
    """
    g = geometry(n)
    cells = sum(heights)
    if not 0 <= x_count <= cells:
        return None
    rng = Rng(seed)
    colours = ["x"] * x_count + ["o"] * (cells - x_count)
    for i in range(len(colours) - 1, 0, -1):
        j = rng.randrange(i + 1)
        colours[i], colours[j] = colours[j], colours[i]
    columns: list[list[str]] = []
    index = 0
    for h in heights:
        columns.append(colours[index:index + h])
        index += h
    if mixed_ends:
        for column in columns:
            if len(column) >= 2 and column[0] == column[-1]:
                for i in range(1, len(column) - 1):
                    if column[i] != column[0]:
                        column[i], column[-1] = column[-1], column[i]
                        break
    rows = []
    for top_row in range(g.height):
        height_index = g.height - 1 - top_row
        rows.append("".join(col[height_index] if height_index < len(col) else "." for col in columns))
    return "".join(rows)


def no_pebbles_position(n: int, player: str, seed: int) -> Position | None:
    """``player`` to move with every pebble on the board (only rotations are legal), no line yet,
    and every non-empty column mixed with different bottom and top pebbles (so the direction of a
    rotation shows)."""
    g = geometry(n)
    rng = Rng(seed)
    for attempt in range(400):
        other = g.supply - 1 - rng.randrange(max(1, n))
        total = g.supply + other
        heights = [g.height] * n
        excess = g.cells - total
        while excess > 0:  # take cells off random columns, keeping at least 2 per column
            c = rng.randrange(n)
            if heights[c] > 2:
                heights[c] -= 1
                excess -= 1
        x_count = g.supply if player == "x" else other
        board = _fill_columns(n, heights, x_count, seed * 1000 + attempt, mixed_ends=True)
        if board is None:
            continue
        position = Position(n, board, BLUE if player == "x" else RED)
        if position.winner() is not None or position.legal_moves() and any(m > 0 for m in position.legal_moves()):
            continue
        if not all(_mixed_ends(position, c) for c in range(n)):
            continue
        return position
    return None


def _mixed_ends(position: Position, column: int) -> bool:
    g = position.geometry
    h = position.heights[column]
    if h < 2:
        return False
    base = column * g.height
    x = position.masks[0]
    return bool(x >> base & 1) != bool(x >> (base + h - 1) & 1)


def _filled_position(n: int, heights: list[int], seed: int) -> Position | None:
    """Columns of the given heights filled at random, alternate counts (x one ahead at most), with
    the side to move that the counts imply; None if invalid or a line is already complete."""
    g = geometry(n)
    cells = sum(heights)
    x_count = (cells + 1) // 2
    if x_count > g.supply or cells - x_count > g.supply:
        return None
    board = _fill_columns(n, heights, x_count, seed)
    if board is None:
        return None
    position = Position(n, board, BLUE if cells % 2 == 0 else RED)
    return position if position.winner() is None else None


def full_columns_position(n: int, full: int, seed: int) -> Position | None:
    """A position with ``full`` full columns and room to drop elsewhere, no line yet."""
    g = geometry(n)
    rng = Rng(seed)
    for attempt in range(200):
        heights = [g.height if c < full else rng.randrange(g.height - 1) for c in range(n)]
        for i in range(n - 1, 0, -1):
            j = rng.randrange(i + 1)
            heights[i], heights[j] = heights[j], heights[i]
        position = _filled_position(n, heights, seed * 1000 + attempt)
        if position is not None and any(m > 0 for m in position.legal_moves()):
            return position
    return None


def near_full_position(n: int, empty: int, seed: int) -> Position | None:
    """All cells but ``empty`` filled, no line yet."""
    g = geometry(n)
    rng = Rng(seed)
    for attempt in range(400):
        heights = [g.height] * n
        for _ in range(empty):
            c = rng.randrange(n)
            if heights[c] > 0:
                heights[c] -= 1
        position = _filled_position(n, heights, seed * 1000 + attempt)
        if position is not None:
            return position
    return None


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


def forced_wins(position: Position, plies: int) -> set[int]:
    """Moves with which the side to move wins by force within ``plies`` plies (exhaustive)."""
    mover = position.turn

    def can_win(p: Position, left: int) -> bool:
        for move in p.legal_moves():
            p.push(move)
            winner = p.winner()
            if winner == mover:
                p.pop()
                return True
            ok = winner is None and left >= 3 and all_replies_lose(p, left - 1)
            p.pop()
            if ok:
                return True
        return False

    def all_replies_lose(p: Position, left: int) -> bool:
        for reply in p.legal_moves():
            p.push(reply)
            winner = p.winner()
            lost = winner == mover if winner is not None else can_win(p, left - 1)
            p.pop()
            if not lost:
                return False
        return True

    found = set()
    work = position.copy()
    for move in work.legal_moves():
        work.push(move)
        winner = work.winner()
        if winner == mover or (winner is None and plies >= 3 and all_replies_lose(work, plies - 1)):
            found.add(move)
        work.pop()
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
#   reachable from it (``_exact_results``: the same analysis as the n = 3 tables of
#   engines/tablebase.py, done locally so that a suite never depends on whether this machine built
#   them). A side that can avoid a line forever cannot lose by the repetition or move-cap rules,
#   which only draw. For n >= 4 no search can prove that a move never loses; there ``expected``
#   holds the moves that do not lose within 3 plies, and the claim a case makes (and judges) is
#   that every other move loses.
#
# Only the "loses" proofs decide whether a program is marked down, and they are exhaustive at every
# n, so a program is never marked down for a move that keeps a win (or, in a block, a draw).

_WINS_NOW, _WINS_IN_3, _LOSES_NOW, _LOSES_IN_1, _LOSES_IN_3, _OPEN = (
    "wins at once", "wins in 3 plies", "loses at once", "loses in 1 ply", "loses in 3 plies", "open",
)
_EXACT_LIMIT = 6000
"""Most positions the exact analysis of one n = 3 case may visit (else the candidate is dropped)."""


def _wins_within(position: GamePosition, plies: int) -> bool:
    """Whether the side to move completes a line within ``plies`` plies (1 or 3) whatever the
    opponent does. ``position`` has no complete line; it is restored."""
    if position.has_winning_move():
        return True
    if plies < 3:
        return False
    mover = position.turn
    for move in position.legal_moves():
        position.push(move)
        won = position.winner_after_push(move) is None and _every_reply_loses(position, plies - 1, mover)
        position.pop()
        if won:
            return True
    return False


def _every_reply_loses(position: GamePosition, plies: int, winner: Colour) -> bool:
    """Whether every move of the side to move lets ``winner`` (its opponent) complete a line within
    ``plies`` more plies (counting that move). No move at all (a full Connect Four board) is a draw."""
    replies = position.legal_moves()
    if not replies:
        return False
    for reply in replies:
        position.push(reply)
        result = position.winner_after_push(reply)
        lost = result == winner if result is not None else _wins_within(position, plies - 1)
        position.pop()
        if not lost:
            return False
    return True


def _quick_verdict(position: GamePosition, move: Move) -> str | None:
    """What ``move`` does within one reply: wins at once, loses at once, lets the opponent win at
    once (``_LOSES_IN_1``), or None (the game goes on and the opponent cannot win at once)."""
    mover = position.turn
    position.push(move)
    try:
        result = position.winner_after_push(move)
        if result == mover:
            return _WINS_NOW
        if result is not None:
            return _LOSES_NOW
        return _LOSES_IN_1 if position.has_winning_move() else None
    finally:
        position.pop()


def _deep_verdict(position: GamePosition, move: Move, try_win: bool = True) -> str:
    """For a move that neither ends the game nor lets the opponent win at once: ``_WINS_IN_3``
    (every reply lets the mover win at once), ``_LOSES_IN_3`` (the opponent wins by force within 3
    plies) or ``_OPEN``."""
    mover = position.turn
    position.push(move)
    try:
        if try_win and _every_reply_loses(position, 2, mover):
            return _WINS_IN_3
        return _LOSES_IN_3 if _wins_within(position, 3) else _OPEN
    finally:
        position.pop()


def _exact_results(position: Position, limit: int = _EXACT_LIMIT) -> dict[Move, int] | None:
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
        verdict = _quick_verdict(root, move)
        if verdict == _WINS_NOW:
            results[move] = 1
        elif verdict == _LOSES_NOW:
            results[move] = -1
        else:
            root.push(move)
            results[move] = -value[index[root.key()]]
            root.pop()
    return results


def _moves_text(moves: frozenset[Move] | set[Move]) -> str:
    return str(sorted(moves))


def _tactic(position: GamePosition, kind: str) -> tuple[frozenset[Move], str] | None:
    """The proven answer to ``position`` as a tactic of ``kind``, with its description, or None
    when the position does not make a case of that kind (see the proofs above)."""
    moves = position.legal_moves()
    me, other = position.player, PLAYERS[position.turn ^ 1]
    if kind == "win-in-one":
        if not position.has_winning_move():
            return None
        quick = {move: _quick_verdict(position, move) for move in moves}
        wins = {m for m, v in quick.items() if v == _WINS_NOW}
        if len(wins) > 2 or len(wins) == len(moves):  # no wrong move to tell the right ones from
            return None
        for move, verdict in quick.items():
            if verdict is None and _deep_verdict(position, move, try_win=False) != _LOSES_IN_3:
                return None
        return frozenset(wins), (
            f"{me} to move wins at once; the only winning moves are {_moves_text(wins)} "
            f"(every other move loses by force)")
    if position.has_winning_move():
        return None
    quick = {move: _quick_verdict(position, move) for move in moves}
    open_moves = [m for m, v in quick.items() if v is None]
    if not open_moves:
        return None
    if kind == "win-in-three":
        wins = set()
        for move in open_moves:
            verdict = _deep_verdict(position, move)
            if verdict == _WINS_IN_3:
                wins.add(move)
                if len(wins) > 2:
                    return None
            elif verdict != _LOSES_IN_3:
                return None
        if not wins:
            return None
        return frozenset(wins), (
            f"{me} to move wins by force in 3 plies; the only winning moves are {_moves_text(wins)} "
            f"(every other move loses by force)")
    # block: the opponent threatens to win at once; some moves stop it, the rest lose.
    if len(open_moves) == len(moves) or not position.opponent_has_winning_move():
        return None
    holds = {m for m in open_moves if _deep_verdict(position, m, try_win=False) == _OPEN}
    if not holds or len(holds) > 2:
        return None
    if isinstance(position, Position) and position.n == 3:
        exact = _exact_results(position)
        if exact is None or any(exact[m] < 0 for m in holds):
            return None
        return frozenset(holds), (
            f"{me} must stop {other}'s line; the only moves that do not lose are {_moves_text(holds)}")
    return frozenset(holds), (
        f"{me} must stop {other}'s line; every move but {_moves_text(holds)} loses by force "
        f"({other} wins within 3 plies)")


def _last_pebble(position: Position) -> tuple[frozenset[Move], str] | None:
    """The proven answer when the side to move has one pebble in hand and only drops are right,
    judged within one reply: every wrong move ends the game or lets the opponent win at once."""
    if position.pebbles_in_hand(position.turn) != 1:
        return None
    moves = position.legal_moves()
    me, other = position.player, PLAYERS[position.turn ^ 1]
    quick = {move: _quick_verdict(position, move) for move in moves}
    wins = {m for m, v in quick.items() if v == _WINS_NOW}
    rest = {m for m, v in quick.items() if v is None}
    intro = f"{me} has one pebble in hand; the only"
    tail = f"(any other move lets {other} win at once)"
    if wins:
        if rest or any(m < 0 for m in wins):
            return None
        return frozenset(wins), f"{intro} winning moves are drops {_moves_text(wins)} {tail}"
    if not rest or any(m < 0 for m in rest):
        return None
    if any(_deep_verdict(position, m, try_win=False) != _OPEN for m in rest):
        return None
    if position.n == 3:
        exact = _exact_results(position)
        if exact is None or any(exact[m] < 0 for m in rest):
            return None
        return frozenset(rest), f"{intro} moves that do not lose are drops {_moves_text(rest)} {tail}"
    return frozenset(rest), f"{intro} moves that stop {other}'s line are drops {_moves_text(rest)} {tail}"


TACTIC_KINDS = ("win-in-one", "block", "win-in-three")
TACTICS_MAX_N = 5
"""Largest board size with tactics cases: beyond it the 3-ply proofs are too slow to search for."""
_ATTEMPTS = 4000
"""Random positions tried per case before the case is left out."""


def _slot_rng(*parts: int) -> Rng:
    """A generator for one case, seeded by everything that names it (and nothing else), so a case
    is the same whatever else the suite holds."""
    seed = 0
    for part in parts:
        seed = (seed * 1_000_003 + part) & 0xFFFFFFFFFFFFFFFF
    return Rng(seed)


def _random_candidate(
    n: int, rng: Rng, turn: Colour, spread: int, in_hand: int | None = None
) -> Position | None:
    """A random board, ``turn`` to move, no line yet, each column full or up to ``spread - 1``
    cells short (lines live in the top rows); with ``in_hand``, the mover has exactly that many
    pebbles in hand."""
    g = geometry(n)
    heights = [g.height - rng.randrange(spread) for _ in range(n)]
    cells = sum(heights)
    if in_hand is None:
        # About as many pebbles of each colour, as in a game.
        mine = min(max(cells // 2 + rng.randrange(5) - 2, cells - g.supply, 0), g.supply, cells)
    else:
        mine = g.supply - in_hand
        if not 0 <= cells - mine <= g.supply:
            return None
    board = _fill_columns(n, heights, mine if turn == BLUE else cells - mine, rng.next64())
    if board is None:
        return None
    position = Position(n, board, turn)
    return position if position.winner() is None else None


@lru_cache(maxsize=256)
def _tactic_case(n: int, turn: Colour, kind: str, number: int, seed: int) -> Case[Position] | None:
    player = PLAYERS[turn]
    rng = _slot_rng(seed, n, turn, TACTIC_KINDS.index(kind), number)
    spread = 3 if kind == "block" else 2  # the proportions that find each kind soonest
    for _ in range(_ATTEMPTS):
        position = _random_candidate(n, rng, turn, spread)
        if position is None:
            continue
        found = _tactic(position, kind)
        if found is not None:
            expected, description = found
            return Case(f"n{n}-{player}-{kind}-{number}", position, description, expected)
    return None


def tactics_suite(sizes: tuple[int, ...], per_kind: int, seed: int = 1) -> list[Case[Position]]:
    """``per_kind`` cases of each kind (win at once, block, forced win in 3 plies), spread over the
    sizes 3..TACTICS_MAX_N of ``sizes`` and over both colours, each with its proven answer.

    ``expected`` is exactly the set of right moves and every other legal move is proven to lose (see
    the proofs above), so a program is never marked down for a move that keeps the win. A case is the
    same whatever else is asked for (its position depends only on ``seed``, its size, colour, kind
    and number), and ids name all four, e.g. ``n3-x-win-in-three-1``.
    """
    usable = tuple(dict.fromkeys(n for n in sizes if 3 <= n <= TACTICS_MAX_N))
    return _spread(usable, TACTIC_KINDS, per_kind, lambda n, turn, kind, number: _tactic_case(
        n, turn, kind, number, seed))


S = TypeVar("S")


def _spread(
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


def _constructed_last_pebble(n: int, turn: Colour, rng: Rng) -> Position | None:
    """A position built for the mover's last pebble, for any n >= 2: every column full but one with
    a single empty cell on top; dropping there completes the mover's line (that column's top n cells,
    or the diagonal from that corner); the opponent, with no pebble in hand, threatens to rotate a
    column whose top n cells then all become its own; whatever else is on the board is random.
    Returned only when ``_last_pebble`` proves it (else None)."""
    g = geometry(n)
    top = g.height - 1
    mine, theirs = PLAYERS[turn], PLAYERS[turn ^ 1]
    if n < 2:
        return None
    column = rng.randrange(n)
    fixed: dict[tuple[int, int], str] = {}
    if column in (0, n - 1) and rng.randrange(2):
        # The diagonal from the top of this corner column down to height 3 of the other corner.
        step = 1 if column == 0 else -1
        for i in range(n):
            fixed[(column + step * i, top - i)] = mine
        threat = n - 1 - column
    else:
        for h in range(3, top):
            fixed[(column, h)] = mine
        threat = rng.choice([c for c in range(n) if c != column])
    # Rotating the threat column brings heights 4..top down to 3..top - 1 and its bottom pebble to
    # the top: all the opponent's, so its column line is complete.
    for h in [0] + list(range(4, top + 1)):
        if fixed.get((threat, h), theirs) != theirs:
            return None
        fixed[(threat, h)] = theirs
    if fixed.get((threat, 3), mine) != mine:
        return None
    fixed[(threat, 3)] = mine
    free = [(c, h) for c in range(n) for h in range(g.height)
            if (c, h) not in fixed and (c, h) != (column, top)]
    mine_left = g.supply - 1 - sum(1 for v in fixed.values() if v == mine)
    theirs_left = g.supply - sum(1 for v in fixed.values() if v == theirs)
    if mine_left < 0 or theirs_left < 0 or mine_left + theirs_left != len(free):
        return None
    colours = [mine] * mine_left + [theirs] * theirs_left
    for i in range(len(colours) - 1, 0, -1):
        j = rng.randrange(i + 1)
        colours[i], colours[j] = colours[j], colours[i]
    fixed.update(zip(free, colours))
    board = "".join(fixed.get((c, g.height - 1 - r), ".") for r in range(g.height) for c in range(n))
    position = Position(n, board, turn)
    if position.winner() is not None or position.pebbles_in_hand(turn) != 1:
        return None
    return position


@lru_cache(maxsize=256)
def _last_pebble_case(n: int, turn: Colour, number: int, seed: int) -> Case[Position] | None:
    rng = _slot_rng(seed, n, turn, 99, number)
    searched = _ATTEMPTS if 3 <= n <= TACTICS_MAX_N else 0
    tries = (_random_candidate(n, rng, turn, 2 + number % 2, in_hand=1) for _ in range(searched))
    for position in tries:  # then built positions, for large boards or if the search found none
        if position is not None and (found := _last_pebble(position)) is not None:
            break
    else:
        found = None
        for _ in range(200):
            position = _constructed_last_pebble(n, turn, rng)
            if position is not None and (found := _last_pebble(position)) is not None:
                break
    if found is None or position is None:
        return None
    expected, description = found
    return Case(f"n{n}-{PLAYERS[turn]}-last-pebble-{number}", position, description, expected)


def last_pebble_suite(sizes: tuple[int, ...], per_colour: int = 1, seed: int = 1) -> list[Case[Position]]:
    """For each size of ``sizes`` and each colour, ``per_colour`` positions where the side to move
    has exactly one pebble in hand and only dropping it is right: the drops in ``expected`` win at
    once, or are the only moves that stop the opponent's line; every other move (every rotation
    among them) ends the game for the opponent or lets it win at once. Catches a program that
    miscounts its supply by one and never drops its last pebble.

    Sizes 3..TACTICS_MAX_N use random positions found by search, larger ones built positions (the
    same proofs check both). Ids look like ``n5-o-last-pebble-1``.
    """
    cases: list[Case[Position]] = []
    for n in dict.fromkeys(sizes):
        for number in range(1, per_colour + 1):
            for turn in (BLUE, RED):
                case = _last_pebble_case(n, turn, number, seed)
                if case is not None:
                    cases.append(replace(case, position=case.position.copy()))
    return cases


def all_moves_lose_position(n: int, seed: int) -> Position | None:
    """A position where every move of the side to move lets the opponent win at once."""
    for attempt in range(3000):
        position = random_position(n, 6 + attempt % (4 * n), seed * 100_000 + attempt)
        if position is None or winning_moves(position):
            continue
        if position.legal_moves() and not safe_moves(position):
            return position
    return None


# --- Connect Four -----------------------------------------------------------------------------------


def _quiet_moves(position: GamePosition) -> list[Move]:
    """The legal moves that complete no line (the game goes on after them, or the board is full)."""
    quiet = []
    for move in position.legal_moves():
        position.push(move)
        if position.winner_after_push(move) is None:
            quiet.append(move)
        position.pop()
    return quiet


def connect4_position(
    size: str, player: str, plies: int, seed: int, full_columns: int = 0
) -> connect4.Position | None:
    """``player`` to move after ``plies`` random discs (one more if the parity asks for it) that
    complete no four, with ``full_columns`` columns filled to the top and some column with room;
    None if no attempt gets there."""
    width, height = connect4.parse_size(size)
    if plies % 2 != PLAYERS.index(player):
        plies += 1
    if plies >= width * height or full_columns * height > plies or full_columns >= width:
        return None
    rng = Rng(seed)
    for _ in range(200):
        position = connect4.initial_position(width, height)
        columns = list(range(1, width + 1))
        targets = [columns.pop(rng.randrange(len(columns))) for _ in range(full_columns)]
        for _ in range(plies):
            moves = _quiet_moves(position)
            if not moves:
                break
            filling = [move for move in moves if move in targets]
            # Fill the chosen columns first, mostly: the rest of the board stays low and open.
            position.push(rng.choice(filling if filling and rng.randrange(4) else moves))
        else:
            if all(height == position.heights[c - 1] for c in targets) and position.legal_moves():
                return position.copy()
    return None


def connect4_all_moves_lose_position(size: str, seed: int) -> connect4.Position | None:
    """A position where the side to move cannot win at once and every move lets the opponent win
    at once (two threats, or one with a threat right above it)."""
    width, height = connect4.parse_size(size)
    rng = Rng(seed)
    for _ in range(300):
        position = connect4.initial_position(width, height)
        while True:
            moves = _quiet_moves(position)
            if not moves:
                break
            position.push(rng.choice(moves))
            if position.legal_moves() and not winning_moves(position) and not safe_moves(position):
                return position.copy()
    return None


@lru_cache(maxsize=256)
def _connect4_tactic_case(size: str, turn: Colour, kind: str, number: int, seed: int) -> Case[connect4.Position] | None:
    width, height = connect4.parse_size(size)
    rng = _slot_rng(seed, width, height, turn, TACTIC_KINDS.index(kind), number)
    for _ in range(_ATTEMPTS // 20):
        # Every position of a random game (that completes no four) is a candidate.
        position = connect4.initial_position(width, height)
        while True:
            moves = _quiet_moves(position)
            if not moves:
                break
            position.push(rng.choice(moves))
            if position.turn != turn or not position.legal_moves():
                continue
            found = _tactic(position, kind)
            if found is not None:
                expected, description = found
                return Case(f"{size}-{PLAYERS[turn]}-{kind}-{number}", position.copy(), description, expected)
    return None


CONNECT4_TACTIC_KINDS = ("win-in-one", "block")


def connect4_tactics_suite(sizes: tuple[str, ...], per_kind: int, seed: int = 1) -> list[Case[connect4.Position]]:
    """``per_kind`` Connect Four cases of each kind (win at once, block an immediate loss), spread
    over ``sizes`` and both colours. As for Betsy, ``expected`` is exactly the right moves and every
    other legal move is proven to lose within 3 plies by exhaustive search (see the proofs above:
    Connect Four has no rule that could draw a game inside those plies but a full board, and a full
    board is counted a draw). Ids look like ``7x6-x-block-1``."""
    return _spread(tuple(dict.fromkeys(sizes)), CONNECT4_TACTIC_KINDS, per_kind,
                   lambda size, turn, kind, number: _connect4_tactic_case(size, turn, kind, number, seed))


# --- the suites of each game ------------------------------------------------------------------------

ANY_MOVE = "any legal move and its exact board"


class Suites:
    """What the validator asks a program about, for one game. Sizes are size texts (``5``, ``7x6``)."""

    answer_form = "MOVE NEWBOARD"
    """The answer line, in the protocol's words."""
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

    def protocol_position(self) -> GamePosition:
        """The first position asked: a well-known one, answered by any working program."""
        raise NotImplementedError

    def first_move(self) -> tuple[str, GamePosition]:
        """The empty board of the game's usual size, with its check id."""
        raise NotImplementedError

    def rules(self, sizes: tuple[str, ...], quick: bool) -> Iterator[Case[Any]]:
        """Positions that any legal move with its exact board answers (generated as asked)."""
        raise NotImplementedError

    def robustness(self, quick: bool) -> Iterator[Case[Any]]:
        """The extremes: the largest and smallest boards, near-full boards, hopeless positions."""
        raise NotImplementedError

    def tactics(self, sizes: tuple[str, ...], quick: bool) -> list[Case[Any]]:
        """Proven tactics: ``expected`` holds exactly the right moves."""
        raise NotImplementedError

    def last_pebble(self, sizes: tuple[str, ...]) -> list[Case[Any]]:
        return []

    def game_plies(self, size: str, quick: bool) -> int:
        """The ply cap of the strength games at ``size``."""
        raise NotImplementedError


class BetsySuites(Suites):
    has_last_pebble = True
    has_exact_tables = True
    example_move = 2  # the seed's own answer
    fixes = {
        **Suites.fixes,
        "no-pebbles-in-hand/illegal-move": "with no pebble in hand only rotations are legal: a side has n(n+3)/2 "
                                           "pebbles, less those of its colour on the board",
        "no-pebbles-in-hand/board-mismatch": "rotate the right way: -c takes the bottom pebble out of column c and "
                                             "puts it back on top, the others moving down one",
        "full-columns/illegal-move": "never drop into a full column (n + 3 pebbles): rotate it, or drop elsewhere",
        "empty-columns/board-mismatch": "a pebble dropped into an empty column lands in the bottom row",
        "last-pebble": "count the pebble still in hand: the last one can be dropped, and here dropping it wins at "
                       "once or stops a line",
    }

    def protocol_position(self) -> Position:
        return Position.from_text("3", "o", SEED_BOARD)

    def first_move(self) -> tuple[str, Position]:
        return "first-move-n5", initial_position(5)

    def rules(self, sizes: tuple[str, ...], quick: bool) -> Iterator[Case[Position]]:
        per_kind = 1 if quick else 2
        for n in map(int, sizes):
            for player in "xo":
                for k in range(per_kind):
                    position = no_pebbles_position(n, player, 1 + k)
                    if position is not None:
                        yield Case(f"n{n}-{player}-no-pebbles-in-hand-{k + 1}", position,
                                   f"a rotation (no {player} pebble in hand) and its exact board")
            cases: list[tuple[str, Position | None, str]] = [
                ("full-columns", full_columns_position(n, max(1, n // 2), 3),
                 "a drop into a column with room, or a rotation; never a drop into a full column"),
                ("empty-columns", random_position(n, 2, 5),
                 "a drop (landing at the bottom of an empty column) or a rotation"),
                ("midgame", random_position(n, 3 * n, 7), ANY_MOVE),
            ]
            if not quick:
                cases.append(("midgame-2", random_position(n, 4 * n + 1, 8), ANY_MOVE))
            for name, position, expected in cases:
                if position is None:
                    continue
                for player in ("x", "o") if not quick or name == "midgame" else (position.player,):
                    asked = position.copy()
                    asked.turn = 0 if player == "x" else 1  # Betsy's counts do not fix the side to move
                    if asked.winner() is not None:
                        continue
                    yield Case(f"n{n}-{player}-{name}", asked, expected)

    def robustness(self, quick: bool) -> Iterator[Case[Position]]:
        cases: list[tuple[str, Position | None]] = [
            ("n12-empty", initial_position(12)),
            ("n12-midgame", random_position(12, 30, 11)),
            ("n5-near-full", near_full_position(5, 2, 3)),
            ("n3-all-moves-lose", all_moves_lose_position(3, 1)),
        ]
        if not quick:
            cases += [
                ("n8-near-full", near_full_position(8, 3, 4)),
                ("n4-all-moves-lose", all_moves_lose_position(4, 2)),
                ("n10-midgame", random_position(10, 25, 13)),
            ]
        for name, position in cases:
            if position is not None:
                yield Case(name, position, ANY_MOVE)

    def tactics(self, sizes: tuple[str, ...], quick: bool) -> list[Case[Position]]:
        usable = tuple(n for n in map(int, sizes) if n <= TACTICS_MAX_N) or (3, 4)
        return tactics_suite(usable, 2 if quick else 4)

    def last_pebble(self, sizes: tuple[str, ...]) -> list[Case[Position]]:
        return last_pebble_suite(tuple(n for n in map(int, sizes) if n >= 3) or (3,))

    def game_plies(self, size: str, quick: bool) -> int:
        return 16 if quick else 30  # short games; the validator adjudicates those that reach the cap


SEED_BOARD = "...x..o.ox.oxxxoxo"
"""Betsy's seed example, Figure 1(a): n = 3, o to move."""
CONNECT4_PROTOCOL_MOVES = (4, 4, 5, 3, 6)
"""Connect Four's first position asked: these columns played from the empty 7x6 board (o to move)."""
FULL_COLUMN = "a disc into a column with room; never into a full column"


class ConnectFourSuites(Suites):
    answer_form = "COLUMN NEWBOARD"
    example_move = 4
    fixes = {
        **Suites.fixes,
        **{f"{kind}/illegal-move": "never drop into a full column: one whose top cell holds a disc"
           for kind in ("full-column", "full-columns", "near-full")},
    }

    def protocol_position(self) -> connect4.Position:
        position = connect4.initial_position(7, 6)
        for move in CONNECT4_PROTOCOL_MOVES:
            position.push(move)
        return position.copy()

    def first_move(self) -> tuple[str, connect4.Position]:
        size = connect4.size_text(*connect4.DEFAULT_SIZE)
        return f"first-move-{size}", connect4.initial_position(*connect4.DEFAULT_SIZE)

    def rules(self, sizes: tuple[str, ...], quick: bool) -> Iterator[Case[connect4.Position]]:
        for size_index, size in enumerate(sizes):
            width, height = connect4.parse_size(size)
            cells = width * height
            kinds: list[tuple[str, int, int, str]] = [  # name, discs, full columns, what is expected
                ("midgame", cells // 3, 0, ANY_MOVE),
                ("full-column", height + width, 1, FULL_COLUMN),
                ("near-full", cells - 3, 0, "a disc into one of the few columns with room, and its exact board"),
            ]
            if not quick:
                kinds += [
                    ("opening", 2, 0, ANY_MOVE),
                    ("full-columns", (width // 2) * height + 3, width // 2, FULL_COLUMN),
                ]
            for kind_index, (name, plies, full, expected) in enumerate(kinds):
                for turn, player in enumerate(PLAYERS):
                    seed = ((size_index * 10 + kind_index) * 2 + turn) * 1000 + width * 13 + height
                    position = connect4_position(size, player, plies, seed, full)
                    if position is not None:
                        yield Case(f"{size}-{player}-{name}", position, expected)

    def robustness(self, quick: bool) -> Iterator[Case[connect4.Position]]:
        cases: list[tuple[str, connect4.Position | None]] = [
            ("12x12-empty", connect4.initial_position(12, 12)),
            ("12x12-midgame", connect4_position("12x12", "o", 50, 11)),
            ("4x4-near-full", connect4_position("4x4", "x", 14, 3)),
            ("7x6-all-moves-lose", connect4_all_moves_lose_position("7x6", 1)),
        ]
        if not quick:
            cases += [
                ("12x4-near-full", connect4_position("12x4", "o", 45, 4)),
                ("4x12-midgame", connect4_position("4x12", "x", 20, 5)),
                ("8x8-all-moves-lose", connect4_all_moves_lose_position("8x8", 2)),
            ]
        for name, position in cases:
            if position is not None:
                yield Case(name, position, ANY_MOVE)

    def tactics(self, sizes: tuple[str, ...], quick: bool) -> list[Case[connect4.Position]]:
        return connect4_tactics_suite(sizes, 3 if quick else 6)

    def game_plies(self, size: str, quick: bool) -> int:
        width, height = connect4.parse_size(size)
        return width * height  # every game ends by itself, with a four or a full board


_SUITES: dict[str, Suites] = {"betsy": BetsySuites(), "connect4": ConnectFourSuites()}


def suites(game: str) -> Suites:
    """The suites of the game called ``game`` (a name of harness.games.registry)."""
    found = _SUITES.get(game)
    if found is None:
        raise KeyError(f"no validation suites for game {game!r}: there are {', '.join(_SUITES)}")
    return found
