"""``arena play``'s finished games in the results database, never lost: a game the database cannot
take is saved as a line of ``arena export`` beside the user instead."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.errors import HarnessError, OutputError
from harness.match.human import HUMAN
from harness.match.match import GameRecord
from harness.match.settings import GameSettings
from harness.outputs import fallback_path
from harness.referee.engine_specs import EngineSpec
from harness.store.store import Store, file_sha256

@dataclass(frozen=True)
class _Stored:
    """A finished game as arena play stores it: its tournament ``play`` and the game's key."""

    config: dict[str, Any]
    engines: list[dict[str, Any]]
    key: str
    finished_at: str


def _stored(settings: GameSettings, engine: EngineSpec, record: GameRecord) -> _Stored:
    config = {"kind": "play", **settings.model_dump(), "size": record.size}
    engines = [{"name": HUMAN, "command": "(a person at the terminal)", "program": None, "sha256": None},
               {"name": engine.name, "command": engine.display_command, "program": engine.program,
                "sha256": file_sha256(engine.program)}]
    stamp = datetime.now(timezone.utc)
    return _Stored(config, engines, f"play:{stamp.strftime('%Y%m%dT%H%M%S.%f')}", stamp.isoformat(timespec="seconds"))


def store_played(db: Path, record: GameRecord, stored: _Stored) -> int | None:
    """Store a finished game in the tournament ``play`` of ``db`` (one per game, engine and settings)."""
    with Store(db, role="arena play") as store:
        tournament = store.ensure_tournament("play", stored.config, stored.engines)
        return store.save_record(tournament, stored.key, stored.key, 1, record, stored.finished_at)


def keep_played(db: Path, settings: GameSettings, engine: EngineSpec, record: GameRecord) -> None:
    """Store the finished game of a person against ``engine`` in ``db``; when that fails (a database
    another process is writing, a folder gone, a full disk), save it as a line of ``arena export`` in
    the current or the temporary folder and raise OutputError naming the file and how to add it: a
    played game is never lost."""
    stored = _stored(settings, engine, record)
    try:
        store_played(db, record, stored)
        return
    except (HarnessError, sqlite3.Error, OSError) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    line = {**record.to_json(), "game_id": 1, "key": stored.key, "pair_key": stored.key, "round": 1,
            "finished_at": stored.finished_at,
            "tournament": {"name": "play", "created_at": stored.finished_at, "config": stored.config,
                           "engines": stored.engines}}
    for place in fallback_path("arena-play.jsonl"):
        try:
            with open(place, "x", encoding="utf-8") as file:
                file.write(json.dumps(line) + "\n")
        except OSError:
            continue
        raise OutputError(f"cannot store the game in {db} ({why}); it is saved in {place}: "
                          f"'arena import {db} {place}' adds it to the database")
    raise OutputError(f"cannot store the game in {db} ({why}), nor save it in the current or the temporary folder")
