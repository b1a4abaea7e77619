"""Class configs: YAML -> a typed, checked ClassConfig (``arena class CONFIG``).

One file names the game and its sizes, the clock, the submissions folder and how each program is run,
the roster, the validation, the league and the grading scheme. Problems are reported as a tournament
config's are: the file, the dotted key, what was expected and what was found, every problem at once.
configs/class.yaml documents every key.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import pydantic

from harness.games.registry import Game
from harness.match.settings import GameSettings
from harness.referee.engine_specs import BUILTIN, engines_playing
from harness.referee.sandbox import SandboxMode
from harness.tournament.address import ClusterAddress, parse_cluster
from harness.machine import usable_cores
from harness.tournament.config import (
    resolve_time_scale,
    MAX_OPENING_PLIES,
    TOURNAMENT_NAME,
    RunKeys,
    config_error,
    describe_errors,
    parse_sizes,
    read_yaml,
)

PROGRAM_FILES = {"betsy": "betsy.py", "connect4": "connect4.py", "kings-horses": "bestmove.py"}
"""Each game's program file in a student's folder, as its assignment names it."""
STRONGEST_ELO = {"betsy": 890.0, "connect4": 1090.0}
"""The strongest engine's Elo on each game's reference scale: alphabeta's and the measured edge of
the strongest over it (docs/measurements.md: +31 Elo at n = 5 for Betsy; level in Connect Four)."""
KINGS_HORSES_ELO = {"random": 0.0, "greedy": 400.0, "bestmove": 435.0}
"""All The King's Horses' reference scale, from 20 colour-swapped pairs each at 1 s per move
(docs/class.md): greedy won all 40 games against random, so its 400 is a floor (an expected score of
0.91); the solver scored 22/40 against greedy, +35 Elo [-11, +82]."""
MAX_STUDENTS = 2000
"""Most submissions a class may hold."""


class _Strict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True, frozen=True)


class _Validation(_Strict):
    quick: bool = True
    games: int = pydantic.Field(0, ge=0, le=100)
    n: list[int] | None = None
    size: list[str | int] | None = None
    required: list[str] | None = None

    @pydantic.field_validator("n", "size", mode="before")
    @classmethod
    def _one_or_more(cls, value: object) -> object:
        return [value] if isinstance(value, (int, str)) and not isinstance(value, bool) else value


class _Openings(_Strict):
    plies: int = pydantic.Field(2, ge=0, le=MAX_OPENING_PLIES)
    seed: int = 1


class _League(_Strict):
    format: Literal["auto", "round-robin", "swiss", "gauntlet"] = "auto"
    round_robin_up_to: int = pydantic.Field(12, ge=2, le=MAX_STUDENTS)
    rounds: int | None = pydantic.Field(None, ge=1, le=100)
    openings: _Openings = pydantic.Field(default_factory=lambda: _Openings.model_validate({}))
    references: dict[str, float] | None = None


class _Band(_Strict):
    name: str = pydantic.Field(min_length=1, max_length=60)
    above: str | float | int | None = None
    points: float = pydantic.Field(0.0, allow_inf_nan=False)


class _Grading(_Strict):
    error: float = pydantic.Field(0.05, gt=0, lt=0.5)
    indifference: float = pydantic.Field(50.0, gt=0, le=400)
    budget: int = pydantic.Field(40, ge=2, le=2000)
    bands: list[_Band] | None = None
    failed_points: float = pydantic.Field(0.0, allow_inf_nan=False)


class _Similarity(_Strict):
    source: float = pydantic.Field(0.8, gt=0, le=1)
    moves: float = pydantic.Field(0.9, gt=0, le=1)
    positions: int = pydantic.Field(20, ge=0, le=200)
    common_share: float = pydantic.Field(0.5, gt=0, le=1)
    starter: str | None = None


class _Class(RunKeys):
    """A class config: the shared keys (game, time, sizes, sandbox, ...) and the class's own."""

    submissions: str
    program: str | None = None
    command: str = "python3 {file}"
    roster: str | None = None
    publish: Literal["folder", "id", "name", "anonymous"] = "folder"
    deadline: str | None = None
    max_submission_mb: int = pydantic.Field(10, ge=1, le=1024)
    validation: _Validation = pydantic.Field(default_factory=lambda: _Validation.model_validate({}))
    league: _League = pydantic.Field(default_factory=lambda: _League.model_validate({}))
    grading: _Grading = pydantic.Field(default_factory=lambda: _Grading.model_validate({}))
    similarity: _Similarity = pydantic.Field(default_factory=lambda: _Similarity.model_validate({}))

    @pydantic.field_validator("deadline", mode="before")
    @classmethod
    def _deadline_text(cls, value: object) -> object:
        return value.isoformat() if isinstance(value, datetime) else value  # YAML reads a bare timestamp


_MODELS: dict[str, type[pydantic.BaseModel]] = {
    "validation": _Validation, "league": _League, "grading": _Grading, "similarity": _Similarity,
    "openings": _Openings, "bands": _Band,
}


def _model_at(loc: tuple[int | str, ...]) -> type[pydantic.BaseModel]:
    model: type[pydantic.BaseModel] = _Class
    for part in loc:
        if isinstance(part, str) and part in _MODELS:
            model = _MODELS[part]
    return model


@dataclass(frozen=True)
class Band:
    """A grade band: from ``floor`` Elo up (None: the lowest band), worth ``points``."""

    name: str
    floor: float | None
    points: float
    above: str
    """How the config gave the floor (``greedy``, ``alphabeta+50``, ``700``), for people."""


@dataclass(frozen=True)
class ClassConfig:
    """A checked class config. Field meanings are those of the YAML keys (configs/class.yaml)."""

    name: str
    settings: GameSettings
    sizes: tuple[str, ...]
    """League sizes (the first is the size of every graded game)."""
    validation_sizes: tuple[str, ...]
    validation_quick: bool
    validation_games: int
    categories: tuple[str, ...]
    """The game's validation categories, in the report's order."""
    required: tuple[str, ...] | None
    """The categories a program must pass to play in the league; None: the validator's own verdict."""
    submissions: Path
    program: str
    command: str
    roster: Path | None
    publish: str
    deadline: datetime | None
    max_submission_bytes: int
    league_format: str
    round_robin_up_to: int
    rounds: int | None
    openings_plies: int
    openings_seed: int
    references: dict[str, float]
    """The anchors: built-in engine -> its fixed Elo, so that ratings mean the same across terms."""
    error: float
    indifference: float
    budget: int
    bands: tuple[Band, ...]
    failed_points: float
    source_threshold: float
    moves_threshold: float
    probe_positions: int
    common_share: float
    starter: Path | None
    concurrency: int
    cluster: ClusterAddress | None
    cluster_certs: str | None
    sandbox: SandboxMode
    max_file_mb: int
    max_processes: int
    path: Path
    insecure_cluster: bool = False

    @property
    def rules(self) -> Game:
        return self.settings.rules

    @property
    def size(self) -> str:
        """The size of every graded game (the first of ``sizes``)."""
        return self.sizes[0]

    def play_key(self) -> dict[str, Any]:
        """Everything that decides a game's outcome: stored games are reused only under the same key."""
        s = self.settings
        return {"game": s.game, "time": s.time, "allow_fractional_time": s.allow_fractional_time,
                "grace": s.grace, "max_plies": s.max_plies, "win_priority": s.win_priority,
                "openings": {"plies": self.openings_plies, "seed": self.openings_seed},
                "max_file_mb": self.max_file_mb, "max_processes": self.max_processes}

    def validation_key(self) -> str:
        """What decides a validation's outcome: an unchanged submission is validated again only if it changed."""
        s = self.settings
        return _digest({"game": s.game, "time": s.time, "allow_fractional_time": s.allow_fractional_time,
                        "grace": s.grace, "sizes": list(self.validation_sizes), "quick": self.validation_quick,
                        "games": self.validation_games, "max_file_mb": self.max_file_mb,
                        "max_processes": self.max_processes})


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def validation_categories(game: Game) -> tuple[str, ...]:
    """The categories of a game's validation report, in order."""
    if game.own_validation:
        from harness.validate.kings_horses import CATEGORIES as OWN

        return tuple(OWN)
    from harness.validate.validator import CATEGORIES

    return tuple(CATEGORIES)


def default_references(game: Game) -> dict[str, float]:
    """A game's anchors: its reference engines' Elo (random = 0), the strongest engine included."""
    if game.name == "kings-horses":
        return dict(KINGS_HORSES_ELO)
    references = dict(game.reference_elo)
    if game.name in STRONGEST_ELO:
        references["mcts-alphabeta"] = STRONGEST_ELO[game.name]
    return references


def default_bands(references: dict[str, float], gap: float) -> list[Band]:
    """Bands at the references, weakest first: "below X" under the second reference, then "X or better"
    from each reference up; a reference less than ``gap`` Elo above the last floor starts no band (the
    test could not tell them apart). Points spread evenly from 0 to 10."""
    ordered = sorted(references.items(), key=lambda item: item[1])
    floors: list[tuple[str, float]] = []
    for name, elo in ordered[1:]:
        if not floors or elo - floors[-1][1] >= gap:
            floors.append((name, elo))
    if not floors:
        return [Band("any", None, 0.0, "")]
    bands = [Band(f"below {floors[0][0]}", None, 0.0, "")]
    for index, (name, elo) in enumerate(floors, 1):
        bands.append(Band(f"{name} or better", elo, round(10 * index / len(floors), 1), name))
    return bands


_ABOVE = re.compile(r"\s*([A-Za-z][A-Za-z0-9_.-]*?)\s*(?:([+-])\s*(\d+(?:\.\d+)?))?\s*")


def _band_floor(above: str | float | int | None, references: dict[str, float]) -> float | str | None:
    """A band's floor in Elo, or the problem with it (text)."""
    if above is None:
        return None
    if isinstance(above, (int, float)) and not isinstance(above, bool):
        return float(above) if math.isfinite(above) else "expected a finite number"
    match = _ABOVE.fullmatch(str(above))
    if match is None or match.group(1) not in references:
        return (f"expected a number, or a reference ({', '.join(references)}) with an optional +/- Elo, "
                f"e.g. greedy+50; got {above!r}")
    offset = float(match.group(3) or 0) * (-1 if match.group(2) == "-" else 1)
    return references[match.group(1)] + offset


def load_class_config(path: str | os.PathLike[str], concurrency: int | None = None) -> ClassConfig:
    """Read and check a class config; raises ConfigError naming every problem."""
    file, raw = read_yaml(path, "name:, game:, submissions:, ...")
    resolve_time_scale(raw)
    try:
        model = _Class.model_validate(raw)
    except pydantic.ValidationError as error:
        raise config_error(file, describe_errors(error.errors(), _model_at)) from None
    return _resolve(model, file, concurrency)


def _resolve(model: _Class, file: Path, concurrency: int | None) -> ClassConfig:
    base = file.resolve().parent
    rules = model.rules
    problems: list[str] = []
    if not TOURNAMENT_NAME.fullmatch(model.name):
        problems.append(f"name: expected letters, digits, '_', '.' or '-' (it names the results file), "
                        f"got {model.name!r}")
    sizes = _sizes(model.n, model.size, rules, "", problems) or (rules.default_size,)
    own = rules.own_validation
    validation_sizes: tuple[str, ...] = ()
    if own and (model.validation.n is not None or model.validation.size is not None):
        problems.append(f"validation.size: {rules.name} validation draws its own positions; leave it out")
    elif not own:
        validation_sizes = _sizes(model.validation.n, model.validation.size, rules, "validation.", problems) \
            or rules.example_sizes
    submissions = (base / model.submissions).resolve()
    if not submissions.is_dir():
        problems.append(f"submissions: no folder {submissions}; give the folder of the students' folders")
    program = model.program or PROGRAM_FILES[rules.name]
    if "/" in program or program in ("", ".", ".."):
        problems.append(f"program: expected a file name in each student's folder, got {program!r}")
    if "{file}" not in model.command:
        problems.append(f"command: expected {{file}} where the program's path goes, e.g. 'python3 {{file}}'; "
                        f"got {model.command!r}")
    roster = None if model.roster is None else (base / model.roster).resolve()
    if roster is not None and not roster.is_file():
        problems.append(f"roster: no file {roster}; give a CSV file with columns id,name[,folder]")
    if model.publish in ("id", "name") and roster is None:
        problems.append(f"publish: {model.publish} needs a roster: key")
    deadline = None
    if model.deadline is not None:
        try:
            deadline = datetime.fromisoformat(model.deadline)
        except ValueError:
            problems.append(f"deadline: expected a date and time like 2026-12-01T23:59:00+00:00, got {model.deadline!r}")
        else:
            if deadline.tzinfo is None:
                problems.append(f"deadline: give the time zone too, e.g. {model.deadline}+00:00")
    categories = validation_categories(rules)
    for name in model.validation.required or []:
        if name not in categories:
            problems.append(f"validation.required: unknown category {name!r} of {rules.name} validation; "
                            f"expected some of {', '.join(categories)}")
    playing = engines_playing(rules.name)
    references = dict(model.league.references) if model.league.references is not None else default_references(rules)
    for name in references:
        if name not in BUILTIN:
            problems.append(f"league.references: unknown built-in engine {name!r}; expected some of {', '.join(playing)}")
        elif name not in playing:
            problems.append(f"league.references: {name} does not play {rules.name}; expected some of {', '.join(playing)}")
    if not references:
        problems.append("league.references: expected at least one reference engine with its Elo")
    bands: list[Band] = []
    if model.grading.bands is None:
        bands = default_bands(references, 2 * model.grading.indifference) if references else []
    else:
        for index, entry in enumerate(model.grading.bands):
            floor = _band_floor(entry.above, references)
            if isinstance(floor, str):
                problems.append(f"grading.bands[{index}].above: {floor}")
                continue
            bands.append(Band(entry.name, floor, entry.points, "" if entry.above is None else str(entry.above)))
        floors = [band.floor for band in bands]
        if bands and (floors[0] is not None or any(floor is None for floor in floors[1:])):
            problems.append("grading.bands: the first band (the lowest) has no above:, and every other band has one")
        elif any(b <= a for a, b in zip(floors[1:], floors[2:])):  # type: ignore[operator]
            problems.append("grading.bands: list the bands from the lowest up, each above: higher than the one before")
        if len({band.name for band in bands}) != len(bands):
            problems.append("grading.bands: two bands have the same name")
    cluster: ClusterAddress | None = None
    if model.cluster is not None:
        try:
            cluster = parse_cluster(model.cluster)
        except ValueError as error:
            problems.append(f"cluster: {error}")
    starter = None if model.similarity.starter is None else (base / model.similarity.starter).resolve()
    if starter is not None and not starter.exists():
        problems.append(f"similarity.starter: no file or folder {starter}")
    if problems:
        raise config_error(file, problems)
    return ClassConfig(
        name=model.name, settings=model.game_settings(), sizes=sizes, validation_sizes=validation_sizes,
        validation_quick=model.validation.quick, validation_games=model.validation.games,
        categories=categories, submissions=submissions, program=program,
        required=None if model.validation.required is None else tuple(dict.fromkeys(model.validation.required)),
        command=model.command, roster=roster, publish=model.publish, deadline=deadline,
        max_submission_bytes=model.max_submission_mb << 20, league_format=model.league.format,
        round_robin_up_to=model.league.round_robin_up_to, rounds=model.league.rounds,
        openings_plies=model.league.openings.plies, openings_seed=model.league.openings.seed,
        references=references, error=model.grading.error, indifference=model.grading.indifference,
        budget=model.grading.budget, bands=tuple(bands), failed_points=model.grading.failed_points,
        source_threshold=model.similarity.source, moves_threshold=model.similarity.moves,
        probe_positions=model.similarity.positions, common_share=model.similarity.common_share,
        starter=starter, concurrency=concurrency or model.concurrency or usable_cores(),
        cluster=cluster, cluster_certs=None if model.cluster_certs is None else str((base / model.cluster_certs).resolve()),
        sandbox=SandboxMode(model.sandbox), max_file_mb=model.max_file_mb, max_processes=model.max_processes,
        path=file,
    )


def _sizes(n: list[int] | None, size: list[str | int] | None, rules: Game, prefix: str,
           problems: list[str]) -> tuple[str, ...]:
    sizes, found = parse_sizes(n, size, rules, prefix)
    problems += found
    return sizes
