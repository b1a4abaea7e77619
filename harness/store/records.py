"""Game records from plain data, every field's type checked: the one door from an exported line, a
stored row or a share's row into a GameRecord.

JSON and SQLite both hand over values of any type (SQLite keeps text in a number's column), so
nothing here converts: a number must be a number (never true or false), text must be text, a list
a list. Each problem raises RecordRefused naming the field's path (``moves[3].seconds``) and what
was found, shortened, with control characters escaped. What the values mean (a legal move, a true
result) is harness.match.verify's to judge.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from harness.games.errors import PositionError
from harness.games.registry import GAMES, PLAYERS, RuleOptions
from harness.match.match import Fault, GameRecord, MoveRecord, Termination
from harness.referee.protocol import MAX_GRACE, MAX_SECONDS, CallWarning, Verdict, WarningKind
from harness.referee.referee import Capsule
from harness.match.settings import MAX_PLIES
from harness.text import name_problem
from harness.match.verify import RESULTS, RecordRefused, shown

MAX_WHOLE = (1 << 63) - 1
"""The largest whole number SQLite stores."""
RECORD_KEYS = ("x", "o", "game", "size", "time", "start_board", "start_player", "max_plies", "win_priority",
               "moves", "result", "winner", "termination", "reason", "fault", "time_scale")
"""A GameRecord's fields, as ``to_json`` writes them (which adds ``plies``, and ``n`` for Betsy);
``time_scale`` may be missing (a record written before it was kept: 1)."""
MOVE_KEYS = ("ply", "player", "engine", "move", "board", "verdict", "seconds", "warnings", "detail")
FAULT_KEYS = ("engine", "player", "verdict", "detail", "exit_status", "stdout_tail", "stderr_tail", "argv", "capsule")
"""A fault's keys; ``capsule`` may be missing (games recorded before capsules were kept)."""
CAPSULE_KEYS = tuple(field.name for field in dataclasses.fields(Capsule))
_HUGE = 1 << 31
"""Bounds beyond this are SQLite's, not worth naming in a message."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def is_name(value: object) -> bool:
    """Whether ``value`` can name an engine or a tournament: the rule of harness.text.name_problem
    (not empty, every character printable), in one call for the per-move path."""
    return isinstance(value, str) and value != "" and value.isprintable()


class Fields:
    """Typed reads of one object's keys; a problem is RecordRefused naming the key's path."""

    def __init__(self, data: object, path: str = "", *, names: bool = True) -> None:
        if not isinstance(data, Mapping):
            raise RecordRefused(f"{path or 'the line'}: expected an object, got {shown(data)}")
        self.data: Mapping[str, Any] = data
        self.path = path
        self.names = names
        """Whether names must be printable (what comes in); a stored name need only be text, and
        is shown safely wherever it goes."""

    def where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def refuse(self, key: str, expected: str, value: object) -> RecordRefused:
        return RecordRefused(f"{self.where(key)}: expected {expected}, got {shown(value)}")

    def only(self, keys: Sequence[str]) -> None:
        """Refuse a key that is not one of ``keys``."""
        for key in self.data:
            if key not in keys:
                where = f"{self.path}: " if self.path else ""
                raise RecordRefused(f"{where}unknown key {shown(key)} (the keys are {', '.join(keys)})")

    def get(self, key: str) -> Any:
        if key not in self.data:
            where = f"{self.path}: " if self.path else ""
            raise RecordRefused(f"{where}missing key {key!r}")
        return self.data[key]

    def text(self, key: str, value: Any = None, *, given: bool = False) -> str:
        found = value if given else self.get(key)
        if not isinstance(found, str):
            raise self.refuse(key, "text", found)
        if _SURROGATE.search(found):
            raise RecordRefused(f"{self.where(key)}: not Unicode text (a lone surrogate)")
        return found

    def optional_text(self, key: str) -> str | None:
        found = self.get(key)
        return None if found is None else self.text(key, found, given=True)

    def name(self, key: str) -> str:
        if not self.names:
            return self.text(key)
        found = self.get(key)
        if not isinstance(found, str):
            raise self.refuse(key, "a name (text)", found)
        problem = name_problem(found)
        if problem is not None:
            raise RecordRefused(f"{self.where(key)} {shown(found)}: {problem}")
        return found

    def choice(self, key: str, choices: Sequence[str | None]) -> Any:
        found = self.get(key)
        if found not in choices or (found is not None and not isinstance(found, str)):
            words = ", ".join("null" if choice is None else choice for choice in choices)
            raise self.refuse(key, f"one of {words}", found)
        return found

    def whole(self, key: str, low: int = 0, high: int = MAX_WHOLE) -> int:
        found = self.get(key)
        if not isinstance(found, int) or isinstance(found, bool) or not low <= found <= high:
            span = (f" from {low}" if low > -_HUGE else "") + (f" to {high}" if high < _HUGE else "")
            raise self.refuse(key, f"a whole number{span}", found)
        return found

    def optional_whole(self, key: str, low: int, high: int) -> int | None:
        return None if self.get(key) is None else self.whole(key, low, high)

    def number(self, key: str, low: float, high: float, *, above: bool = False) -> float:
        found = self.get(key)
        if (not isinstance(found, (int, float)) or isinstance(found, bool) or not math.isfinite(found)
                or not low <= found <= high or (above and found == low)):
            span = f"above {low:g}" if above else f"from {low:g}"
            raise self.refuse(key, f"a number {span} to {high:g}", found)
        return float(found)

    def items(self, key: str) -> list[Any]:
        found = self.get(key)
        if not isinstance(found, list):
            raise self.refuse(key, "a list", found)
        return found

    def texts(self, key: str) -> tuple[str, ...]:
        found = self.items(key)
        return tuple(self.text(f"{key}[{index}]", item, given=True) for index, item in enumerate(found))

    def object(self, key: str) -> Fields:
        return Fields(self.get(key), self.where(key), names=self.names)


def record_from_data(data: object, extra: Sequence[str] = (), *, names: bool = True) -> GameRecord:
    """A GameRecord from its JSON form (``GameRecord.to_json``), every field's type checked; keys
    other than the record's, ``plies``, ``n`` and ``extra`` are refused. RecordRefused otherwise.
    ``names=False`` (a record read back from the store) takes any text for a name."""
    fields = Fields(data, names=names)
    fields.only((*RECORD_KEYS, "plies", "n", *extra))
    game = fields.choice("game", _GAME_CHOICES)
    moves = [move_from_data(item, f"moves[{index}]", names) for index, item in enumerate(fields.items("moves"))]
    if "plies" in fields.data and fields.whole("plies") != len(moves):
        raise RecordRefused(f"plies: {shown(fields.data['plies'])}, but {len(moves)} moves are recorded")
    size = fields.text("size")
    if "n" in fields.data and fields.whole("n") != GAMES[game].legacy_n(size):
        raise RecordRefused(f"n: {shown(fields.data['n'])}, but size is {shown(size)}")
    fault_data = fields.get("fault")
    termination = fields.choice("termination", (*(t.value for t in Termination), None))
    return GameRecord(
        fields.name("x"), fields.name("o"), game, size, fields.number("time", 0, MAX_SECONDS, above=True),
        fields.text("start_board"), fields.choice("start_player", tuple(PLAYERS)),
        fields.whole("max_plies", 1, MAX_PLIES), fields.choice("win_priority", ("mover", "blue")), moves,
        fields.choice("result", tuple(RESULTS.values())), fields.choice("winner", (*PLAYERS, None)),
        None if termination is None else Termination(termination), fields.text("reason"),
        None if fault_data is None else fault_from_data(fault_data, "fault", names),
        1.0 if fields.get("time_scale") is None else fields.number("time_scale", 0.1, 10))


_GAME_CHOICES = tuple(GAMES)
_MOVE_KEY_SET = frozenset(MOVE_KEYS)
_PLAYER_CHOICES = tuple(PLAYERS)
_VERDICTS = {verdict.value: verdict for verdict in Verdict}


def move_from_data(data: object, path: str, names: bool = True) -> MoveRecord:
    """One move of a record from its JSON form (see ``record_from_data``)."""
    if type(data) is dict and data.keys() == _MOVE_KEY_SET:  # the common case in one test, no message built
        ply, player, engine, move, board, verdict, seconds, warnings, detail = (data[key] for key in MOVE_KEYS)
        if (type(ply) is int and 1 <= ply <= MAX_WHOLE and player in _PLAYER_CHOICES and type(engine) is str
                and (is_name(engine) or not names and not _SURROGATE.search(engine))
                and (move is None or type(move) is int and -MAX_WHOLE <= move <= MAX_WHOLE)
                and (board is None or type(board) is str and not _SURROGATE.search(board))
                and type(verdict) is str and verdict in _VERDICTS and type(seconds) in (int, float)
                and 0 <= seconds <= 10 * MAX_SECONDS and warnings == [] and type(warnings) is list
                and type(detail) is str and not _SURROGATE.search(detail)):
            return MoveRecord(ply, player, engine, move, board, _VERDICTS[verdict], float(seconds), (), detail)
    fields = Fields(data, path, names=names)
    fields.only(MOVE_KEYS)
    warnings = tuple(warning_from_data(item, f"{path}.warnings[{index}]")
                     for index, item in enumerate(fields.items("warnings")))
    return MoveRecord(
        fields.whole("ply", 1), fields.choice("player", tuple(PLAYERS)), fields.name("engine"),
        fields.optional_whole("move", -MAX_WHOLE, MAX_WHOLE), fields.optional_text("board"),
        Verdict(fields.choice("verdict", tuple(_VERDICTS))),
        fields.number("seconds", 0, 10 * MAX_SECONDS), warnings, fields.text("detail"))


def warning_from_data(data: object, path: str) -> CallWarning:
    fields = Fields(data, path)
    fields.only(("kind", "text"))
    return CallWarning(WarningKind(fields.choice("kind", tuple(k.value for k in WarningKind))), fields.text("text"))


def fault_from_data(data: object, path: str, names: bool = True) -> Fault:
    """A forfeit's evidence from its JSON form (``GameRecord.to_json()["fault"]``)."""
    fields = Fields(data, path, names=names)
    fields.only(FAULT_KEYS)
    return Fault(
        fields.name("engine"), fields.choice("player", tuple(PLAYERS)),
        Verdict(fields.choice("verdict", tuple(v.value for v in Verdict if v is not Verdict.OK))),
        fields.text("detail"), fields.optional_whole("exit_status", -(1 << 31), 1 << 31),
        fields.texts("stdout_tail"), fields.text("stderr_tail"), fields.texts("argv"),
        capsule_from_data(fields.data["capsule"], fields.where("capsule"))
        if fields.data.get("capsule") is not None else None)


def capsule_from_data(data: object, path: str, nested: bool = True) -> Capsule:
    """A fault's capsule from its JSON form (``dataclasses.asdict`` of a Capsule), every field checked."""
    fields = Fields(data, path)
    fields.only(CAPSULE_KEYS)
    argv = fields.texts("argv")
    first = fields.get("first_attempt")
    if first is not None and not nested:
        raise RecordRefused(f"{fields.where('first_attempt')}: a replay's first attempt has no first attempt")

    def optional_number(key: str, high: float) -> float | None:
        return None if fields.get(key) is None else fields.number(key, 0, high)

    return Capsule(
        argv, fields.whole("command_length", 1, len(argv)), fields.texts("spawn_argv"),
        fields.choice("game", _GAME_CHOICES), fields.text("size"), fields.choice("player", tuple(PLAYERS)),
        fields.text("board"), fields.optional_text("program"), fields.optional_text("sha256"),
        fields.number("seconds", 0, MAX_SECONDS, above=True), fields.number("grace", 0, MAX_GRACE),
        _bool(fields, "allow_fractional"),
        _bool(fields, "sandbox"), fields.whole("stdout_bytes"), fields.whole("stderr_bytes"),
        fields.optional_whole("address_space", 0, MAX_WHOLE), fields.whole("file_bytes"), fields.whole("processes"),
        fields.whole("cpu_limit"), Verdict(fields.choice("verdict", tuple(v.value for v in Verdict if v is not Verdict.OK))),
        fields.text("detail"), fields.optional_whole("exit_status", -(1 << 31), 1 << 31), _bool(fields, "killed"),
        fields.number("wall_seconds", 0, 10 * MAX_SECONDS), optional_number("cpu_seconds", 1e9),
        fields.optional_whole("peak_memory", 0, MAX_WHOLE), fields.optional_whole("run_queue", 0, MAX_WHOLE),
        fields.optional_whole("cores", 1, MAX_WHOLE), fields.text("stall"),
        None if first is None else capsule_from_data(first, fields.where("first_attempt"), nested=False),
        time_scale=1.0 if fields.get("time_scale") is None else fields.number("time_scale", 0.1, 10),
        run_delay=optional_number("run_delay", 1e9), waited=optional_number("waited", 1e9))


def _bool(fields: Fields, key: str) -> bool:
    found = fields.get(key)
    if not isinstance(found, bool):
        raise fields.refuse(key, "true or false", found)
    return found


def check_replayable(record: GameRecord) -> None:
    """Refuse (RecordRefused) a record whose start is not a position or whose moves up to its first
    forfeit are not legal: what a replay of it needs, not a judgement of its result."""
    rules = GAMES[record.game]
    try:
        position = rules.position(record.size, record.start_player, record.start_board, RuleOptions(record.win_priority))
    except PositionError as error:
        raise RecordRefused(f"start position: {error}") from None
    for move in record.moves:
        if move.verdict is not Verdict.OK or move.move is None:
            return
        if not position.is_legal(move.move):
            raise RecordRefused(f"ply {move.ply}: move {move.move} is not legal")
        position.push(move.move)
