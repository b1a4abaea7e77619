"""What the commands write, and where: every output is checked before the work, a failure to write
at the end loses nothing, and files are named as the README says."""

from __future__ import annotations

import contextlib
import fcntl
import json
import sqlite3
import subprocess
from pathlib import Path

import pexpect
import pytest

from tests.conftest import ARENA, ROOT, TINY, arena, sandbox_warning
from tests.test_report_kinds import RIGHTMOST


def test_a_tournament_writes_its_log_and_lock_beside_the_database_as_the_readme_names_them(tiny_db: Path) -> None:
    assert sorted(path.name for path in tiny_db.parent.iterdir()) == [
        "tiny.sqlite", "tiny.sqlite.lock", "tiny.sqlite.log", "tiny.yaml"]
    assert "INFO tournament 'tiny' (#1) in tiny.sqlite: 2 games scheduled" in (tiny_db.parent / "tiny.sqlite.log").read_text()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "log `<db>.log` and the lock file `<db>.lock`" in readme
    assert "(`results/quick.sqlite.log`, `results/quick.sqlite.lock`)" in readme


def test_a_database_named_like_a_log_keeps_its_own_log(tmp_path: Path) -> None:
    (tmp_path / "tiny.yaml").write_text(TINY)
    done = arena("tournament", "tiny.yaml", "--db", "run.log", "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run.log", "run.log.lock", "run.log.log", "tiny.yaml"]
    assert (tmp_path / "run.log").read_bytes().startswith(b"SQLite format 3\x00")


# --- every output checked before the work ----------------------------------------------------------

CRASHES = f"python3 {ROOT / 'tests' / 'fake_engines' / 'crashes_without_answer.py'}"
"""A program that crashes at once: validate reports it in a second."""


def refused(done: subprocess.CompletedProcess[str], message: str) -> None:
    """One line on stderr, exit status 2, nothing on stdout."""
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"arena: error: {message}\n")


def test_validate_refuses_an_html_file_it_cannot_write_before_running_the_program(tmp_path: Path) -> None:
    refused(arena("validate", CRASHES, "--html", "/proc/x.html", cwd=tmp_path),
            "invalid --html /proc/x.html: cannot write in /proc (No such file or directory); give a file in a "
            "folder you can write")
    (tmp_path / "pages").mkdir()
    refused(arena("validate", CRASHES, "--html", "pages", cwd=tmp_path),
            "invalid --html pages: it is a folder; give a file name in it, e.g. pages/report.html")
    (tmp_path / "notes").write_text("")
    refused(arena("validate", CRASHES, "--html", "notes/r.html", cwd=tmp_path),
            "invalid --html notes/r.html: notes is not a folder; give a file in a folder you can write")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes", "pages"]


def test_validate_writes_its_page_into_a_new_folder_and_leaves_none_when_refused(tmp_path: Path) -> None:
    done = arena("validate", CRASHES, "--quick", "--html", "out/sub/r.html", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[-1] == "HTML report: out/sub/r.html"
    assert (tmp_path / "out" / "sub" / "r.html").read_text().startswith("<!doctype html>")
    refused(arena("validate", CRASHES, "--games", "999", "--html", "new/r.html", cwd=tmp_path),
            "invalid --games 999: give 0 to 100 games per reference engine")
    assert not (tmp_path / "new").exists()


def test_validate_prints_its_verdict_and_keeps_the_page_when_the_html_file_fails_at_the_end(tmp_path: Path) -> None:
    done = arena("validate", CRASHES, "--quick", "--html", "/dev/full", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout.startswith("FAIL: protocol; not judged: rules, time, robustness")
    kept = list(tmp_path.glob("arena-validate-*.html"))
    assert len(kept) == 1 and kept[0].read_text().startswith("<!doctype html>")
    assert done.stderr == (f"{sandbox_warning()}arena: error: cannot write --html /dev/full (No space left on device); "
                           f"written to {kept[0]} instead\n")


def test_report_refuses_folders_it_cannot_write_before_reading_the_database(tiny_db: Path, tmp_path: Path) -> None:
    refused(arena("report", str(tiny_db), "--html", "/proc/pages", cwd=tmp_path),
            "invalid --html /proc/pages: cannot write in /proc (No such file or directory); give a folder you can write")
    (tmp_path / "file").write_text("")
    refused(arena("report", str(tiny_db), "--csv", "file", cwd=tmp_path),
            "invalid --csv file: it is a file; give a folder (created if missing)")
    assert [path.name for path in tmp_path.iterdir()] == ["file"]


def test_report_prints_the_report_and_keeps_pages_and_tables_that_fail_at_the_end(tiny_db: Path, tmp_path: Path) -> None:
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "games").write_text("a file where the game pages go")
    (tmp_path / "tables" / "ratings.csv").mkdir(parents=True)
    done = arena("report", str(tiny_db), "--html", "pages", "--csv", "tables", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout.startswith("Tournament 'tiny' (#1): 2 games, n = 3, 1 s per move, round-robin\n")
    pages, = tmp_path.glob("arena-report-html-*")
    tables, = tmp_path.glob("arena-report-csv-*")
    assert (pages / "index.html").is_file() and (pages / "games.html").is_file()
    assert sorted(path.name for path in tables.iterdir()) == [
        "by_colour.csv", "crosstable.csv", "faults.csv", "move_times.csv", "pairs.csv", "ratings.csv"]
    message = done.stderr.removeprefix("arena: error: ").rstrip("\n")
    assert message == (f"cannot write --html pages (cannot write pages/games: File exists); written to "
                       f"{pages} instead; cannot write --csv tables (cannot write tables/ratings.csv: Is a directory); "
                       f"written to {tables} instead")


@pytest.mark.parametrize("command", [
    ["tournament", "c.yaml"],
    ["sprt", "random", "greedy", "--elo0", "0", "--elo1", "10"],
])
def test_commands_that_play_into_a_database_refuse_one_they_cannot_write_before_any_game(
        command: list[str], tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(TINY)
    refused(arena(*command, "--db", "/proc/x.sqlite", cwd=tmp_path),
            "invalid --db /proc/x.sqlite: cannot write in /proc (No such file or directory); the database, its lock "
            "file and its log go in its folder: give a path in a folder you can write")
    (tmp_path / "x.sqlite.log").mkdir()
    refused(arena(*command, "--db", "x.sqlite", cwd=tmp_path),
            "invalid --db x.sqlite: x.sqlite.log: it is a folder; the database, its lock file and its log go in its "
            "folder: give a path in a folder you can write")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["c.yaml", "x.sqlite.log"]


@pytest.mark.parametrize("command", ["import", "merge"])
def test_import_and_merge_refuse_a_database_they_cannot_write(command: str, tiny_db: Path, tmp_path: Path) -> None:
    refused(arena(command, "/proc/x.sqlite", str(tiny_db), cwd=tmp_path),
            "invalid DB /proc/x.sqlite: cannot write in /proc (No such file or directory); the database, its lock "
            "file and its log go in its folder: give a path in a folder you can write")


def test_a_refused_import_or_merge_leaves_no_new_database(tiny_db: Path, tmp_path: Path) -> None:
    lines = arena("export", str(tiny_db)).stdout.splitlines()
    bad = json.loads(lines[1])
    bad["result"] = "banana"
    (tmp_path / "games.jsonl").write_text(lines[0] + "\n" + json.dumps(bad) + "\n")
    done = arena("import", "new.sqlite", "games.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("arena: error: games.jsonl line 2: result: ")
    share = tmp_path / "share.sqlite"
    share.write_bytes(tiny_db.read_bytes())
    with contextlib.closing(sqlite3.connect(share)) as connection, connection:
        connection.execute("UPDATE games SET result = 'banana' WHERE id = 2")
    done = arena("merge", "merged.sqlite", "share.sqlite", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("arena: error: share.sqlite ")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["games.jsonl", "share.sqlite"]


def test_cluster_certs_refuses_a_folder_it_cannot_make(tmp_path: Path) -> None:
    refused(arena("cluster", "certs", "/proc/certs", cwd=tmp_path),
            "cannot make /proc/certs: No such file or directory")


def play(args: list[str], cwd: Path) -> pexpect.spawn:
    (cwd / "rightmost").mkdir(exist_ok=True)
    (cwd / "rightmost" / "rightmost.py").write_text(RIGHTMOST)
    return pexpect.spawn(ARENA, ["play", "--game", "connect4", "--size", "4x4", "--engine",
                                 "python3 rightmost/rightmost.py", *args], cwd=str(cwd), encoding="utf-8",
                         timeout=60, dimensions=(24, 100), env={"PATH": "/usr/bin:/bin", "TERM": "dumb"})


def test_play_refuses_a_database_it_cannot_write_before_the_first_move(tmp_path: Path) -> None:
    child = play(["--db", "/proc/play.sqlite"], tmp_path)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert child.before.strip() == (
        "arena: error: invalid --db /proc/play.sqlite: cannot write in /proc (No such file or directory); the "
        "database, its lock file and its log go in its folder: give a path in a folder you can write")


def test_play_keeps_a_finished_game_it_cannot_store_and_says_where(tmp_path: Path) -> None:
    db = tmp_path / "play.sqlite"
    child = play(["--db", str(db)], tmp_path)
    for _ in range(3):
        child.expect(r"your move \(x\): ")
        child.sendline("1")
    child.expect(r"your move \(x\): ")
    with open(tmp_path / "play.sqlite.lock", "w") as lock:  # another writer holds the database
        fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        child.sendline("1")
        child.expect_exact("You win! (x wins: x (human) drops into column 1 and completes a line)")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 2
    kept, = tmp_path.glob("arena-play-*.jsonl")
    assert " ".join(child.before.split()) == (
        f"arena: error: cannot store the game in {db} ({db} is in use by another arena process; wait for it to "
        f"finish or give another --db); it is saved in {kept}: 'arena import {db} {kept}' adds it to the database")
    assert not db.exists()
    added = arena("import", str(db), str(kept))
    assert added.stdout == f"{kept}: 1 games added to {db}, 0 already there\n"
    assert arena("report", str(db)).stdout.splitlines()[0] == (
        "Games played at the terminal ('play', #1): 1 game, Connect Four 4x4, 1 s per move, a person against "
        "python3 rightmost/rightmost.py")
