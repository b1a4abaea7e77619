"""Tournaments end to end: real YAML, real SQLite, real worker processes and engine programs."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.tournament.config import load_config
from harness.report.ratings import paired_estimate
from harness.tournament.schedule import schedule
from harness.store.store import Store
from harness.tournament.run import run_tournament
from tests.conftest import ROOT, assert_nothing_left, live_descendants, run_program

FAKES = ROOT / "tests" / "fake_engines"
ARENA = [str(Path(sys.executable).parent / "arena")]


def write_config(tmp_path: Path, body: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


SMALL = """
name: small
n: [3]
time: 1
rounds: 2
max_plies: 30
openings: {plies: 2, seed: 5}
concurrency: 2
engines:
  - {name: rnd, builtin: random}
  - {name: grd, builtin: greedy}
"""


def game_rows(db: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT g.game_id, g.result, count(m.ply) FROM games g LEFT JOIN moves m ON m.game = g.id "
            "GROUP BY g.id ORDER BY g.game_id"
        ).fetchall()


def test_tournament_cli_plays_every_game_stores_it_and_prints_tables(tmp_path: Path) -> None:
    config = write_config(tmp_path, SMALL)
    db = tmp_path / "r.sqlite"
    result = run_program([*ARENA, "tournament", str(config), "--db", str(db)], timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"4 games played now, 0 already in {db}, 4 scheduled"
    assert "Crosstable (row engine's points / games against the column engine)" in lines
    assert any(line.startswith("Ratings (Bradley-Terry Elo") for line in lines)
    rows = game_rows(db)
    expected_ids = sorted(game.game_id for game in schedule(load_config(config)))
    assert [row[0] for row in rows] == expected_ids
    for _, result_text, moves in rows:
        assert result_text in ("1-0", "0-1", "1/2-1/2")
        assert moves > 0
    log = (tmp_path / "r.sqlite.log").read_text()
    for game_id in expected_ids:  # one line per finished game, from the coordinator
        assert f"INFO {game_id}: " in log
    assert "tournament 'small' (#1)" in log

    again = run_program([*ARENA, "tournament", str(config), "--db", str(db)], timeout=300)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0] == f"0 games played now, 4 already in {db}, 4 scheduled"
    assert again.stdout.splitlines()[1:] == lines[1:]
    assert game_rows(db) == rows


def test_report_json_has_games_and_engine_rows(tmp_path: Path) -> None:
    config = write_config(tmp_path, SMALL)
    db = tmp_path / "r.sqlite"
    summary = run_tournament(load_config(config), db, progress=False)
    assert (summary.played, summary.already_done, summary.failed) == (4, 0, 0)
    result = run_program([*ARENA, "report", str(db), "--json"])
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["games"] == 4
    by_name = {row["name"]: row for row in data["engines"]}
    assert set(by_name) == {"rnd", "grd"}
    assert by_name["rnd"]["score"] + by_name["grd"]["score"] == 4
    for row in data["engines"]:
        assert row["games"] == 4
        assert row["elo_ci"][0] <= row["elo"] <= row["elo_ci"][1]
        assert row["faults"] == {v: 0 for v in ("time", "no-answer", "output-limit", "illegal-move",
                                                "board-mismatch", "failed-to-start")}
    assert by_name["rnd"]["elo"] == -by_name["grd"]["elo"]
    counts = data["pentanomial"]["grd vs rnd"]
    assert sum(counts) == 2  # two openings, each played with colours swapped
    estimate = paired_estimate(counts)
    assert estimate is not None
    finite = lambda v: None if abs(v) == math.inf else round(v, 1)  # noqa: E731
    assert data["paired"] == {"grd vs rnd": {
        "pairs": 2, "score": round(estimate.score, 4), "elo": finite(estimate.elo),
        "elo_ci": [finite(estimate.elo_ci[0]), finite(estimate.elo_ci[1])], "los": round(estimate.los, 4),
    }}
    text = run_program([*ARENA, "report", str(db)]).stdout.splitlines()
    row = next(line for line in text if line.startswith("grd vs rnd "))
    assert row.split()[3] == "2"
    assert "[" + ", ".join(map(str, counts)) + "]" in row
    assert row.endswith(f"{estimate.los * 100:.1f}%")
    csv = run_program([*ARENA, "report", str(db), "--csv"])
    assert csv.stdout.splitlines()[0].startswith("name,games,score,wins,draws,losses,elo,elo_low,elo_high")
    assert len(csv.stdout.splitlines()) == 3


def test_misbehaving_engine_loses_with_a_recorded_reason_and_the_tournament_goes_on(tmp_path: Path) -> None:
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(600)\n")
    config = write_config(tmp_path, SMALL.replace("rounds: 2", "rounds: 1").replace(
        "  - {name: grd, builtin: greedy}", "  - {name: sleepy, command: python3 hang.py}"))
    db = tmp_path / "r.sqlite"
    summary = run_tournament(load_config(config), db, progress=False)
    assert (summary.played, summary.failed) == (2, 0)
    with Store(db) as store:
        games = store.games(summary.tournament)
    assert len(games) == 2
    for game in games:
        loser_is_x = game.x == "sleepy"
        assert game.result == ("0-1" if loser_is_x else "1-0")
        assert game.termination == "forfeit"
        assert game.fault is not None and game.fault["verdict"] == "time"
        assert game.reason.endswith("(sleepy) forfeits by time: no answer within 1 s (+ 0.5 s grace); killed")
    report = run_program([*ARENA, "report", str(db), "--json"])
    sleepy = next(r for r in json.loads(report.stdout)["engines"] if r["name"] == "sleepy")
    assert sleepy["faults"]["time"] == 2 and sleepy["score"] == 0


def test_changed_config_is_refused_unless_force_new(tmp_path: Path) -> None:
    config = write_config(tmp_path, SMALL.replace("rounds: 2", "rounds: 1"))
    db = tmp_path / "r.sqlite"
    run_tournament(load_config(config), db, progress=False)
    config.write_text(SMALL)  # rounds: 2 now
    result = run_program([*ARENA, "tournament", str(config), "--db", str(db)])
    assert result.returncode == 2
    assert result.stderr == (
        f"arena: error: {db} holds tournament 'small' with a different config (changed: rounds); run "
        f"with --force-new to start a new tournament in {db} (earlier results are kept), or give another --db\n"
    )
    forced = run_program([*ARENA, "tournament", str(config), "--db", str(db), "--force-new"], timeout=300)
    assert forced.returncode == 0, forced.stderr
    assert forced.stdout.splitlines()[0] == f"4 games played now, 0 already in {db}, 4 scheduled"
    assert "Tournament 'small' (#2): 4 games" in forced.stdout
    assert len(game_rows(db)) == 2 + 4  # the first tournament's games are kept


def test_changed_engine_file_is_refused(tmp_path: Path) -> None:
    engine = tmp_path / "mine.py"
    engine.write_text((ROOT / "engines" / "random_mover.py").read_text().replace(
        "if __name__ == \"__main__\" and not __package__:", "if False:"))
    body = SMALL.replace("rounds: 2", "rounds: 1").replace(
        "  - {name: grd, builtin: greedy}", "  - {name: mine, command: python3 mine.py}")
    config = write_config(tmp_path, body)
    db = tmp_path / "r.sqlite"
    run_tournament(load_config(config), db, progress=False)
    engine.write_text(engine.read_text() + "\n# edited\n")
    result = run_program([*ARENA, "tournament", str(config), "--db", str(db)])
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"arena: error: engine 'mine' changed since tournament 'small' started in {db} (the SHA-256 of "
        f"{engine} differs); run with --force-new"
    )


def test_report_of_a_missing_database_is_a_one_line_error(tmp_path: Path) -> None:
    result = run_program([*ARENA, "report", str(tmp_path / "none.sqlite")])
    assert result.returncode == 2
    assert result.stderr == (
        f"arena: error: no results database at {tmp_path / 'none.sqlite'}; run 'arena tournament CONFIG' "
        f"first or check the path\n"
    )


@pytest.mark.slow
@pytest.mark.setting
def test_tournament_killed_with_sigkill_resumes_and_plays_every_game_exactly_once(tmp_path: Path) -> None:
    # ann, a student program (inside the sandbox too), thinks for half of its second.
    config = write_config(tmp_path, f"""
name: killme
n: [3]
time: 1
rounds: 5
max_plies: 8
openings: {{plies: 2, seed: 3}}
concurrency: 2
engines:
  - {{name: ann, command: python3 {FAKES / 'students' / 'uses_half_its_time.py'}}}
  - {{name: bob, builtin: greedy}}
""")
    db = tmp_path / "k.sqlite"
    argv = [*ARENA, "tournament", str(config), "--db", str(db), "--no-progress"]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    before = set(live_descendants())
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
                               env={**os.environ, "TMPDIR": str(scratch)})
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if db.exists():
                try:
                    with sqlite3.connect(db, timeout=5) as connection:
                        done = connection.execute("SELECT count(*) FROM games").fetchone()[0]
                except sqlite3.OperationalError:
                    done = 0
                if done >= 2:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("no game finished in time")
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    # Its pool workers see it die: each kills its engine, removes its scratch folder and exits.
    assert_nothing_left(before, scratch)
    with sqlite3.connect(db) as connection:
        killed_at = connection.execute("SELECT count(*) FROM games").fetchone()[0]
        plies = connection.execute("SELECT min(plies) FROM games").fetchone()[0]
    assert 2 <= killed_at < 10 and plies > 1  # real games, not forfeits at the first move

    resumed = run_program(argv, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    first_line = resumed.stdout.splitlines()[0]
    assert first_line == f"{10 - killed_at} games played now, {killed_at} already in {db}, 10 scheduled"
    with sqlite3.connect(db) as connection:
        ids = [row[0] for row in connection.execute("SELECT game_id FROM games")]
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        orphans = connection.execute(
            "SELECT count(*) FROM moves WHERE game NOT IN (SELECT id FROM games)").fetchone()[0]
    assert sorted(ids) == sorted(game.game_id for game in schedule(load_config(config)))
    assert len(ids) == len(set(ids)) == 10
    assert orphans == 0


def test_report_of_a_tournament_number_not_in_the_database_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path, SMALL.replace("rounds: 2", "rounds: 1"))
    db = tmp_path / "r.sqlite"
    run_tournament(load_config(config), db, progress=False)
    assert run_program([*ARENA, "report", str(db), "--tournament", "1"]).returncode == 0
    result = run_program([*ARENA, "report", str(db), "--tournament", "7"])
    assert result.returncode == 2
    assert result.stderr == f"arena: error: {db} has no tournament #7\n"


def test_rounds_play_a_share_of_the_schedule_and_the_shares_add_up_to_the_whole(tmp_path: Path) -> None:
    config = write_config(tmp_path, SMALL.replace("rounds: 2", "rounds: 3").replace("max_plies: 30", "max_plies: 6"))
    db = tmp_path / "r.sqlite"
    whole = sorted(game.game_id for game in schedule(load_config(config)))
    later = run_program([*ARENA, "tournament", str(config), "--db", str(db), "--rounds", "2-3"], timeout=300)
    assert later.returncode == 0, later.stderr
    assert later.stdout.splitlines()[0] == f"4 games played now, 0 already in {db}, 4 scheduled in rounds 2-3"
    assert [row[0] for row in game_rows(db)] == [i for i in whole if ":r2:" in i or ":r3:" in i]
    first = run_program([*ARENA, "tournament", str(config), "--db", str(db), "--rounds", "1"], timeout=300)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[0] == f"2 games played now, 0 already in {db}, 2 scheduled in rounds 1"
    assert "Tournament 'small' (#1): 6 games" in first.stdout  # one tournament: the shares share it
    rest = run_program([*ARENA, "tournament", str(config), "--db", str(db)], timeout=300)
    assert rest.stdout.splitlines()[0] == f"0 games played now, 6 already in {db}, 6 scheduled"
    assert [row[0] for row in game_rows(db)] == whole


@pytest.mark.parametrize(("rounds", "message"), [
    ("0-2", "invalid --rounds 0-2: the config has rounds 1-2; give FIRST-LAST with 1 <= FIRST <= LAST <= 2"),
    ("2-1", "invalid --rounds 2-1: the config has rounds 1-2; give FIRST-LAST with 1 <= FIRST <= LAST <= 2"),
    ("3", "invalid --rounds 3: the config has rounds 1-2; give FIRST-LAST with 1 <= FIRST <= LAST <= 2"),
    ("1-", "invalid --rounds '1-': give FIRST-LAST (e.g. 51-100) or one round number"),
    ("x", "invalid --rounds 'x': give FIRST-LAST (e.g. 51-100) or one round number"),
])
def test_rounds_outside_the_config_are_refused_before_anything_is_written(
    tmp_path: Path, rounds: str, message: str
) -> None:
    config = write_config(tmp_path, SMALL)
    db = tmp_path / "out" / "r.sqlite"
    result = run_program([*ARENA, "tournament", str(config), "--db", str(db), "--rounds", rounds])
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"arena: error: {message}\n")
    assert not (tmp_path / "out").exists()


def move_rows(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT g.game_id, m.ply, m.player, m.engine, m.move, m.board, m.verdict, m.seconds FROM moves m "
            "JOIN games g ON g.id = m.game ORDER BY g.game_id, m.ply"
        ).fetchall()


def test_shares_played_into_separate_databases_merge_into_the_whole_tournament(tmp_path: Path) -> None:
    config = write_config(tmp_path, SMALL.replace("rounds: 2", "rounds: 3").replace("max_plies: 30", "max_plies: 6"))
    first, second, merged = tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "all.sqlite"
    for db, rounds in ((first, "1"), (second, "2-3")):
        played = run_program([*ARENA, "tournament", str(config), "--db", str(db), "--rounds", rounds], timeout=300)
        assert played.returncode == 0, played.stderr
    result = run_program([*ARENA, "merge", str(merged), str(first), str(second)])
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        f"{first}: 2 games of tournament 'small' added to {merged} (#1), 0 already there",
        f"{second}: 4 games of tournament 'small' added to {merged} (#1), 0 already there",
    ]
    assert [row[0] for row in game_rows(merged)] == sorted(g.game_id for g in schedule(load_config(config)))
    assert game_rows(merged) == sorted(game_rows(first) + game_rows(second))
    assert move_rows(merged) == sorted(move_rows(first) + move_rows(second))
    again = run_program([*ARENA, "merge", str(merged), str(second)])
    assert again.stdout == f"{second}: 0 games of tournament 'small' added to {merged} (#1), 4 already there\n"
    resumed = run_program([*ARENA, "tournament", str(config), "--db", str(merged)], timeout=300)
    assert resumed.stdout.splitlines()[0] == f"0 games played now, 6 already in {merged}, 6 scheduled"


def test_merge_refuses_shares_of_a_changed_engine_and_missing_databases(tmp_path: Path) -> None:
    engine = tmp_path / "mine.py"
    engine.write_text((ROOT / "engines" / "random_mover.py").read_text().replace(
        "if __name__ == \"__main__\" and not __package__:", "if False:"))
    config = write_config(tmp_path, SMALL.replace("max_plies: 30", "max_plies: 6").replace(
        "  - {name: grd, builtin: greedy}", "  - {name: mine, command: python3 mine.py}"))
    first, second, merged = tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "all.sqlite"
    run_tournament(load_config(config), first, progress=False, rounds=(1, 1))
    engine.write_text(engine.read_text() + "\n# edited\n")
    run_tournament(load_config(config), second, progress=False, rounds=(2, 2))
    result = run_program([*ARENA, "merge", str(merged), str(first), str(second)])
    assert result.returncode == 2
    assert result.stdout == f"{first}: 2 games of tournament 'small' added to {merged} (#1), 0 already there\n"
    assert result.stderr == (
        f"arena: error: engine 'mine' of tournament 'small' differs between {second} and {merged} (the "
        f"SHA-256 of {engine} is not the same): their games are not of the same engine, so they cannot be merged\n"
    )
    assert game_rows(merged) == game_rows(first)  # nothing of the refused share was written
    missing = run_program([*ARENA, "merge", str(merged), str(tmp_path / "none.sqlite")])
    assert (missing.returncode, missing.stderr) == (
        2, f"arena: error: no results database at {tmp_path / 'none.sqlite'}; check the path\n")


def test_a_file_that_is_not_a_database_is_a_one_line_error_everywhere(tmp_path: Path) -> None:
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database\n")
    expected = (f"arena: error: {text} is not a results database (file is not a database); give a database "
                f"written by 'arena tournament', or a new path\n")
    config = write_config(tmp_path, SMALL)
    for args in (["report", str(text)], ["merge", str(tmp_path / "all.sqlite"), str(text)],
                 ["tournament", str(config), "--db", str(text)]):
        result = run_program([*ARENA, *args])
        assert (result.returncode, result.stdout, result.stderr) == (2, "", expected), args
    assert not (tmp_path / "all.sqlite").exists()
    assert text.read_text() == "not a database\n"


@pytest.mark.parametrize("mode", ["off", "auto"])
def test_worker_processes_leave_no_folders_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    # Pool workers end without running atexit handlers: their scratch and staging folders must
    # still go (a long tournament would otherwise leave one per worker in the temporary folder).
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    config = write_config(tmp_path, SMALL + f"sandbox: {mode}\n")
    result = run_program([*ARENA, "tournament", str(config), "--db", str(tmp_path / "r.sqlite")], timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("4 games played now")
    assert sorted(os.listdir(temp)) == []


def test_without_the_sandbox_engines_start_under_the_limits_their_worker_holds(tmp_path: Path) -> None:
    # The engine reports its limits at its first instruction on stderr, then plays the seed
    # position's answer, a board mismatch here: its lost call's stderr is kept with the game.
    config = write_config(tmp_path, f"""
name: limits
n: [3]
time: 1
rounds: 1
max_plies: 4
max_file_mb: 3
sandbox: 'off'
concurrency: 1
engines:
  - {{name: lim, command: python3 {FAKES / 'reports_limits.py'}}}
  - {{name: rnd, builtin: random}}
""")
    db = tmp_path / "limits.sqlite"
    result = run_program([*ARENA, "tournament", str(config), "--db", str(db), "--no-progress"], timeout=300)
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as connection:
        faults = [json.loads(row[0]) for row in connection.execute("SELECT fault_json FROM games WHERE x = 'lim'")]
    assert len(faults) == 1 and faults[0]["verdict"] == "board-mismatch"
    address_space, file_size, core = faults[0]["stderr_tail"].split()[:3]  # CPU seconds are set after the start
    assert (int(address_space), int(file_size), int(core)) == (4 << 30, 3 << 20, 0)


def test_a_worker_holding_the_limits_still_reports_a_program_that_cannot_start(tmp_path: Path) -> None:
    # A pool worker starts its engines directly (no prlimit in front): a missing program is a start failure.
    code = ("from harness.referee.protocol import Clock\n"
            "from harness.referee.referee import Limits, ask, inherit_limits\n"
            "from harness.games.betsy.rules import initial_position\n"
            "inherit_limits(Limits())\n"
            f"print(ask([{str(tmp_path / 'gone.py')!r}], initial_position(3), Clock(1), Limits()).detail)\n")
    result = run_program([sys.executable, "-c", code])
    assert (result.returncode, result.stdout) == (0, f"cannot start {str(tmp_path / 'gone.py')!r}: no such file or command\n")


def test_check_run_checks_rounds_and_resolves_the_sandbox_once_without_writing(tmp_path: Path) -> None:
    from harness.errors import UsageError
    from harness.tournament.run import check_run

    config = load_config(write_config(tmp_path, SMALL + "sandbox: 'off'\n"))
    run = check_run(config, (2, 2))
    assert (run.rounds, run.access, run.confined) == ((2, 2), None, False)
    assert run.sandbox_warning == "sandbox off: engines run unconfined, with your rights, files and environment"
    with pytest.raises(UsageError) as error:
        check_run(config, (1, 3))
    assert str(error.value) == (
        "invalid --rounds 1-3: the config has rounds 1-2; give FIRST-LAST with 1 <= FIRST <= LAST <= 2")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["t.yaml"]
