"""Mutated command lines and configs: the real ``arena`` exits 0 or 2, prints at most one line on
stderr, and never a traceback.

Each example is a real subprocess (about 0.3 s for `moves`, up to about 1.5 s for a tournament),
so the example counts are small; each run draws new ones.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, SEED_BOARD

ARENA = str(Path(sys.executable).parent / "arena")
WEIRD_ARGS = [
    "-1", "0", "1", "1000", "99999999999999999999", "1e308", "1e12", "inf", "-inf", "nan", "x", "", "--",
    "-", "--json", "--csv", "--help", "3.5", "0x10", "1_0", "\u00e9", " ", "--n", "--time", "--grace",
    "--bogus", "-x", "/dev/null", ".", "missing.sqlite", "random", "o", SEED_BOARD, "--tournament", "2",
]
WEIRD_VALUES: list[Any] = [
    None, -1, 0, 2, 1000, 10**20, 1e308, math.inf, math.nan, "x", "", [], {}, True, False, [3], [0],
    {"a": 1}, "random", 0.5, "3", "1-2",
]
TINY: dict[str, Any] = {
    "name": "fz", "n": [3], "time": 1, "rounds": 1, "max_plies": 4, "concurrency": 1,
    "openings": {"plies": 2, "seed": 1},
    "engines": [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "random", "options": {"seed": 1}}],
}
FUZZ = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(argv: list[str], cwd: Path, allowed: tuple[int, ...] = (0, 2)) -> None:
    result = subprocess.run([ARENA, *argv], capture_output=True, text=True, timeout=90, cwd=cwd)
    assert "Traceback" not in result.stderr + result.stdout, (argv, result.stderr)
    assert result.returncode in allowed, (argv, result.returncode, result.stderr)
    assert len(result.stderr.splitlines()) <= 1, (argv, result.stderr)


@st.composite
def mutated(draw: st.DrawFn, base: list[str]) -> list[str]:
    argv = list(base)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(argv)))
        action = draw(st.sampled_from(["replace", "delete", "insert"]))
        if action == "insert" or where == len(argv):
            argv.insert(where, draw(st.sampled_from(WEIRD_ARGS)))
        elif action == "replace":
            argv[where] = draw(st.sampled_from(WEIRD_ARGS))
        else:
            del argv[where]
    return argv


@st.composite
def mutated_config(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load(yaml.safe_dump(TINY))
    for _ in range(draw(st.integers(1, 3))):
        # A mapping somewhere in the config: the top, openings, an engine, or an engine's options.
        places: list[dict[str, Any]] = [config]
        for value in list(config.values()):
            if isinstance(value, dict):
                places.append(value)
            if isinstance(value, list):
                places += [entry for entry in value if isinstance(entry, dict)]
                places += [entry["options"] for entry in value
                           if isinstance(entry, dict) and isinstance(entry.get("options"), dict)]
        place = draw(st.sampled_from(places))
        action = draw(st.sampled_from(["set", "delete", "add"]))
        if action == "add" or not place:
            place[draw(st.sampled_from(["seed", "depth", "colour", "n", "sandbox", "options"]))] = (
                draw(st.sampled_from(WEIRD_VALUES)))
        else:
            key = draw(st.sampled_from(sorted(place, key=str)))
            if action == "delete":
                del place[key]
            else:
                place[key] = draw(st.sampled_from(WEIRD_VALUES))
    return config


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    """A finished tournament's database and its config, shared by the examples (hypothesis runs
    many examples per test, so no per-test tmp_path)."""
    path = Path(tempfile.mkdtemp(prefix="arena-fuzz-"))
    (path / "fz.yaml").write_text(yaml.safe_dump(TINY))
    result = subprocess.run([ARENA, "tournament", "fz.yaml", "--db", "fz.sqlite", "--no-progress"],
                            capture_output=True, text=True, timeout=120, cwd=path)
    assert result.returncode == 0, result.stderr
    yield path
    shutil.rmtree(path)


@FUZZ
@given(mutated(["moves", "3", "o", SEED_BOARD, "--json", "--win-priority", "mover"]))
def test_fuzz_moves(argv: list[str]) -> None:
    check(argv, ROOT)


@settings(FUZZ, max_examples=8)
@given(mutated(["match", "random", "random", "--n", "3", "--time", "1", "--grace", "0.5", "--json"]))
def test_fuzz_match(argv: list[str]) -> None:
    # Every example plays at most one short game: options given last win.
    check([*argv, "--games", "1", "--max-plies", "4"], ROOT)


@settings(FUZZ, max_examples=12)
@given(mutated(["report", "fz.sqlite", "--json", "--tournament", "1"]))
def test_fuzz_report(folder: Path, argv: list[str]) -> None:
    data = (folder / "fz.sqlite").read_bytes()
    check(argv, folder)
    assert (folder / "fz.sqlite").read_bytes() == data


@settings(FUZZ, max_examples=8)
@given(mutated(["tournament", "fz.yaml", "--db", "DB", "--rounds", "1", "--concurrency", "1"]))
def test_fuzz_tournament_argv(folder: Path, argv: list[str]) -> None:
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        db = str(Path(scratch) / "t.sqlite")
        check([db if arg == "DB" else arg for arg in argv] + ["--no-progress"], folder)


@settings(FUZZ, max_examples=12)
@given(mutated_config())
def test_fuzz_tournament_config(folder: Path, config: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        path = Path(scratch) / "c.yaml"
        path.write_text(yaml.safe_dump(config))
        check(["tournament", str(path), "--db", str(Path(scratch) / "c.sqlite"), "--no-progress"], folder)
