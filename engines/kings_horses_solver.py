"""Exact solver for All The King's Horses, and the ``bestmove`` command line.

The board extends without limit down and right; squares are ``(row, col)``, 1-based from the top-left.
BLACK and WHITE own two knights each. A move takes one of the mover's knights by one of
``(-2, -1), (-1, -2), (-2, +1), (+1, -2)`` onto a square of the board that no knight occupies. A player
with no move loses; there are no draws.

Structure used by the solver (``s = row + col``, ``d = row - col``):

- Every move lowers ``s``: by 1 for the *slow* steps ``(-2, +1), (+1, -2)``, which keep ``d mod 3``, and
  by 3 for the *fast* ones, which change it. A lone knight therefore makes at most ``lone_moves`` =
  ``s - 3`` moves, ``s - 4`` when ``d = 0 mod 3`` (closed form, checked against brute force in the
  tests), and every knight ends on one of the four dead squares (1,1), (1,2), (2,1), (2,2).
- A full count needs a particular dead square: (2,1) for ``d = 1 mod 3``, (1,2) for ``d = 2``, (2,2) or
  (1,1) for ``d = 0``. A player's moves are bounded above by the sum of its knights' lone counts, less
  what its two knights cannot both have: one such dead square, or one already taken by a knight.
- A knight can only reach squares inside the cone ``u = row + 2 col`` and ``v = 2 row + col`` both not
  larger, and needs at least ``max(du / 5, dv / 5, (du + dv) / 9)`` moves to get there (each move lowers
  ``(u, v)`` by (0,3), (3,0), (4,5) or (5,4)). So the first moves of a knight along a path the opponent
  cannot reach in time are guaranteed: a player who moves one knight, then the other, along such paths
  is sure of that many moves whatever the opponent does (a lower bound). "In time" counts both ways:
  the opponent moves every turn, so after t of its moves each of its knights has made at least t less
  the lone count of the other, and a square it could stand on only after fewer moves is already
  behind it. Both orders of the two knights are tried when the first falls short, and a knight whose
  slow steps are all unsafe may take a fast one.
- Pure races: the mover makes at most ``min(U_mover, U_opp + 1)`` moves in the game and the opponent
  ``min(U_opp, U_mover)``. When no mover's knight and opponent's knight can stand on one square within
  those horizons (by the move counts above), neither can ever get in the other's way and the mover
  wins iff the most its knights make alone (a small exact single-player search, memoised), capped by
  its bound, exceeds the opponent's. Checked at every node: the horizons shrink as the game goes on.
- The mover wins if its guaranteed moves exceed the opponent's upper bound. Other positions are
  searched: a memoised negamax on canonical keys (each player's pair sorted; the mover first, so one
  table serves both colours), slow steps first. Each position first probes the table for its
  children: one already solved as a loss for the opponent settles it, as do children all solved as
  wins for the opponent, before any bound is computed. A position missing from the table is also
  looked up mirrored in the diagonal, which has the same value (the search itself keeps the
  position's own orientation: its move order, and so the size of its tree, depends on it).
- Near the corner the game is solved once and for all: the squares with ``row + col <= S`` are closed
  under moves, and when a table of every position inside them has been built
  (engines/kings_horses_table.py, ``scripts/build_tablebase.py --game kings-horses``), a position with
  all four knights inside is read from it instead of searched. Every 1..8 position is inside the
  table the set-up builds (S = 24), and a deeper search ends there instead
  of at the dead squares. Without a table the solver searches everything, with the same answers.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from engines.kings_horses_table import Table, default_table, pair_index

Square = tuple[int, int]
Pair = tuple[Square, Square]

PLAYERS = ("BLACK", "WHITE")
_SHIFT = 32
_MASK = (1 << _SHIFT) - 1
_SLOW = ((-2, 1), (1, -2))
_FAST = ((-2, -1), (-1, -2))
_STEPS = _SLOW + _FAST
_INF = 1 << 60
_Routes = dict[int, dict[int, tuple[int, ...]]]
_MAX_DEPTH = 100_000
"""Recursion limit the search may raise Python's to (one level per move of the game)."""

_T11, _T12, _T21, _T22 = (1 << _SHIFT) | 1, (1 << _SHIFT) | 2, (2 << _SHIFT) | 1, (2 << _SHIFT) | 2
_DEAD = frozenset((_T11, _T12, _T21, _T22))
_NEEDS = {0: (_T22, _T11), 1: (_T21,), 2: (_T12,)}
"""Dead squares that give a knight of each class (``(row - col) % 3``) its full lone count."""


def lone_moves(row: int, col: int) -> int:
    """The most moves a lone knight on (row, col) can still make."""
    return max(0, row + col - 3 - (1 if (row - col) % 3 == 0 else 0))


def _enc(square: Square) -> int:
    return (square[0] << _SHIFT) | square[1]


def _dec(code: int) -> Square:
    return (code >> _SHIFT, code & _MASK)


class _Squares(dict[int, tuple]):
    """Per-square data, built on first use: (row, col, lone count, class, slow targets, fast targets, u, v)."""

    def __missing__(self, code: int) -> tuple:
        row, col = code >> _SHIFT, code & _MASK
        slow = tuple(((row + dr) << _SHIFT) | (col + dc) for dr, dc in _SLOW if row + dr >= 1 and col + dc >= 1)
        fast = tuple(((row + dr) << _SHIFT) | (col + dc) for dr, dc in _FAST if row + dr >= 1 and col + dc >= 1)
        info = (row, col, lone_moves(row, col), (row - col) % 3, slow, fast, row + 2 * col, 2 * row + col, slow + fast)
        self[code] = info
        return info


_SQ = _Squares()


def _upper(a: int, b: int, x: int, y: int) -> int:
    """Upper bound on the moves of the knights on a, b, with x, y the opponent's (see the module doc)."""
    ia, ib = _SQ[a], _SQ[b]
    fa, fb = ia[2], ib[2]
    if not (a in _DEAD or b in _DEAD or x in _DEAD or y in _DEAD):
        if fa and fb:
            ca = ia[3]
            return fa + fb - 1 if ca and ca == ib[3] else fa + fb
        return fa + fb
    if not fa and not fb:
        return 0
    taken = {q for q in (a, b, x, y) if q in _DEAD}
    if fa and fb:
        na = [q for q in _NEEDS[ia[3]] if q not in taken]
        nb = [q for q in _NEEDS[ib[3]] if q not in taken]
        if not na:
            return fa + fb - (2 if not nb else 1)
        if not nb:
            return fa + fb - 1
        if len(na) == 1 and len(nb) == 1 and na[0] == nb[0]:
            return fa + fb - 1
        return fa + fb
    if fa:
        return fa - (0 if any(q not in taken for q in _NEEDS[ia[3]]) else 1)
    return fb - (0 if any(q not in taken for q in _NEEDS[ib[3]]) else 1)


def _meet(p: int, hp: int, q: int, hq: int) -> bool:
    """Could a knight on p after at most hp moves and one on q after at most hq stand on one square?

    A relaxation (never False when they can): a move lowers ``u = row + 2 col`` and ``v = 2 row + col``
    by at most 5 each and ``u + v`` by at most 9, never raises either, and no square has u or v below 3.
    """
    ip, iq = _SQ[p], _SQ[q]
    up, vp, uq, vq = ip[6], ip[7], iq[6], iq[7]
    hi_u = up if up < uq else uq
    lo_u = max(up - 5 * hp, uq - 5 * hq, 3)
    if lo_u > hi_u:
        return False
    hi_v = vp if vp < vq else vq
    lo_v = max(vp - 5 * hp, vq - 5 * hq, 3)
    if lo_v > hi_v:
        return False
    top = hi_u + hi_v
    return top >= up + vp - 9 * hp and top >= uq + vq - 9 * hq


def _route_cost(o: int, q: int, t: int) -> tuple[int, int]:
    """(cost, moves): the least count a knight on o gives up to stand on q after at most t of its moves
    (_INF: never), and the number of moves of that route (the most any route within t moves takes).

    A route with k fast steps takes ``n = ds - 2k`` moves (``ds`` the fall of row + col) and leaves the
    knight ``n + lone(q)`` moves at most, against ``lone(o)``. Feasible k follow from the falls of
    u and v (each fast step lowers them by (4, 5) or (5, 4), each slow one by (0, 3) or (3, 0)); the
    board's edges are ignored, which only finds more routes, so the cost returned is never too high
    and the moves never too few.
    """
    io, iq = _SQ[o], _SQ[q]
    du, dv = io[6] - iq[6], io[7] - iq[7]
    if du < 0 or dv < 0:
        return _INF, -1
    ds = (du + dv) // 3
    k = max(0, (ds - t + 1) // 2)
    while 3 * k <= ds:
        lo = max(0, 5 * k - du)
        hi = min(k, dv - 4 * k)
        if lo <= hi and lo + (5 * k - du - lo) % 3 <= hi:
            return io[2] - (ds - 2 * k) - iq[2], ds - 2 * k
        k += 1
    return _INF, -1


def _routes(costs: dict[int, tuple[int, ...]], o: int, q: int) -> tuple[int, ...]:
    """For t = 0, 1, ... up to the fall of row + col (constant after that): ``_route_cost(o, q, t)``
    flattened, cost at 2t and moves at 2t + 1."""
    io, iq = _SQ[o], _SQ[q]
    du, dv = io[6] - iq[6], io[7] - iq[7]
    ds = (du + dv) // 3 if du >= 0 and dv >= 0 else 0
    found = tuple(v for t in range(ds + 1) for v in _route_cost(o, q, t))
    costs[q] = found
    return found


def _sure_steps(routes: _Routes, start: int, avoid: frozenset[int], x: int, y: int, offset: int, lag: int, spare: int,
                need: int) -> tuple[int, frozenset[int]]:
    """Slow steps of one knight from start that are sure, its owner having made ``offset`` moves.

    Returns the number ``m`` of sure moves (at most ``need``) and every square the knight may stand on
    after them. The J-th move (J = offset + step) is sure onto a square that no opponent knight (on x,
    y) can stand on after J - 1 + lag opponent moves while giving up less than ``spare - J`` of its
    count: a knight giving up more leaves the opponent too few moves against the owner's J - 1. Of
    those t = J - 1 + lag moves the knight on x made at least t - lone(y) (the one on y made the rest,
    and can make no more than its lone count), so a square it reaches only by a shorter route is safe.
    When no slow step is safe, the fast steps are tried instead.
    """
    squares = _SQ
    from_x = routes.get(x)
    if from_x is None:
        from_x = routes[x] = {}
    from_y = routes.get(y)
    if from_y is None:
        from_y = routes[y] = {}
    lone_x, lone_y = squares[x][2], squares[y][2]
    layer: Iterable[int] = (start,)
    done = 0
    while done < need:
        j = offset + done + 1
        t = j - 1 + lag
        cstar = spare - j
        at = 2 * t  # index of time t in a route tuple
        least_x, least_y = t - lone_y, t - lone_x  # the fewest moves each opponent knight has made
        nxt: list[int] = []
        for kind in (4, 5):  # the slow steps; the fast ones when no slow step is safe
            for p in layer:
                for q in squares[p][kind]:
                    if q in avoid or q in nxt:
                        continue
                    rx = from_x.get(q) or _routes(from_x, x, q)
                    i = at if at < len(rx) else len(rx) - 2
                    if rx[i] < cstar and rx[i + 1] >= least_x:
                        continue
                    ry = from_y.get(q) or _routes(from_y, y, q)
                    i = at if at < len(ry) else len(ry) - 2
                    if ry[i] < cstar and ry[i + 1] >= least_y:
                        continue
                    nxt.append(q)
            if nxt:
                break
        if not nxt:
            break
        layer = nxt
        done += 1
    return done, frozenset(layer)


def _guaranteed(routes: _Routes, a: int, b: int, x: int, y: int, lag: int, need: int) -> int:
    """Moves the owner of a, b is sure of (or sure not to need), whatever the owner of x, y does.

    ``lag`` is the number of opponent moves before the owner's first (0 for the mover, 1 otherwise);
    the owner wins once it has made ``need`` moves (the opponent's upper bound plus 1 - lag). The owner
    makes the sure slow steps of its knight with the smaller lone count (``_sure_steps``), then those of
    the other, which avoids every square the first may have stopped on; when that falls short of
    ``need``, the other order too, and the better count is returned. Stops once ``need`` is sure.
    """
    spare = _SQ[x][2] + _SQ[y][2] + 2 - lag
    if _SQ[a][2] > _SQ[b][2]:
        a, b = b, a
    best = 0
    for first, second in ((a, b), (b, a)):
        done, stops = _sure_steps(routes, first, frozenset((second,)), x, y, 0, lag, spare, need)
        if done < need:
            more, _ = _sure_steps(routes, second, stops, x, y, done, lag, spare, need - done)
            done += more
        if done >= need:
            return done
        if done > best:
            best = done
    return best


def _key(a: int, b: int, x: int, y: int) -> tuple[int, int, int, int]:
    if a > b:
        a, b = b, a
    if x > y:
        x, y = y, x
    return (a, b, x, y)


def _transposed(a: int, b: int, x: int, y: int) -> tuple[int, int, int, int]:
    """The key of the position mirrored in the diagonal (row and column exchanged): the four steps,
    the board and the dead squares are all symmetric in it, so it has the same value."""
    ta, tb = ((a & _MASK) << _SHIFT) | (a >> _SHIFT), ((b & _MASK) << _SHIFT) | (b >> _SHIFT)
    tx, ty = ((x & _MASK) << _SHIFT) | (x >> _SHIFT), ((y & _MASK) << _SHIFT) | (y >> _SHIFT)
    if ta > tb:
        ta, tb = tb, ta
    if tx > ty:
        tx, ty = ty, tx
    return (ta, tb, tx, ty)


class Solver:
    """Exact solver with a table of solved positions kept between calls.

    ``max_entries`` bounds the table: it is cleared when a call starts with the table larger than that
    (``clear()`` empties it at any time). ``nodes`` counts positions searched since creation.
    """

    def __init__(self, max_entries: int = 5_000_000, corner: Table | None | bool = True) -> None:
        self.max_entries = max_entries
        self._auto_corner = corner is True
        """Use the built table of the table directory, looked up at each call (``corner=True``)."""
        self._corner: Table | None = None
        """The corner table (engines/kings_horses_table.py) in use, if any: positions with all four
        knights inside it are read, not searched. ``corner=False`` searches everything."""
        self._number: dict[int, int] = _Numbers({})
        """Square code -> its number in the corner table, or -1 outside it."""
        if isinstance(corner, Table):
            self._use(corner)
        self.corner_reads = 0
        """Positions answered by the corner table (not counted in ``nodes``)."""
        self._table: dict[tuple[int, int, int, int], bool] = {}
        self._solo_table: dict[tuple[int, int], int] = {}
        self._routes: _Routes = {}
        self.nodes = 0

    def clear(self) -> None:
        """Forget every solved position."""
        self._table.clear()
        self._solo_table.clear()
        self._routes.clear()

    def __len__(self) -> int:
        return len(self._table)

    # -- public API -------------------------------------------------------------------------------

    def mover_wins(self, mover: str, black: Pair, white: Pair) -> bool:
        """True when the player to move (``'BLACK'`` or ``'WHITE'``) wins with perfect play."""
        own, opp = _split(mover, black, white)
        self._prepare(own + opp)
        return self._wins(*_key(own[0], own[1], opp[0], opp[1]))

    def best_move(self, mover: str, black: Pair, white: Pair) -> tuple[Pair, Pair] | None:
        """The (black, white) position after the mover's best move; None when it has no legal move.

        A winning move when there is one; otherwise a move that keeps the mover's count and cuts the
        opponent's most (the loser's moves are not searched for the longest resistance).
        """
        own, opp = _split(mover, black, white)
        self._prepare(own + opp)
        children = _children(own[0], own[1], opp[0], opp[1])
        if not children:
            return None
        winning = None
        for slot, code in children:
            na, nb = (code, own[1]) if slot == 0 else (own[0], code)
            if not self._wins(*_key(opp[0], opp[1], na, nb)):
                winning = (slot, code)
                break
        slot, code = winning if winning is not None else children[0]
        moved = [list(own), list(opp)]
        moved[0][slot] = code
        new_own = (_dec(moved[0][0]), _dec(moved[0][1]))
        new_opp = (_dec(opp[0]), _dec(opp[1]))
        return (new_own, new_opp) if mover == "BLACK" else (new_opp, new_own)

    # -- search -----------------------------------------------------------------------------------

    def _use(self, corner: Table | None) -> None:
        self._corner = corner
        self._number = _Numbers(corner.number if corner is not None else {})

    def _prepare(self, codes: tuple[int, ...]) -> None:
        if len(self._table) > self.max_entries:
            self.clear()
        if self._auto_corner:
            corner = default_table()
            if corner is not self._corner:
                self._use(corner)
        depth = min(sum(_SQ[c][2] for c in codes) + 200, _MAX_DEPTH)
        if sys.getrecursionlimit() < depth:
            sys.setrecursionlimit(depth)

    def _solo(self, a: int, b: int) -> int:
        """The most moves the knights on a, b make with no opponent on the board (exact, memoised)."""
        if a > b:
            a, b = b, a
        key = (a, b)
        table = self._solo_table
        found = table.get(key)
        if found is not None:
            return found
        ia, ib = _SQ[a], _SQ[b]
        top = _upper(a, b, a, b)
        if top == 0 or not _meet(a, ia[2], b, ib[2]):
            best = top
        else:
            best = 0
            for p, other, info in ((a, b, ia), (b, a, ib)):
                for q in info[8]:
                    if q == other:
                        continue
                    got = 1 + self._solo(q, other)
                    if got > best:
                        best = got
                        if best >= top:
                            break
                if best >= top:
                    break
        table[key] = best
        return best

    def _race(self, a: int, b: int, x: int, y: int, up: int, uo: int) -> bool | None:
        """Whether the mover wins when no knight can ever get in an opponent's way; None if one might.

        The mover makes at most ``min(up, uo + 1)`` moves in the game and the opponent ``min(uo, up)``
        (``up``, ``uo`` their upper bounds), so no knight moves more often than that, nor more than its
        lone count. If no mover's knight and opponent's knight can stand on one square within those
        horizons (``_meet``), every line either side plays alone is playable within the game, and the
        mover wins iff its best alone (``_solo``), capped by ``up``, exceeds the opponent's, capped by ``uo``.
        """
        hm = up if up <= uo else uo + 1
        ho = uo if uo <= up else up
        ca, cb, cx, cy = _SQ[a][2], _SQ[b][2], _SQ[x][2], _SQ[y][2]
        ha, hb = min(ca, hm), min(cb, hm)
        hx, hy = min(cx, ho), min(cy, ho)
        if not (_meet(a, ha, x, hx) or _meet(a, ha, y, hy) or _meet(b, hb, x, hx) or _meet(b, hb, y, hy)):
            # No knight can ever stand where an opponent's wants to go: a pure race.
            return min(self._solo(a, b), up) > min(self._solo(x, y), uo)
        return None

    def _wins(self, a: int, b: int, x: int, y: int) -> bool:
        """Does the mover, on a < b against x < y, win?"""
        table = self._table
        key = (a, b, x, y)
        found = table.get(key)
        if found is None:
            found = table.get(_transposed(a, b, x, y))
            if found is None and self._corner is not None:
                found = self._read(a, b, x, y)
        if found is not None:
            return found
        self.nodes += 1
        result = self._decide(a, b, x, y)
        table[key] = result
        return result

    def _read(self, a: int, b: int, x: int, y: int) -> bool | None:
        """The corner table's value when all four knights are inside it, else None."""
        number = self._number
        na, nb, nx, ny = number[a], number[b], number[x], number[y]
        if na < 0 or nb < 0 or nx < 0 or ny < 0:
            return None
        assert self._corner is not None
        self.corner_reads += 1
        return self._corner.bit(pair_index(na, nb), pair_index(nx, ny))

    def _decide(self, a: int, b: int, x: int, y: int) -> bool:
        # The children first: those already solved (or inside the corner table) may settle the
        # position before any bound is computed, which near the table is most of the time.
        children = _children(a, b, x, y)
        if not children:
            return False
        table = self._table
        corner = self._corner
        unknown = []
        for slot, code in children:
            key = _key(x, y, code, b) if slot == 0 else _key(x, y, a, code)
            found = table.get(key)
            if found is None and corner is not None:
                found = self._read(*key)
                if found is not None:
                    table[key] = found
            if found is False:
                return True
            if found is None:
                unknown.append(key)
        if not unknown:
            return False
        up = _upper(a, b, x, y)
        uo = _upper(x, y, a, b)
        race = self._race(a, b, x, y, up, uo)
        if race is not None:
            return race
        if up > uo and _guaranteed(self._routes, a, b, x, y, 0, uo + 1) > uo:
            return True
        for key in unknown:
            if not self._wins(*key):
                return True
        return False


class _Numbers(dict[int, int]):
    """Square code -> number in the corner table (-1 outside), filled on first use."""

    def __init__(self, numbers: dict[Square, int]) -> None:
        super().__init__()
        self._numbers = numbers

    def __missing__(self, code: int) -> int:
        number = self[code] = self._numbers.get(_dec(code), -1)
        return number


def _children(a: int, b: int, x: int, y: int) -> list[tuple[int, int]]:
    """The mover's legal moves as (slot, new square), slow steps first."""
    out = []
    ia, ib = _SQ[a], _SQ[b]
    for q in ia[4]:
        if q != b and q != x and q != y:
            out.append((0, q))
    for q in ib[4]:
        if q != a and q != x and q != y:
            out.append((1, q))
    for q in ia[5]:
        if q != b and q != x and q != y:
            out.append((0, q))
    for q in ib[5]:
        if q != a and q != x and q != y:
            out.append((1, q))
    return out


def _split(mover: str, black: Pair, white: Pair) -> tuple[tuple[int, int], tuple[int, int]]:
    if mover not in PLAYERS:
        raise ValueError(f"player must be BLACK or WHITE, not {mover!r}")
    squares = [*black, *white]
    if len(black) != 2 or len(white) != 2:
        raise ValueError("each player has exactly two knights")
    for sq in squares:
        if len(sq) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in sq):
            raise ValueError(f"square {sq!r} is not a pair of positive integers")
    if len(set(map(tuple, squares))) != 4:
        raise ValueError("two knights stand on one square")
    codes = [_enc(sq) for sq in squares]
    own, opp = (codes[:2], codes[2:]) if mover == "BLACK" else (codes[2:], codes[:2])
    return (own[0], own[1]), (opp[0], opp[1])


_DEFAULT = Solver()


def mover_wins(mover: str, black: Pair, white: Pair) -> bool:
    """True when the player to move wins with perfect play (shared solver)."""
    return _DEFAULT.mover_wins(mover, black, white)


def best_move(mover: str, black: Pair, white: Pair) -> tuple[Pair, Pair] | None:
    """The (black, white) position after the mover's best move, or None (shared solver)."""
    return _DEFAULT.best_move(mover, black, white)


def winner(mover: str, black: Pair, white: Pair) -> str:
    """'BLACK' or 'WHITE': who wins with perfect play."""
    other = "WHITE" if mover == "BLACK" else "BLACK"
    return mover if mover_wins(mover, black, white) else other


def legal_moves(mover: str, black: Pair, white: Pair) -> list[tuple[Pair, Pair]]:
    """Every (black, white) position the mover can reach in one move; the moved knight keeps its slot."""
    _split(mover, black, white)
    own, opp = (black, white) if mover == "BLACK" else (white, black)
    taken = {*black, *white}
    result = []
    for slot in (0, 1):
        row, col = own[slot]
        for dr, dc in _STEPS:
            q = (row + dr, col + dc)
            if q[0] >= 1 and q[1] >= 1 and q not in taken:
                new_own = (q, own[1]) if slot == 0 else (own[0], q)
                result.append((new_own, opp) if mover == "BLACK" else (opp, new_own))
    return result


# -- command line ---------------------------------------------------------------------------------

USAGE = "usage: bestmove.py [--move] PLAYER b1r b1c b2r b2c w1r w1c w2r w2c"
HELP = f"""{USAGE}

Who wins All The King's Horses with perfect play, the player PLAYER (WHITE or BLACK) to move, black
knights on (b1r, b1c) and (b2r, b2c), white knights on (w1r, w1c) and (w2r, w2c): prints WHITE WILL WIN
or BLACK WILL WIN. With --move, first the position after the best move, in the same form with the
other player to move (nothing when PLAYER has no legal move).

Exact for every position. Positions near the corner are read from a table when one is built
(scripts/build_tablebase.py --game kings-horses, in $BETSY_TABLES or ~/.cache/betsy-arena);
without it they are searched, with the same answers, more slowly.
"""


class _UsageError(Exception):
    pass


def _parse(argv: Sequence[str]) -> tuple[bool, str, Pair, Pair]:
    args = list(argv)
    want_move = False
    if args and args[0] == "--move":
        want_move = True
        args = args[1:]
    for arg in args:
        if arg.startswith("--"):
            raise _UsageError(f"unknown option {arg!r}: the only option is --move, given before PLAYER")
    if len(args) != 9:
        raise _UsageError(f"expected PLAYER and 8 coordinates, got {len(args)} argument(s): {USAGE.removeprefix('usage: ')}")
    player = args[0]
    if player not in PLAYERS:
        raise _UsageError(f"PLAYER must be WHITE or BLACK (upper case), not {player!r}")
    values = []
    names = ("b1r", "b1c", "b2r", "b2c", "w1r", "w1c", "w2r", "w2c")
    for name, text in zip(names, args[1:]):
        if not (text.isascii() and text.isdigit()) or int(text) < 1:
            raise _UsageError(f"{name} must be a positive integer (rows and columns count from 1), not {text!r}")
        values.append(int(text))
    squares = [(values[i], values[i + 1]) for i in range(0, 8, 2)]
    if len(set(squares)) != 4:
        raise _UsageError("two knights stand on one square: give four different squares")
    return want_move, player, (squares[0], squares[1]), (squares[2], squares[3])


def _format(player: str, black: Pair, white: Pair) -> str:
    return " ".join([player, *(str(v) for sq in (*black, *white) for v in sq)])


def main(argv: list[str] | None = None) -> int:
    """``bestmove.py [--move] PLAYER b1r b1c b2r b2c w1r w1c w2r w2c``: print who wins."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        sys.stdout.write(HELP)
        return 0
    try:
        want_move, player, black, white = _parse(args)
    except _UsageError as error:
        sys.stderr.write(f"bestmove: error: {error}\n")
        return 2
    solver = Solver()
    other = "WHITE" if player == "BLACK" else "BLACK"
    try:
        moved = solver.best_move(player, black, white) if want_move else None
        verdict = player if solver.mover_wins(player, black, white) else other
    except (RecursionError, MemoryError):
        sys.stderr.write("bestmove: error: the position is too far from the corner to search here: use smaller coordinates\n")
        return 1
    if moved is not None:
        sys.stdout.write(_format(other, *moved) + "\n")
    sys.stdout.write(f"{verdict} WILL WIN\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
