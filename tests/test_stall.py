"""A stall is not a slow program: the rule (harness.referee.referee.stall_of) on given figures, then
real programs that sleep or spin on a machine loaded on purpose.

The load is K = 4 x cores busy loops at nice 19: the run queue they make is what ``/proc/loadavg``
shows at the deadline (at least 4 per core, twice the threshold), while the scheduler still gives a
program at nice 0 most of a core, so a spinner's CPU does not hang on how loaded the test machine
already is. The clocks are 1 s + 1 s grace: a spinner needs only an eighth of a core to pass the
quarter-of-its-limit line, and a sleeper uses a few hundredths of a second.
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
from harness.match.match import play_game
from harness.match.settings import GameSettings
from harness.referee.engine_specs import EngineSpec
from harness.referee.protocol import Clock, Verdict, WarningKind
from harness.referee.referee import STALL_CPU_SHARE, STALL_RUN_QUEUE_PER_CORE, Limits, ask, stall_of
from tests.conftest import ROOT, SEED_BOARD

FAKES = ROOT / "tests" / "fake_engines"
SEED = Position.from_text(3, "o", SEED_BOARD)
CLOCK = Clock(1, 1)


def test_the_rule_needs_little_cpu_and_an_overloaded_run_queue() -> None:
    assert (STALL_CPU_SHARE, STALL_RUN_QUEUE_PER_CORE) == (0.25, 2)
    assert stall_of(Verdict.TIME, 0.05, 1, 9, 2) == "stalled: used 0.05 s CPU of 1 s while the run queue was 9 on 2 cores"
    assert stall_of(Verdict.TIME, 0.05, 1, 4, 2) == "stalled: used 0.05 s CPU of 1 s while the run queue was 4 on 2 cores"
    assert stall_of(Verdict.TIME, 0.05, 1, 3, 2) == ""  # a sleeper on a machine with a core to spare: slow
    assert stall_of(Verdict.TIME, 0.05, 1, 0, 2) == ""  # a sleeper on an idle machine: slow
    assert stall_of(Verdict.TIME, 0.25, 1, 9, 2) == ""  # a quarter of its limit computed: slow
    assert stall_of(Verdict.TIME, 1.4, 1, 30, 2) == ""  # a spinner, however loaded the machine: slow
    assert stall_of(Verdict.TIME, 0.05, 1, None, 2) == ""  # no evidence of load: no stall
    assert stall_of(Verdict.NO_ANSWER, 0.05, 1, 9, 2) == ""  # only time faults stall
    assert stall_of(Verdict.TIME, 0.1, 2, 2, 1) == "stalled: used 0.10 s CPU of 2 s while the run queue was 2 on 1 core"


@pytest.fixture
def loaded() -> Iterator[int]:
    """K = 4 x cores busy loops at nice 19 for the test's length; yields K."""
    count = 4 * (os.cpu_count() or 1)
    loop = "import os\nos.nice(19)\nwhile True:\n    pass\n"
    spinners = [subprocess.Popen([sys.executable, "-c", loop], stdin=subprocess.DEVNULL) for _ in range(count)]
    try:
        time.sleep(0.5)  # started and spinning
        yield count
    finally:
        for process in spinners:
            process.kill()
        for process in spinners:
            process.wait(timeout=30)


def test_a_sleeper_on_a_loaded_machine_is_a_stall_and_is_replayed_once(loaded: int) -> None:
    result = ask([sys.executable, str(FAKES / "hangs.py")], SEED, CLOCK, Limits(replay_stalls=True))
    assert result.verdict is Verdict.TIME and result.capsule is not None
    first = result.capsule.first_attempt
    assert first is not None and first.first_attempt is None
    assert first.run_queue is not None and first.run_queue >= loaded // 2
    assert first.cpu_seconds is not None and first.cpu_seconds < 0.25
    cores = os.cpu_count()
    assert first.stall == (f"stalled: used {first.cpu_seconds:.2f} s CPU of 1 s while the run queue was "
                           f"{first.run_queue} on {cores} core{'s' if cores != 1 else ''}")
    replayed = [w for w in result.warnings if w.kind is WarningKind.STALL_REPLAYED]
    assert [str(w) for w in replayed] == [f"{first.stall}; replayed once: time again"]
    assert result.stall.startswith("stalled: used ")  # the replay stalled too, and is not replayed again


def test_a_spinner_on_a_loaded_machine_is_slow_and_never_replayed(loaded: int) -> None:
    result = ask([sys.executable, str(FAKES / "spins.py")], SEED, CLOCK, Limits(replay_stalls=True))
    assert result.verdict is Verdict.TIME and result.capsule is not None
    assert result.run_queue is not None and result.run_queue >= loaded // 2  # the load was there
    assert result.cpu_seconds is not None and result.cpu_seconds >= STALL_CPU_SHARE * CLOCK.seconds
    assert (result.stall, result.capsule.stall, result.capsule.first_attempt) == ("", "", None)
    assert [w for w in result.warnings if w.kind is WarningKind.STALL_REPLAYED] == []


def test_without_replay_stalls_a_stall_is_recorded_and_its_forfeit_stands(loaded: int) -> None:
    result = ask([sys.executable, str(FAKES / "hangs.py")], SEED, CLOCK, Limits())
    assert result.verdict is Verdict.TIME and result.capsule is not None
    assert result.stall.startswith("stalled: used ") and result.capsule.stall == result.stall
    assert result.capsule.first_attempt is None and result.warnings == ()


def test_a_game_goes_on_when_the_replay_of_a_stalled_move_answers(loaded: int, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay's answer counts; the move keeps a warning that says what the first call did."""
    monkeypatch.setenv("FAKE_STALL_MARKER", str(tmp_path / "stalled-once"))
    stalls = EngineSpec("stalls", (sys.executable, str(FAKES / "stalls_once.py")), str(FAKES / "stalls_once.py"))
    spins = EngineSpec("spins", (sys.executable, str(FAKES / "spins.py")), str(FAKES / "spins.py"))
    settings = GameSettings(time=1, grace=1, max_plies=4)
    record = play_game(stalls, spins, settings, "3", limits=Limits(replay_stalls=True))
    first = record.moves[0]
    assert (first.engine, first.verdict, first.move) == ("stalls", Verdict.OK, 1)
    assert [w.kind for w in first.warnings] == [WarningKind.STALL_REPLAYED]
    assert str(first.warnings[0]).startswith("stalled: used ")
    assert str(first.warnings[0]).endswith("; replayed once: ok")
    # The spinner then loses on time, slow, not replayed: its own fault carries no first attempt.
    assert record.fault is not None and record.fault.engine == "spins" and record.fault.verdict is Verdict.TIME
    assert record.fault.capsule is not None and record.fault.capsule.first_attempt is None
    assert record.moves[1].warnings == ()


def test_validation_replays_stalls_unless_told_not_to() -> None:
    import dataclasses

    from harness.validate.validator import ValidationSettings, Validator

    settings = ValidationSettings(GameSettings())
    assert Validator(None, "p", settings).limits.replay_stalls is True
    assert Validator(None, "p", dataclasses.replace(settings, replay_stalls=False)).limits.replay_stalls is False
