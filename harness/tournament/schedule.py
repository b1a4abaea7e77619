"""Tournament schedules: pairings x board sizes x rounds x colours, with openings and stable ids."""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any

from harness.tournament.config import Opening, TournamentConfig
from harness.errors import UsageError
from harness.games.registry import Game
from harness.rng import Rng
from harness.match.settings import GameSettings


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a tournament, fully determined by the config."""

    game_id: str
    """Stable id, e.g. ``n5:r1:random:greedy:a`` (Betsy) or ``8x8:r1:random:greedy:a`` (Connect
    Four): ``a``, the first of the pairing plays x; ``b``, swapped.

    Engine names cannot contain ``:``, so ids are unique whatever the names."""
    pair_key: str
    """Shared by the two games of one opening with colours swapped."""
    size: str
    """Board size as on the wire."""
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


def random_opening(rules: Game, size: str, plies: int, seed: int, round_index: int) -> Opening:
    """``plies`` random legal moves from the empty board of ``size`` (as ``rules.parse_size`` wrote
    it) that do not end the game (a game without a fixed start, All The King's Horses, draws a whole
    random position instead).

    Deterministic in (game, size, plies, seed, round): every pairing plays the same opening in a round.
    """
    rng = Rng((seed * 1_000_003 + rules.size_seed(size)) * 1_000_003 + round_index)
    start = rules.random_start(size, rng)
    if start is not None:  # a game without a fixed start draws its positions whole (the plies are not used)
        return Opening(start.board(), start.player)
    position = rules.initial(size)
    for _ in range(plies):
        moves = position.legal_moves()
        if not moves:
            break
        quiet = []
        for move in moves:
            position.push(move)
            if position.winner() is None and rules.end_reason(position) is None:
                quiet.append(move)
            position.pop()
        if not quiet:  # every move ends the game: stop here
            break
        position.push(rng.choice(quiet))
    return Opening(position.board(), position.player)


def opening_for(config: TournamentConfig, size: str, round_index: int) -> Opening:
    if config.opening_positions:
        suite = config.opening_positions[size]
        return suite[round_index % len(suite)]
    return random_opening(config.rules, size, config.openings_plies, config.openings_seed, round_index)


def pair_prefix(rules: Game, size: str) -> str:
    """The first part of a game id: ``n5`` for Betsy (as before games were plugins), else the size."""
    return rules.game_id_prefix(size)


MAX_SCHEDULED_GAMES = 1_000_000
"""Most games one run of a tournament schedules (the schedule is a list in memory)."""


def pairing_count(engines: int, fmt: str) -> int:
    """How many pairings ``pairings`` gives for ``engines`` engines, without listing them."""
    return max(0, engines - 1) if fmt == "gauntlet" else engines * (engines - 1) // 2


def check_schedule_size(config: TournamentConfig, rounds: tuple[int, int] | None = None) -> int:
    """The number of games the run schedules (all rounds, or rounds ``first..last``), counted
    before any is listed; UsageError with the figure and how to lower it past MAX_SCHEDULED_GAMES."""
    first, last = rounds if rounds is not None else (1, config.rounds)
    per_round = pairing_count(len(config.engines), config.format) * len(config.sizes) * 2
    count = (last - first + 1) * per_round
    if count <= MAX_SCHEDULED_GAMES:
        return count
    where = f"{config.path}: " if config.path else ""
    share = MAX_SCHEDULED_GAMES // per_round
    lower = (f"play it in shares with --rounds, at most {share:,} round{'s' if share > 1 else ''} each "
             f"(e.g. --rounds {first}-{first + share - 1})"
             if share else "one round alone is more: lower the sizes or the engines")
    factors = [_count(last - first + 1, "round"), _count(len(config.sizes), "board size"),
               _count(per_round // 2 // len(config.sizes), "pairing"), "2 colours"]
    raise UsageError(
        f"{where}{count:,} games to schedule ({' x '.join(factors)}), more than the {MAX_SCHEDULED_GAMES:,} "
        f"one run may play; lower rounds, the sizes or the engines in the config, or {lower}")


def _count(number: int, thing: str) -> str:
    return f"{number:,} {thing}{'s' if number != 1 else ''}"


def schedule(config: TournamentConfig, rounds: tuple[int, int] | None = None) -> list[ScheduledGame]:
    """Every game of the tournament (or of its rounds ``first..last``, 1-based), round by round, so
    standings fill in evenly; refused past MAX_SCHEDULED_GAMES before anything is listed."""
    check_schedule_size(config, rounds)
    first_round, last_round = rounds if rounds is not None else (1, config.rounds)
    names = [engine.name for engine in config.engines]
    games: list[ScheduledGame] = []
    for round_index in range(first_round - 1, last_round):
        for size in config.sizes:
            opening = opening_for(config, size, round_index)
            prefix = pair_prefix(config.rules, size)
            for first, second in pairings(names, config.format):
                pair_key = f"{prefix}:r{round_index + 1}:{first}:{second}"
                for suffix, x, o in (("a", first, second), ("b", second, first)):
                    games.append(ScheduledGame(
                        f"{pair_key}:{suffix}", pair_key, size, round_index + 1, x, o,
                        opening.board, opening.player,
                    ))
    return games


def start_position(scheduled: ScheduledGame, settings: GameSettings) -> Any:
    """The scheduled game's start position, under the settings' rules."""
    return settings.rules.position(scheduled.size, scheduled.start_player, scheduled.start_board, settings.options)
