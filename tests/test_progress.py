"""Long work speaks: progress with a total and the time left on stderr when it is a terminal (a real
pseudo-terminal here), nothing on a pipe unless asked with --progress; `arena solve` says how far a
long position is and gives it up at --timeout."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pexpect
import pytest

from tests.conftest import ARENA, ROOT, TINY, arena, sandbox_warning

STUDENTS = ROOT / "tests" / "fake_engines"


def run(args: list[str], cwd: Path, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], cwd=cwd, input=input, capture_output=True, text=True, timeout=300)


def on_terminal(args: list[str], cwd: Path) -> str:
    """What ``arena ARGS`` wrote to a pseudo-terminal (stdout and stderr both), to the end."""
    child = pexpect.spawn(ARENA, args, cwd=str(cwd), encoding="utf-8", timeout=300, dimensions=(24, 120),
                          env={"PATH": "/usr/bin:/bin", "TERM": "dumb", "HOME": str(cwd)})
    child.expect(pexpect.EOF)
    child.close()
    return str(child.before)


# --- solve ---------------------------------------------------------------------------------------


def test_solve_answers_unknown_for_a_position_past_its_timeout_and_goes_on(tmp_path: Path) -> None:
    done = run(["solve", "--timeout", "1"], tmp_path, input="445566\n12\n44556\n")
    assert (done.returncode, done.stdout, done.stderr) == (0, "445566 18\n12 unknown\n44556 -18\n", "")


def test_solve_says_how_far_a_long_position_is_when_asked_on_a_pipe(tmp_path: Path) -> None:
    done = run(["solve", "--timeout", "3", "--progress"], tmp_path, input="12\n")
    assert done.stdout == "12 unknown\n"
    line, = done.stderr.splitlines()
    assert re.fullmatch(r"solving 12 \(2 discs played\): [\d,]+ nodes in 2 s, score between -\d+ and \+\d+", line), line


def test_solve_rewrites_one_progress_line_on_a_terminal_and_erases_it(tmp_path: Path) -> None:
    (tmp_path / "positions").write_text("4\n445566\n")
    shown = on_terminal(["solve", "positions", "--timeout", "4"], tmp_path)
    assert shown.count("\r\x1b[K") == 1  # erased once, when the position ends
    assert shown.count("solving 4 (1 disc played): ") >= 2  # rewritten in place every half second
    assert shown.endswith("\r\x1b[K4 unknown\r\n445566 18\r\n")


def test_solve_offers_only_connect4() -> None:
    done = subprocess.run([ARENA, "solve", "--game", "betsy"], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("arena: error: invalid --game 'betsy': 'betsy' is not one of 'connect4'; usage: arena solve "
                           "[OPTIONS] [FILE] (see arena solve --help)\n")


# --- bars ----------------------------------------------------------------------------------------


def test_a_tournament_shows_its_bar_on_a_terminal_and_not_on_a_pipe(tmp_path: Path) -> None:
    (tmp_path / "tiny.yaml").write_text(TINY)
    piped = arena("tournament", "tiny.yaml", "--db", "a.sqlite", cwd=tmp_path)
    assert (piped.returncode, piped.stderr) == (0, sandbox_warning())
    shown = on_terminal(["tournament", "tiny.yaml", "--db", "b.sqlite"], tmp_path)
    assert re.search(r"2/2 \[[\d:]+<[\d:]+", shown), shown  # the total, elapsed < left
    asked = arena("tournament", "tiny.yaml", "--db", "c.sqlite", "--progress", cwd=tmp_path)
    assert "2/2" in asked.stderr


def test_validate_shows_its_checks_against_their_total_only_where_asked(tmp_path: Path) -> None:
    program = f"python3 {STUDENTS / 'students' / 'random_legal.py'}"
    base = ["validate", program, "--quick", "--games", "0", "--n", "3", "--json"]
    assert run(base, tmp_path).stderr == sandbox_warning()
    asked = run([*base, "--progress"], tmp_path)
    from harness.validate.progress import validation_steps
    from harness.match.settings import settings_from_flags
    from harness.validate.validator import ValidationSettings

    total = validation_steps(ValidationSettings(settings_from_flags({"game": "betsy", "time": 1}), sizes=("3",), quick=True,
                                      games=0))
    assert {int(shown) for shown in re.findall(r"\d+/(\d+) \[", asked.stderr)} == {total}, asked.stderr
    assert f"validating:   0%|          | 0/{total} [" in asked.stderr
    assert run([*base, "--progress", "--quiet"], tmp_path).stderr == sandbox_warning()


@pytest.mark.parametrize(("game", "program", "options"), [
    ("betsy", "students/random_legal.py", {"sizes": ("3", "5"), "quick": True, "games": 1}),
    ("betsy", "students/random_legal.py", {"sizes": ("3",), "quick": False, "games": 0}),
    ("connect4", "students_connect4/random_legal.py", {"sizes": ("7x6",), "quick": True, "games": 1}),
    ("kings-horses", "students_kings_horses/plain_minimax/bestmove.py", {"quick": True}),
])
def test_the_validation_bar_total_is_the_number_of_steps_a_run_reports(game: str, program: str,
                                                                       options: dict[str, object]) -> None:
    from harness.referee.engine_specs import command_engine
    from harness.validate.progress import validation_steps
    from harness.match.settings import settings_from_flags
    from harness.validate.validator import ValidationSettings, validate
    from harness.validate.kings_horses import validate_kings_horses

    play = settings_from_flags({"game": game, "time": 10 if game == "kings-horses" else 1})
    settings = ValidationSettings(play, concurrency=2, **options)  # type: ignore[arg-type]
    steps: list[str] = []
    command = f"python3 {STUDENTS / program}"
    check = validate_kings_horses if game == "kings-horses" else validate
    check(command, command_engine(command), settings, None, steps.append)
    assert len(steps) == validation_steps(settings)


def test_match_shows_a_bar_of_games_where_the_moves_do_not_go_to_the_terminal(tmp_path: Path) -> None:
    base = ["match", "random", "random", "--n", "3", "--games", "2", "--max-plies", "4", "--json"]
    assert run(base, tmp_path).stderr == sandbox_warning()
    assert re.search(r"match: 100%.*2/2 \[", run([*base, "--progress"], tmp_path).stderr)
    shown = on_terminal(["match", "random", "random", "--n", "3", "--games", "2", "--max-plies", "4"], tmp_path)
    assert "game 1/2: random (x) vs random (o)" in shown and "game 2/2: " in shown
    assert "2/2 [" not in shown  # the moves speak on the terminal; no bar between them


def test_export_import_and_report_pages_count_against_their_totals(tiny_db: Path, tmp_path: Path) -> None:
    exported = run(["export", str(tiny_db), "--progress"], tmp_path)
    assert "export:   0%|          | 0/2 [" in exported.stderr
    (tmp_path / "games.jsonl").write_text(exported.stdout)
    size = (tmp_path / "games.jsonl").stat().st_size
    imported = run(["import", "new.sqlite", "games.jsonl", "--progress"], tmp_path)
    assert imported.returncode == 0
    assert f"games.jsonl:   0%|          | 0.00/{size / 1024:.2f}k [" in imported.stderr, imported.stderr
    pages = run(["report", str(tiny_db), "--html", "pages", "--progress"], tmp_path)
    assert "pages:   0%|          | 0/2 [" in pages.stderr
    for args in (["export", str(tiny_db)], ["import", "other.sqlite", "games.jsonl"],
                 ["report", str(tiny_db), "--html", "pages2"]):
        assert run(args, tmp_path).stderr == ""
