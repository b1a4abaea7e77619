"""Connect Four's validation positions: rules coverage (full columns, near-full boards),
robustness and proven tactics (the proofs: harness.games.suites)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from harness.games import connect4
from harness.games.game import PLAYERS
from harness.games.suites import (
    ANY_MOVE, ATTEMPTS, TACTIC_KINDS, Case, Colour, Suites, quiet_moves, safe_moves, slot_rng, spread, tactic,
    winning_moves,
)
from harness.rng import Rng


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
            moves = quiet_moves(position)
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
            moves = quiet_moves(position)
            if not moves:
                break
            position.push(rng.choice(moves))
            if position.legal_moves() and not winning_moves(position) and not safe_moves(position):
                return position.copy()
    return None


@lru_cache(maxsize=256)
def _connect4_tactic_case(size: str, turn: Colour, kind: str, number: int, seed: int) -> Case[connect4.Position] | None:
    width, height = connect4.parse_size(size)
    rng = slot_rng(seed, width, height, turn, TACTIC_KINDS.index(kind), number)
    for _ in range(ATTEMPTS // 20):
        # Every position of a random game (that completes no four) is a candidate.
        position = connect4.initial_position(width, height)
        while True:
            moves = quiet_moves(position)
            if not moves:
                break
            position.push(rng.choice(moves))
            if position.turn != turn or not position.legal_moves():
                continue
            found = tactic(position, kind)
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
    return spread(tuple(dict.fromkeys(sizes)), CONNECT4_TACTIC_KINDS, per_kind,
                   lambda size, turn, kind, number: _connect4_tactic_case(size, turn, kind, number, seed))


CONNECT4_PROTOCOL_MOVES = (4, 4, 5, 3, 6)
"""Connect Four's first position asked: these columns played from the empty 7x6 board (o to move)."""
FULL_COLUMN = "a disc into a column with room; never into a full column"


class ConnectFourSuites(Suites[connect4.Position]):
    example_move = 4
    fixes = {
        **Suites.fixes,
        **{f"{kind}/illegal-move": "never drop into a full column: one whose top cell holds a disc"
           for kind in ("full-column", "full-columns", "near-full")},
    }

    def proves_fix(self, key: str, position: connect4.Position, move: int, board: str | None) -> bool:
        if key.endswith("/illegal-move"):  # the move names a full column
            return 1 <= move <= position.width and position.heights[move - 1] >= position.height
        return super().proves_fix(key, position, move, board)

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
