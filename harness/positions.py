"""Deterministic position suites for validation: rules coverage, robustness and tactics.

Every generator is seeded, so a suite is the same on every run and machine; tactical answers are
computed by exhaustive search, not by an engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.rng import Rng
from harness.games.betsy import BLUE, RED, Position, geometry, initial_position


@dataclass(frozen=True)
class Case:
    """One position to ask a program about, and what a right answer must satisfy."""

    id: str
    """Stable name, e.g. ``n5-x-no-pebbles-1``."""
    position: Position
    description: str
    """What the position exercises, in words."""
    expected: frozenset[int] | None = None
    """For tactics: the moves that solve it (None: any legal move with the right board)."""


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


def winning_moves(position: Position) -> set[int]:
    """Moves that complete a line for the side to move at once."""
    mover = position.turn
    found = set()
    for move in position.legal_moves():
        position.push(move)
        if position.winner() == mover:
            found.add(move)
        position.pop()
    return found


def safe_moves(position: Position) -> set[int]:
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


def tactics_suite(sizes: tuple[int, ...], per_kind: int, seed: int = 1) -> list[Case]:
    """Win-in-one, block-a-loss and forced-win-in-three positions, with their solving moves."""
    cases: list[Case] = []
    wanted = {"win-in-one": per_kind, "block": per_kind, "win-in-three": per_kind}
    found = {kind: 0 for kind in wanted}
    attempt = 0
    while any(found[k] < wanted[k] for k in wanted) and attempt < 4000:
        attempt += 1
        n = sizes[attempt % len(sizes)]
        position = random_position(n, 6 + attempt % (3 * n), seed * 100_000 + attempt)
        if position is None:
            continue
        wins = winning_moves(position)
        if wins:
            if found["win-in-one"] < wanted["win-in-one"]:
                found["win-in-one"] += 1
                cases.append(Case(f"n{n}-win-in-one-{found['win-in-one']}", position,
                                  "the side to move can complete a line now", frozenset(wins)))
            continue
        if position.opponent_has_winning_move():
            safe = safe_moves(position)
            if safe and len(safe) < len(position.legal_moves()) and found["block"] < wanted["block"]:
                found["block"] += 1
                cases.append(Case(f"n{n}-block-{found['block']}", position,
                                  "the opponent threatens to win next move; some moves stop it",
                                  frozenset(safe)))
            continue
        if found["win-in-three"] < wanted["win-in-three"] and n <= 5:
            three = forced_wins(position, 3)
            if three:
                found["win-in-three"] += 1
                cases.append(Case(f"n{n}-win-in-three-{found['win-in-three']}", position,
                                  "the side to move wins by force in 3 plies", frozenset(three)))
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
