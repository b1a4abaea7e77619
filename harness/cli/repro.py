"""``arena repro DB GAME [--ply N]``: run a stored engine call again and show then beside now."""

from __future__ import annotations

import dataclasses
import shlex
import signal
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from harness.cli.console import echo
from harness.cli.options import ResultsArgument
from harness.cli.results import open_results, reading, stored_game
from harness.errors import UsageError
from harness.text import cut_note, excerpt, size_text

if TYPE_CHECKING:
    from harness.referee.protocol import Verdict
    from harness.referee.referee import Capsule


def repro_command(
    db: ResultsArgument,
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="The game's number (from arena games) or its key.")],
    ply: Annotated[Optional[int], typer.Option(
        "--ply", min=1, help="The ply to run again (default: the fault's); a ply that answered is run again too, "
                             "from the position before it.")] = None,
) -> None:
    """Run a stored engine call again (same argv, position, limits, time) and show what it did then and now.

    Refused when the program's file changed since the game, or the game has no fault and no --ply."""
    from harness.match.repro import engines_of, run_again, stored_call
    from harness.referee.protocol import Verdict

    with reading(db), open_results(db) as store:
        found, row, record = stored_game(store, db, game_id)
        engines = engines_of(store.engines_of(row.tournament))
        config = store.tournament_info(row.tournament)["config"]
    grace = config.get("grace", 0.5)
    fractional = config.get("allow_fractional_time", False)
    call = stored_call(record, str(found), ply, engines,
                       grace if isinstance(grace, (int, float)) and not isinstance(grace, bool) else 0.5,
                       fractional if isinstance(fractional, bool) else False)
    problem = call.problem_with_program()
    if problem is not None:
        raise UsageError(problem)
    capsule = call.call
    limits = capsule.limits()
    if capsule.sandbox or not call.limits_recorded:
        from harness.cli.options import use_sandbox
        from harness.referee.sandbox import SandboxMode

        # The sandbox the call had: required when it had one; when unrecorded, as auto would choose.
        limits = dataclasses.replace(limits, sandbox=use_sandbox(
            SandboxMode.REQUIRED if capsule.sandbox else SandboxMode.AUTO))
    heading = (f"game {found} ({row.key}), ply {call.ply}: {capsule.player} ({call.engine}) to move in "
               f"{capsule.game} {capsule.size} {capsule.board}")
    echo(heading)
    sha = f"SHA-256 {capsule.sha256[:12]}... (unchanged)" if capsule.sha256 else "no file to hash"
    echo(f"program: {capsule.program or '(a command on PATH)'}, {sha}")
    echo(f"argv: {shlex.join(capsule.argv)}")
    if capsule.spawn_argv != capsule.argv:
        echo(f"as run: {shlex.join(capsule.spawn_argv)}")
    echo(f"limits: {_limits_text(capsule, limits.sandbox)}"
         + ("" if call.limits_recorded else " (the game kept none: the referee's defaults)"))
    echo("running it again ...")
    now = run_again(call, limits)
    then = call.then
    rows = [
        ("verdict", then.verdict.value + (f" {then.move}" if then.move is not None else ""),
         now.verdict.value + (f" {now.move}" if now.ok and now.move is not None else "")),
        ("exit", _exit_text(then.exit_status, then.killed) if call.fault else "not recorded",
         _exit_text(now.exit_status, now.killed)),
        ("cpu", _seconds(then.cpu_seconds), _seconds(now.cpu_seconds)),
        ("memory", _bytes(then.peak_memory), _bytes(now.peak_memory)),
        ("wall", _seconds(then.wall_seconds), _seconds(now.seconds)),
    ]
    if Verdict.TIME in (then.verdict, now.verdict):
        rows.append(("time fault", _cause(then.verdict, then.stall, then.cpu_seconds, capsule.seconds),
                     _cause(now.verdict, now.stall, now.cpu_seconds, capsule.seconds)))
    width = max(len(then_text) for _, then_text, _ in rows) + 2
    echo()
    echo(f"{'':<11}{'then':<{width}}now")
    for label, then_text, now_text in rows:
        echo(f"{label:<11}{then_text:<{width}}{now_text}")
    echo()
    echo(f"detail then: {then.detail or '-'}")
    echo(f"detail now:  {now.detail or '-'}")
    for when, stdout_tail, stderr_tail, warnings in (
            ("then", then.stdout_tail, then.stderr_tail, then.warnings),
            ("now", now.stdout_tail, now.stderr_tail, tuple(now.warnings))):
        if when == "then" and not call.fault:
            continue  # a call that answered keeps no output
        for line in _evidence(when, stdout_tail, stderr_tail):
            echo(line)
        for warning in warnings:
            echo(f"{when} warning: {warning}")


def _limits_text(capsule: Capsule, sandbox: bool) -> str:
    space = "no address-space cap" if capsule.address_space is None else f"{size_text(capsule.address_space)} address space"
    cpu = f", CPU {capsule.cpu_limit} s" if capsule.cpu_limit else ""
    return (f"{capsule.seconds:g} s + {capsule.grace:g} s grace, sandbox {'on' if sandbox else 'off'}, {space}, "
            f"files {size_text(capsule.file_bytes)}, {capsule.processes} processes, output {size_text(capsule.stdout_bytes)}"
            f"{cpu}")


def _exit_text(status: int | None, killed: bool) -> str:
    """``status 3``, ``signal 11 (SIGSEGV)``, ``killed by the referee`` (at the deadline or over a cap)."""
    if killed:
        return "killed by the referee"
    if status is None:
        return "-"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            return f"signal {-status}"
        return f"signal {-status} ({name})"
    return f"status {status}"


def _seconds(value: float | None) -> str:
    return "not recorded" if value is None else f"{value:.2f} s"


def _bytes(value: int | None) -> str:
    return "not recorded" if value is None else f"{value / (1 << 20):.0f} MiB"


def _cause(verdict: Verdict, stall: str, cpu: float | None, limit: float) -> str:
    """A time fault's cause: the starved sentence (harness.referee.referee.starved_of), else slow."""
    if verdict.value != "time":
        return "-"
    if stall:
        return stall
    return "slow" + (f": used {cpu:.2f} s CPU of {limit:g} s" if cpu is not None else "")


def _evidence(when: str, stdout_tail: tuple[str, ...], stderr_tail: str, count: int = 5) -> list[str]:
    shown = []
    for stream, lines in (("stdout", list(stdout_tail)), ("stderr", stderr_tail.splitlines())):
        kept, cut = excerpt(lines, count)
        shown += [f"{when} {stream}| {line}" for line in kept]
        if cut:
            shown.append(f"{when} {stream}| {cut_note(cut)}")
    return shown

