"""Exact values of All The King's Horses near the corner, by retrograde analysis.

Every move lowers a knight's ``row + col``, so the squares with ``row + col <= S`` (a triangle on the
corner) are closed under moves: a position with all four knights inside never leaves it. The table
holds, for every such position, whether the player to move wins. The value depends only on whose
knights are whose, not on their colours, so one bit per (mover's pair, opponent's pair) suffices.
Sizes and build times on a 2-core machine (numpy):

| S  | squares | pairs  | file   | build  | peak memory |
|----|---------|--------|--------|--------|-------------|
| 16 | 120     | 7,140  | 6.4 MB | 3 s    | 0.1 GB      |
| 20 | 190     | 17,955 | 40 MB  | 14 s   | 0.4 GB      |
| 24 | 276     | 37,950 | 180 MB | 62 s   | 1.5 GB      |

S = 16 already holds every position with coordinates in 1..8; the default, 24, which the project's
set-up builds once per machine, also ends most of the search of 1..15 positions
(docs/kings_horses.md has the timings with 20 and 24).

Layout: squares inside the triangle are numbered in order of ``(row, col)``; a pair of squares
``i < j`` is number ``j * (j - 1) / 2 + i``; the bit of (mover's pair m, opponent's pair o) is bit
``m * P + o`` of the body (P pairs, most significant bit of each byte first). The file starts with a
16-byte header: ``KHTB``, the format version, S, and P. A reader refuses a file whose header is not
this format's current version, whose S is not the one its name gives, whose P is not S's, or whose
size does not match (the solver then searches, and ``build_tablebase.py --if-missing`` builds it again).

Building needs numpy (``scripts/build_tablebase.py --game kings-horses [--sum S]``); reading does not: the
solver maps the file and reads one bit per position. Positions are solved layer by layer in order of
the total ``row + col`` of the four knights, so every child is solved before its parent. Tables are
generated on the machine (``$BETSY_TABLES`` or ``~/.cache/betsy-arena``), never committed.
"""

from __future__ import annotations

import mmap
import os
import struct

from engines.tables import table_dir

MAGIC = b"KHTB"
VERSION = 1
HEADER = struct.Struct("<4sIII")
DEFAULT_SUM = 24
"""The triangle the builder covers by default: row + col <= 24."""
MOVES = ((-2, -1), (-1, -2), (-2, 1), (1, -2))


def table_path(limit: int = DEFAULT_SUM) -> str:
    return os.path.join(table_dir(), f"kings-horses-{limit}.tb")


def squares(limit: int) -> list[tuple[int, int]]:
    """The triangle's squares, numbered in this order."""
    return [(row, col) for row in range(1, limit) for col in range(1, limit + 1 - row)]


def pair_index(i: int, j: int) -> int:
    """Number of the unordered pair of distinct square numbers i, j."""
    if i > j:
        i, j = j, i
    return j * (j - 1) // 2 + i


class Table:
    """Read access to a built table (mapped, not read: opening costs nothing)."""

    def __init__(self, path: str, limit: int | None = None) -> None:
        """Open the table at ``path`` (for the triangle ``row + col <= limit``, when given); raises
        ValueError for a file of another format or version, of another triangle, or cut short."""
        with open(path, "rb") as handle:
            head = handle.read(HEADER.size)
            if len(head) < HEADER.size:
                raise ValueError(f"{path}: not a kings-horses table (too short)")
            magic, version, built, pairs = HEADER.unpack(head)
            if magic != MAGIC or version != VERSION:
                raise ValueError(f"{path}: not a kings-horses table of version {VERSION}; rebuild it")
            if limit is not None and built != limit:
                raise ValueError(f"{path}: a table of row + col <= {built}, not {limit}; rebuild it")
            if built < 4 or pairs != pair_count(built):
                raise ValueError(f"{path}: {pairs} pairs for row + col <= {built}, which has "
                                 f"{pair_count(built) if built >= 4 else 0}; rebuild it")
            limit = built
            size = HEADER.size + (pairs * pairs + 7) // 8
            if os.fstat(handle.fileno()).st_size != size:
                raise ValueError(f"{path}: truncated ({size} bytes expected); rebuild it")
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        self.limit: int = limit
        """S: the table covers the positions with every knight on row + col <= S."""
        self.pairs = pairs
        self.number = {square: n for n, square in enumerate(squares(limit))}
        """Square -> its number in the triangle."""

    def mover_wins(self, own: tuple[tuple[int, int], tuple[int, int]],
                   opp: tuple[tuple[int, int], tuple[int, int]]) -> bool | None:
        """Whether the player with knights ``own`` to move wins against ``opp``; None outside the table."""
        number = self.number
        try:
            a, b, x, y = number[own[0]], number[own[1]], number[opp[0]], number[opp[1]]
        except KeyError:
            return None
        return self.bit(pair_index(a, b), pair_index(x, y))

    def bit(self, mover_pair: int, opponent_pair: int) -> bool:
        index = mover_pair * self.pairs + opponent_pair
        return bool(self._map[HEADER.size + (index >> 3)] >> (7 - (index & 7)) & 1)


_OPENED: dict[str, Table | None] = {}


def default_table() -> Table | None:
    """The largest readable table built in the table directory, or None if there is none."""
    directory = table_dir()
    if directory not in _OPENED:
        table = None
        for limit in _built_limits(directory):
            try:
                table = Table(table_path(limit), limit)
            except (OSError, ValueError):
                continue
            break
        _OPENED[directory] = table
    return _OPENED[directory]


def _built_limits(directory: str) -> list[int]:
    """S of every table file in ``directory``, largest first."""
    found = []
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    for name in names:
        if name.startswith("kings-horses-") and name.endswith(".tb"):
            digits = name[len("kings-horses-"):-len(".tb")]
            if digits.isdigit():
                found.append(int(digits))
    return sorted(found, reverse=True)


def pair_count(limit: int) -> int:
    """Number of unordered pairs of distinct squares in the triangle ``row + col <= limit``."""
    count = limit * (limit - 1) // 2  # row r holds limit - r squares, for r = 1 .. limit - 1
    return count * (count - 1) // 2


def build_memory(limit: int) -> int:
    """About the most memory (bytes) ``build(limit)`` takes: a byte per position while it solves."""
    pairs = pair_count(limit)
    return pairs * pairs * 11 // 10 + (100 << 20)


def build(limit: int = DEFAULT_SUM, path: str | None = None) -> str:
    """Solve every position inside the triangle ``row + col <= limit`` and write the table; returns its path."""
    import numpy as np

    if limit < 4:
        raise ValueError(f"the triangle needs row + col <= 4 at least to hold four knights, got {limit}")
    cells = squares(limit)
    number = {square: n for n, square in enumerate(cells)}
    count = len(cells)
    pairs = pair_count(limit)
    first = np.empty(pairs, dtype=np.int64)
    second = np.empty(pairs, dtype=np.int64)
    for j in range(count):
        start = j * (j - 1) // 2
        first[start:start + j] = np.arange(j)
        second[start:start + j] = j
    square_sum = np.array([r + c for r, c in cells], dtype=np.int64)
    # For each pair and each of its 8 moves (knight 0 or 1, one of four steps): the pair after the
    # move and the square the knight lands on, or -1 when the step leaves the board or hits the
    # other knight of the pair.
    step_to = np.full((count, len(MOVES)), -1, dtype=np.int64)
    for n, (r, c) in enumerate(cells):
        for k, (dr, dc) in enumerate(MOVES):
            target = (r + dr, c + dc)
            if target[0] >= 1 and target[1] >= 1:
                step_to[n, k] = number[target]
    tri = lambda i, j: np.where(i > j, i * (i - 1) // 2 + j, j * (j - 1) // 2 + i)  # noqa: E731
    child_pair = np.full((pairs, 2 * len(MOVES)), -1, dtype=np.int64)
    landing = np.full((pairs, 2 * len(MOVES)), -1, dtype=np.int64)
    for knight, (mover, other) in enumerate(((first, second), (second, first))):
        for k in range(len(MOVES)):
            dest = step_to[mover, k]
            ok = (dest >= 0) & (dest != other)
            column = knight * len(MOVES) + k
            landing[ok, column] = dest[ok]
            child_pair[ok, column] = tri(dest[ok], other[ok])
    # Solve in an order of the pairs sorted by their total row + col, so that the pairs of one total
    # are a contiguous range: each block of the layer is then a slice, read and written whole.
    pair_sum = square_sum[first] + square_sum[second]
    order = np.argsort(pair_sum, kind="stable")
    rank = np.empty(pairs, dtype=np.int64)
    rank[order] = np.arange(pairs)
    first, second, pair_sum = first[order], second[order], pair_sum[order]
    landing = landing[order]
    child_pair = np.where(child_pair >= 0, rank[np.maximum(child_pair, 0)], -1)[order]
    sums = [int(v) for v in np.unique(pair_sum)]
    span = {v: (int(np.searchsorted(pair_sum, v)), int(np.searchsorted(pair_sum, v, side="right"))) for v in sums}
    wins = np.zeros((pairs, pairs), dtype=bool)
    """wins[m, o]: the player with pair m (sorted order) to move beats pair o."""
    for total in range(2 * sums[0], 2 * sums[-1] + 1):
        for sm in sums:
            so = total - sm
            if so not in span:
                continue
            (m_lo, m_hi), (o_lo, o_hi) = span[sm], span[so]
            o1, o2 = first[o_lo:o_hi], second[o_lo:o_hi]
            answers = wins[o_lo:o_hi]  # the opponents to move, against any pair of ours
            # Computed as (opponent, mover): the opponents' rows of ``wins`` are read whole.
            result = np.zeros((o_hi - o_lo, m_hi - m_lo), dtype=bool)
            for column in range(2 * len(MOVES)):
                child = child_pair[m_lo:m_hi, column]
                live = child >= 0
                if not live.any():
                    continue
                dest = np.where(live, landing[m_lo:m_hi, column], -1)
                # The child is the opponent to move against our moved pair: we win if it loses. A
                # move that does not exist lands on -1, which no knight holds: masked by ``live``.
                move = (o1[:, None] != dest[None, :]) & (o2[:, None] != dest[None, :]) & live[None, :]
                result |= move & ~np.take(answers, np.where(live, child, 0), axis=1)
            wins[m_lo:m_hi, o_lo:o_hi] = result.T
    target = path or table_path(limit)
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    partial = target + ".partial"
    with open(partial, "wb") as handle:
        handle.write(HEADER.pack(MAGIC, VERSION, limit, pairs))
        # Back to the file's order (pairs numbered by their squares), a few rows at a time.
        step = 8 * max(1, (1 << 24) // (8 * pairs))  # whole bytes per chunk, about 16 MB of it
        for lo in range(0, pairs, step):
            chunk = wins[rank[lo:lo + step]][:, rank]
            handle.write(np.packbits(chunk.reshape(-1)).tobytes())
    os.replace(partial, target)
    _OPENED.clear()
    return target
