"""Tournament configs: YAML -> a typed, checked TournamentConfig.

Every problem is reported with the file, the dotted key, what was expected and what was found, and
unknown names list the valid choices. The schema is a pydantic model (strict: YAML already gives
typed values, so "5" for a number is a mistake to report, not to coerce); its errors are reworded here.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Mapping
from typing import Any, Literal

import pydantic
import yaml

from harness.tournament.address import ClusterAddress, parse_cluster
from harness.referee.engine_specs import (
    BUILTIN, EngineSpec, builtin_engine, builtin_names, command_engine, game_problem,
)
from harness.errors import ConfigError, EngineError
from harness.games.betsy.rules import MAX_N
from harness.games.errors import PositionError
from harness.games.registry import GAMES, Game
from harness.referee.programs import layout_problems
from harness.referee.sandbox import MAX_FILE_MB, MAX_PROCESSES, SandboxMode
from harness.match.settings import MAX_PLIES, GameSettings
from harness.text import is_text, read_bounded, without_values
from harness.machine import usable_cores

TOURNAMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
"""A tournament's name (also its results file's: results/<name>.sqlite)."""
ENGINE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")
"""Engine names appear in game ids joined by ':', so they may not contain it."""

MAX_ROUNDS = 10_000
"""Upper bounds of the config's counts (and of ``arena match``'s), far beyond any real tournament:
larger values only make the schedule or an opening take forever to build."""
MAX_OPENING_PLIES = 1_000
MAX_CONCURRENCY = 256
MAX_CONFIG_BYTES = 1 << 20
"""A config larger than this (1 MiB) is refused before it is parsed."""
MAX_YAML_VALUES = 100_000
"""Most values (scalars, lists, mappings) a config may hold, an alias counted as everything it
stands for at each use: anchors and aliases keep working, an alias bomb is refused before it grows."""
MAX_YAML_DEPTH = 64
"""Most levels of lists and mappings nested in a config."""
MAX_OPENINGS_BYTES = 4 << 20
"""An openings file larger than this (4 MiB) is refused before it is read."""


class _Strict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True, frozen=True)


class _Openings(_Strict):
    plies: int = pydantic.Field(2, ge=0, le=MAX_OPENING_PLIES)
    seed: int = 1
    file: str | None = None


class _Engine(_Strict):
    name: str
    builtin: str | None = None
    command: str | None = None
    options: dict[str, str | int | float | bool] = pydantic.Field(default_factory=dict)


class RunKeys(GameSettings):
    """The keys every config that plays games shares: the game settings' (game, time, ...), its
    sizes, and where and how its programs run (concurrency, cluster, sandbox, limits)."""

    name: str
    n: list[pydantic.conint(gt=0, le=MAX_N)] | None = pydantic.Field(  # type: ignore[valid-type]
        None, min_length=1)
    size: list[str | int] | None = pydantic.Field(None, min_length=1)
    concurrency: int | None = pydantic.Field(None, ge=1, le=MAX_CONCURRENCY)
    cluster: str | None = None
    cluster_certs: str | None = None
    sandbox: Literal["auto", "required", "off"] = "auto"
    max_file_mb: int = pydantic.Field(64, ge=1, le=MAX_FILE_MB)
    max_processes: int = pydantic.Field(64, ge=1, le=MAX_PROCESSES)

    @pydantic.field_validator("sandbox", mode="before")
    @classmethod
    def _off_is_off(cls, value: object) -> object:
        return "off" if value is False else value  # YAML 1.1 reads a bare off as false

    @pydantic.field_validator("n", mode="before")
    @classmethod
    def _one_or_more(cls, value: object) -> object:
        return [value] if isinstance(value, int) and not isinstance(value, bool) else value

    @pydantic.field_validator("size", mode="before")
    @classmethod
    def _one_size_or_more(cls, value: object) -> object:
        return [value] if isinstance(value, (str, int)) and not isinstance(value, bool) else value


class _Tournament(RunKeys):
    """A tournament config: the shared keys (game, time, sizes, sandbox, ...) and the tournament's own."""

    format: Literal["round-robin", "gauntlet"] = "round-robin"
    rounds: int = pydantic.Field(2, ge=1, le=MAX_ROUNDS)
    replay_stalls: bool = True
    openings: _Openings = pydantic.Field(default_factory=lambda: _Openings.model_validate({}))
    engines: list[_Engine] = pydantic.Field(min_length=2)


def _size_order(size: str) -> tuple[int, ...]:
    return tuple(int(part) for part in size.split("x"))


@dataclass(frozen=True)
class Opening:
    """A start position for a round."""

    board: str
    player: str


@dataclass(frozen=True)
class TournamentConfig:
    """A checked tournament config. Field meanings are those of the YAML keys (see README)."""

    name: str
    """Names the tournament and, by default, its results file results/<name>.sqlite."""
    settings: GameSettings
    """The game and how each game is played (time, grace, ply limit, rule options)."""
    sizes: tuple[str, ...]
    """Board sizes as on the wire (``5``, ``8x8``); every pairing plays at each."""
    format: Literal["round-robin", "gauntlet"]
    rounds: int
    """Per pairing and n; each round is one opening played twice, colours swapped."""
    openings_plies: int
    openings_seed: int
    openings_file: str | None
    """Absolute path of a file of start positions, if given."""
    concurrency: int
    """Games played at once."""
    engines: tuple[EngineSpec, ...]
    path: str = ""
    """The config file."""
    sandbox: SandboxMode = SandboxMode.AUTO
    """Whether engine calls run in the bubblewrap sandbox (not part of the fingerprint, like concurrency)."""
    max_file_mb: int = 64
    """Largest file an engine may write, in MiB (also the size of its sandbox folders)."""
    max_processes: int = 64
    """Processes and threads an engine may run at once (in the sandbox)."""
    opening_positions: dict[str, tuple[Opening, ...]] = field(default_factory=dict)
    """Openings read from openings_file, by size."""
    cluster: ClusterAddress | None = None
    """Where the games run: a dask cluster, or None for the local process pool (not part of the
    fingerprint: where a game runs does not change it)."""
    cluster_certs: str | None = None
    """Absolute path of the folder of the cluster's certificate set, for a ``tls://`` cluster."""
    insecure_cluster: bool = False
    """Whether a ``tcp://`` cluster beyond loopback is allowed (the operator's ``--insecure-cluster``, never the file's)."""
    replay_stalls: bool = True
    """Whether a call starved by the machine (harness.referee.referee.starved_of) is run again alone
    before any verdict on it (not part of the fingerprint, like the sandbox: how the machine behaved,
    not the games' rules)."""

    @property
    def rules(self) -> Game:
        """The game's rules (``settings.game`` is its name)."""
        return self.settings.rules

    def fingerprint(self) -> dict[str, Any]:
        """Everything that decides the games' outcome (not concurrency or file location).

        Betsy's sizes are listed under ``n`` as numbers, as before games were plugins, so that
        existing results databases resume."""
        s = self.settings
        sizes: dict[str, Any] = s.rules.fingerprint_sizes(self.sizes)
        return {
            "name": self.name, "game": s.game, **sizes, "time": s.time,
            "allow_fractional_time": s.allow_fractional_time, "grace": s.grace,
            "max_plies": s.max_plies, "win_priority": s.win_priority, "format": self.format,
            "rounds": self.rounds,
            "openings": {"plies": self.openings_plies, "seed": self.openings_seed,
                         "file": self.openings_file,
                         "positions": {size: [f"{o.player} {o.board}" for o in ops]
                                       for size, ops in sorted(self.opening_positions.items(),
                                                               key=lambda item: _size_order(item[0]))}},
            "engines": [{"name": e.name, "command": list(e.command), "extra_args": list(e.extra_args)}
                        for e in self.engines],
        }

    def fingerprint_hash(self) -> str:
        text = json.dumps(self.fingerprint(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


_TYPE_WORDS = {
    "int_type": "a whole number", "int_parsing": "a whole number", "int_from_float": "a whole number",
    "float_type": "a number", "float_parsing": "a number", "string_type": "text",
    "bool_type": "true or false", "list_type": "a list", "dict_type": "a mapping (key: value)",
    "model_type": "a mapping (key: value)", "model_attributes_type": "a mapping (key: value)",
}


def _dotted(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


def _keys_of(model: type[pydantic.BaseModel]) -> str:
    return ", ".join(sorted(model.model_fields, key=lambda key: key != "name"))  # name first


def _model_at(loc: tuple[int | str, ...]) -> type[pydantic.BaseModel]:
    model: type[pydantic.BaseModel] = _Tournament
    for part in loc:
        if part == "engines":
            model = _Engine
        elif part == "openings":
            model = _Openings
    return model


def _describe(error: Any, model_at: Callable[[tuple[int | str, ...]], type[pydantic.BaseModel]] = _model_at) -> str:
    loc = tuple(error["loc"])
    kind = error["type"]
    got = error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "extra_forbidden":
        parent = loc[:-1]
        where = f"{_dotted(parent)}: " if parent else ""
        return f"{where}unknown key {loc[-1]!r} (valid keys: {_keys_of(model_at(parent))})"
    if kind == "missing":
        parent = loc[:-1]
        where = f"{_dotted(parent)}: " if parent else ""
        return f"{where}missing required key {loc[-1]!r}"
    if not loc and kind == "value_error":  # GameSettings' own check: "key: why"
        return str(error["msg"]).removeprefix("Value error, ")
    key = _dotted(loc)
    if loc == ("n",) and kind == "list_type":
        return f"n: expected a whole number or a list of whole numbers, got {got!r}"
    if kind == "finite_number":
        return f"{key}: expected a finite number, got {got!r}"
    if kind == "literal_error":
        return f"{key}: expected one of {ctx.get('expected')}, got {got!r}"
    if kind in ("greater_than_equal", "greater_than"):
        bound = ctx.get("ge", ctx.get("gt"))
        op = ">=" if kind == "greater_than_equal" else ">"
        return f"{key}: expected a number {op} {bound}, got {got!r}"
    if kind == "less_than_equal":
        if loc[:1] == ("n",):
            return f"{key}: board sizes from 1 to {MAX_N} are supported, got {got!r}"
        bound = ctx.get("le")
        bound = int(bound) if isinstance(bound, float) and bound.is_integer() else bound
        return f"{key}: expected a number <= {bound}, got {got!r}"
    if kind == "too_short":
        return f"{key}: expected at least {ctx.get('min_length')} entries, got {len(got or [])}"
    if kind in _TYPE_WORDS:
        return f"{key}: expected {_TYPE_WORDS[kind]}, got {got!r}"
    if kind == "union_type" or kind.endswith("_type"):
        return f"{key}: unexpected value {got!r} ({error['msg']})"
    return f"{key}: {error['msg']}, got {got!r}"


_OPTION_TYPES = ("str", "int", "float", "bool")


def describe_errors(errors: list[Any], model_at: Callable[[tuple[int | str, ...]], type[pydantic.BaseModel]] = _model_at) -> list[str]:
    """Reword pydantic's errors; an option value matching none of its allowed types is one problem."""
    problems: list[str] = []
    collapsed: set[tuple[int | str, ...]] = set()
    for error in errors:
        loc = tuple(error["loc"])
        if len(loc) >= 3 and loc[-1] in _OPTION_TYPES and loc[-3] == "options":
            if loc[:-1] not in collapsed:
                collapsed.add(loc[:-1])
                problems.append(
                    f"{_dotted(loc[:-1])}: expected text, a number or true/false, got {error.get('input')!r}"
                )
            continue
        problems.append(_describe(error, model_at))
    return problems


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key given twice in one mapping (YAML would keep the last)."""


def _construct_unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[object] = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":  # ``<<: *defaults``: merged by construct_mapping
            continue
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, (str, int, float, bool)) and key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key) if isinstance(key, (str, int, float, bool)) else None
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping
)


class _TooLarge(Exception):
    """A YAML document whose aliases expand past MAX_YAML_VALUES, nest past MAX_YAML_DEPTH, or
    refer to themselves."""


class _BoundedLoader(_UniqueKeyLoader):
    """The config's loader: a key given twice is refused, and so is a document too large once its
    aliases are expanded, checked on the composed nodes before any value is built."""

    def get_single_node(self) -> yaml.Node | None:
        node = super().get_single_node()
        if node is not None:
            _check_expansion(node)
        return node


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_expansion(root: yaml.Node) -> None:
    """Raise _TooLarge if ``root`` expands (aliases counted at each use) to more than
    MAX_YAML_VALUES values, nests deeper than MAX_YAML_DEPTH, or holds itself. Linear in the number
    of distinct nodes: each node's expanded size is counted once."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > MAX_YAML_VALUES:
                raise _TooLarge(f"it expands to more than {MAX_YAML_VALUES:,} values (an alias counts as all "
                                f"it stands for, at each use); write a smaller config, with fewer aliases")
            continue
        if key in sizes:
            continue
        if depth > MAX_YAML_DEPTH:
            raise _TooLarge(f"lists and mappings nested more than {MAX_YAML_DEPTH} deep; write a flatter config")
        open_nodes.add(key)
        stack.append((node, depth, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise _TooLarge("an alias refers to a value that holds it; write the value out")
            if id(child) not in sizes:
                stack.append((child, depth + 1, False))


def config_error(path: Path, problems: list[str]) -> ConfigError:
    if len(problems) == 1:
        return ConfigError(f"{path}: {problems[0]}")
    return ConfigError(f"{path}: {len(problems)} problems: " + "; ".join(problems))


def read_yaml(path: str | os.PathLike[str], keys: str = "name:, engines:, ...") -> tuple[Path, dict[str, Any]]:
    """A config file's mapping, read with every guard of a tournament config (size, duplicate keys,
    alias bombs, depth); raises ConfigError naming the problem. ``keys``: the keys shown as expected."""
    file = Path(path)
    if not is_text(str(file)):  # the results database records the config's path
        raise ConfigError(f"{str(file)!r}: the path is not UTF-8 text; rename the file or folder")
    text = read_bounded(file, MAX_CONFIG_BYTES, "a config")
    try:
        raw = yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"{file}: not valid YAML{where}: {problem}") from None
    except _TooLarge as error:
        raise ConfigError(f"{file}: refused: {error}") from None
    except RecursionError:
        raise ConfigError(f"{file}: refused: lists and mappings nested too deep; write a flatter config") from None
    except ValueError as error:  # a value YAML reads but Python refuses, e.g. an int of 5,000 digits
        raise ConfigError(f"{file}: a value cannot be read ({' '.join(str(error).split())[:120]})") from None
    if raw is None:
        raise ConfigError(f"{file}: the file is empty; expected a mapping of keys ({keys})")
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{file}: expected a mapping of keys ({keys}), got {type(raw).__name__}"
        )
    return file, raw


def resolve_time_scale(raw: dict[str, Any]) -> None:
    """``time_scale: auto`` becomes this machine's measured factor (harness.referee.calibrate)."""
    if isinstance(raw.get("time_scale"), str) and raw["time_scale"].strip().lower() == "auto":
        from harness.referee.calibrate import measure

        raw["time_scale"] = measure().factor


def load_config(path: str | os.PathLike[str], concurrency: int | None = None) -> TournamentConfig:
    """Read and check a tournament config; raises ConfigError naming every problem."""
    file, raw = read_yaml(path)
    resolve_time_scale(raw)
    try:
        model = _Tournament.model_validate(raw)
    except pydantic.ValidationError as error:
        # Report what else is wrong too: the name and every engine entry that parsed.
        name = raw.get("name")
        problems = _name_problems(name) if isinstance(name, str) else []
        problems += describe_errors(error.errors())
        entries = raw.get("engines")
        if isinstance(entries, list):
            parsed: list[_Engine | None] = []
            for entry in entries:
                try:
                    parsed.append(_Engine.model_validate(entry))
                except pydantic.ValidationError:
                    parsed.append(None)
            game = raw.get("game", "betsy")
            known = game if isinstance(game, str) and game in GAMES else None
            problems += _engine_specs(parsed, file.resolve().parent, known)[1]
        raise config_error(file, problems) from None
    return _resolve(model, file, concurrency)


def _name_problems(name: str) -> list[str]:
    if TOURNAMENT_NAME.fullmatch(name):
        return []
    return [f"name: expected letters, digits, '_', '.' or '-' (it names the results file), got {name!r}"]


def _engine_specs(entries: list[_Engine | None], base: Path, game: str | None = None,
                  ) -> tuple[list[EngineSpec], list[str]]:
    """Engine specs for the entries that parsed (None: already reported), and their problems (a
    built-in that does not play ``game`` among them)."""
    problems: list[str] = []
    specs: list[EngineSpec] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        if entry is None:
            continue
        key = f"engines[{index}]"
        if not ENGINE_NAME.fullmatch(entry.name):
            problems.append(
                f"{key}.name: expected letters, digits, '_', '.', '+' or '-', starting with a letter or "
                f"digit, got {entry.name!r}"
            )
        elif entry.name in seen:
            problems.append(f"{key}.name: duplicate engine name {entry.name!r} (also engines[{seen[entry.name]}])")
        seen.setdefault(entry.name, index)
        if (entry.builtin is None) == (entry.command is None):
            problems.append(f"{key}: give exactly one of builtin or command")
            continue
        try:
            if entry.builtin is not None:
                if entry.builtin not in BUILTIN:
                    problems.append(
                        f"{key}.builtin: unknown built-in engine {entry.builtin!r}; expected one of "
                        f"{', '.join(builtin_names())}"
                    )
                    continue
                option_problems = _option_problems(key, entry.builtin, entry.options)
                if option_problems:
                    problems += option_problems
                    continue
                spec = builtin_engine(entry.builtin, entry.options, entry.name)
                problem = game_problem(spec, game) if game is not None else None
                if problem is not None:
                    problems.append(f"{key}.builtin: {problem}")
                    continue
                specs.append(spec)
            else:
                if entry.options:
                    problems.append(f"{key}.options: options are for built-in engines; put them in the command")
                    continue
                assert entry.command is not None
                specs.append(command_engine(entry.command, base, entry.name))
        except EngineError as error:
            problems.append(f"{key}.{'builtin' if entry.builtin else 'command'}: {error}")
    return specs, problems


_OPTION_WORDS = {int: "a whole number", float: "a number", bool: "true or false"}


def _option_problems(key: str, builtin: str, options: Mapping[str, object]) -> list[str]:
    """A built-in's options checked against the ones it declares (harness.referee.engine_specs.BUILTIN_ENGINES)."""
    declared = BUILTIN[builtin].options if builtin in BUILTIN else {}
    problems = []
    for name, value in options.items():
        kind = declared.get(name.replace("-", "_"))
        if kind is None:
            problems.append(
                f"{key}.options.{name}: unknown option for built-in {builtin!r}; valid options: "
                f"{', '.join(declared) or 'none'}"
            )
        elif not (isinstance(value, bool) if kind is bool else
                  isinstance(value, (int, float)) and not isinstance(value, bool)
                  and (kind is float or isinstance(value, int))):
            problems.append(f"{key}.options.{name}: expected {_OPTION_WORDS[kind]}, got {value!r}")
        elif kind is float and isinstance(value, (int, float)) and not math.isfinite(value):
            problems.append(f"{key}.options.{name}: expected a finite number, got {value!r}")
    return problems


def _resolve(model: _Tournament, file: Path, concurrency: int | None) -> TournamentConfig:
    base = file.resolve().parent
    problems = _name_problems(model.name)
    rules = model.rules
    sizes, size_problems = _sizes(model, rules)
    problems += size_problems
    specs, engine_problems = _engine_specs(list(model.engines), base, rules.name)
    problems += engine_problems
    if not engine_problems:  # every entry gave a spec: their indexes are the entries'
        problems += [f"engines[{index}].command: {problem}" for index, problem in layout_problems(specs)]
    cluster: ClusterAddress | None = None
    if model.cluster is not None:
        try:
            cluster = parse_cluster(model.cluster)
        except ValueError as error:
            problems.append(f"cluster: {error}")
    cluster_certs = None if model.cluster_certs is None else str((base / model.cluster_certs).resolve())
    openings_file: str | None = None
    positions: dict[str, tuple[Opening, ...]] = {}
    if model.openings.file is not None:
        opening_path = (base / model.openings.file).resolve()
        openings_file = str(opening_path)
        try:
            positions = read_openings(opening_path, rules)
        except ConfigError as error:
            problems.append(f"openings.file: {error}")
        else:
            missing = [size for size in sizes if size not in positions]
            if missing:
                problems.append(
                    f"openings.file: no opening for {rules.size_key} = {', '.join(missing)} in {opening_path}"
                )
    if problems:
        raise config_error(file, problems)
    settings = model.game_settings()
    return TournamentConfig(
        name=model.name,
        settings=settings,
        sizes=sizes,
        format=model.format,
        rounds=model.rounds,
        openings_plies=model.openings.plies,
        openings_seed=model.openings.seed,
        openings_file=openings_file,
        concurrency=concurrency or model.concurrency or usable_cores(),
        engines=tuple(specs),
        path=str(file),
        sandbox=SandboxMode(model.sandbox),
        max_file_mb=model.max_file_mb,
        max_processes=model.max_processes,
        opening_positions=positions,
        cluster=cluster,
        cluster_certs=cluster_certs,
        replay_stalls=model.replay_stalls,
    )


def _sizes(model: _Tournament, rules: Game) -> tuple[tuple[str, ...], list[str]]:
    """The board sizes from ``size:`` (any game) or ``n:`` (Betsy's name for it); default: the
    game's default size."""
    sizes, problems = parse_sizes(model.n, model.size, rules)
    return (sizes or (() if problems else (rules.default_size,))), problems


def parse_sizes(n: list[int] | None, size: list[str | int] | None, rules: Game,
                prefix: str = "") -> tuple[tuple[str, ...], list[str]]:
    """Sizes given as ``n:`` (Betsy's name for them) or ``size:`` (any game), each checked, duplicates
    dropped (empty when neither is given), and the problems, their keys after ``prefix``."""
    if n is not None and size is not None:
        where = f"{prefix}size: " if prefix else ""
        return (), [f"{where}give the board sizes once, as size: or n: (not both)"]
    if n is not None and rules.size_key != "n":
        return (), [f"{prefix}n: a Betsy key; give {rules.title} sizes as size: (e.g. size: {rules.default_size})"]
    values: list[str | int] = list(n or size or [])
    sizes: list[str] = []
    problems: list[str] = []
    for index, value in enumerate(values):
        try:
            sizes.append(rules.parse_size(str(value)))
        except PositionError as error:
            key = prefix + ("size" if n is None else "n")
            problems.append(f"{key}[{index}]: {error}" if len(values) > 1 else f"{key}: {error}")
    return tuple(dict.fromkeys(sizes)), problems


def read_openings(path: Path, rules: Game) -> dict[str, tuple[Opening, ...]]:
    """Start positions of ``rules``' game, one per line as ``SIZE PLAYER BOARD`` (``#`` starts a comment)."""
    lines = read_bounded(path, MAX_OPENINGS_BYTES, "an openings").splitlines()
    found: dict[str, list[Opening]] = {}
    # A problem is said with the line's number, never its text: the file may not be an openings file.
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        if len(parts) != 3:
            raise ConfigError(f"{path} line {number}: expected '{rules.size_metavar} PLAYER BOARD', "
                              f"got {len(parts)} word{'s' if len(parts) != 1 else ''}")
        try:
            position = rules.position(parts[0], parts[1], parts[2])
        except PositionError as error:
            raise ConfigError(f"{path} line {number}: {without_values(str(error))}") from None
        if position.winner() is not None or rules.end_reason(position) is not None:
            raise ConfigError(f"{path} line {number}: the game is already over in this position")
        found.setdefault(position.size_text, []).append(Opening(position.board(), position.player))
    if not found:
        raise ConfigError(f"{path} holds no positions")
    return {size: tuple(openings) for size, openings in found.items()}


__all__ = ["TournamentConfig", "Opening", "load_config", "read_openings", "MAX_PLIES"]
