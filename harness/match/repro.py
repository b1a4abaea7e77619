"""One stored engine call, run again exactly: ``arena repro``.

A fault's capsule (harness.referee.referee.Capsule) holds the call whole: the argv, the position, the
clock, the limits and the program's SHA-256. Any other ply of a stored game is rebuilt from the
record (the position before it) and its tournament's engine (command and extra arguments), under
the game's own clock and, where the game kept a capsule, its limits. A call runs again only with the
program file as it was: a changed hash is refused.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from harness.errors import HarnessError
from harness.games.registry import GAMES, RuleOptions
from harness.match.match import GameRecord
from harness.referee.engine_specs import EngineSpec
from harness.referee.programs import file_sha256, program_file
from harness.referee.protocol import Clock, Verdict, engine_argv
from harness.referee.referee import CallResult, Capsule, Limits, resolve_interpreter, run_call

PLACEHOLDERS = ("N", "PLAYER", "BOARD", "SECONDS")
"""Where the protocol's arguments stand in an engine's stored command (EngineSpec.display_command)."""


class ReproError(HarnessError):
    """A stored call that cannot be run again as it was (no such ply, a changed program, ...)."""


@dataclass(frozen=True)
class StoredEngine:
    """An engine as its tournament stored it."""

    name: str
    command: str
    """``EngineSpec.display_command``: the command, ``N PLAYER BOARD SECONDS``, extra arguments."""
    program: str | None
    sha256: str | None
    """The SHA-256 of ``program`` when the tournament started."""


@dataclass(frozen=True)
class Then:
    """What the call did when the game was played."""

    verdict: Verdict
    detail: str
    move: int | None
    exit_status: int | None
    """Exit code, negative for a signal; None when not recorded (a call that answered keeps none)."""
    killed: bool
    cpu_seconds: float | None
    peak_memory: int | None
    wall_seconds: float
    stall: str
    stdout_tail: tuple[str, ...]
    stderr_tail: str
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class StoredCall:
    """A stored call ready to run again: the call (as a capsule) and what it did then."""

    ply: int
    engine: str
    fault: bool
    """Whether the game was lost at this call."""
    call: Capsule
    then: Then
    limits_recorded: bool
    """Whether the limits are the game's own (from its capsule) or the referee's defaults."""
    win_priority: str = "mover"

    def problem_with_program(self) -> str | None:
        """Why the program cannot be run as it was (its file changed or is gone), or None."""
        was = self.call.sha256
        if was is None:
            return None
        now = file_sha256(self.call.program)
        if now is None:
            return (f"the program {self.call.program} is gone since the game (SHA-256 {was[:12]}... then); "
                    f"repro needs the program as it was")
        if now != was:
            return (f"the program changed since the game: SHA-256 {was[:12]}... then, {now[:12]}... now; "
                    f"repro needs the program as it was")
        return None


def stored_call(record: GameRecord, game: str, ply: int | None, engines: Mapping[str, StoredEngine],
                grace: float = 0.5, allow_fractional: bool = False) -> StoredCall:
    """The call of ``ply`` (default: the fault's) of the stored game ``record`` (called ``game`` in
    messages); ReproError when there is no such call. ``grace`` and ``allow_fractional``: the game's
    clock beside its time, from its tournament's config (a capsule holds its own)."""
    fault = record.fault
    fault_ply = record.plies if fault is not None else None
    if ply is None:
        if fault_ply is None:
            raise ReproError(f"game {game} has no fault (it ended: {record.reason}); give --ply N to run one of its "
                             f"calls again")
        ply = fault_ply
    if not 1 <= ply <= record.plies:
        raise ReproError(f"game {game} has no ply {ply}; give --ply 1 to {record.plies}")
    move = record.moves[ply - 1]
    capsule = fault.capsule if fault is not None else None
    if ply == fault_ply and fault is not None and capsule is not None:
        then = Then(fault.verdict, fault.detail, None, fault.exit_status, capsule.killed, capsule.cpu_seconds,
                    capsule.peak_memory,
                    capsule.wall_seconds, capsule.stall, fault.stdout_tail, fault.stderr_tail,
                    tuple(move.warnings))
        return StoredCall(ply, move.engine, True, capsule, then, True, record.win_priority)
    call = _rebuilt(record, game, ply, engines, capsule, Clock(record.time, grace, allow_fractional))
    if ply == fault_ply and fault is not None:  # a fault recorded before capsules were kept
        then = Then(fault.verdict, fault.detail, None, fault.exit_status, fault.verdict is Verdict.TIME, None, None,
                    move.seconds, "",
                    fault.stdout_tail, fault.stderr_tail, tuple(move.warnings))
        return StoredCall(ply, move.engine, True, replace(call, verdict=fault.verdict, detail=fault.detail), then,
                          False, record.win_priority)
    then = Then(move.verdict, move.detail, move.move, None, False, None, None, move.seconds, "", (), "",
                tuple(move.warnings))
    return StoredCall(ply, move.engine, False, call, then, capsule is not None, record.win_priority)


def _rebuilt(record: GameRecord, game: str, ply: int, engines: Mapping[str, StoredEngine],
             capsule: Capsule | None, clock: Clock) -> Capsule:
    """The call of ``ply`` from the record and its engine's stored command."""
    move = record.moves[ply - 1]
    stored = engines.get(move.engine)
    if stored is None:
        raise ReproError(f"game {game}: its tournament lists no engine {move.engine!r}, so ply {ply} cannot be run again")
    command, extra = split_command(stored.command)
    if not command:
        raise ReproError(f"game {game}: the engine {move.engine!r} has no command to run ({stored.command!r})")
    rules = GAMES[record.game]
    position = rules.position(record.size, record.start_player, record.start_board, RuleOptions(record.win_priority))
    for earlier in record.moves[:ply - 1]:
        assert earlier.move is not None  # a stored game's moves before its last are legal (check_replayable)
        position.push(earlier.move)
    if capsule is not None:
        clock, limits, cpu_limit = capsule.clock(), capsule.limits(), capsule.cpu_limit
    else:
        limits, cpu_limit = Limits(), 0
    spec = EngineSpec(move.engine, command, stored.program, extra)
    argv = tuple(resolve_interpreter(engine_argv(spec.command, position, clock, spec.extra_args)))
    program = program_file(argv[:len(command)])
    return Capsule(
        argv, len(command), argv, record.game, position.size_text, position.player, position.board(),
        program, stored.sha256 if program == stored.program else file_sha256(program),
        clock.seconds, clock.grace, clock.allow_fractional, limits.sandbox, limits.stdout_bytes, limits.stderr_bytes,
        limits.address_space, limits.file_bytes, limits.processes, cpu_limit, move.verdict, move.detail, None,
        False, move.seconds, None, None, None, None, "", time_scale=clock.scale)


def split_command(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """An engine's stored command split around ``N PLAYER BOARD SECONDS``: (command, extra arguments)."""
    try:
        words = shlex.split(text)
    except ValueError:
        return (), ()
    for index in range(len(words) - len(PLACEHOLDERS) + 1):
        if tuple(words[index:index + len(PLACEHOLDERS)]) == PLACEHOLDERS:
            return tuple(words[:index]), tuple(words[index + len(PLACEHOLDERS):])
    return (), ()


def engines_of(rows: Sequence[Mapping[str, Any]]) -> dict[str, StoredEngine]:
    """A tournament's engines (``Store.engines_of``) by name."""
    return {row["name"]: StoredEngine(row["name"], row["command"], row["program"], row["sha256"]) for row in rows}


def run_again(call: StoredCall, limits: Limits) -> CallResult:
    """Run the stored call again, exactly: its argv, position, clock and ``limits`` (the call's own,
    with the sandbox as this machine resolves it); ReproError if the program is not the same file."""
    problem = call.problem_with_program()
    if problem is not None:
        raise ReproError(problem)
    capsule = call.call
    rules = GAMES[capsule.game]
    position = rules.position(capsule.size, capsule.player, capsule.board, RuleOptions(call.win_priority))
    sent = tuple(rules.argv(position, capsule.clock().seconds_text))
    if capsule.argv[capsule.command_length:capsule.command_length + len(sent)] != sent:
        raise ReproError(f"the stored argv does not send the stored position ({' '.join(sent)}); the record is "
                         f"damaged, restore it from a copy")
    return run_call(list(capsule.argv), position, capsule.clock(), limits, capsule.command_length)
