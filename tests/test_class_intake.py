"""arena class: the config's checks and intake (each folder checked, hashed and snapshot)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.course.config import load_class_config
from harness.course.intake import intake, python2_construct, read_roster, snapshot, students_of
from harness.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
GREEDY = (ROOT / "tests/fake_engines/students/greedy_student.py").read_text()
COMMON = (ROOT / "tests/fake_engines/students/_common.py").read_text()


def _student(folder: Path, program: str = GREEDY, **files: str) -> None:
    folder.mkdir(parents=True)
    (folder / "betsy.py").write_text(program)
    (folder / "_common.py").write_text(COMMON)
    for name, text in files.items():
        (folder / name).write_text(text)


def _config(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "sub").mkdir(exist_ok=True)
    path = tmp_path / "class.yaml"
    path.write_text(f"name: c\nn: 5\nsubmissions: sub\n{extra}")
    return path


def test_the_example_config_documents_every_key_and_loads(tmp_path: Path) -> None:
    from harness.course import config as module

    text = (ROOT / "configs/class.yaml").read_text()
    from harness.match.settings import GameSettings

    keys = set(module._Class.model_fields) - set(GameSettings.model_fields) | {"game", "time"}
    for model in (module._Validation, module._League, module._Grading, module._Similarity):
        keys |= set(model.model_fields)
    missing = sorted(key for key in keys if f"{key}:" not in text)
    assert missing == []
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs/class.yaml").write_text(text)
    subprocess.run([sys.executable, str(ROOT / "scripts/make_class.py"), str(tmp_path / "results/sample-class"),
                    "--roster", str(tmp_path / "results/sample-class-roster.csv")], check=True, capture_output=True)
    config = load_class_config(tmp_path / "configs/class.yaml")
    assert [(b.name, b.floor, b.points) for b in config.bands] == [
        ("below greedy", None, 4.0), ("beats greedy", 370.0, 7.0), ("level with alphabeta", 810.0, 9.0),
        ("beats alphabeta", 910.0, 10.0)]
    assert config.references == {"random": 0.0, "greedy": 370.0, "alphabeta": 860.0, "mcts-alphabeta": 890.0}


def test_every_problem_of_a_class_config_is_named_at_once(tmp_path: Path) -> None:
    path = _config(tmp_path)
    path.write_text("name: c\nsubmissions: nowhere\ncommand: python3\nleague: {format: knockout}\n"
                    "grading: {bands: [{name: low}, {name: high, above: wizard+20}]}\n")
    with pytest.raises(ConfigError) as caught:
        load_class_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert "league.format: expected one of 'auto', 'round-robin', 'swiss' or 'gauntlet', got 'knockout'" in message
    path.write_text("name: c\nsubmissions: nowhere\ncommand: python3\n"
                    "grading: {bands: [{name: low}, {name: high, above: wizard+20}]}\n")
    with pytest.raises(ConfigError) as caught:
        load_class_config(path)
    message = str(caught.value)
    assert f"no folder {tmp_path / 'nowhere'}" in message
    assert "command: expected {file} where the program's path goes" in message
    assert ("grading.bands[1].above: expected a number, or a reference (random, greedy, alphabeta, "
            "mcts-alphabeta) with an optional +/- Elo, e.g. greedy+50; got 'wizard+20'") in message


def test_bands_must_rise_from_a_lowest_band_without_a_floor(tmp_path: Path) -> None:
    path = _config(tmp_path, "grading: {bands: [{name: a}, {name: b, above: alphabeta}, {name: c, above: greedy}]}\n")
    with pytest.raises(ConfigError, match="list the bands from the lowest up"):
        load_class_config(path)


def test_intake_gives_each_problem_a_status_and_a_reason_and_goes_on(tmp_path: Path) -> None:
    config_path = _config(tmp_path, "roster: roster.csv\nmax_submission_mb: 1\n")
    sub = tmp_path / "sub"
    _student(sub / "ok")
    _student(sub / "py2", 'print "hello"\n')
    (sub / "empty").mkdir()
    _student(sub / "linked")
    os.symlink(ROOT / "engines/greedy.py", sub / "linked/helper.py")
    _student(sub / "big", big="x" * (1 << 20))
    _student(sub / "fifo")
    os.mkfifo(sub / "fifo/pipe")
    _student(sub / "Ann Lee_42_assignsubmission_file_/hw4")
    _student(sub / "twice/a")
    _student(sub / "twice/b")
    (sub / "bad\nname").mkdir()
    (sub / "notes.txt").write_text("stray file")
    (tmp_path / "roster.csv").write_text("id,name,folder\n7,Ann,ok\n8,Zed,zed\n")
    config = load_class_config(config_path)
    students, stray = students_of(config)
    assert [s.folder for s in students] == ["ok", "zed", "Ann Lee_42_assignsubmission_file_", "bad\nname", "big",
                                            "empty", "fifo", "linked", "py2", "twice"]
    assert stray == ["notes.txt"]
    found = {s.folder: intake(config, s) for s in students}
    assert {k: (v.status, v.reason) for k, v in found.items()} == {
        "ok": ("ok", ""),
        "zed": ("missing", "no submission (no folder in the download)"),
        "Ann Lee_42_assignsubmission_file_": ("ok", ""),
        "twice": ("refused", "several betsy.py: a/betsy.py, b/betsy.py; keep the one to grade and remove the others"),
        "bad\nname": ("refused", "the folder name 'bad\\nname' cannot name a student (character 4 is \\n, which is "
                                 "not printable; use printable characters only); rename the folder"),
        "big": ("refused", "over the 1 MB cap of a submission (max_submission_mb); submit the program and its "
                           "helper files only"),
        "empty": ("missing", "no betsy.py in empty/ (the folder is empty)"),
        "fifo": ("refused", "fifo/pipe is not a regular file or folder (a device, pipe or socket); remove it"),
        "linked": ("refused", "linked/helper.py is a link; submit the file itself"),
        "py2": ("failed", "betsy.py does not compile as Python 3: line 1: Missing parentheses in call to "
                          "'print'. Did you mean print(...)? (Python 2 syntax: a print statement; the class runs Python 3)"),
    }
    assert found["ok"].student.id == "7" and found["ok"].student.name == "Ann"


def test_a_submission_is_its_content_hash_and_its_snapshot_holds_exactly_its_files(tmp_path: Path) -> None:
    config = load_class_config(_config(tmp_path))
    sub = tmp_path / "sub"
    _student(sub / "a", notes="x")
    (sub / "a/__pycache__").mkdir()
    (sub / "a/__pycache__/_common.cpython-311.pyc").write_bytes(b"\0cache")
    _student(sub / "b", notes="x")
    students, _ = students_of(config)
    first, second = (intake(config, s) for s in students)
    assert first.hash == second.hash and first.hash is not None and len(first.hash) == 64
    (sub / "b/notes").write_text("y")
    assert intake(config, students[1]).hash != first.hash
    os.rename(sub / "a/notes", sub / "a/notes2")
    assert intake(config, students[0]).hash not in (first.hash, None)
    fresh = intake(config, students[0])
    folder = snapshot(config, fresh, tmp_path / "snaps")
    assert sorted(p.name for p in folder.iterdir()) == ["_common.py", "betsy.py", "notes2"]
    assert folder.name == fresh.hash[:16] if fresh.hash else False
    (folder / "betsy.py").write_text("changed")
    assert snapshot(config, fresh, tmp_path / "snaps") == folder  # made once: never written again


def test_a_roster_without_its_columns_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "roster.csv"
    path.write_text("student,email\nann,a@x\n")
    with pytest.raises(ConfigError) as caught:
        read_roster(path)
    assert str(caught.value) == (f"{path}: the roster needs a header line with the columns id and name (and "
                                 "optionally folder); found student, email")
    path.write_text("id,name\n1,Ann\n1,Bob\n")
    with pytest.raises(ConfigError, match=r"line 3: '1' is also on line 2; each folder belongs to one student"):
        read_roster(path)


@pytest.mark.parametrize(("source", "construct"), [
    ('print "move"\n', "a print statement"),
    ('exec "x = 1"\n', "an exec statement"),
    ("try:\n    pass\nexcept ValueError, error:\n    pass\n", "'except E, name:'"),
    ('raise ValueError, "bad"\n', "'raise E, message'"),
    ("if a <> b:\n    pass\n", "the <> operator"),
    ("mode = 0755\n", "an octal literal such as 0777"),
    ("big = 10L\n", "a long literal such as 10L"),
    ("x = (1,\n", None),  # a Python 3 mistake: no construct is guessed
    ("def f(:\n    pass\n", None),
    ('text = "print <> 1"; y = = 2\n', None),  # the words on the line, but not what Python 3 failed at
])
def test_a_python2_construct_is_named_only_when_the_message_and_the_line_show_it(source: str,
                                                                                 construct: str | None) -> None:
    with pytest.raises(SyntaxError) as caught:
        compile(source, "betsy.py", "exec", dont_inherit=True)
    assert python2_construct(caught.value) == construct
