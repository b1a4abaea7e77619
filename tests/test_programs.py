"""Which programs are the project's own (by identity), what folders each command's program occupies,
and the layouts refused before any game: real files, real configs and the real command line, in both
sandbox modes (a layout is refused whether or not the sandbox runs)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from harness.tournament.config import load_config
from harness.referee.engine_specs import builtin_engine, command_engine
from harness.errors import ConfigError, EngineError
from harness.referee.programs import layout_problems, own_programs, program_of
from tests.conftest import ARENA, ROOT

STUDENT = ROOT / "tests" / "fake_engines" / "students" / "random_legal.py"
COMMON = ROOT / "tests" / "fake_engines" / "students" / "_common.py"
FIX = "give each program a folder of its own"

pytestmark = pytest.mark.setting  # scripts/test_settings runs these in the other settings too


def submit(folder: Path, name: str = "betsy.py") -> Path:
    """A working student program (random legal moves, with a helper module) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(STUDENT, folder / name)
    shutil.copy(COMMON, folder / "_common.py")
    return folder / name


def arena(*args: str, cwd: Path) -> tuple[int, str, str]:
    import subprocess

    done = subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout, done.stderr


def config_text(*commands: str) -> str:
    engines = "".join(f"  - {{name: {name}, command: {command}}}\n" for name, command in commands)
    return f"name: t\nn: 3\nrounds: 1\nmax_plies: 2\nopenings: {{plies: 0}}\nengines:\n{engines}"


# --- identity ---------------------------------------------------------------------------------------


def test_the_projects_own_programs_are_exactly_its_entry_points() -> None:
    engines = ROOT / "engines"
    expected = {
        *(engines / f"{name}.py" for name in ("random_mover", "greedy", "alphabeta", "mcts_alphabeta", "homework",
                                              "kings_horses_solver", "strongest")),
        *(engines / "opponents" / f"{name}.py" for name in ("column_stacker", "mirror", "rotation_spammer")),
        ROOT / "scripts" / "betsy.py", ROOT / "scripts" / "bestmove.py",
        *(Path(sys.prefix) / "bin" / name for name in ("betsy", "bestmove")),
    }
    assert own_programs() == frozenset(os.path.realpath(path) for path in expected)


def test_a_copy_or_a_link_of_our_program_or_a_file_in_the_checkout_is_a_students(tmp_path: Path) -> None:
    copy = tmp_path / "copy" / "betsy.py"
    copy.parent.mkdir()
    shutil.copy(ROOT / "scripts" / "betsy.py", copy)
    link = tmp_path / "link" / "betsy.py"
    link.parent.mkdir()
    link.symlink_to(ROOT / "scripts" / "betsy.py")
    folder_link = tmp_path / "scripts-link"
    folder_link.symlink_to(ROOT / "scripts")
    for program in (copy, link, folder_link / "betsy.py", ROOT / "tests" / "fake_engines" / "hangs.py",
                    ROOT / "engines" / "protocol.py"):
        assert program_of((sys.executable, str(program))).own is False, program
    for program in (ROOT / "scripts" / "betsy.py", ROOT / "engines" / "greedy.py"):
        assert program_of((sys.executable, str(program))).own is True
    assert program_of((str(ROOT / "scripts" / "betsy.py"),)).own is True  # run by its #! line


def test_a_commands_program_folders_are_its_programs_not_its_interpreters(tmp_path: Path) -> None:
    script = submit(tmp_path / "ann")
    native = tmp_path / "bob" / "engine"
    native.parent.mkdir()
    native.write_text("#!/bin/sh\n")
    native.chmod(0o755)
    sh = shutil.which("sh")
    assert sh is not None
    assert program_of((sys.executable, str(script))).folders == (str(tmp_path / "ann"),)
    assert program_of((str(native), "--fast")).folders == (str(tmp_path / "bob"),)
    assert program_of((sh, str(script))).folders == (str(tmp_path / "ann"),)  # sh is the system's
    assert program_of((sh, "-c", "echo")).folders == ()
    assert program_of(builtin_engine("greedy").command).folders == ()
    env = shutil.which("env")
    assert env is not None and env.startswith("/usr/")
    assert program_of((env, "LEVEL=3", sys.executable, str(script))) == program_of((sys.executable, str(script)))
    assert program_of((env, "LEVEL=3", *builtin_engine("greedy").command)).own is True


# --- layouts ----------------------------------------------------------------------------------------


def test_one_folder_per_student_inside_or_outside_the_checkout_is_accepted(tmp_path: Path) -> None:
    inside = ROOT / "tests" / "fake_engines" / "students_kings_horses"
    engines = [builtin_engine("random"), builtin_engine("greedy"),
               command_engine(f"python3 {submit(tmp_path / 'submissions' / 'ann')}", name="ann"),
               command_engine(f"python3 {submit(tmp_path / 'submissions' / 'bob')}", name="bob"),
               command_engine(f"python3 {inside / 'plain_minimax' / 'bestmove.py'}", name="plain"),
               command_engine(f"python3 {inside / 'debug_output' / 'bestmove.py'}", name="debug"),
               command_engine(f"python3 {tmp_path / 'submissions' / 'ann' / 'betsy.py'} --fast", name="ann2")]
    assert layout_problems(engines) == []  # ann2 is ann's own program again: one program


def test_programs_in_one_folder_or_in_nested_folders_are_refused(tmp_path: Path) -> None:
    ann, bob = submit(tmp_path / "subs", "ann.py"), submit(tmp_path / "subs", "bob.py")
    eve = submit(tmp_path / "subs" / "eve")
    engines = [command_engine(f"python3 {path}", name=path.stem) for path in (ann, bob)]
    engines.append(command_engine(f"python3 {eve}", name="eve"))
    subs = tmp_path / "subs"
    assert layout_problems(engines) == [
        (1, f"engine 'bob' ({bob}) is in the same folder as engine 'ann' ({ann}), {subs}, where each could read "
            f"the other's files; {FIX}"),
        (2, f"engine 'eve' ({eve}) lies inside {subs}, the folder of engine 'ann' ({ann}), which could read its "
            f"files; {FIX}"),
    ]
    outer = [command_engine(f"python3 {eve}", name="eve"), command_engine(f"python3 {ann}", name="ann")]
    assert layout_problems(outer) == [
        (1, f"engine 'ann' ({ann}) has its folder {subs} holding engine 'eve' ({eve}), whose files it could read; "
            f"{FIX}")]


def test_a_folder_that_is_holds_or_lies_in_a_folder_of_our_programs_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = tmp_path / "tables"
    monkeypatch.setenv("BETSY_TABLES", str(tables))
    in_engines = ROOT / "engines" / "protocol.py"  # in engines/, but not one of our programs
    in_tables = submit(tables / "eve")
    above_tables = submit(tmp_path)
    cases = {
        f"python3 {in_engines}": f"engine 'x' ({in_engines}): its folder {ROOT / 'engines'} is",
        f"python3 {in_tables}": f"engine 'x' ({in_tables}): its folder {tables / 'eve'} lies inside {tables},",
        f"python3 {above_tables}": f"engine 'x' ({above_tables}): its folder {tmp_path} holds {tables},",
    }
    for command, start in cases.items():
        assert layout_problems([command_engine(command, name="x")]) == [
            (0, f"{start} a folder the project's own programs use; {FIX}, outside engines/, scripts/, harness/, "
                f"the venv and the tables")]
    readme = ROOT / "README.md"  # a program whose folder is the project would read all of it
    spec = command_engine(f"sh {readme}", name="x")
    assert layout_problems([spec]) == [
        (0, f"engine 'x' ({shutil.which('sh')}): its folder {ROOT} holds the project {ROOT}, which it could then "
            f"read; {FIX}")]
    # Our own programs are one program: the built-ins share engines/, and scripts/betsy.py is ours too.
    ours = [builtin_engine(name) for name in ("random", "greedy", "bestmove")]
    ours.append(command_engine(f"python3 {ROOT / 'scripts' / 'betsy.py'}", name="betsy"))
    assert layout_problems(ours) == []


def test_shared_system_interpreters_are_not_a_shared_folder(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "engine.sh", tmp_path / "b" / "engine.sh"
    for script in (first, second):
        script.parent.mkdir()
        script.write_text("echo\n")
    engines = [command_engine(f"sh {script}", name=script.parent.name) for script in (first, second)]
    assert [engine.command[0] for engine in engines] == [shutil.which("sh")] * 2
    assert layout_problems(engines) == []


def test_a_program_file_or_folder_that_is_a_link_is_refused(tmp_path: Path) -> None:
    bob = submit(tmp_path / "bob")
    (tmp_path / "eve").mkdir()
    (tmp_path / "eve" / "betsy.py").symlink_to(bob)
    (tmp_path / "staff").mkdir()
    (tmp_path / "staff" / "betsy.py").symlink_to(ROOT / "scripts" / "betsy.py")
    (tmp_path / "carol").symlink_to(tmp_path / "bob")
    cases = {
        "python3 eve/betsy.py": f"eve/betsy.py is a link to {bob}; submit the file itself",
        "python3 staff/betsy.py": f"staff/betsy.py is a link to {ROOT / 'scripts' / 'betsy.py'}; submit the file itself",
        "python3 carol/betsy.py": f"carol (the folder of carol/betsy.py) is a link to {tmp_path / 'bob'}; submit the "
                                  "file itself, in a folder of its own",
    }
    (tmp_path / "eve" / "run").symlink_to(bob)
    cases["eve/run --fast"] = f"eve/run is a link to {bob}; submit the file itself"
    for command, message in cases.items():
        with pytest.raises(EngineError) as info:
            command_engine(command, tmp_path, name="x")
        assert str(info.value) == f"engine 'x': {message}"


def test_an_argument_that_is_a_link_in_the_students_folder_is_not_resolved(tmp_path: Path) -> None:
    program = submit(tmp_path / "eve")
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    (tmp_path / "eve" / "book.dat").symlink_to(secret)
    spec = command_engine("python3 eve/betsy.py eve/book.dat", tmp_path)
    assert spec.command == ("python3", str(program), str(tmp_path / "eve" / "book.dat"))


def test_a_config_with_a_refused_layout_names_the_file_the_key_and_both_engines(tmp_path: Path) -> None:
    ann, bob = submit(tmp_path / "subs", "ann.py"), submit(tmp_path / "subs", "bob.py")
    (tmp_path / "eve").mkdir()
    (tmp_path / "eve" / "betsy.py").symlink_to(ann)
    path = tmp_path / "t.yaml"
    path.write_text(config_text(("rnd", "random"), ("ann", "python3 subs/ann.py"), ("bob", "python3 subs/bob.py"))
                    .replace("command: random", "builtin: random"))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (
        f"{path}: engines[2].command: engine 'bob' ({bob}) is in the same folder as engine 'ann' ({ann}), "
        f"{tmp_path / 'subs'}, where each could read the other's files; {FIX}")
    path.write_text(config_text(("eve", "python3 eve/betsy.py"), ("rnd", "random")).replace(
        "command: random", "builtin: random"))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (
        f"{path}: engines[0].command: engine 'eve': eve/betsy.py is a link to {ann}; submit the file itself")


@pytest.mark.parametrize("mode", ["off", "required"])
def test_the_command_line_refuses_side_by_side_programs_and_links_before_any_game(
    tmp_path: Path, mode: str
) -> None:
    ann, bob = submit(tmp_path / "subs", "ann.py"), submit(tmp_path / "subs", "bob.py")
    (tmp_path / "eve").mkdir()
    (tmp_path / "eve" / "betsy.py").symlink_to(ROOT / "scripts" / "betsy.py")
    (tmp_path / "t.yaml").write_text(config_text(("ann", "python3 subs/ann.py"), ("bob", "python3 subs/bob.py")))
    db = tmp_path / "t.sqlite"
    same = (f"engine 'bob' ({bob}) is in the same folder as engine 'ann' ({ann}), {tmp_path / 'subs'}, "
            f"where each could read the other's files; {FIX}")
    code, out, err = arena("tournament", "t.yaml", "--db", str(db), "--sandbox", mode, "--no-progress", cwd=tmp_path)
    assert (code, out, err) == (2, "", f"arena: error: t.yaml: engines[1].command: {same}\n")
    assert not db.exists()
    match = ["match", "python3 subs/ann.py", "python3 subs/bob.py", "--n", "3", "--sandbox", mode]
    side_by_side = (f"arena: error: engine 'python3 subs/bob.py' ({bob}) is in the same folder as engine "
                    f"'python3 subs/ann.py' ({ann}), {tmp_path / 'subs'}, where each could read the other's files; "
                    f"{FIX}\n")
    assert arena(*match, cwd=tmp_path) == (2, "", side_by_side)
    link = f"eve/betsy.py is a link to {ROOT / 'scripts' / 'betsy.py'}; submit the file itself"
    code, out, err = arena("match", "python3 eve/betsy.py", "random", "--n", "3", "--sandbox", mode, cwd=tmp_path)
    assert (code, out, err) == (2, "", f"arena: error: engine 'python3 eve/betsy.py': {link}\n")
    code, out, err = arena("validate", "python3 eve/betsy.py", "--quick", "--sandbox", mode, cwd=tmp_path)
    assert (code, out, err) == (2, "", f"arena: error: engine 'python3 eve/betsy.py': {link}\n")
    (tmp_path / "carol").symlink_to(tmp_path / "subs")
    (tmp_path / "t.yaml").write_text(config_text(("carol", "python3 carol/ann.py"), ("rnd", "random")).replace(
        "command: random", "builtin: random"))
    code, out, err = arena("tournament", "t.yaml", "--db", str(db), "--sandbox", mode, "--no-progress", cwd=tmp_path)
    assert (code, out, err) == (2, "", f"arena: error: t.yaml: engines[0].command: engine 'carol': carol (the folder "
                                       f"of carol/ann.py) is a link to {tmp_path / 'subs'}; submit the file itself, "
                                       "in a folder of its own\n")
    code, out, err = arena("sprt", "python3 subs/ann.py", "python3 subs/bob.py", "--elo0", "0", "--elo1", "10",
                           "--n", "3", "--sandbox", mode, "--db", str(db), cwd=tmp_path)
    assert (code, out, err) == (2, "", side_by_side)
    assert not db.exists()


def test_a_shebang_interpreter_must_be_the_operators(tmp_path: Path) -> None:
    other = tmp_path / "zed" / "bin" / "python"
    other.parent.mkdir(parents=True)
    other.symlink_to(sys.executable)
    eve = submit(tmp_path / "eve")
    for line, accepted in ((f"#!{other}", False), (f"#!/usr/bin/env {other}", False), ("#!/usr/bin/env python3", True),
                           (f"#!{sys.executable}", True), ("#!/bin/sh", True)):
        eve.write_text(f"{line}\n" + STUDENT.read_text().split("\n", 1)[1])
        eve.chmod(0o755)
        spec = command_engine(str(eve), name="eve")
        expected = [] if accepted else [(0, (
            f"engine 'eve' ({eve}): its #! line ({line}) names {other}, which is not one of your interpreters (a "
            f"system one, one on your PATH or the harness's); run it as 'python3 {eve}', or put {other.parent} on "
            "your PATH"))]
        assert layout_problems([spec]) == expected, line


def test_a_folder_that_holds_the_home_or_the_temporary_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    program = submit(tmp_path)
    spec = command_engine(f"python3 {program}", name="x")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert layout_problems([spec]) == [(0, (
        f"engine 'x' ({program}): its folder {tmp_path} holds your home {tmp_path / 'home'}, which it could then "
        f"read; {FIX}"))]
    monkeypatch.setenv("HOME", "/nonexistent-home")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    assert layout_problems([spec]) == [(0, (
        f"engine 'x' ({program}): its folder {tmp_path} holds the temporary folder (other engines' copies and "
        f"scratch) {tmp_path / 'tmp'}, which it could then read; {FIX}"))]


def test_an_interpreter_inside_another_engines_folder_is_refused(tmp_path: Path) -> None:
    zed = submit(tmp_path / "zed")
    (tmp_path / "zed" / "bin").mkdir()
    python = tmp_path / "zed" / "bin" / "python"
    python.symlink_to(sys.executable)
    eve = submit(tmp_path / "eve")
    engines = [command_engine(f"python3 {zed}", name="zed"), command_engine(f"{python} {eve}", name="eve")]
    assert engines[1].command[0] == str(python)
    assert layout_problems(engines) == [(1, (
        f"engine 'eve' ({eve}) runs on {python}, inside the folder of engine 'zed' ({zed}), whose files would then "
        "decide what it may read; give each program a folder of its own, and name an interpreter of yours"))]
