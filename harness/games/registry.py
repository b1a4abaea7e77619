"""The one table of games: a new game is its own package under ``harness.games`` (rules, its
``Game`` subclass, its validation suites) and one line here.

A game is named in configs (``game: connect4``) and on the command line (``--game connect4``).
Everything above the rules reaches a game through the ``Game`` looked up here (harness.games.game).
"""

from __future__ import annotations

from typing import TypeAlias, cast

from harness.games import game as _game
from harness.games.betsy.game import Betsy
from harness.games.connect4.game import ConnectFour
from harness.games.errors import PositionError
from harness.games.game import PLAYERS, Position, RuleOptions, move_list
from harness.games.kings_horses.game import KingsHorses

__all__ = ["DEFAULT_GAME", "GAMES", "GAME_NAMES", "PLAYERS", "Game", "Position", "RuleOptions", "game_of",
           "get_game", "move_list"]

Game: TypeAlias = _game.Game[Position, int]
"""A game of the table: harness.games.game.Game with its own position type forgotten (a game is only
ever handed positions it made itself: ``initial``, ``position``, ``random_start``)."""


def _entry(game: Betsy | ConnectFour | KingsHorses) -> Game:
    return cast(Game, game)


GAMES: dict[str, Game] = {game.name: _entry(game) for game in (Betsy(), ConnectFour(), KingsHorses())}
"""Every game, by name."""
GAME_NAMES: tuple[str, ...] = tuple(GAMES)
DEFAULT_GAME = "betsy"
"""The game of a config or command that names none."""


def get_game(name: str) -> Game:
    """The game called ``name``; PositionError listing the games otherwise."""
    game = GAMES.get(name)
    if game is None:
        raise PositionError(f"unknown game {name!r}: the games are {', '.join(GAMES)}")
    return game


def game_of(position: object) -> Game:
    """The game a position belongs to (the package its class is defined in)."""
    package = type(position).__module__.rpartition(".")[0]
    for game in GAMES.values():
        if type(game).__module__.rpartition(".")[0] == package:
            return game
    raise TypeError(f"not a game position: {position!r}")
