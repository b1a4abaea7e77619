"""The CPUs arena may use (harness.machine): the affinity mask and the cgroup's quota decide, and
every command that runs engines runs no more calls at once, saying so in one line when asked for more."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from harness.machine import fit_concurrency, usable_cores
from tests.conftest import ROOT, arena

FAKES = ROOT / "tests" / "fake_engines"


def test_the_cpus_are_the_affinity_mask_capped_by_the_cgroup_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    monkeypatch.setattr("harness.machine._cgroup_quota", lambda: None)
    assert usable_cores() == 4
    monkeypatch.setattr("harness.machine._cgroup_quota", lambda: 1.5)  # cpu.max 150000 100000
    assert usable_cores() == 2
    monkeypatch.setattr("harness.machine._cgroup_quota", lambda: 0.2)
    assert usable_cores() == 1
    assert fit_concurrency(1, "--concurrency") == (1, None)
    assert fit_concurrency(3, "concurrency", "games") == (1, (
        "concurrency 3 is more than the 1 CPU arena may use here; running 1 games at once, so that no engine "
        "waits for a CPU another takes"))


@pytest.mark.skipif(shutil.which("taskset") is None, reason="taskset (util-linux) is not installed")
def test_a_process_bound_to_one_core_may_use_one() -> None:
    code = "from harness.machine import usable_cores; print(usable_cores())"
    found = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", code], capture_output=True, text=True,
                           cwd=ROOT, check=True)
    assert found.stdout == "1\n"


def test_validate_warns_in_one_line_and_runs_no_more_calls_at_once_than_cpus() -> None:
    cores = usable_cores()
    result = arena("validate", f"python3 {FAKES / 'crashes_without_answer.py'}", "--quick", "--games", "0",
                   "--concurrency", str(cores + 3), "--quiet")
    assert result.returncode == 1, result.stderr
    warning = (f"arena: warning: --concurrency {cores + 3} is more than the {cores} CPU{'s' if cores != 1 else ''} "
               f"arena may use here; running {cores} engine calls at once, so that no engine waits for a CPU another "
               "takes")
    assert result.stderr.splitlines()[0] == warning
