"""All The King's Horses as the harness sees it: every way it differs from the other games."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from harness.games.game import Game, Oracle, RuleOptions
from harness.games.kings_horses.rules import (
    PLAYERS, WORDS, Position, describe, parse_move, parse_size, race_lead, random_position, render,
)
from harness.games.kings_horses.wire import find_position_answer
from harness.games.wire import Answer

if TYPE_CHECKING:
    from harness.rng import Rng


class KingsHorses(Game[Position, int]):
    name = "kings-horses"
    title = "All The King's Horses"
    size_key = "size"
    size_metavar = "N"
    default_size = "8"
    size_help = "N, the largest coordinate of the random start positions (3 to 1000; the board has no edge down or right)"
    example_sizes = ("8", "15", "30")
    has_draws = False
    win_phrase = "leaves the opponent no move"
    notation = "1 to 4 move your first knight, 5 to 8 your second"
    numbered_rows = True
    answer_form = "BLACK WILL WIN or WHITE WILL WIN, as the only line"
    validation_seconds = 10
    own_validation = True

    def parse_size(self, text: str | int) -> str:
        return str(parse_size(str(text)))

    def initial(self, size: str, options: RuleOptions | None = None) -> Position:
        """The knights in the band's far corners (the game has no fixed start: games start from
        random positions, see ``random_start``)."""
        n = int(self.parse_size(size))
        return Position(((n, n - 2), (n - 2, n), (n, n), (n - 1, n - 1)), 0, n)

    def position(self, size: str | int, player: str, board: str, options: RuleOptions | None = None) -> Position:
        return Position.from_text(str(size), player, board)

    def random_start(self, size: str, rng: Rng) -> Position:
        """A random close race with coordinates in 1..size: the side to move has a move and its
        knights' lone-move count leads by -1 to 2. Far from that the count decides the game and
        any program converts it; close races are where play tells programs apart."""
        while True:
            position = random_position(int(self.parse_size(size)), rng)
            if -1 <= race_lead(position) <= 2:
                return position

    def parse_move(self, text: str) -> int:
        return parse_move(text)

    def sizes_phrase(self, sizes: Sequence[str]) -> str:
        return "starts in " + ", ".join(f"1..{size}" for size in sizes)

    def describe_move(self, move: int) -> str:
        return describe(move)

    def move_kind(self, move: int) -> str:
        return "knight"

    def size_phrase(self, size: str) -> str:
        return f"coordinates 1..{size}"

    def position_phrase(self, size: str, player: str) -> str:
        return f"{player} ({WORDS[PLAYERS.index(player)]}) to move"  # the board has no size; the sides have names

    def end_reason(self, position: Position) -> str | None:
        return None  # the side to move without a move has lost: winner() says so

    def render(self, position: Position, last_move: int | None = None) -> str:
        return render(position, last_move)

    def columns(self, position: Position) -> int:
        return _frame(position)[1]

    def picture(self, position: Position, start: Position) -> str:
        return position.grid(*_frame(start))  # knights move down and right too: the game's whole reach

    def move_column(self, move: int) -> int:
        return 0

    def argv(self, position: Position, seconds: str) -> list[str]:
        """``--move PLAYER b1r b1c b2r b2c w1r w1c w2r w2c``: the seed's command line (no time argument;
        the referee's clock still runs)."""
        return ["--move", *position.words()]

    def find_answer(self, position: Position, lines: Sequence[str]) -> Answer | None:
        return find_position_answer(position, lines)

    def evaluate(self, position: Position) -> int:
        from engines.kings_horses_play import evaluate

        return int(evaluate(position))

    def start_oracle(self) -> Callable[[Position], str | None]:
        """The exact solver, within its time budget per position (harness.games.kings_horses.oracle)."""
        from harness.games.kings_horses.oracle import Oracle

        oracle = Oracle()

        def winner(position: Position) -> str | None:
            word = oracle.winner(position)
            return None if word is None else PLAYERS[WORDS.index(word)]

        return winner

    def oracle(self, size: str, options: RuleOptions | None = None) -> Oracle[Position]:
        """The exact solver (harness.games.kings_horses.oracle), which settles any game's positions."""
        from harness.games.kings_horses.oracle import ExactOracle

        return ExactOracle()


def _frame(start: Position) -> tuple[int, int]:
    """(rows, columns) of every board of a game from ``start``: the text's size for a game's position
    (``extent``, its band's whole reach), and every square its knights can reach in any case."""
    extent, reach = start.extent(), start.reach()
    return max(extent[0], reach[0]), max(extent[1], reach[1])
