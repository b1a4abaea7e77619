"""arena class end to end: a folder of real programs to a gradebook, rerun, resubmission, deadline."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FAKE = ROOT / "tests/fake_engines"
ARENA = [sys.executable, "-m", "harness"]


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=900)


def _student(folder: Path, program: Path, name: str = "betsy.py", extra: str = "") -> None:
    folder.mkdir(parents=True)
    (folder / name).write_text(program.read_text() + extra)
    common = program.parent / "_common.py"
    if common.exists():
        (folder / "_common.py").write_text(common.read_text())


def _betsy_class(tmp_path: Path, extra: str = "") -> Path:
    sub = tmp_path / "sub"
    _student(sub / "ada", FAKE / "students/minimax_student.py")
    _student(sub / "ben/hw4", FAKE / "students/random_legal.py")  # a download that kept the student's folder
    renamed = (FAKE / "students/minimax_student.py").read_text().replace("best", "chosen").replace(
        "columns", "board").replace("evaluate", "heuristic").replace('"""A two-ply minimax student', '"""My own player')
    (sub / "cat").mkdir()
    (sub / "cat/betsy.py").write_text(renamed + "\n\n# my comments\n")
    (sub / "cat/_common.py").write_text((FAKE / "students/_common.py").read_text())
    _student(sub / "dan", FAKE / "python2_print.py")
    _student(sub / "eve", FAKE / "crashes_without_answer.py")
    (sub / "lea").mkdir()
    (sub / "lea/main.py").write_text("print('hello')\n")
    (tmp_path / "roster.csv").write_text("id,name,folder\n11,Ada A,ada\n12,Ben B,ben\n13,Cat C,cat\n14,Dan D,dan\n"
                                         "15,Eve E,eve\n16,Lea L,lea\n17,Zoe Z,zoe\n")
    config = tmp_path / "class.yaml"
    config.write_text(
        "name: c1\nn: 4\ntime: 1\nsubmissions: sub\nroster: roster.csv\n"
        "validation: {quick: true, n: [4]}\n"
        "league: {references: {random: 0, greedy: 370}}\n"
        "grading: {budget: 6, bands: [{name: below greedy, points: 5}, {name: beats greedy, above: greedy, points: 10}]}\n"
        "similarity: {positions: 8}\n" + extra)
    return config


def _json(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr[-2000:]
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def _games(db: Path) -> list[str]:
    with sqlite3.connect(db) as connection:
        return [row[0] for row in connection.execute("SELECT game_id FROM games ORDER BY id")]


@pytest.mark.slow
def test_a_class_is_graded_then_a_rerun_does_nothing_and_a_resubmission_plays_only_its_games(tmp_path: Path) -> None:
    config = _betsy_class(tmp_path)
    db = tmp_path / "c1.sqlite"
    first = _json(arena("class", str(config), "--db", str(db), "--json", "--html", str(tmp_path / "page"),
                        cwd=tmp_path))
    students = {s["student"]: s for s in first["students"]}
    assert [s["student"] for s in first["students"]] == ["ada", "ben", "cat", "dan", "eve", "lea", "zoe"]
    assert {k: (s["status"], s["reason"]) for k, s in students.items() if s["status"] != "ranked"} == {
        "dan": ("failed", "betsy.py does not compile as Python 3: line 3: Missing parentheses in call to 'print'. "
                          "Did you mean print(...)? (Python 2 syntax: a print statement; the class runs Python 3)"),
        "eve": ("failed", students["eve"]["reason"]),
        "lea": ("missing", "no betsy.py in lea/ (found: main.py)"),
        "zoe": ("missing", "no submission (no folder in the download)"),
    }
    assert students["eve"]["reason"].startswith("protocol; not judged: rules, time, robustness (first failure: ")
    assert "RuntimeError: engine exploded" in students["eve"]["reason"]
    ranked = sorted((s for s in first["students"] if s["status"] == "ranked"), key=lambda s: s["rank"])
    assert [s["student"] for s in ranked] and {s["student"] for s in ranked} == {"ada", "ben", "cat"}
    for record in ranked:
        assert record["elo_low"] < record["elo"] < record["elo_high"]
        assert record["band_state"] in ("decided", "undecided")
        assert record["points"] == {"below greedy": 5.0, "beats greedy": 10.0}[
            record["band"] or record["band_text"].split(" between ")[1].split(" and ")[0]]
        assert record["validation"]["protocol"] == "pass"
    assert [s["league_score"] for s in ranked] == sorted((s["league_score"] for s in ranked), reverse=True)
    pairs = {(p["a"], p["b"]) for p in first["similar_sources"]}
    assert ("ada", "cat") in pairs
    assert first["played_now"] == len(_games(db)) > 0
    # the class page: every student's games replayable, nothing of the machine's paths
    page = tmp_path / "page"
    index = (page / "index.html").read_text()
    link = re.search(r'<a href="(students/[0-9]+\.html)">ada</a>', index)
    assert link is not None
    ada_page = (page / link.group(1)).read_text()
    assert ada_page.count("<code>arena replay DB ") == students["ada"]["rated_games"]
    for path in page.rglob("*.html"):
        assert str(tmp_path) not in path.read_text(), path
    # the gradebook: a row per roster student, as a spreadsheet reads it
    rows = list(csv.DictReader(io.StringIO((tmp_path / "c1.gradebook.csv").read_text())))
    assert [(r["id"], r["name"], r["status"]) for r in rows] == [
        ("11", "Ada A", "ranked"), ("12", "Ben B", "ranked"), ("13", "Cat C", "ranked"), ("14", "Dan D", "failed"),
        ("15", "Eve E", "failed"), ("16", "Lea L", "missing"), ("17", "Zoe Z", "missing")]
    assert "cat (source" in rows[0]["similar"]
    # a rerun: nothing validated, nothing played, the same grades
    again = _json(arena("class", str(config), "--db", str(db), "--json", cwd=tmp_path))
    assert (again["validated_now"], again["played_now"]) == (0, 0)
    assert again["students"] == first["students"]
    # ben resubmits: ben alone is validated, and only games with ben's new submission are played
    before = set(_games(db))
    with open(tmp_path / "sub/ben/hw4/betsy.py", "a") as file:
        file.write("# fixed a comment\n")
    third = _json(arena("class", str(config), "--db", str(db), "--json", cwd=tmp_path))
    ben = next(s for s in third["students"] if s["student"] == "ben")
    assert ben["hash"] != students["ben"]["hash"]
    assert third["validated_now"] == 1
    new = [game for game in _games(db) if game not in before]
    assert third["played_now"] == len(new) > 0
    assert all(ben["hash"][:12] in game.split(":")[2:4] for game in new)
    league = [g for g in new if g.startswith("league:")]
    assert len(league) == 4  # a pair against each of the two other programs


def test_a_deadline_freezes_what_is_graded(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    _student(sub / "ada", FAKE / "students/greedy_student.py")
    (sub / "bob").mkdir()
    config = tmp_path / "class.yaml"
    config.write_text("name: c2\nn: 3\ntime: 1\nsubmissions: sub\ndeadline: 2020-01-01T00:00:00+00:00\n"
                      "validation: {quick: true, n: [3]}\nleague: {format: gauntlet, references: {random: 0}}\n"
                      "grading: {budget: 2}\nsimilarity: {positions: 0}\n")
    db = tmp_path / "c2.sqlite"
    first = arena("class", str(config), "--db", str(db), "--json", cwd=tmp_path)
    assert "submissions frozen now (the deadline has passed)" in first.stderr
    before = _json(first)
    (sub / "ada/betsy.py").write_text((FAKE / "students/random_legal.py").read_text())
    _student(sub / "bob2", FAKE / "students/random_legal.py")
    after = _json(arena("class", str(config), "--db", str(db), "--json", cwd=tmp_path))
    ada_before, ada_after = (next(s for s in d["students"] if s["student"] == "ada") for d in (before, after))
    assert ada_after["hash"] == ada_before["hash"]
    assert ada_after["note"] == "changed after the deadline: the submission frozen then is graded"
    assert (after["validated_now"], after["played_now"]) == (0, 0)
    bob2 = next(s for s in after["students"] if s["student"] == "bob2")
    assert (bob2["status"], bob2["reason"]) == ("late", "submitted after the deadline; not graded")


def test_a_bad_class_config_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    config = tmp_path / "class.yaml"
    config.write_text("name: c3\nsubmissions: nowhere\nleague: {format: swiss, rounds: 0}\n")
    result = arena("class", str(config), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"arena: error: {config}: league.rounds: expected a number >= 1, got 0\n"
    config.write_text("name: c3\nsubmissions: nowhere\nvalidation: {required: [tactics, correctness]}\n")
    result = arena("class", str(config), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"arena: error: {config}: 2 problems: submissions: no folder {tmp_path / 'nowhere'}; "
                             "give the folder of the students' folders; validation.required: unknown category "
                             "'correctness' of betsy validation; expected some of protocol, rules, time, robustness, "
                             "tactics, strength\n")


@pytest.mark.parametrize("game, program, sound, weak, extra", [
    ("connect4", "connect4.py", "students_connect4/wins_and_blocks.py", "students_connect4/random_legal.py",
     "size: 7x6\nvalidation: {quick: true, size: [7x6]}\n"),
    ("kings-horses", "bestmove.py", "students_kings_horses/plain_minimax/bestmove.py",
     "students_kings_horses/colours_swapped/bestmove.py", "validation: {quick: true, required: [protocol, correctness]}\n"),
])
def test_every_game_grades_a_class(tmp_path: Path, game: str, program: str, sound: str, weak: str, extra: str) -> None:
    sub = tmp_path / "sub"
    _student(sub / "ada", FAKE / sound, program)
    _student(sub / "ben", FAKE / weak, program)
    _student(sub / "dan", FAKE / "python2_print.py", program)
    config = tmp_path / "class.yaml"
    config.write_text(f"name: g\ngame: {game}\ntime: 1\nsubmissions: sub\n{extra}"
                      "league: {references: {random: 0, greedy: 400}}\n"
                      "grading: {budget: 4, bands: [{name: low}, {name: high, above: greedy}]}\n"
                      "similarity: {positions: 4}\n")
    data = _json(arena("class", str(config), "--db", str(tmp_path / "g.sqlite"), "--json", cwd=tmp_path))
    assert data["game"] == game
    statuses = {s["student"]: s["status"] for s in data["students"]}
    assert statuses["dan"] == "failed"
    assert statuses["ada"] == "ranked"
    ranked = [s for s in data["students"] if s["status"] == "ranked"]
    for record in ranked:
        assert record["rated_games"] >= 4 and record["band"] in ("low", "high", None)
    report = arena("report", str(tmp_path / "g.sqlite"), cwd=tmp_path)
    assert report.returncode == 0 and "ada." in report.stdout


def test_a_swiss_league_pairs_without_repeats_gives_byes_and_a_resubmission_makes_a_new_league(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    programs = ["students/minimax_student.py", "students/greedy_student.py", "students/random_legal.py",
                "students/uses_half_its_time.py", "students/greedy_student.py"]
    for index, program in enumerate(programs):
        _student(sub / f"s{index}", FAKE / program, extra=f"# s{index}\n")
    config = tmp_path / "class.yaml"
    config.write_text("name: sw\nn: 3\ntime: 1\nsubmissions: sub\nvalidation: {quick: true, n: [3]}\n"
                      "league: {format: swiss, rounds: 3, references: {random: 0}}\n"
                      "grading: {budget: 2, bands: [{name: any}]}\nsimilarity: {positions: 0}\n")
    db = tmp_path / "sw.sqlite"
    first = _json(arena("class", str(config), "--db", str(db), "--json", cwd=tmp_path))
    assert (first["format"], first["rounds"]) == ("swiss", 3)
    with sqlite3.connect(db) as connection:
        rounds = connection.execute("SELECT league, round, first, second FROM class_swiss ORDER BY round").fetchall()
    assert len({league for league, *_ in rounds}) == 1
    met: set[frozenset[str]] = set()
    byes = []
    for round_number in (1, 2, 3):
        pairs = [(a, b) for _, r, a, b in rounds if r == round_number]
        assert len(pairs) == 3  # two pairings and a bye among five
        bye = [a for a, b in pairs if not b]
        assert len(bye) == 1
        byes += bye
        for a, b in pairs:
            if b:
                assert frozenset((a, b)) not in met
                met.add(frozenset((a, b)))
    assert len(set(byes)) == 3  # nobody has a second bye while another has none
    league = [g for g in _games(db) if g.startswith("league:")]
    assert len(league) == 3 * 2 * 2
    hashes = {s["student"]: s["hash"][:12] for s in first["students"]}
    for record in first["students"]:
        played = sum(1 for g in league if hashes[record["student"]] in g.split(":")[2:4])
        bye_points = byes.count(hashes[record["student"]])
        assert record["league_games"] == played
        assert 0 <= record["league_score"] - bye_points <= played
    again = _json(arena("class", str(config), "--db", str(db), "--json", cwd=tmp_path))
    assert (again["validated_now"], again["played_now"]) == (0, 0)
    with open(sub / "s2/betsy.py", "a") as file:
        file.write("# resubmitted\n")
    before = set(_games(db))
    third = _json(arena("class", str(config), "--db", str(db), "--json", cwd=tmp_path))
    assert third["validated_now"] == 1
    with sqlite3.connect(db) as connection:
        old_league = rounds[0][0]
        pairs = connection.execute("SELECT round, first, second FROM class_swiss WHERE league != ? AND second != ''",
                                   (old_league,)).fetchall()
    assert len(pairs) == 3 * 2
    wanted = {f"league:3:{min(a, b)}:{max(a, b)}:{r}:{side}" for r, a, b in pairs for side in "ab"}
    now = set(_games(db))
    assert wanted <= now
    assert now - before <= wanted  # nothing but the new league's games was played
    assert third["played_now"] == len(wanted - before)  # and of those, only the ones not stored already
