"""The machine's load is not the program's time: the referee's clock counts the program's own time
(wall time less the time its tasks waited, runnable, for a CPU), a call the machine starved is run
again alone, and one still starved is not judged (harness.referee.referee.starved_of).

The rule on given figures first, then real programs beside real busy loops: ``hogs`` starts
2 x cores loops at nice 0 (the load a course's shared machine has: every core wanted twice over),
``niced_hogs`` 6 x cores loops at nice 19 (which leave a nice-0 program nearly a whole core, so a
program that lowers its own priority to 19 gets a seventh of one, or less: starved, whatever else the
test machine runs). The nice-0 loops each lead a session of their own: where the scheduler groups
each session (autogroup), loops in one session would weigh as one program.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.games.betsy.rules import Position
from harness.match.match import Overloaded, play_game
from harness.match.settings import GameSettings
from harness.referee.engine_specs import EngineSpec
from harness.referee.protocol import Clock, Verdict, WarningKind
from harness.referee.referee import REPLAYS, STRETCH, Limits, ask, starved_of
from tests.conftest import ROOT, SEED_BOARD

FAKES = ROOT / "tests" / "fake_engines"
SEED = Position.from_text(3, "o", SEED_BOARD)
SHORT = Clock(0.5, 0.25, allow_fractional=True)


def test_the_rule_a_call_is_starved_only_when_its_own_time_was_left_at_the_wall_time_cap() -> None:
    assert (STRETCH, REPLAYS) == (4.0, 2)
    assert starved_of(Verdict.TIME, True, 6.0, 5.2, 1.5, 0.7) == (
        "starved: waited 5.20 s for a CPU in 6.00 s of wall time, 0.70 s on a CPU; its own time 0.80 s of "
        "the 1.5 s allowed had not run out")
    assert starved_of(Verdict.TIME, True, 6.0, 5.2, 1.5, None) == (
        "starved: waited 5.20 s for a CPU in 6.00 s of wall time; its own time 0.80 s of the 1.5 s allowed "
        "had not run out")
    assert starved_of(Verdict.TIME, True, 3.1, 1.6, 1.5, 1.5) == ""  # its own time ran out: slow, however loaded
    assert starved_of(Verdict.TIME, True, 1.5, 0.0, 1.5, 0.01) == ""  # a sleeper on an idle machine: slow
    assert starved_of(Verdict.TIME, True, 6.0, None, 1.5, 0.1) == ""  # no run delays here: the wall clock rules
    assert starved_of(Verdict.OK, True, 6.0, 5.2, 1.5, 0.7) == ""  # it answered: its answer counts
    assert starved_of(Verdict.NO_ANSWER, False, 6.0, 5.2, 1.5, 0.7) == ""  # only time faults


def _loops(count: int, nice: int, sessions: bool) -> list[subprocess.Popen[bytes]]:
    loop = f"import os\nos.nice({nice})\nwhile True:\n    pass\n"
    return [subprocess.Popen([sys.executable, "-c", loop], stdin=subprocess.DEVNULL, start_new_session=sessions)
            for _ in range(count)]


def _stop(loops: list[subprocess.Popen[bytes]]) -> None:
    for process in loops:
        process.kill()
    for process in loops:
        process.wait(timeout=30)


@pytest.fixture
def hogs() -> Iterator[int]:
    """2 x cores busy loops at nice 0, each in a session of its own, killed by pid at the end; yields how many."""
    loops = _loops(2 * (os.cpu_count() or 1), 0, sessions=True)
    try:
        time.sleep(0.3)
        yield len(loops)
    finally:
        _stop(loops)


@pytest.fixture
def niced_hogs() -> Iterator[int]:
    """6 x cores busy loops at nice 19, killed by pid at the end; yields how many."""
    loops = _loops(6 * (os.cpu_count() or 1), 19, sessions=False)
    try:
        time.sleep(0.3)
        yield len(loops)
    finally:
        _stop(loops)


def test_a_program_that_computes_within_its_time_answers_in_time_beside_busy_loops(
        hogs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """0.6 s of CPU on a 1 s limit: with every core wanted twice over it takes about 0.9 s of wall
    time or more, which the referee does not count against it: the same verdict as on an idle machine."""
    monkeypatch.setenv("FAKE_CPU_SECONDS", "0.6")
    result = ask([sys.executable, str(FAKES / "computes.py")], SEED, Clock(1, 0.5), Limits())
    assert (result.verdict, result.move, result.stall, result.replays) == (Verdict.OK, 2, "", 0)
    assert result.waited is not None and result.run_delay is not None and result.run_delay >= result.waited > 0
    assert result.answered_after is not None and result.answered_after < 1.0
    assert result.own_seconds == pytest.approx(result.seconds - result.waited)


def test_a_sleeper_and_a_spinner_are_slow_on_a_loaded_machine_too(niced_hogs: int) -> None:
    for fake in ("hangs.py", "spins.py"):
        result = ask([sys.executable, str(FAKES / fake)], SEED, SHORT, Limits())
        # Slow, its own time spent: a time fault of its own. (Where other tests load the machine at the
        # same time, the spinner may be starved first, and then run again alone: the verdict is the same.)
        assert (fake, result.verdict, result.stall) == (fake, Verdict.TIME, "")
        assert result.own_seconds >= SHORT.allowed
        assert result.capsule is not None and (result.capsule.first_attempt is None) == (result.replays == 0)


def test_a_starved_call_is_run_again_alone_and_left_not_judged_when_still_starved(niced_hogs: int) -> None:
    result = ask([sys.executable, str(FAKES / "starved.py")], SEED, SHORT, Limits())
    assert (result.verdict, result.replays) == (Verdict.TIME, REPLAYS)
    assert result.seconds >= STRETCH * SHORT.allowed - 0.01
    assert result.waited is not None and result.seconds - result.waited < SHORT.allowed
    assert result.stall == starved_of(Verdict.TIME, True, result.seconds, result.waited, SHORT.allowed,
                                      result.cpu_seconds)
    assert result.capsule is not None and result.capsule.first_attempt is not None
    assert result.capsule.first_attempt.stall.startswith("starved: waited ")
    replayed = [str(w) for w in result.warnings if w.kind is WarningKind.STALL_REPLAYED]
    assert len(replayed) == 1 and replayed[0].startswith(result.capsule.first_attempt.stall + "; run again alone 2 times: "
                                                         "still starved (waited ")


def test_without_replays_a_starved_call_is_recorded_as_starved_once(niced_hogs: int) -> None:
    result = ask([sys.executable, str(FAKES / "starved.py")], SEED, SHORT, Limits(replay_stalls=False))
    assert (result.verdict, result.replays, result.warnings) == (Verdict.TIME, 0, ())
    assert result.stall.startswith("starved: waited ") and result.capsule is not None
    assert result.capsule.stall == result.stall and result.capsule.first_attempt is None


def test_a_game_goes_on_when_the_replay_of_a_starved_move_answers(niced_hogs: int, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay's answer counts; the move keeps a warning that says what the first call did."""
    monkeypatch.setenv("FAKE_STALL_MARKER", str(tmp_path / "starved-once"))
    stalls = EngineSpec("stalls", (sys.executable, str(FAKES / "stalls_once.py")), str(FAKES / "stalls_once.py"))
    spins = EngineSpec("spins", (sys.executable, str(FAKES / "spins.py")), str(FAKES / "spins.py"))
    settings = GameSettings(time=0.5, grace=0.25, allow_fractional_time=True, max_plies=4)
    record = play_game(stalls, spins, settings, "3")
    first = record.moves[0]
    assert (first.engine, first.verdict, first.move) == ("stalls", Verdict.OK, 1)
    assert [w.kind for w in first.warnings] == [WarningKind.STALL_REPLAYED]
    assert str(first.warnings[0]).startswith("starved: waited ")
    assert str(first.warnings[0]).endswith("; run again alone once: ok")
    # The spinner then loses on time, slow, not replayed: its own fault carries no first attempt.
    assert record.fault is not None and record.fault.engine == "spins" and record.fault.verdict is Verdict.TIME
    assert record.fault.capsule is not None and record.fault.capsule.first_attempt is None
    assert record.moves[1].warnings == ()


def test_a_game_whose_call_stays_starved_is_not_counted(niced_hogs: int) -> None:
    starved = EngineSpec("starved", (sys.executable, str(FAKES / "starved.py")), str(FAKES / "starved.py"))
    spins = EngineSpec("spins", (sys.executable, str(FAKES / "spins.py")), str(FAKES / "spins.py"))
    settings = GameSettings(time=0.5, grace=0.25, allow_fractional_time=True, max_plies=4)
    with pytest.raises(Overloaded, match=r"^n = 3, ply 1: x \(starved\) was not judged: the machine was overloaded "
                                         r"\(waited .* had not run out\); the game is not counted$"):
        play_game(starved, spins, settings, "3", limits=Limits(replay_stalls=False))


def test_validation_tournaments_and_classes_replay_starved_calls_by_default() -> None:
    import dataclasses

    from harness.tournament.executor import Job
    from harness.validate.validator import ValidationSettings, Validator

    settings = ValidationSettings(GameSettings())
    assert Limits().replay_stalls is True
    assert Validator(None, "p", settings).limits.replay_stalls is True
    assert Validator(None, "p", dataclasses.replace(settings, replay_stalls=False)).limits.replay_stalls is False
    assert Job(GameSettings(), "off", 1, 1, ()).limits(False).replay_stalls is True  # type: ignore[arg-type]


def test_a_stuck_turn_delays_a_call_by_its_patience_once_and_never_blocks_it(monkeypatch: pytest.MonkeyPatch,
                                                                             tmp_path: Path) -> None:
    """A process that holds the machine's turnstile and never lets go (stopped, say) costs this
    process one wait of TURN_PATIENCE; its calls then run without turns."""

    from harness.referee import referee

    monkeypatch.setattr(referee, "TURN_PATIENCE", 0.5)
    monkeypatch.setattr(referee, "_TURN_FOLDER", str(tmp_path))  # this test's turns alone: other tests run beside it
    monkeypatch.setattr(referee, "_TURNS_BROKEN", False)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(tmp_path / f'arena-{os.getuid()}-calls.turnstile')!r}, os.O_RDWR | os.O_CREAT, 0o600)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        started = time.monotonic()
        first = ask([sys.executable, str(FAKES / "computes.py")], SEED, Clock(1, 0.5), Limits())
        second = ask([sys.executable, str(FAKES / "computes.py")], SEED, Clock(1, 0.5), Limits())
        assert (first.verdict, second.verdict) == (Verdict.OK, Verdict.OK)
        assert referee._TURNS_BROKEN is True and time.monotonic() - started < 30
    finally:
        holder.kill()
        holder.wait()
