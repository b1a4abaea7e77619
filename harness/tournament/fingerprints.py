"""A tournament's config rebuilt from the fingerprint stored with it, and one game of its schedule
found by id without building the schedule: what an imported or merged game is held to.

``config_from_fingerprint`` accepts exactly what ``TournamentConfig.fingerprint`` writes (it
rebuilds the config and requires that its fingerprint is the stored one), so a rebuilt schedule is
the schedule ``arena tournament`` plays for that config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic

from harness.store.store import is_tournament_config as is_tournament_config
from harness.tournament.config import ENGINE_NAME, TOURNAMENT_NAME, MAX_OPENING_PLIES, MAX_ROUNDS, Opening, TournamentConfig
from harness.referee.engine_specs import EngineSpec
from harness.games.errors import PositionError
from harness.tournament.schedule import ScheduledGame, opening_for, pair_prefix
from harness.match.settings import GameSettings

SETTINGS_KEYS = ("game", "time", "allow_fractional_time", "grace", "max_plies", "win_priority")


class NotAFingerprint(ValueError):
    """A stored config that is not one ``arena tournament`` writes: the message says what is wrong."""


def config_from_fingerprint(data: Mapping[str, Any]) -> TournamentConfig:
    """The TournamentConfig whose fingerprint is ``data``; NotAFingerprint naming the first problem."""
    try:
        settings = GameSettings.model_validate({key: data[key] for key in SETTINGS_KEYS if key in data})
    except pydantic.ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "settings"
        raise NotAFingerprint(f"{where}: {first.get('msg')}") from None
    rules = settings.rules
    name = data.get("name")
    if not isinstance(name, str) or not TOURNAMENT_NAME.fullmatch(name):
        raise NotAFingerprint("name: expected letters, digits, '_', '.' or '-'")
    key = rules.size_key
    sizes = data.get(key)
    if not isinstance(sizes, list) or not sizes:
        raise NotAFingerprint(f"{key}: expected a list of board sizes")
    parsed = []
    for size in sizes:
        try:
            if isinstance(size, bool) or rules.parse_size(size) != str(size):
                raise PositionError("not written as the game writes it")
        except (PositionError, ValueError, TypeError):
            raise NotAFingerprint(f"{key}: {size!r} is not a board size of {rules.title}") from None
        parsed.append(str(size))
    fmt, rounds = data.get("format"), data.get("rounds")
    if fmt not in ("round-robin", "gauntlet"):
        raise NotAFingerprint("format: expected round-robin or gauntlet")
    if not _whole(rounds, 1, MAX_ROUNDS):
        raise NotAFingerprint(f"rounds: expected a whole number from 1 to {MAX_ROUNDS}")
    openings = data.get("openings")
    if not isinstance(openings, dict):
        raise NotAFingerprint("openings: expected an object")
    plies, seed, file = openings.get("plies"), openings.get("seed"), openings.get("file")
    if not _whole(plies, 0, MAX_OPENING_PLIES) or not _whole(seed, -(1 << 63), (1 << 63) - 1):
        raise NotAFingerprint("openings: plies and seed must be whole numbers")
    if file is not None and not isinstance(file, str):
        raise NotAFingerprint("openings.file: expected text or null")
    positions = _positions(openings.get("positions"), rules, parsed)
    engines = data.get("engines")
    if not isinstance(engines, list) or len(engines) < 2:
        raise NotAFingerprint("engines: expected a list of at least two engines")
    specs = []
    for index, engine in enumerate(engines):
        if not (isinstance(engine, dict) and isinstance(engine.get("name"), str)
                and ENGINE_NAME.fullmatch(engine["name"]) and _words(engine.get("command"))
                and _words(engine.get("extra_args"))):
            raise NotAFingerprint(f"engines[{index}]: expected a name of letters, digits, '_', '.', '+' or '-', "
                                  f"a command and extra_args (lists of words)")
        specs.append(EngineSpec(engine["name"], tuple(engine["command"]), None, tuple(engine["extra_args"])))
    if len({spec.name for spec in specs}) != len(specs):
        raise NotAFingerprint("engines: two engines with one name")
    config = TournamentConfig(
        name=name, settings=settings, sizes=tuple(parsed), format=fmt, rounds=rounds,  # type: ignore[arg-type]
        openings_plies=plies, openings_seed=seed, openings_file=file, concurrency=1,  # type: ignore[arg-type]
        engines=tuple(specs), opening_positions=positions)
    if config.fingerprint() != dict(data):
        changed = sorted(key for key in set(data) | set(config.fingerprint())
                         if data.get(key) != config.fingerprint().get(key))
        raise NotAFingerprint(f"not a config 'arena tournament' writes (look at: {', '.join(map(str, changed))})")
    return config


def _whole(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _words(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(word, str) for word in value)


def _positions(data: object, rules: Any, sizes: list[str]) -> dict[str, tuple[Opening, ...]]:
    if not isinstance(data, dict):
        raise NotAFingerprint("openings.positions: expected an object")
    positions: dict[str, tuple[Opening, ...]] = {}
    for size, lines in data.items():
        if not isinstance(lines, list) or not lines:
            raise NotAFingerprint(f"openings.positions.{size}: expected a list of positions")
        found = []
        for line in lines:
            player, _, board = line.partition(" ") if isinstance(line, str) else ("", "", "")
            try:
                position = rules.position(size, player, board)
            except (PositionError, ValueError):
                raise NotAFingerprint(f"openings.positions.{size}: not a position of {rules.title}") from None
            if position.winner() is not None or rules.end_reason(position) is not None:
                raise NotAFingerprint(f"openings.positions.{size}: a position where the game is over")
            found.append(Opening(position.board(), position.player))
        positions[size] = tuple(found)
    if positions and any(size not in positions for size in sizes):
        raise NotAFingerprint("openings.positions: no opening for one of the sizes")
    return positions


def scheduled_game(config: TournamentConfig, key: str, openings: dict[tuple[str, int], Opening] | None = None,
                   ) -> ScheduledGame | None:
    """The game of ``config``'s schedule whose id is ``key``, or None: found from the id alone, as
    ``schedule.schedule`` would build it. ``openings`` caches each (size, round)'s opening."""
    parts = key.split(":")
    if len(parts) != 5:
        return None
    prefix, round_text, first, second, suffix = parts
    size = next((size for size in config.sizes if pair_prefix(config.rules, size) == prefix), None)
    number = round_text[1:]
    if (size is None or not round_text.startswith("r") or not number.isascii() or not number.isdigit()
            or str(int(number)) != number or not 1 <= int(number) <= config.rounds or suffix not in ("a", "b")):
        return None
    names = [engine.name for engine in config.engines]
    if first not in names or second not in names:
        return None
    if config.format == "gauntlet":
        paired = first == names[0] and second != first
    else:
        paired = names.index(first) < names.index(second)
    if not paired:
        return None
    round_number = int(number)
    cache = openings if openings is not None else {}
    opening = cache.get((size, round_number))
    if opening is None:
        opening = cache[(size, round_number)] = opening_for(config, size, round_number - 1)
    pair_key = f"{prefix}:r{round_number}:{first}:{second}"
    x, o = (first, second) if suffix == "a" else (second, first)
    return ScheduledGame(f"{pair_key}:{suffix}", pair_key, size, round_number, x, o, opening.board, opening.player)

