"""Betsy's validation positions: rules coverage (rotations with no pebble in hand, full and empty
columns), robustness, proven tactics and the last pebble in hand (the proofs: harness.games.suites)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from itertools import chain

from harness.games.betsy.rules import BLUE, PLAYERS, RED, Colour, Move, Position, geometry, initial_position
from harness.games.suites import (
    ANY_MOVE, ATTEMPTS, OPEN, TACTIC_KINDS, WINS_NOW, Case, Suites, deep_verdict, exact_results, moves_text,
    quick_verdict, safe_moves, slot_rng, spread, tactic, winning_moves,
)
from harness.rng import Rng


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


def _last_pebble(position: Position, in_hand: int = 1) -> tuple[frozenset[Move], str] | None:
    """The proven answer when the side to move has ``in_hand`` pebbles in hand and only drops are
    right, judged within one reply: every wrong move ends the game or lets the opponent win at once.
    With one pebble in hand, a last-pebble case; with two, its twin (``last_pebble_twin``)."""
    if position.pebbles_in_hand(position.turn) != in_hand:
        return None
    moves = position.legal_moves()
    me, other = position.player, PLAYERS[position.turn ^ 1]
    quick = {move: quick_verdict(position, move) for move in moves}
    wins = {m for m, v in quick.items() if v == WINS_NOW}
    rest = {m for m, v in quick.items() if v is None}
    intro = (f"{me} has one pebble in hand; the only" if in_hand == 1
             else f"{me} has {in_hand} pebbles in hand; the only")
    tail = f"(any other move lets {other} win at once)"
    if wins:
        if rest or any(m < 0 for m in wins):
            return None
        return frozenset(wins), f"{intro} winning moves are drops {moves_text(wins)} {tail}"
    if not rest or any(m < 0 for m in rest):
        return None
    if any(deep_verdict(position, m, try_win=False) != OPEN for m in rest):
        return None
    if position.n == 3:
        exact = exact_results(position)
        if exact is None or any(exact[m] < 0 for m in rest):
            return None
        return frozenset(rest), f"{intro} moves that do not lose are drops {moves_text(rest)} {tail}"
    return frozenset(rest), f"{intro} moves that stop {other}'s line are drops {moves_text(rest)} {tail}"


def drops_win(position: Position, moves: frozenset[Move]) -> bool:
    """Whether ``moves`` (a last-pebble answer) win at once, rather than stop the opponent's line."""
    return bool(moves) and all(position.after(move).winner() == position.turn for move in moves)


TACTICS_MAX_N = 5
"""Largest board size with tactics cases: beyond it the 3-ply proofs are too slow to search for."""

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
    rng = slot_rng(seed, n, turn, TACTIC_KINDS.index(kind), number)
    spread = 3 if kind == "block" else 2  # the proportions that find each kind soonest
    for _ in range(ATTEMPTS):
        position = _random_candidate(n, rng, turn, spread)
        if position is None:
            continue
        found = tactic(position, kind, exact=position.n == 3)
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
    return spread(usable, TACTIC_KINDS, per_kind, lambda n, turn, kind, number: _tactic_case(
        n, turn, kind, number, seed))


def _constructed_last_pebble(n: int, turn: Colour, rng: Rng) -> Position | None:
    """A position built for the mover's last pebble, for any n >= 2: every column full but one with
    a single empty cell on top; dropping there completes the mover's line (that column's top n cells,
    or the diagonal from that corner); the opponent, with no pebble in hand, threatens to rotate a
    column whose top n cells then all become its own; whatever else is on the board is random.
    The caller proves it (``_last_pebble``)."""
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
    free = [(c, h) for c in range(n) for h in range(g.height) if (c, h) not in fixed and (c, h) != (column, top)]
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


def _without_top(position: Position, column: int) -> Position | None:
    """``position`` with the top pebble of ``column`` (0-based) taken off, if it is the mover's."""
    height = position.heights[column]
    if not height:
        return None
    n, rows = position.n, position.geometry.height
    cell = (rows - height) * n + column
    board = position.board()
    if board[cell] != position.player:
        return None
    return Position(n, board[:cell] + "." + board[cell + 1:], position.turn)


def last_pebble_twin(position: Position, expected: frozenset[Move]) -> Position | None:
    """The minimal pair of a last-pebble case: the same board with one of the mover's pebbles taken
    off the top of a column (the first column, from the left, that works), so it has two in hand and
    nothing else differs. The pebble makes no line and changes no move's value: the twin is proven by
    the same proof (``_last_pebble`` with two in hand, and at n = 3 the exact analysis too) to have
    exactly the right moves ``expected``, of the same kind (``drops_win``). None when no column works."""
    wins = drops_win(position, expected)
    for column in range(position.n):
        twin = _without_top(position, column)
        if twin is None or twin.winner() is not None:
            continue
        found = _last_pebble(twin, 2)
        if found is None or found[0] != expected or drops_win(twin, found[0]) != wins:
            continue
        if twin.n == 3:
            exact = exact_results(twin)
            if exact is None or {move for move, result in exact.items() if result >= int(wins)} != expected:
                continue
        return twin
    return None


@lru_cache(maxsize=256)
def _last_pebble_case(n: int, turn: Colour, number: int, seed: int) -> Case[Position] | None:
    """The case of that slot: the first proven position whose twin exists (random positions found by
    search at sizes 3..TACTICS_MAX_N, then built ones); without any, the first proven one, twinless."""
    rng = slot_rng(seed, n, turn, 99, number)
    searched = ATTEMPTS if 3 <= n <= TACTICS_MAX_N else 0
    candidates = chain((_random_candidate(n, rng, turn, 2 + number % 2, in_hand=1) for _ in range(searched)),
                       (_constructed_last_pebble(n, turn, rng) for _ in range(200)))
    first: Case[Position] | None = None
    for position in candidates:
        if position is None or (found := _last_pebble(position)) is None:
            continue
        expected, description = found
        case = Case(f"n{n}-{PLAYERS[turn]}-last-pebble-{number}", position, description, expected,
                    twin=last_pebble_twin(position, expected))
        if case.twin is not None:
            return case
        first = first or case
    return first


def last_pebble_suite(sizes: tuple[int, ...], per_colour: int = 1, seed: int = 1) -> list[Case[Position]]:
    """For each size of ``sizes`` and each colour, ``per_colour`` positions where the side to move
    has exactly one pebble in hand and only dropping it is right: the drops in ``expected`` win at
    once, or are the only moves that stop the opponent's line; every other move (every rotation
    among them) ends the game for the opponent or lets it win at once. Catches a program that
    miscounts its supply by one and never drops its last pebble.

    Each case has its ``twin`` (``last_pebble_twin``): the same board with one more pebble in hand and
    the same right moves, so that a program that rotates here and drops there shows what it believes.
    Sizes 3..TACTICS_MAX_N use random positions found by search, larger ones built positions (the
    same proofs check both). Ids look like ``n5-o-last-pebble-1``.
    """
    cases: list[Case[Position]] = []
    for n in dict.fromkeys(sizes):
        for number in range(1, per_colour + 1):
            for turn in (BLUE, RED):
                case = _last_pebble_case(n, turn, number, seed)
                if case is not None:
                    cases.append(replace(case, position=case.position.copy(),
                                         twin=case.twin.copy() if case.twin is not None else None))
    return cases


def rotated_wrong_way(position: Position, column: int) -> str:
    """The board after rotating ``column`` (0-based) the wrong way: its top pebble to the bottom."""
    n, height = position.n, position.geometry.height
    board = list(position.board())
    cells = [board[r * n + column] for r in range(height) if board[r * n + column] != "."]  # top first
    cells = cells[1:] + cells[:1]
    for r in range(height - len(cells), height):
        board[r * n + column] = cells[r - (height - len(cells))]
    return "".join(board)


def all_moves_lose_position(n: int, seed: int) -> Position | None:
    """A position where every move of the side to move lets the opponent win at once."""
    for attempt in range(3000):
        position = random_position(n, 6 + attempt % (4 * n), seed * 100_000 + attempt)
        if position is None or winning_moves(position):
            continue
        if position.legal_moves() and not safe_moves(position):
            return position
    return None


class BetsySuites(Suites[Position]):
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
        "last-pebble/ok": "count the pebble still in hand: the last one can be dropped, and here dropping it wins at "
                       "once or stops a line",
        "tactics:last-pebble/ok": "look at every move, drops and rotations alike, for one that completes your line "
                               "at once or stops the opponent's",
    }

    def proves_fix(self, key: str, position: Position, move: int, board: str | None) -> bool:
        n, height = position.n, position.geometry.height
        column = abs(move) - 1
        if not 0 <= column < n:
            return key.count("/") == 0
        if key == "last-pebble/ok":  # a legal move that missed: the validator asks for a proven diagnosis too
            return True
        if key == "no-pebbles-in-hand/illegal-move":  # a drop with no pebble in hand
            return move > 0 and position.pebbles_in_hand(position.turn) == 0
        if key == "full-columns/illegal-move":  # a drop into a full column
            return move > 0 and position.heights[column] >= height
        if key == "no-pebbles-in-hand/board-mismatch":  # the printed board is the wrong-way rotation's
            return move < 0 and board is not None and board == rotated_wrong_way(position, column)
        if key == "empty-columns/board-mismatch":  # a drop into an empty column, misplaced in that column only
            if move < 0 or position.heights[column] or board is None or len(board) != n * height:
                return False
            right = position.after(move).board()
            return any(board[i] != right[i] for i in range(len(board))) and all(
                board[i] == right[i] for i in range(len(board)) if i % n != column)
        return super().proves_fix(key, position, move, board)

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
