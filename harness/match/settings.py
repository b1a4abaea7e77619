"""The settings of a game -- which game, the clock, the ply limit, rule options -- as one frozen,
checked object.

``GameSettings`` is the only place these values are validated. A tournament config's keys of the
same names and the CLI flags (``--game``, ``--time``, ``--allow-fractional-time``, ``--grace``,
``--max-plies``, ``--win-priority``) both become a ``GameSettings``; from there it goes unchanged
down to the match loop and, as one ``Clock`` (made here, once), to the referee.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import pydantic

from harness.errors import UsageError
from harness.games.registry import GAME_NAMES, Game, RuleOptions, get_game
from harness.referee.protocol import MAX_GRACE, MAX_SECONDS, Clock

MAX_PLIES = 10_000
"""The largest ply limit accepted (config ``max_plies``, ``--max-plies``)."""

GameName = Literal["betsy", "connect4", "kings-horses"]
WinPriority = Literal["mover", "blue"]

assert set(GameName.__args__) == set(GAME_NAMES), "GameName must list every registered game"  # type: ignore[attr-defined]


class GameSettings(pydantic.BaseModel):
    """Which game and how it is played; immutable once checked."""

    model_config = pydantic.ConfigDict(extra="forbid", strict=True, frozen=True)

    game: GameName = "betsy"
    """The game's name (harness.games.registry)."""
    time: float = pydantic.Field(1.0, gt=0, le=MAX_SECONDS, allow_inf_nan=False)
    """Seconds per move, the protocol's SECONDS."""
    allow_fractional_time: bool = False
    """Whether ``time`` may have a fraction (many programs read SECONDS with int())."""
    grace: float = pydantic.Field(0.5, ge=0, le=MAX_GRACE, allow_inf_nan=False)
    """Seconds past the limit allowed for start-up and exit."""
    max_plies: int = pydantic.Field(200, ge=1, le=MAX_PLIES)
    """A game still going after this many plies is a draw."""
    win_priority: WinPriority = "mover"
    """Betsy: whose lines count first when one move completes lines of both colours."""
    time_scale: float = pydantic.Field(1.0, ge=0.1, le=10, allow_inf_nan=False)
    """Every time limit (and the grace) is multiplied by this: a machine's speed against the reference
    (harness.referee.calibrate; ``auto`` in a config or on a command line measures it). Not part of
    what decides a tournament's games (its fingerprint): how fast the machine is, not the rules."""
    _clock: Clock = pydantic.PrivateAttr()

    @pydantic.model_validator(mode="after")
    def _consistent(self) -> GameSettings:
        try:  # the fields' bounds are checked by now: only a fraction can be refused here
            self._clock = Clock(self.time, self.grace, self.allow_fractional_time, self.time_scale)
        except ValueError:
            raise ValueError(
                f"time: expected a whole number of seconds (or set allow_fractional_time: true), got {self.time!r}"
            ) from None
        if self.win_priority not in get_game(self.game).win_priorities:
            raise ValueError(f"win_priority: a Betsy rule, {self.game} has no such option")
        return self

    def game_settings(self) -> GameSettings:
        """These settings alone, as checked: a subclass's (a tournament config's model) without its
        other keys, and without checking them again."""
        if type(self) is GameSettings:
            return self
        alone = GameSettings.model_construct(**{key: getattr(self, key) for key in GameSettings.model_fields})
        alone._clock = self._clock
        return alone

    @property
    def clock(self) -> Clock:
        """The referee's clock for every move of these settings, made once when they were checked."""
        return self._clock

    @property
    def rules(self) -> Game:
        """The game's rules (harness.games.registry.Game)."""
        return get_game(self.game)

    @property
    def options(self) -> RuleOptions:
        """The rule options for positions of this game."""
        return RuleOptions(self.win_priority)


_FLAGS = {
    "game": "--game", "time": "--time", "allow_fractional_time": "--allow-fractional-time",
    "grace": "--grace", "max_plies": "--max-plies", "win_priority": "--win-priority", "time_scale": "--time-scale",
}


def settings_from_flags(values: Mapping[str, object]) -> GameSettings:
    """``GameSettings`` from command-line values; a bad value is a UsageError naming its flag."""
    try:
        return GameSettings.model_validate(dict(values))
    except pydantic.ValidationError as error:
        raise UsageError(flag_problem(error.errors()[0], values)) from None


def flag_problem(error: Any, values: Mapping[str, object]) -> str:
    """One pydantic error of a GameSettings made from flags, in the CLI's words."""
    loc = tuple(error.get("loc") or ())
    message = str(error.get("msg", "")).removeprefix("Value error, ")
    if not loc:  # the model validator: "key: why"
        key, _, why = message.partition(": ")
        flag = _FLAGS.get(key, key)
        why = why.split(", got ")[0].replace("(or set allow_fractional_time: true)",
                                             "(or give --allow-fractional-time)")
        return f"invalid {flag} {values.get(key)!r}: {why}"
    key = str(loc[0])
    flag = _FLAGS.get(key, key)
    value = values.get(key)
    ctx = error.get("ctx") or {}
    kind = error.get("type", "")
    shown = f"{value:g}" if isinstance(value, float) else repr(value) if isinstance(value, str) else str(value)
    if kind == "literal_error":
        return f"invalid {flag} {shown}: use {str(ctx.get('expected')).replace(chr(39), '')}"
    if key == "time" and kind == "less_than_equal":
        return f"invalid {flag} {shown}: over the maximum of {MAX_SECONDS} s per move"
    if kind == "finite_number" and key in _BOUNDS:
        return f"invalid {flag} {shown}: {_BOUNDS[key]}"
    if kind in ("greater_than", "greater_than_equal", "less_than_equal"):
        if key in _BOUNDS:
            return f"invalid {flag} {shown}: {_BOUNDS[key]}"
    return f"invalid {flag} {shown}: {message}"


_BOUNDS = {
    "time": f"give a positive number of seconds (at most {MAX_SECONDS})",
    "grace": f"give a number of seconds from 0 to {MAX_GRACE}",
    "max_plies": f"give a number of moves from 1 to {MAX_PLIES}",
}


def scaled(settings: GameSettings, time_scale: float) -> GameSettings:
    """``settings`` with this time scale, checked (a copy would keep the old clock)."""
    values = {key: getattr(settings, key) for key in GameSettings.model_fields}
    return GameSettings(**{**values, "time_scale": time_scale})


def parse_time_scale(text: str, where: str = "--time-scale") -> float:
    """``auto`` (measured here: harness.referee.calibrate) or a number from 0.1 to 10; UsageError otherwise."""
    from harness.referee.calibrate import HIGHEST, LOWEST, measure

    if text.strip().lower() == "auto":
        return measure().factor
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not LOWEST <= value <= HIGHEST:
        raise UsageError(f"invalid {where} {text!r}: give auto, or a number from {LOWEST:g} to {HIGHEST:g}")
    return value
