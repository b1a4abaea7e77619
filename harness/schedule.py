"""Tournament schedules: pairings x board sizes x rounds x colours, with openings and stable ids."""

from __future__ import annotations

from dataclasses import dataclass

from harness.rng import Rng
from harness.config import Opening, TournamentConfig
from harness.games.betsy import Position, initial_position


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a tournament, fully determined by the config."""

    game_id: str
    """Stable id, e.g. ``n5:r1:random:greedy:a`` (``a``: first of the pairing plays x; ``b``: swapped).

    Engine names cannot contain ``:``, so ids are unique whatever the names."""
    pair_key: str
    """Shared by the two games of one opening with colours swapped."""
    n: int
    round: int
    """1-based round."""
    x: str
    o: str
    start_board: str
    start_player: str


def pairings(names: list[str], fmt: str) -> list[tuple[str, str]]:
    """Round-robin: every pair once, in config order. Gauntlet: the first engine against each other."""
    if fmt == "gauntlet":
        return [(names[0], other) for other in names[1:]]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def random_opening(n: int, plies: int, seed: int, round_index: int) -> Opening:
    """``plies`` random legal moves from the empty board that do not end the game.

    Deterministic in (n, plies, seed, round): every pairing plays the same opening in a round.
    """
    rng = Rng((seed * 1_000_003 + n) * 1_000_003 + round_index)
    position = initial_position(n)
    for _ in range(plies):
        moves = position.legal_moves()
        quiet = []
        for move in moves:
            position.push(move)
            if position.winner() is None:
                quiet.append(move)
            position.pop()
        position.push(rng.choice(quiet or moves))
        if position.winner() is not None:  # only when every move ends the game: stop here
            position.pop()
            break
    return Opening(position.board(), position.player)


def opening_for(config: TournamentConfig, n: int, round_index: int) -> Opening:
    if config.opening_positions:
        suite = config.opening_positions[n]
        return suite[round_index % len(suite)]
    return random_opening(n, config.openings_plies, config.openings_seed, round_index)


def schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """Every game of the tournament, round by round, so standings fill in evenly."""
    names = [engine.name for engine in config.engines]
    games: list[ScheduledGame] = []
    for round_index in range(config.rounds):
        for n in config.n:
            opening = opening_for(config, n, round_index)
            for first, second in pairings(names, config.format):
                pair_key = f"n{n}:r{round_index + 1}:{first}:{second}"
                for suffix, x, o in (("a", first, second), ("b", second, first)):
                    games.append(ScheduledGame(
                        f"{pair_key}:{suffix}", pair_key, n, round_index + 1, x, o,
                        opening.board, opening.player,
                    ))
    return games


def start_position(game: ScheduledGame, win_priority: str) -> Position:
    return Position.from_text(str(game.n), game.start_player, game.start_board, win_priority)  # type: ignore[arg-type]
