"""Exact game values for small boards by retrograde analysis (n = 3 by default).

A column of height h with pebbles p_0 (bottom) .. p_{h-1} is the code ``(1 << h) | bits`` where bit
i is 1 for red (o); a board is the mixed-radix number of its column codes, and a position adds the
side to move. The table holds, for every position, its value for the side to move (1 win, -1 loss,
0 draw: neither side can force a line) and the distance in plies to the end under optimal play.

The file starts with a 96-byte text header (``HEADER_BYTES``): the format's name and version and the
rules it was solved for (n, column height, pebbles per colour, win priority). A reader refuses a file
whose header is not exactly the one it expects, or whose size is wrong (stale, foreign or cut short):
an engine then searches, as it does without a table, and ``scripts/build_tablebase.py --if-missing``
builds it again. The version is also in the file's name, so checkouts of another version never meet
it.

Building needs numpy (``scripts/build_tablebase.py``, about a minute for n = 3); reading does not:
an engine checks the header and looks up a position with one seek and read of its table file, so it
costs nothing at start-up. Tables are generated on the machine (default ``~/.cache/betsy-arena``),
never committed.
"""

from __future__ import annotations

import os
from functools import cache

from engines.tables import table_dir
from harness.games.betsy import Move, Position, geometry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO

LOSS, DRAW, WIN = -1, 0, 1
_MAX_N = 3
"""Largest board the builder handles (n = 4 would need 2^32 boards)."""
FORMAT = "betsy-arena table"
VERSION = 2
"""Version 1 had no header; bump this whenever the layout or the values' meaning changes."""
HEADER_BYTES = 96


class StaleTable(ValueError):
    """A table file that is not the one this reader expects: another version, other rules, or cut short."""


@cache
def header(n: int, win_priority: str) -> bytes:
    """The exact header of the table for ``n`` and ``win_priority``: one text line, padded with spaces."""
    g = geometry(n)
    line = f"{FORMAT} v{VERSION}: betsy n={n} height={g.height} supply={g.supply} priority={win_priority}"
    return line.encode().ljust(HEADER_BYTES - 1) + b"\n"


@cache
def table_bytes(n: int) -> int:
    """Size of a table file for ``n`` columns: the header, then two bytes per (board code, side to move)."""
    return HEADER_BYTES + 4 * (1 << (geometry(n).height + 1)) ** n


def table_name(n: int, win_priority: str = "mover") -> str:
    """The file name of a table: its version in it too, for checkouts whose readers check no header."""
    return f"betsy{n}-{win_priority}-v{VERSION}.tb"


def table_path(n: int, win_priority: str = "mover") -> str:
    return os.path.join(table_dir(), table_name(n, win_priority))


def table_problem(path: str, n: int, win_priority: str = "mover") -> str | None:
    """Why the file at ``path`` is not a usable table for ``n`` and ``win_priority`` (None if it is)."""
    try:
        with open(path, "rb") as file:
            return _problem(file, path, n, win_priority)
    except OSError as error:
        return f"{path}: cannot be read ({error.strerror})"


def _problem(file: BinaryIO, path: str, n: int, win_priority: str) -> str | None:
    found = file.read(HEADER_BYTES)
    expected = header(n, win_priority)
    if found != expected:
        line = found.split(b"\n", 1)[0]
        text = line.decode("latin-1")
        shown = text.rstrip() if line.isascii() and text.isprintable() else text[:16]  # binary: its start
        return f"{path}: header {shown!r} is not {expected.decode().rstrip()!r}; rebuild it"
    size = os.fstat(file.fileno()).st_size
    if size != table_bytes(n):
        return f"{path}: {size} bytes, not {table_bytes(n)}; rebuild it"
    return None


def position_index(position: Position) -> int:
    """Index of a position in its table: column codes in mixed radix, then the side to move."""
    g = position.geometry
    radix = 1 << (g.height + 1)
    o = position.masks[1]
    index = 0
    for column in range(position.n):
        h = position.heights[column]
        bits = (o >> (column * g.height)) & ((1 << h) - 1)
        index = index * radix + ((1 << h) | bits)
    return index * 2 + position.turn


class Tablebase:
    """Read access to a built table: after the header, two bytes per position (value + 1, distance)."""

    def __init__(self, path: str, n: int = 3, win_priority: str = "mover") -> None:
        """Open the table at ``path`` for ``n`` and ``win_priority``; raises StaleTable (and closes
        it) when its header or size is not that table's."""
        self.path = path
        self._file = open(path, "rb")
        problem = _problem(self._file, path, n, win_priority)
        if problem is not None:
            self._file.close()
            raise StaleTable(problem)

    @classmethod
    def open_for(cls, position: Position) -> Tablebase | None:
        """The table for this position's board size and win priority, if it has been built."""
        return cls.open_size(position.n, position.win_priority)

    @classmethod
    def open_size(cls, n: int, win_priority: str = "mover") -> Tablebase | None:
        """The table for board size ``n`` and ``win_priority``, if one is built and is that table
        (None for a missing, unreadable, stale or foreign file)."""
        try:
            return cls(table_path(n, win_priority), n, win_priority)
        except (OSError, StaleTable):
            return None

    def lookup(self, position: Position) -> tuple[int, int]:
        """(value for the side to move, distance in plies)."""
        self._file.seek(HEADER_BYTES + 2 * position_index(position))
        data = self._file.read(2)
        return data[0] - 1, data[1]

    def best_move(self, position: Position) -> tuple[Move, int, int]:
        """A move that keeps the position's value: the fastest win, the longest loss, or a drawing
        move. Returns (move, value, distance) for the side to move."""
        value, distance = self.lookup(position)
        best: tuple[int, int, Move] | None = None
        for move in position.legal_moves():
            position.push(move)
            winner = position.winner()
            if winner is not None:
                child_value, child_distance = (LOSS if winner != position.turn else WIN), 0
            else:
                child_value, child_distance = self.lookup(position)
            position.pop()
            mine = -child_value
            # Rank: win (fastest first) > draw > loss (slowest first).
            rank = (mine, -child_distance if mine == WIN else child_distance)
            if best is None or rank > best[:2]:
                best = (rank[0], rank[1], move)
        assert best is not None
        return best[2], value, distance

    def close(self) -> None:
        self._file.close()


def build(n: int = 3, win_priority: str = "mover", path: str | Path | None = None) -> str:
    """Solve every position of an ``n``-column board by retrograde analysis and write the table."""
    import numpy as np

    if not 1 <= n <= _MAX_N:
        raise ValueError(f"tablebases are built for n = 1 .. {_MAX_N}, not {n}")
    g = geometry(n)
    height, supply = g.height, g.supply
    radix = 1 << (height + 1)
    col_height = np.zeros(radix, dtype=np.int64)
    col_o = np.zeros(radix, dtype=np.int64)
    col_x = np.zeros(radix, dtype=np.int64)
    cell = np.full((radix, height), -1, dtype=np.int8)  # -1 empty, 0 x, 1 o
    valid_code = np.zeros(radix, dtype=bool)
    drop = np.full((radix, 2), -1, dtype=np.int64)
    rotate = np.full(radix, -1, dtype=np.int64)
    for code in range(1, radix):
        h = code.bit_length() - 1
        if h > height:
            continue
        bits = code & ((1 << h) - 1)
        valid_code[code] = True
        col_height[code] = h
        col_o[code] = bin(bits).count("1")
        col_x[code] = h - col_o[code]
        for i in range(h):
            cell[code, i] = bits >> i & 1
        if h < height:
            for colour in (0, 1):
                drop[code, colour] = (1 << (h + 1)) | bits | (colour << h)
        if h >= 1:
            rotate[code] = (1 << h) | (bits >> 1) | ((bits & 1) << (h - 1))

    boards = radix ** n
    index = np.arange(boards, dtype=np.int64)
    digits = [(index // radix ** (n - 1 - c)) % radix for c in range(n)]
    valid = np.ones(boards, dtype=bool)
    x_count = np.zeros(boards, dtype=np.int64)
    o_count = np.zeros(boards, dtype=np.int64)
    for d in digits:
        valid &= valid_code[d]
        x_count += col_x[d]
        o_count += col_o[d]
    valid &= (x_count <= supply) & (o_count <= supply)

    # Lines of the top n rows: heights 3 .. n + 2; the top row is height n + 2.
    def colour_at(c: int, h: int) -> np.ndarray:
        return cell[digits[c], h]

    lines: list[list[tuple[int, int]]] = []
    for r in range(n):
        lines.append([(c, height - 1 - r) for c in range(n)])
    for c in range(n):
        lines.append([(c, height - 1 - r) for r in range(n)])
    lines.append([(i, height - 1 - i) for i in range(n)])
    lines.append([(n - 1 - i, height - 1 - i) for i in range(n)])
    has_line = []
    for colour in (0, 1):
        found = np.zeros(boards, dtype=bool)
        for line in lines:
            complete = np.ones(boards, dtype=bool)
            for c, h in line:
                complete &= colour_at(c, h) == colour
            found |= complete
        has_line.append(found)

    size = boards * 2
    value = np.zeros(size, dtype=np.int8)
    distance = np.zeros(size, dtype=np.uint8)
    known = np.zeros(size, dtype=bool)
    for turn in (0, 1):
        mover = 1 - turn  # the side that made the last move
        first = 0 if win_priority == "blue" else mover
        first_line, second_line = has_line[first], has_line[1 - first]
        winner = np.where(first_line, first, np.where(second_line, 1 - first, -1))
        slot = index * 2 + turn
        over = valid & (winner >= 0)
        value[slot[over]] = np.where(winner[over] == turn, WIN, LOSS)
        known[slot[over]] = True
    known[np.repeat(~valid, 2)] = True  # invalid boards: never reached

    # Children of every (board, turn) under each move: drops of the mover's colour, rotations.
    children: list[tuple[np.ndarray, np.ndarray, int]] = []  # (child slot, legal mask, turn)
    for turn in (0, 1):
        count = x_count if turn == 0 else o_count
        for c in range(n):
            weight = radix ** (n - 1 - c)
            for kind in ("drop", "rotate"):
                new_code = drop[digits[c], turn] if kind == "drop" else rotate[digits[c]]
                legal = valid & (new_code >= 0)
                if kind == "drop":
                    legal &= count < supply
                child_board = index + (new_code - digits[c]) * weight
                child_board = np.where(legal, child_board, 0)
                children.append((child_board * 2 + (1 - turn), legal, turn))

    depth = 0
    while True:
        depth += 1
        new_win = np.zeros(size, dtype=bool)
        all_win = {0: valid.copy(), 1: valid.copy()}
        for child_slot, legal, turn in children:
            child_value = value[child_slot]
            child_known = known[child_slot]
            slot_view = new_win[turn::2]
            slot_view |= legal & child_known & (child_value == LOSS)
            all_win[turn] &= ~legal | (child_known & (child_value == WIN))
        new_loss = np.zeros(size, dtype=bool)
        new_loss[0::2] = all_win[0]
        new_loss[1::2] = all_win[1]
        new_win &= ~known
        new_loss &= ~known & ~new_win
        if not new_win.any() and not new_loss.any():
            break
        value[new_win] = WIN
        value[new_loss] = LOSS
        distance[new_win | new_loss] = min(depth, 255)
        known |= new_win | new_loss
    target = str(path) if path is not None else table_path(n, win_priority)
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    packed = np.empty(size * 2, dtype=np.uint8)
    packed[0::2] = (value + 1).astype(np.uint8)
    packed[1::2] = distance
    temporary = target + ".tmp"
    with open(temporary, "wb") as file:
        file.write(header(n, win_priority))
        packed.tofile(file)
    os.replace(temporary, target)  # a half-written table is never seen
    return target


def probe(position: Position) -> Move | None:
    """The table's value-keeping move if a table exists for this board size and priority."""
    if position.n > _MAX_N or position.winner() is not None:
        return None
    table = Tablebase.open_for(position)
    if table is None:
        return None
    try:
        return table.best_move(position)[0]
    except (OSError, IndexError):
        return None  # a damaged table: search instead
    finally:
        table.close()
