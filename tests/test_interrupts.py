"""Ctrl-C (SIGINT) and SIGTERM mid-run: `arena tournament`, `sprt`, `validate` and `play` stop with exit
status 130 and 143, keep every game they had stored, resume on a rerun, and leave no engine, pool
worker, sandbox or scratch folder behind; an old results database is upgraded and read.

Each command runs as a real process with its own temporary folder ($TMPDIR, where the referee and the
sandbox make their scratch folders), and the engines are real programs that take their time.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest

from tests.conftest import (
    ARENA, ROOT, assert_nothing_left, command_line, live_descendants, run_program, sandbox_warning,
)

STUDENT = ROOT / "tests" / "fake_engines" / "students" / "uses_half_its_time.py"
"""A legal random mover that thinks for half of its time limit."""
SIGNALS = [pytest.param(signal.SIGINT, 130, id="SIGINT"), pytest.param(signal.SIGTERM, 143, id="SIGTERM")]
RESUME = "rerun the same command to resume"


def environment(scratch: Path) -> dict[str, str]:
    scratch.mkdir()
    return {**os.environ, "TMPDIR": str(scratch)}


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:g} s")
        time.sleep(0.05)


def engines_running() -> int:
    """How many of this test's engines are running now (processes running the student, inside the
    sandbox or not; not the arena command naming it)."""
    return sum(line.startswith(f"{sys.executable} {STUDENT} ") for line in map(command_line, live_descendants()))


def stored(db: Path) -> dict[str, str]:
    """game id -> when it finished, of every game in ``db`` (empty while it does not exist yet)."""
    if not db.exists():
        return {}
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as connection:
            return dict(connection.execute("SELECT game_id, finished_at FROM games").fetchall())
    except sqlite3.OperationalError:  # created, not yet holding the tables
        return {}


def interrupt(process: subprocess.Popen[str], signum: int) -> tuple[str, str]:
    """Send ``signum`` to ``process``; its output once it has stopped (at most 60 s later)."""
    process.send_signal(signum)
    try:
        return process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()



def stop_mid_run(argv: list[str], db: Path, tmp_path: Path, signum: int, status: int,
                 stored_first: int) -> dict[str, str]:
    """Start ``argv``, send ``signum`` once ``stored_first`` games are stored and an engine is running,
    and check the exit status, the last line, that nothing of the run is left and that every game
    stored before the signal is still there; the games stored after it."""
    scratch = tmp_path / "scratch"
    before = set(live_descendants())
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               env=environment(scratch))
    wait_until(lambda: len(stored(db)) >= stored_first and engines_running() >= 1,
               f"{stored_first} games stored and another under way")
    kept = stored(db)
    _, err = interrupt(process, signum)
    assert process.returncode == status, err
    assert err.splitlines()[-1] == f"interrupted: finished games are saved in {db}; {RESUME}"
    assert_nothing_left(before, scratch)
    after = stored(db)
    assert kept.items() <= after.items()
    return after

# --- arena tournament ------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "status"), SIGNALS)
def test_tournament_stopped_mid_game_keeps_its_games_cleans_up_and_resumes(
        tmp_path: Path, signum: int, status: int) -> None:
    config = tmp_path / "stop.yaml"
    config.write_text(f"""
name: stopme
n: [3]
time: 1
rounds: 3
max_plies: 6
openings: {{plies: 2, seed: 3}}
concurrency: 2
engines:
  - {{name: ann, command: python3 {STUDENT}}}
  - {{name: bob, builtin: greedy}}
""")
    db = tmp_path / "stop.sqlite"
    argv = [ARENA, "tournament", str(config), "--db", str(db), "--no-progress"]
    after = stop_mid_run(argv, db, tmp_path, signum, status, stored_first=2)
    assert len(after) < 6

    resumed = run_program(argv, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.splitlines()[0] == (
        f"{6 - len(after)} games played now, {len(after)} already in {db}, 6 scheduled")
    final = stored(db)
    assert after.items() <= final.items() and len(final) == 6


# --- arena sprt ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "status"), SIGNALS)
def test_sprt_stopped_mid_game_keeps_its_pairs_cleans_up_and_resumes(
        tmp_path: Path, signum: int, status: int) -> None:
    db = tmp_path / "sprt.sqlite"
    argv = [ARENA, "sprt", "greedy", f"python3 {STUDENT}", "--elo0", "0", "--elo1", "100", "--n", "3",
            "--max-pairs", "2", "--concurrency", "2", "--db", str(db)]
    after = stop_mid_run(argv, db, tmp_path, signum, status, stored_first=1)
    assert len(after) < 4

    resumed = run_program(argv, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    final = stored(db)
    assert after.items() <= final.items()  # the games stored before are not played again
    assert len(final) == 4 and resumed.stdout.splitlines()[-1].startswith("no decision after 2 pairs")


# --- arena validate --------------------------------------------------------------------------------


@pytest.mark.parametrize(("signum", "status"), SIGNALS)
def test_validate_stopped_mid_run_stops_at_once_and_cleans_up(tmp_path: Path, signum: int, status: int) -> None:
    scratch = tmp_path / "scratch"
    before = set(live_descendants())
    process = subprocess.Popen([ARENA, "validate", f"python3 {STUDENT}", "--time", "4", "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               env=environment(scratch))
    # Two calls at once: the checks are queued in the validator's pool, two at a time.
    wait_until(lambda: engines_running() == 2, "the program running twice")
    signalled = time.monotonic()
    out, err = interrupt(process, signum)
    # Well before the queued checks (over a hundred calls of 2 s each) would have run.
    assert time.monotonic() - signalled < 30
    assert (process.returncode, out, err) == (status, "", f"{sandbox_warning()}arena: interrupted\n")
    assert_nothing_left(before, scratch)


# --- arena play ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("signum", "status"), SIGNALS)
def test_play_stopped_while_the_engine_thinks_stores_nothing_and_cleans_up(
        tmp_path: Path, signum: int, status: int) -> None:
    db = tmp_path / "play.sqlite"
    scratch = tmp_path / "scratch"
    before = set(live_descendants())
    env = environment(scratch)
    env["TERM"] = "dumb"
    child = pexpect.spawn(ARENA, ["play", "--n", "3", "--human", "o", "--time", "30", "--engine",
                                  f"python3 {STUDENT}", "--db", str(db)],
                          cwd=str(tmp_path), env=env, encoding="utf-8", timeout=60, dimensions=(24, 100))
    try:
        child.expect(r"Betsy n = 3: you play o")
        wait_until(lambda: engines_running() == 1, "the engine thinking")
        if signum == signal.SIGINT:
            child.sendintr()  # Ctrl-C at the terminal
        else:
            child.kill(signum)
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == status, child.before
    assert "interrupted; an unfinished game is not stored" in child.before
    assert stored(db) == {}
    assert_nothing_left(before, scratch)


# --- SIGKILL of the coordinator ---------------------------------------------------------------------


def test_check_for_leftovers_sees_an_orphaned_engine(tmp_path: Path) -> None:
    # The check itself: a grandchild whose parent died is still found (and then killed here).
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    before = set(live_descendants())
    code = "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)
    orphans = set(live_descendants()) - before
    assert len(orphans) == 1
    with pytest.raises(AssertionError):
        assert_nothing_left(before, scratch, patience=1)
    for pid in orphans:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert_nothing_left(before, scratch)


# --- arena class -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_class_stopped_mid_league_keeps_its_work_and_a_rerun_finishes_it(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    for name in ("ann", "bob", "cid"):
        (sub / name).mkdir(parents=True)
        (sub / name / "betsy.py").write_text(STUDENT.read_text() + f"# {name}\n")
        (sub / name / "_common.py").write_text((STUDENT.parent / "_common.py").read_text())
    config = tmp_path / "class.yaml"
    config.write_text("name: stopclass\nn: 3\ntime: 1\nmax_plies: 6\nsubmissions: sub\nconcurrency: 2\n"
                      "validation: {quick: true, n: [3]}\nleague: {format: round-robin, references: {random: 0}}\n"
                      "grading: {budget: 2, bands: [{name: any}]}\nsimilarity: {positions: 0}\n")
    db = tmp_path / "stop.sqlite"
    argv = [ARENA, "class", str(config), "--db", str(db), "--no-progress", "--json"]
    scratch = tmp_path / "scratch"
    before = set(live_descendants())
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               env=environment(scratch))
    wait_until(lambda: len(stored(db)) >= 2, "2 games stored", timeout=300)
    kept = stored(db)
    _, err = interrupt(process, signal.SIGINT)
    assert process.returncode == 130, err
    assert err.splitlines()[-1] == f"interrupted: finished work is saved in {db}; {RESUME}"
    assert_nothing_left(before, scratch)
    after = stored(db)
    assert kept.items() <= after.items() and len(after) < 6
    resumed = run_program(argv, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    import json

    data = json.loads(resumed.stdout)
    assert data["validated_now"] == 0
    final = stored(db)
    assert after.items() <= final.items() and len(final) == 6  # a pair for each of the 3 pairings
    assert data["played_now"] == 6 - len(after)
