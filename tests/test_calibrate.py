"""The time scale (harness.referee.calibrate): a fixed reference search measured here, a clock whose
limits it multiplies, ``auto`` in configs and on command lines, and the report that says so."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.errors import UsageError
from harness.match.settings import GameSettings, parse_time_scale, scaled
from harness.referee.calibrate import REFERENCE_NODES, REFERENCE_SECONDS, measure, reference_search
from harness.referee.protocol import Clock
from harness.tournament.config import load_config
from tests.conftest import ROOT, arena

STUDENTS = ROOT / "tests" / "fake_engines" / "students"


def test_the_reference_search_does_the_same_work_everywhere() -> None:
    assert reference_search() == REFERENCE_NODES == 290_899
    found = measure()
    assert found.nodes == REFERENCE_NODES and found.seconds > 0
    assert found.factor == round(min(10.0, max(0.1, found.seconds / REFERENCE_SECONDS)), 2)
    assert found.describe() == (f"time scale {found.factor:g}: this machine took {found.seconds:.3f} s of CPU for "
                                f"the reference search (290,899 nodes), the reference machine 0.45 s")


def test_a_scaled_clock_gives_and_tells_the_scaled_limit_never_telling_more_than_it_gives() -> None:
    plain = Clock(1, 0.5)
    assert (plain.seconds_text, plain.limit, plain.allowed) == ("1", 1, 1.5)
    slow = Clock(1, 0.5, False, 2.5)
    assert (slow.seconds_text, slow.limit, slow.allowed) == ("2", 2.5, 3.75)
    fractional = Clock(1, 0.5, True, 1.377)
    assert (fractional.seconds_text, fractional.limit) == ("1.37", 1.377)
    fast = Clock(5, 0.5, False, 0.5)
    assert (fast.seconds_text, fast.limit, fast.allowed) == ("2", 2.5, 2.75)
    assert GameSettings(time=2, time_scale=1.5).clock.allowed == 3.75
    assert scaled(GameSettings(time=2, max_plies=9), 1.5) == GameSettings(time=2, max_plies=9, time_scale=1.5)


def test_time_scale_auto_is_measured_and_a_bad_one_is_refused_in_one_line(tmp_path: Path) -> None:
    assert parse_time_scale("auto") == parse_time_scale(" AUTO ") == measure().factor
    assert parse_time_scale("2") == 2.0
    for bad in ("0.05", "11", "fast", "nan"):
        with pytest.raises(UsageError) as caught:
            parse_time_scale(bad)
        assert str(caught.value) == f"invalid --time-scale {bad!r}: give auto, or a number from 0.1 to 10"
    engines = "engines:\n  - {name: a, builtin: random}\n  - {name: b, builtin: greedy}\n"
    (tmp_path / "auto.yaml").write_text("name: t\ntime_scale: auto\n" + engines)
    (tmp_path / "plain.yaml").write_text("name: t\n" + engines)
    auto, plain = load_config(tmp_path / "auto.yaml"), load_config(tmp_path / "plain.yaml")
    assert (auto.settings.time_scale, plain.settings.time_scale) == (measure().factor, 1.0)
    assert auto.fingerprint() == plain.fingerprint()  # how fast the machine is does not decide the games


def test_validate_reports_its_time_scale_in_text_and_json() -> None:
    program = f"{sys.executable} {STUDENTS / 'greedy_student.py'}"
    shown = arena("validate", program, "--quick", "--games", "0", "--time-scale", "2", "--quiet")
    assert shown.stdout.splitlines()[1:3] == [
        f"program: {program}", "time scale: 2 (every limit multiplied by it: harness.referee.calibrate)"]
    report = json.loads(arena("validate", program, "--quick", "--games", "0", "--time-scale", "2", "--json").stdout)
    assert report["time_scale"] == 2
    assert report["categories"]["protocol"]["checks"][0]["command"].endswith(" 2")  # SECONDS told: the scaled limit
    refused = arena("validate", program, "--time-scale", "slow")
    assert (refused.returncode, refused.stderr) == (
        2, "arena: error: invalid --time-scale 'slow': give auto, or a number from 0.1 to 10\n")


def test_every_game_stores_its_time_scale_and_exports_it(tmp_path: Path) -> None:
    from tests.conftest import TINY

    (tmp_path / "scaled.yaml").write_text(TINY.replace("name: tiny", "name: scaled\ntime_scale: 2"))
    played = arena("tournament", "scaled.yaml", "--db", "scaled.sqlite", "--no-progress", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    exported = arena("export", "scaled.sqlite", cwd=tmp_path)
    games = [json.loads(line) for line in exported.stdout.splitlines() if '"moves"' in line]
    assert [game["time_scale"] for game in games] == [2, 2]
    resumed = arena("tournament", "scaled.yaml", "--db", "scaled.sqlite", "--no-progress", "--time-scale", "1",
                    cwd=tmp_path)  # the machine's speed is not what the games were: the same tournament resumes
    assert resumed.stdout.splitlines()[0] == "0 games played now, 2 already in scaled.sqlite, 2 scheduled"
