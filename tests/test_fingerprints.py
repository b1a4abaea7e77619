"""harness.tournament.fingerprints: a tournament's config back from its stored fingerprint, and one game of
its schedule by id, exactly as the schedule builds it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.tournament.config import load_config
from harness.tournament.fingerprints import NotAFingerprint, config_from_fingerprint, is_tournament_config, scheduled_game
from harness.tournament.schedule import schedule
from tests.conftest import ROOT, set_at

CONFIGS = sorted(path for path in (ROOT / "configs").glob("*.yaml") if path.name != "class.yaml")  # class.yaml: arena class


@pytest.mark.parametrize("path", CONFIGS, ids=[path.stem for path in CONFIGS])
def test_every_shipped_config_comes_back_from_its_fingerprint_with_its_schedule(path: Path) -> None:
    config = load_config(path)
    stored = json.loads(json.dumps(config.fingerprint(), sort_keys=True))  # as the database holds it
    rebuilt = config_from_fingerprint(stored)
    assert rebuilt.fingerprint_hash() == config.fingerprint_hash()
    openings: dict[Any, Any] = {}
    for game in schedule(config):
        assert scheduled_game(rebuilt, game.game_id, openings) == game


def test_ids_that_are_not_a_games_are_none() -> None:
    config = config_from_fingerprint(load_config(ROOT / "configs" / "quick.yaml").fingerprint())
    first = schedule(config)[0].game_id
    prefix, round_text, a, b, suffix = first.split(":")
    assert scheduled_game(config, first) is not None
    for key in (f"{prefix}:r0:{a}:{b}:a", f"{prefix}:r01:{a}:{b}:a", f"{prefix}:r{config.rounds + 1}:{a}:{b}:a",
                f"{prefix}:{round_text}:{b}:{a}:a", f"{prefix}:{round_text}:{a}:{a}:a", f"{prefix}:{round_text}:{a}:{b}:c",
                f"n99:{round_text}:{a}:{b}:a", f"{prefix}:{round_text}:{a}:{b}", f"{first}:x", f"{prefix}:r:{a}:{b}:a",
                f"{prefix}:r\u0661:{a}:{b}:a", ""):
        assert scheduled_game(config, key) is None, key


def fingerprint() -> dict[str, Any]:
    return json.loads(json.dumps(load_config(ROOT / "configs" / "quick.yaml").fingerprint()))


@pytest.mark.parametrize(("path", "value", "message"), [
    ("rounds", 0, "rounds: expected a whole number from 1 to 10000"),
    ("rounds", "2", "rounds: expected a whole number from 1 to 10000"),
    ("format", "swiss", "format: expected round-robin or gauntlet"),
    ("n", [5, "8"], "not a config 'arena tournament' writes (look at: n)"),
    ("n", [5, 0], "n: 0 is not a board size of Betsy"),
    ("time", "1", "time: Input should be a valid number"),
    ("engines.0.name", "a:b", "engines[0]: expected a name of letters, digits, '_', '.', '+' or '-', a command and "
                              "extra_args (lists of words)"),
    ("openings.positions", {"5": ["x ....."]}, "openings.positions.5: not a position of Betsy"),
    ("extra", 1, "not a config 'arena tournament' writes (look at: extra)"),
])
def test_a_tampered_fingerprint_is_refused_naming_the_key(path: str, value: object, message: str) -> None:
    data = fingerprint()
    set_at(data, path, value)
    with pytest.raises(NotAFingerprint) as refused:
        config_from_fingerprint(data)
    assert str(refused.value) == message


def test_only_configs_with_engines_and_rounds_claim_a_schedule() -> None:
    assert is_tournament_config(fingerprint())
    play = {"kind": "play", "game": "betsy", "time": 1.0, "size": "5"}
    assert not is_tournament_config(play)
    assert not is_tournament_config({key: value for key, value in fingerprint().items() if key != "rounds"})
