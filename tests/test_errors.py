"""Every bad input is one line ``arena: error: ...`` naming the value and what was expected, exit 2.

Each case runs the real console script on real files; none may print a traceback.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.referee.engine_specs import BUILTIN
from harness.games.betsy.rules import MAX_N
from tests.conftest import SEED_BOARD, TINY, arena, bound_by_permissions



def one_line_error(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert "Traceback" not in result.stderr + result.stdout
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"arena: error: {message}\n")


@pytest.fixture(scope="module")
def results_db(tiny_db: Path) -> Path:
    """A finished tournament's database (two games of random against random, n = 3)."""
    return tiny_db


@pytest.mark.parametrize(("args", "message"), [
    (["moves", "99999999999999999999", "x", ".."],
     f"invalid board size '99999999999999999999': board sizes from 1 to {MAX_N} are supported"),
    (["moves", "17", "x", ".."], f"invalid board size '17': board sizes from 1 to {MAX_N} are supported"),
    (["moves", "-1", "x", "BOARD"], "invalid board size '-1': n must be a whole number >= 1"),
    (["moves", "three", "x", SEED_BOARD], "invalid board size 'three': n must be a whole number >= 1"),
    (["moves", "3", "o", SEED_BOARD, "--jsn"],
     "got unexpected extra argument(s) (--jsn); usage: arena moves [OPTIONS] SIZE PLAYER BOARD "
     "(see arena moves --help)"),
    (["moves", "3", "o"], "missing argument BOARD; usage: arena moves [OPTIONS] SIZE PLAYER BOARD (see arena moves --help)"),
    (["match", "random", "random", "--time", "1e308"],
     "invalid --time 1e+308: over the maximum of 3600 s per move"),
    (["match", "random", "random", "--time", "1e12"],
     "invalid --time 1e+12: over the maximum of 3600 s per move"),
    (["match", "random", "random", "--time", "inf"],
     "invalid --time inf: give a positive number of seconds (at most 3600)"),
    (["match", "random", "random", "--grace", "inf"], "invalid --grace inf: give a number of seconds from 0 to 60"),
    (["match", "random", "random", "--grace", "nan"], "invalid --grace nan: give a number of seconds from 0 to 60"),
    (["match", "random", "random", "--n", "1000"], f"invalid --n 1000: board sizes from 1 to {MAX_N} are supported"),
    (["match", "random", "random", "--n", "x"],
     "invalid --n 'x': expected a valid integer; usage: arena match [OPTIONS] ENGINE_X ENGINE_O "
     "(see arena match --help)"),
    (["match", "random", "random", "--games", "99999999999"], "invalid --games 99999999999: at most 10000 games"),
    (["match", "random", "random", "--max-plies", "0"], "invalid --max-plies 0: give a number of moves from 1 to 10000"),
    (["match", "random", "random", "--bogus"],
     "no such option: --bogus; usage: arena match [OPTIONS] ENGINE_X ENGINE_O (see arena match --help)"),
    (["validate", "P", "--n", "3,1000"], f"invalid --n '3,1000': board sizes from 1 to {MAX_N} are supported"),
    (["validate", "P", "--n", "3,x"], "invalid --n '3,x': give board sizes >= 1 separated by commas, e.g. 3,5,8"),
    (["validate", "P", "--n", "0"], "invalid --n '0': give board sizes >= 1 separated by commas, e.g. 3,5,8"),
    (["validate", "P", "--game", "connect4", "--n", "3"],
     "invalid --n '3': a Betsy option; give Connect Four's sizes as --size (e.g. --size 7x6,8x8)"),
    (["validate", "P", "--time", "99999"], "invalid --time 99999: over the maximum of 3600 s per move"),
    (["report", "--tournament", "x", "r.sqlite"],
     "invalid --tournament 'x': expected a valid integer; usage: arena report [OPTIONS] DB (see arena report --help)"),
    (["nosuch"], "no such command 'nosuch'; usage: arena [OPTIONS] COMMAND [ARGS]... (see arena --help)"),
])
def test_bad_command_lines_are_one_line(args: list[str], message: str) -> None:
    one_line_error(arena(*args), message)


def test_help_still_works() -> None:
    for args in (["--help"], ["moves", "--help"], ["match", "--help"]):
        result = arena(*args)
        assert result.returncode == 0 and "Usage" in result.stdout and result.stderr == "", args


def test_a_negative_column_is_not_taken_for_an_option() -> None:
    result = arena("moves", "3", "o", SEED_BOARD, "--json")
    assert result.returncode == 0 and '"move": -3' in result.stdout


def test_a_directory_is_not_a_results_database(tmp_path: Path, results_db: Path) -> None:
    folder = tmp_path / "somedir"
    folder.mkdir()
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY)
    expected = (f"{folder} is not a results database (it is a directory); give a database written by "
                f"'arena tournament', or a new path")
    one_line_error(arena("tournament", str(config), "--db", str(folder), "--no-progress"), expected)
    one_line_error(arena("report", str(folder)), expected)
    one_line_error(arena("merge", str(folder), str(results_db)), expected)
    assert list(folder.iterdir()) == []
    assert sorted(path.name for path in tmp_path.iterdir()) == ["somedir", "tiny.yaml"]


@pytest.mark.parametrize("number", ["99999999999999999999", "-99999999999999999999", "0", "7"])
def test_a_tournament_number_not_in_the_database_is_one_line(results_db: Path, number: str) -> None:
    one_line_error(arena("report", str(results_db), "--tournament", number),
                   f"{results_db} has no tournament #{number}")


@pytest.mark.parametrize("offset", [4096, 8192])
def test_a_database_with_bytes_overwritten_in_the_middle_is_one_line(
    tmp_path: Path, results_db: Path, offset: int
) -> None:
    damaged = tmp_path / "damaged.sqlite"
    data = bytearray(results_db.read_bytes())
    data[offset:offset + 200] = bytes(range(56, 256))
    damaged.write_bytes(bytes(data))
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY)
    for args in (["report", str(damaged)], ["merge", str(tmp_path / "all.sqlite"), str(damaged)],
                 ["tournament", str(config), "--db", str(damaged), "--no-progress"]):
        result = arena(*args)
        assert result.returncode == 2 and result.stdout == "", args
        assert result.stderr.startswith(f"arena: error: {damaged} is damaged ("), args
        assert result.stderr.endswith("); restore it from a copy, or give another database\n"), args
        assert result.stderr.count("\n") == 1, args
    assert damaged.read_bytes() == bytes(data)
    assert not (tmp_path / "all.sqlite").exists()


def test_validate_html_under_a_file_or_as_a_directory_is_refused_before_any_check(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("")
    one_line_error(arena("validate", "P", "--html", "notes/dir/r.html", cwd=tmp_path),
                   "invalid --html notes/dir/r.html: notes is not a folder; give a file in a folder "
                   "you can write")
    (tmp_path / "somedir").mkdir()
    one_line_error(arena("validate", "P", "--html", "somedir", cwd=tmp_path),
                   "invalid --html somedir: it is a folder; give a file name in it, e.g. somedir/report.html")


@pytest.mark.setting
def test_a_tournament_in_a_read_only_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "tiny.yaml").write_text(TINY)
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o555)
    try:
        one_line_error(
            arena("tournament", "tiny.yaml", "--db", "ro/tiny.sqlite", "--no-progress", cwd=tmp_path,
                  user=bound_by_permissions()),
            "invalid --db ro/tiny.sqlite: cannot write in ro (Permission denied); the database, its lock file and its "
            "log go in its folder: give a path in a folder you can write")
        assert list((tmp_path / "ro").iterdir()) == []
    finally:
        (tmp_path / "ro").chmod(0o755)


@pytest.mark.parametrize(("line", "message"), [
    ("n: 1000", f"n[0]: board sizes from 1 to {MAX_N} are supported, got 1000"),
    ("n: [3, 17]", f"n[1]: board sizes from 1 to {MAX_N} are supported, got 17"),
    ("time: 4000", "time: expected a number <= 3600, got 4000"),
    ("grace: 61", "grace: expected a number <= 60, got 61"),
    ("rounds: 100000000", "rounds: expected a number <= 10000, got 100000000"),
    ("max_plies: 1000000", "max_plies: expected a number <= 10000, got 1000000"),
    ("openings: {plies: 1000000000}", "openings.plies: expected a number <= 1000, got 1000000000"),
    ("concurrency: 100000", "concurrency: expected a number <= 256, got 100000"),
])
def test_config_sizes_are_bounded(tmp_path: Path, line: str, message: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(f"name: c\n{line}\nengines:\n  - {{name: a, builtin: random}}\n  - {{name: b, builtin: greedy}}\n")
    one_line_error(arena("tournament", str(config), "--db", str(tmp_path / "c.sqlite"), "--no-progress"),
                   f"{config}: {message}")
    assert not (tmp_path / "c.sqlite").exists()


@pytest.mark.parametrize(("options", "message"), [
    ("{seed: x}", "engines[1].options.seed: expected a whole number, got 'x'"),
    ("{seed: 1.5}", "engines[1].options.seed: expected a whole number, got 1.5"),
    ("{sede: 1}", "engines[1].options.sede: unknown option for built-in 'greedy'; valid options: seed"),
    ("{depth: 3}", "engines[1].options.depth: unknown option for built-in 'greedy'; valid options: seed"),
])
def test_engine_options_are_checked_against_the_ones_the_engine_declares(
    tmp_path: Path, options: str, message: str
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(f"name: c\nengines:\n  - {{name: a, builtin: random}}\n"
                      f"  - {{name: b, builtin: greedy, options: {options}}}\n")
    one_line_error(arena("tournament", str(config), "--db", str(tmp_path / "c.sqlite")), f"{config}: {message}")


def test_option_types_of_every_builtin_are_checked(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(
        "name: c\nengines:\n  - {name: a, builtin: alphabeta, options: {depth: 2.5, info: 1, nodes: true}}\n"
        "  - {name: b, builtin: mcts-alphabeta, options: {mcts_share: .inf, playouts: '3'}}\n")
    one_line_error(arena("tournament", str(config)), (
        f"{config}: 5 problems: engines[0].options.depth: expected a whole number, got 2.5; "
        f"engines[0].options.info: expected true or false, got 1; "
        f"engines[0].options.nodes: expected a whole number, got True; "
        f"engines[1].options.mcts_share: expected a finite number, got inf; "
        f"engines[1].options.playouts: expected a whole number, got '3'"))
    assert set(BUILTIN["mcts-alphabeta"].options) >= {"mcts_share", "playouts"}
