"""Engine specs: built-ins by name, commands checked (missing, no exec bit) before any game."""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import sys
from pathlib import Path

import pytest

from harness.referee.engine_specs import (BUILTIN, ENGINES_DIR, builtin_engine, command_engine, env_command_start,
                                          resolve_engine)
from harness.referee.referee import resolve_interpreter
from harness.errors import EngineError


def test_builtin_runs_its_module_file_with_the_harness_interpreter_and_options() -> None:
    spec = builtin_engine("greedy", {"seed": 3, "info": True, "quiet": False}, name="g3")
    assert spec.name == "g3"
    assert spec.command == (sys.executable, str(ENGINES_DIR / "greedy.py"))
    assert spec.extra_args == ("--seed", "3", "--info")
    assert spec.builtin == "greedy"


def test_unknown_builtin_lists_the_valid_names() -> None:
    with pytest.raises(EngineError) as info:
        builtin_engine("alphabeat")
    assert str(info.value) == ("unknown built-in engine 'alphabeat': choose one of alphabeta, bestmove, greedy, "
                               "homework, mcts-alphabeta, random")


def test_python_command_resolves_the_script_against_the_base_dir(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    script = tmp_path / "sub" / "betsy.py"
    script.write_text("print('hi')\n")
    spec = command_engine("python3 sub/betsy.py", tmp_path)
    assert spec.command == ("python3", str(script))
    assert spec.program == str(script)
    assert spec.name == "python3 sub/betsy.py"


def test_an_env_command_is_checked_and_resolved_as_the_command_it_runs(tmp_path: Path) -> None:
    # env NAME=VALUE... COMMAND: the program is COMMAND's (its script resolved, a missing one named),
    # and the referee runs the harness's interpreter in it, as for a bare python3 command.
    script = tmp_path / "betsy.py"
    script.write_text("print('hi')\n")
    env = shutil.which("env")
    spec = command_engine("env -u HOME LEVEL=3 python3 betsy.py --fast", tmp_path, name="ann")
    assert spec.command == (env, "-u", "HOME", "LEVEL=3", "python3", str(script), "--fast")
    assert spec.program == str(script)
    assert resolve_interpreter(spec.command) == [env, "-u", "HOME", "LEVEL=3", sys.executable, str(script), "--fast"]
    with pytest.raises(EngineError) as info:
        command_engine("env LEVEL=3 python3 nothere.py", tmp_path, name="ann")
    assert str(info.value) == (
        f"engine 'ann': script 'nothere.py' not found (looked for {tmp_path / 'nothere.py'}); "
        f"check the path (relative paths start from {tmp_path})"
    )


@pytest.mark.parametrize(("command", "start"), [
    ("env A=1 python3 x.py", 2), ("env -i A=1 B= prog", 4), ("env --unset=A -u B prog", 4),
    ("/usr/bin/env - prog", 2), ("env A=1", None), ("env -S 'python3 x.py'", None), ("env -C /tmp prog", None),
    ("python3 x.py", None), ("envy A=1 prog", None), ("./env A=1 prog", None), ("/home/ann/env A=1 prog", None)])
def test_where_the_command_an_env_head_runs_starts(command: str, start: int | None) -> None:
    # Only the system's env, and only the options that leave the rest a plain command (not -S, -C).
    assert env_command_start(shlex.split(command)) == start


def test_missing_python_script_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(EngineError) as info:
        command_engine("python3 nothere.py", tmp_path, name="student")
    assert str(info.value) == (
        f"engine 'student': script 'nothere.py' not found (looked for {tmp_path / 'nothere.py'}); "
        f"check the path (relative paths start from {tmp_path})"
    )


def test_program_without_exec_bit_suggests_chmod_or_python3(tmp_path: Path) -> None:
    program = tmp_path / "engine.py"
    program.write_text("#!/usr/bin/env python3\n")
    os.chmod(program, 0o644)
    with pytest.raises(EngineError) as info:
        command_engine("./engine.py", tmp_path, name="student")
    assert str(info.value) == (
        f"engine 'student': {program} is not executable; run chmod +x {program}, or prefix the "
        f"command with python3 (python3 ./engine.py)"
    )


def test_executable_program_is_made_absolute(tmp_path: Path) -> None:
    program = tmp_path / "engine"
    program.write_text("#!/bin/sh\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    assert command_engine("./engine --fast", tmp_path).command == (str(program), "--fast")


def test_missing_program_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match=r"program './nothere' not found \(looked for .*nothere\)"):
        command_engine("./nothere", tmp_path)


def test_empty_or_unparsable_command_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="empty command"):
        command_engine("   ", tmp_path, name="e")
    with pytest.raises(EngineError, match="cannot parse command"):
        command_engine("python3 'unclosed", tmp_path, name="e")


def test_resolve_engine_takes_builtin_names_and_rejects_unknown_words() -> None:
    assert resolve_engine("random").builtin == "random"
    with pytest.raises(EngineError) as info:
        resolve_engine("rnd")
    assert str(info.value) == (
        "unknown engine 'rnd': use a built-in (alphabeta, bestmove, greedy, homework, mcts-alphabeta, random) or a command such as "
        "'python3 path/betsy.py' or './my_engine'"
    )


@pytest.mark.parametrize("builtin", sorted(BUILTIN))
def test_declared_options_are_exactly_what_each_builtin_accepts(builtin: str) -> None:
    """Each built-in's declared options (BUILTIN_ENGINES) against the engine program itself: every option listed is
    taken with a value of its type (as a config would pass it), and an unknown option's message
    lists the same names."""
    import subprocess

    from tests.conftest import SEED_BOARD

    declared = BUILTIN[builtin].options
    samples = {int: 1, float: 0.5, bool: True}
    spec = builtin_engine(builtin, {name: samples[kind] for name, kind in declared.items()})
    if builtin == "bestmove":  # All The King's Horses only: the seed's command line, no options
        argv = [*spec.command, "--move", *"BLACK 2 2 3 3 1 2 3 1".split()]
        answered = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        assert (answered.returncode, answered.stdout.splitlines()[-1]) == (0, "BLACK WILL WIN")
        refused = subprocess.run([*argv, "--no-such-option"], capture_output=True, text=True, timeout=30)
        assert (refused.returncode, refused.stdout) == (2, "") and declared == {}
        return
    position = ["3", "o", SEED_BOARD] if builtin != "homework" else ["7x6", "x", "." * 42]  # Connect Four only
    argv = [*spec.command, *position, "1", *spec.extra_args]
    answered = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    assert answered.returncode == 0, answered.stderr
    refused = subprocess.run([*spec.command, *position, "1", "--no-such-option"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2
    listed = refused.stderr.strip().rsplit("the options are ", 1)[1].split(", ")
    assert {name.removeprefix("--").replace("-", "_") for name in listed} == set(declared)
