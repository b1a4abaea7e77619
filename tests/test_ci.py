"""No silent skip on CI: a missing part fails a CI run instead of skipping its tests.

The skip policy (tests/conftest.py) is run on a small suite of its own in a pytest subprocess; the
set-up script (scripts/_bootstrap.sh) is run with a PATH that lacks bubblewrap and apt-get.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, on_ci

SAMPLE = '''
import pytest
from conftest import cannot_run_here


def test_passes():
    pass


def test_skips_for_an_allowed_reason():
    pytest.skip("no route off this machine")


def test_skips_for_another_reason():
    pytest.skip("the moon is not up")


def test_lacks_a_part():
    cannot_run_here("no widget here (apt-get install widget)")
'''


def run_sample(tmp_path: Path, ci: str | None, workers: int, sample: str = SAMPLE) -> subprocess.CompletedProcess[str]:
    """Run ``sample`` under a copy of the project's conftest and allow-list (CI=``ci``)."""
    tests = tmp_path / "tests"
    tests.mkdir()
    shutil.copy(ROOT / "tests" / "conftest.py", tests / "conftest.py")
    shutil.copy(ROOT / "tests" / "skips_allowed.txt", tests / "skips_allowed.txt")
    (tests / "test_sample.py").write_text(sample)
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "PYTEST_ADDOPTS")}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(workers), "-ra", "tests"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)


def helper_line() -> int:
    """The line of tests/conftest.py where cannot_run_here skips."""
    lines = (ROOT / "tests" / "conftest.py").read_text().splitlines()
    start = lines.index("def cannot_run_here(reason: str) -> NoReturn:")
    return next(number for number, line in enumerate(lines, 1) if number > start and "pytest.skip(reason)" in line)


def test_outside_ci_a_missing_part_skips_and_the_run_counts_the_skips(tmp_path: Path) -> None:
    result = run_sample(tmp_path, None, 0)
    assert result.returncode == 0, result.stdout
    lines = result.stdout.splitlines()
    assert "skipped tests: 3 (1 for a reason on tests/skips_allowed.txt)" in lines
    assert [line for line in lines if line.startswith("SKIPPED")] == [
        "SKIPPED [1] tests/test_sample.py:11: no route off this machine",
        "SKIPPED [1] tests/test_sample.py:15: the moon is not up",
        f"SKIPPED [1] tests/conftest.py:{helper_line()}: no widget here (apt-get install widget)"]
    assert "CI fails" not in result.stdout


@pytest.mark.parametrize("workers", [0, 2])
def test_on_ci_a_missing_part_fails_and_a_skip_off_the_allow_list_fails_the_run(tmp_path: Path, workers: int) -> None:
    result = run_sample(tmp_path, "1", workers)
    assert result.returncode == 1, result.stdout
    lines = result.stdout.splitlines()
    assert "skipped tests: 2 (1 for a reason on tests/skips_allowed.txt)" in lines
    assert ("CI fails on this skip (its reason is not on tests/skips_allowed.txt): "
            "tests/test_sample.py::test_skips_for_another_reason: the moon is not up") in lines
    assert ("FAILED tests/test_sample.py::test_lacks_a_part - "
            "Failed: CI must run this test, but no widget here (apt-get install widget)") in lines
    assert lines[-1].startswith("1 failed, 1 passed, 2 skipped")


@pytest.mark.parametrize(("value", "ci"), [("1", True), ("true", True), ("", False), ("0", False), ("false", False),
                                           ("False", False)])
def test_ci_is_the_ci_variable_set_but_not_empty_0_or_false(
        monkeypatch: pytest.MonkeyPatch, value: str, ci: bool) -> None:
    monkeypatch.setenv("CI", value)
    assert on_ci() is ci


def test_on_ci_a_run_whose_skips_are_all_allowed_passes(tmp_path: Path) -> None:
    allowed_only = SAMPLE.split("\n\ndef test_skips_for_another_reason")[0] + "\n"
    result = run_sample(tmp_path, "1", 0, allowed_only)
    assert result.returncode == 0, result.stdout
    assert "skipped tests: 1 (1 for a reason on tests/skips_allowed.txt)" in result.stdout.splitlines()


# --- the set-up script ------------------------------------------------------------------------------


def bootstrap(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Source scripts/_bootstrap.sh as scripts/test does, with a PATH of only the tools it runs:
    no bwrap, no apt-get."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "dirname", "id", "mktemp", "find", "touch", "chmod"):
        found = shutil.which(tool)
        assert found is not None, tool
        (tools / tool).symlink_to(found)
    script = f"source {ROOT / 'scripts' / '_bootstrap.sh'}; echo ready"
    return subprocess.run([str(tools / "bash"), "-c", script], capture_output=True, text=True, timeout=300,
                          env={"PATH": str(tools), "HOME": os.environ.get("HOME", "/root"), **env})


@pytest.mark.setting
def test_setup_for_ci_tests_stops_in_one_line_when_it_cannot_install_bubblewrap(tmp_path: Path) -> None:
    result = bootstrap(tmp_path, {"CI": "1", "ARENA_TEST_PARTS": "1"})
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ("error: bubblewrap (the engine sandbox) is not installed, and CI runs every test; "
                             "install it: sudo apt-get install bubblewrap (Fedora: sudo dnf install bubblewrap)\n")


@pytest.mark.setting
@pytest.mark.parametrize("env", [{"ARENA_TEST_PARTS": "1"}, {"CI": "1"}], ids=["tests-elsewhere", "arena-on-ci"])
def test_setup_elsewhere_only_notes_what_is_missing(tmp_path: Path, env: dict[str, str]) -> None:
    result = bootstrap(tmp_path, env)
    assert (result.returncode, result.stdout) == (0, "ready\n"), result.stderr
    assert result.stderr.splitlines()[0] == (
        "note: bubblewrap (the engine sandbox) is not installed, so engines run without the sandbox; "
        "install it: sudo apt-get install bubblewrap (Fedora: sudo dnf install bubblewrap)")
