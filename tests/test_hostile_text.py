"""What a program prints or a file claims, as the commands show it: never raw on a terminal or in the
log. Each attack is a small real program (tests/fake_engines/hostile/) run through the real `arena`
console script, whose output is captured as bytes: no ESC, BEL or other control or format character
may appear in it, and the escape sequences must appear as visible text (``\\x1b[2J``)."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pexpect
import pytest

from harness.store import Store
from tests.conftest import ARENA, ROOT, require_sandbox

HOSTILE = ROOT / "tests" / "fake_engines" / "hostile"
PAINTER = HOSTILE / "paints_terminal.py"
"""Prints screen clears, OSC 0/8/52, a C1 CSI and bidi controls on stdout and stderr, then fails."""
SHOWN = ("\\x1b[2J\\x1b[HPASS: protocol", "\\x1b]0;pwned title\\x07", "\\x1b]52;c;cm0gLXJmIH4=\\x07",
         "\\x1b]8;;http://evil.example/\\x1b\\click", "\\x9b31mred", "\\u202eexe")
"""The painter's payload as it must appear: every sequence as visible text."""
PAYLOAD_SHOWN = ("\\x1b[2J\\x1b[HPASS: protocol, rules, time and robustness are all right\\x1b]0;pwned title\\x07"
                 "\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b]8;;http://evil.example/\\x1b\\click\\x1b]8;;\\x1b\\\\x9b31mred"
                 "\\u202eexe.txt\\u2066isolated\\u2069\\u200f")
"""The whole payload line as it must appear."""


def arena(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[bytes]:
    """Run the real `arena` with output captured as bytes."""
    return subprocess.run([ARENA, *map(str, args)], capture_output=True, timeout=timeout, cwd=ROOT,
                          stdin=subprocess.DEVNULL)


def shown_safely(output: bytes) -> str:
    """``output`` as text, asserting that no control character (but newline and tab) nor format
    character (bidi controls) is in it: a terminal would act on them."""
    assert b"\x1b" not in output and b"\x07" not in output
    text = output.decode("utf-8")
    raw = sorted({f"U+{ord(char):04X}" for char in text
                  if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") and char not in "\n\t"})
    assert raw == []
    return text


@dataclasses.dataclass(frozen=True)
class Painted:
    """A finished tournament in which the painter forfeited both its games, run with -v."""

    folder: Path
    db: Path
    stdout: bytes
    stderr: bytes
    log: bytes


@pytest.fixture(scope="module")
def painted(tmp_path_factory: pytest.TempPathFactory) -> Painted:
    folder = tmp_path_factory.mktemp("painted")
    (folder / "t.yaml").write_text(f"""
name: paint
n: [3]
time: 1
grace: 5
rounds: 1
concurrency: 1
engines:
  - {{name: painter, command: {PAINTER}}}
  - {{name: rnd, builtin: random, options: {{seed: 1}}}}
""")
    db = folder / "t.sqlite"
    done = arena("tournament", folder / "t.yaml", "--db", db, "-v", "--no-progress", "--sandbox", "off")
    assert done.returncode == 0, done.stderr
    return Painted(folder, db, done.stdout, done.stderr, (folder / "t.sqlite.log").read_bytes())


@pytest.mark.parametrize("mode", ["off", "required"])
def test_match_shows_a_failing_programs_escape_sequences_as_visible_text(mode: str) -> None:
    if mode == "required":
        require_sandbox()
    done = arena("match", PAINTER, "random", "--n", "3", "--sandbox", mode)
    assert done.returncode == 0
    text = shown_safely(done.stdout)
    result = next(line for line in text.splitlines() if line.startswith("result: "))
    assert result.startswith(f"result: 0-1 (o wins: x ({PAINTER}) forfeits by no-answer: exited with status 1, ")
    assert "; stderr: \\x1b[2J\\x1b[HPASS: protocol" in result
    assert all(form in result for form in SHOWN)
    assert f"  stdout| {PAYLOAD_SHOWN}" in text.splitlines()
    assert f"  stderr| {PAYLOAD_SHOWN}" in text.splitlines()
    assert "  stderr| \ufffd2J raw" in text.splitlines()  # a raw 0x9b byte is not UTF-8: replaced
    shown_safely(done.stderr)


def test_validate_text_report_cannot_be_repainted_into_a_fake_pass() -> None:
    done = arena("validate", PAINTER, "--sandbox", "off", "-q")
    assert done.returncode == 1
    text = shown_safely(done.stdout)
    lines = text.splitlines()
    assert lines[0].startswith("FAIL: protocol; not judged: rules, time, robustness (first failure: answers: ")
    assert not any(line.startswith("PASS") for line in lines)
    assert f"    printed : {PAYLOAD_SHOWN}" in lines
    assert f"    stderr  : {PAYLOAD_SHOWN}" in lines
    assert all(form in lines[0] for form in SHOWN)  # the verdict quotes the last stderr line


def test_validate_text_report_shows_an_answering_programs_printed_lines_as_visible_text() -> None:
    done = arena("validate", HOSTILE / "paints_terminal_then_answers.py", "--quick", "--games", "0", "--n", "3",
                 "--sandbox", "off", "-q", "-v")
    text = shown_safely(done.stdout)
    assert text.startswith("PASS: protocol, rules, time and robustness are all right")
    assert f"    printed : {PAYLOAD_SHOWN}" in text.splitlines()


def test_tournament_verbose_console_shows_a_forfeits_stderr_as_visible_text(painted: Painted) -> None:
    console = shown_safely(painted.stderr)
    warning = next(line for line in console.splitlines() if line.startswith("WARNING n3:r1:painter:rnd:a: "))
    assert warning.startswith("WARNING n3:r1:painter:rnd:a: o wins: x (painter) forfeits by no-answer: exited "
                              "with status 1, ")
    assert all(form in warning for form in SHOWN)
    shown_safely(painted.stdout)


def test_tournament_log_holds_one_record_per_line_with_a_forfeits_stderr_as_visible_text(painted: Painted) -> None:
    log = shown_safely(painted.log)
    record = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \S+ (DEBUG|INFO|WARNING|ERROR) ")
    assert [line for line in log.splitlines() if not record.match(line)] == []
    forfeits = [line for line in log.splitlines() if " WARNING n3:r1:painter:rnd:" in line]
    assert len(forfeits) == 2
    assert all(form in line for line in forfeits for form in SHOWN)


def test_replay_shows_a_forfeits_detail_as_visible_text(painted: Painted) -> None:
    done = arena("replay", painted.db, "1", "--all")
    assert done.returncode == 0
    text = shown_safely(done.stdout)
    ply = next(line for line in text.splitlines() if line.startswith("ply 1/1: x (painter) forfeits: no-answer: "))
    assert all(form in ply for form in SHOWN)
    assert text.splitlines()[-1].startswith("result: 0-1 (o wins: x (painter) forfeits by no-answer: ")


def test_export_text_game_sheets_show_the_programs_output_as_visible_text(painted: Painted) -> None:
    done = arena("export", painted.db, "--format", "text")
    assert done.returncode == 0
    lines = shown_safely(done.stdout).splitlines()
    assert lines.count(f"  stdout| {PAYLOAD_SHOWN}") == 2
    assert lines.count(f"  stderr| {PAYLOAD_SHOWN}") == 4  # two games, twice each
    assert lines.count("  stderr| \ufffd2J raw") == 2


EVIL_X = "\x1b]0;pwned\x07alpha"
EVIL_O = "\u202eateb\x9b2J"
EVIL_TOURNAMENT = "\x1b[2Jtour\nWARNING fake"


def renamed(painted: Painted, folder: Path, x: str, o: str, tournament: str) -> Path:
    """A database with the painter's first game again under other engine and tournament names
    (names a database may hold though configs refuse them: a tampered or older file)."""
    db = folder / "renamed.sqlite"
    with Store(painted.db, read_only=True) as source:
        row = source.game_rows()[0]
        record = source.game_record(row.id)
        config = source.tournament_info(row.tournament)["config"]
    names = {record.x: x, record.o: o}
    assert record.fault is not None
    record = dataclasses.replace(
        record, x=x, o=o, moves=[dataclasses.replace(move, engine=names[move.engine]) for move in record.moves],
        fault=dataclasses.replace(record.fault, engine=names[record.fault.engine]),
        reason=record.reason.replace("painter", x))
    with Store(db) as store:
        number = store.ensure_tournament(tournament, config, [{"name": x}, {"name": o}])
        store.save_record(number, "n3:r1:x:o:a", "p", 1, record)
    return db


def test_report_and_games_text_show_hostile_names_as_visible_text(painted: Painted, tmp_path: Path) -> None:
    db = renamed(painted, tmp_path, EVIL_X, EVIL_O, EVIL_TOURNAMENT)
    report = arena("report", db)
    assert report.returncode == 0
    text = shown_safely(report.stdout)
    assert text.splitlines()[0].startswith("Tournament '\\x1b[2Jtour\\nWARNING fake' (#1): 1 game, ")
    assert "\\x1b]0;pwned\\x07alpha" in text and "\\u202eateb\\x9b2J" in text
    games = arena("games", db)
    assert games.returncode == 0
    listed = shown_safely(games.stdout).splitlines()
    assert len(listed) == 2 and "\\x1b]0;pwned\\x07alpha"[:18] in listed[1]
    sheet = shown_safely(arena("export", db, "--format", "text").stdout).splitlines()
    assert sheet[0] == ("game 1 (n3:r1:x:o:a, tournament '\\x1b[2Jtour\\nWARNING fake'): \\x1b]0;pwned\\x07alpha (x) "
                        "vs \\u202eateb\\x9b2J (o), Betsy n = 3, 1 s per move")


def test_report_csv_cells_starting_with_formula_characters_are_quoted_but_numbers_stay(
        painted: Painted, tmp_path: Path) -> None:
    x, o = '=HYPERLINK("http://evil.example/","click")', "@SUM(1+1)"
    db = renamed(painted, tmp_path, x, o, "csv")
    printed = arena("report", db, "--csv")
    assert printed.returncode == 0
    ratings = list(csv.reader(io.StringIO(printed.stdout.decode())))
    names = {row[0]: row for row in ratings[1:]}
    assert sorted(names) == ["'=HYPERLINK(\"http://evil.example/\",\"click\")", "'@SUM(1+1)"]
    loser = names["'=HYPERLINK(\"http://evil.example/\",\"click\")"]  # x forfeited: a negative Elo
    elo = loser[ratings[0].index("elo")]
    assert elo.startswith("-") and float(elo) < 0  # a plain number, no quote
    written = arena("report", db, "--csv", tmp_path / "tables")
    assert written.returncode == 0
    for table in sorted((tmp_path / "tables").glob("*.csv")):
        for row in csv.reader(io.StringIO(table.read_text())):
            for cell in row:
                assert not cell.startswith(("=", "+", "@", "\t", "\r")), (table.name, cell)
                assert not cell.startswith("-") or re.fullmatch(r"-\d+(\.\d+)?", cell), (table.name, cell)


def test_match_refuses_an_engine_command_holding_a_control_character_in_one_line() -> None:
    done = arena("match", f"{sys.executable} a\x1b]0;x\x07.py", "random")
    assert done.returncode == 2
    assert shown_safely(done.stderr) == (
        f"arena: error: invalid engine '{sys.executable} a\\x1b]0;x\\x07.py': it names the engine, and character "
        f"{len(sys.executable) + 3} is \\x1b, which is not printable; use printable characters only\n")


def test_config_names_holding_escape_sequences_are_refused_in_one_escaped_line(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text('name: "t\\e[2J"\nengines:\n  - {name: "a\\e]0;x\\a", builtin: random}\n'
                      "  - {name: b, builtin: random}\n")
    done = arena("tournament", config, "--db", tmp_path / "t.sqlite")
    assert done.returncode == 2
    message = shown_safely(done.stderr)
    assert message.startswith(f"arena: error: {config}: 2 problems: name: ")
    assert "got 't\\x1b[2J'" in message and "got 'a\\x1b]0;x\\x07'" in message
    assert message.count("\n") == 1


# --- bounded inputs ------------------------------------------------------------------------------


def test_validation_report_of_a_megabyte_line_per_call_keeps_a_bounded_excerpt(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    done = arena("validate", HOSTILE / "prints_a_megabyte_line.py", "--quick", "--games", "0", "--n", "3",
                 "--sandbox", "off", "-q", "--json", "--html", page)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) < 200_000 and page.stat().st_size < 400_000  # 37 checks; 50 MB before
    report = json.loads(done.stdout)
    checks = [check for category in report["categories"].values() for check in category["checks"]]
    printing = [check for check in checks if check["printed"]]
    assert len(printing) >= 20
    for check in printing:
        assert check["printed"][0] == "a" * 512
        assert check["printed_cut"] == 999_488
        assert sum(len(line.encode()) for line in check["printed"]) <= 4096
    assert page.read_text().count("Printed (last lines; ... (999,488 bytes cut)):") == len(printing)
    text = arena("validate", HOSTILE / "prints_a_megabyte_line.py", "--quick", "--games", "0", "--n", "3",
                 "--sandbox", "off", "-q", "-v")
    lines = shown_safely(text.stdout).splitlines()
    assert "              ... (999,488 bytes cut)" in lines
    assert max(len(line) for line in lines) < 1000


def test_match_shows_a_bounded_excerpt_of_a_forfeits_long_output(tmp_path: Path) -> None:
    program = tmp_path / "long.py"
    program.write_text("import sys\nprint('b' * 300_000)\nsys.stderr.write('e' * 2000)\nsys.exit(1)\n")
    done = arena("match", f"{sys.executable} {program}", "random", "--n", "3", "--sandbox", "off")
    lines = shown_safely(done.stdout).splitlines()
    assert f"  stdout| {'b' * 512}" in lines and "  stdout| ... (299,488 bytes cut)" in lines
    assert f"  stderr| {'e' * 512}" in lines and "  stderr| ... (1,488 bytes cut)" in lines
    assert len(done.stdout) < 5_000


# --- paths with odd characters -------------------------------------------------------------------


def program_folder(parent: Path, name: str) -> Path:
    """A folder called ``name`` with a small legal Betsy program in it, betsy.py."""
    folder = parent / name
    folder.mkdir()
    shutil.copy(HOSTILE / "_attack.py", folder / "_attack.py")
    (folder / "betsy.py").write_text("#!/usr/bin/env python3\nimport sys\n\nfrom _attack import answer_legally\n\n"
                                     "answer_legally(sys.argv)\n")
    (folder / "betsy.py").chmod(0o755)
    return folder


@pytest.fixture
def odd_folder(tmp_path: Path) -> Path:
    """A folder whose name holds a quote, a space, a backslash, an escape sequence and a newline."""
    return program_folder(tmp_path, "it's a \\ \x1b]0;x\x07 \n folder")


def test_a_program_path_holding_a_quote_a_space_and_a_backslash_works_for_match(tmp_path: Path) -> None:
    program = program_folder(tmp_path, "it's a \\ folder") / "betsy.py"
    match = arena("match", program, "random", "--n", "3", "--sandbox", "off")
    assert match.returncode == 0, match.stderr
    assert f"game 1: {program} (x) vs random (o), Betsy n = 3, 1 s per move" in shown_safely(match.stdout)


def test_a_program_path_holding_a_quote_and_controls_works_for_validate(odd_folder: Path) -> None:
    program = odd_folder / "betsy.py"
    page = odd_folder / "it's.html"
    validate = arena("validate", program, "--quick", "--games", "0", "--n", "3", "--sandbox", "off", "-q",
                     "--html", page)
    assert validate.returncode == 0, validate.stdout
    text = shown_safely(validate.stdout)
    assert text.startswith("PASS: protocol, rules, time and robustness are all right")
    assert "program: " + str(program).replace("\x1b", "\\x1b").replace("\x07", "\\x07").replace("\n", "\\n") in text
    assert page.is_file()


def test_config_db_html_and_csv_paths_holding_a_quote_and_controls_work(odd_folder: Path) -> None:
    config = odd_folder / "it's.yaml"
    config.write_text("name: odd\nn: 3\nrounds: 1\nengines:\n  - {name: a, command: ./betsy.py}\n"
                      "  - {name: b, builtin: random}\n")
    db = odd_folder / "r'1.sqlite"
    done = arena("tournament", config, "--db", db, "--sandbox", "off", "--no-progress")
    assert done.returncode == 0, done.stderr
    text = shown_safely(done.stdout)
    assert "2 games played now, 0 already in " in text and "r'1.sqlite, 2 scheduled" in text
    report = arena("report", db, "--html", odd_folder / "pages'", "--csv", odd_folder / "csv'")
    assert report.returncode == 0, report.stderr
    shown_safely(report.stdout)
    assert (odd_folder / "pages'" / "index.html").is_file() and (odd_folder / "csv'" / "ratings.csv").is_file()
    assert arena("export", db, "--format", "text").returncode == 0


def test_paths_that_are_not_utf8_are_refused_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "bad\udcff"  # the bytes b"bad\xff"
    folder.mkdir()
    (folder / "t.yaml").write_text("name: odd\nn: 3\nrounds: 1\nengines:\n  - {name: a, builtin: random}\n"
                                   "  - {name: b, builtin: random}\n")
    done = arena("tournament", folder / "t.yaml", "--db", tmp_path / "r.sqlite", "--sandbox", "off")
    assert done.returncode == 2
    assert shown_safely(done.stderr) == (
        f"arena: error: '{tmp_path}/bad\\udcff/t.yaml': the path is not UTF-8 text; rename the file or folder\n")


# --- the interactive commands --------------------------------------------------------------------


def _terminal(args: list[str]) -> tuple[pexpect.spawn, io.BytesIO]:
    """`arena ARGS` on a real pseudo-terminal (a dumb one: no colours of our own), and what it shows."""
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    env["TERM"] = "dumb"
    child = pexpect.spawn(ARENA, args, cwd=str(ROOT), env=env, timeout=60, dimensions=(24, 200))
    child.logfile_read = shown = io.BytesIO()
    return child, shown


def _screen(shown: io.BytesIO) -> bytes:
    """What the terminal got, with the line discipline's CR LF back to LF."""
    return shown.getvalue().replace(b"\r\n", b"\n")


def test_play_shows_a_forfeiting_engines_output_as_visible_text(tmp_path: Path) -> None:
    child, shown = _terminal(["play", "--n", "3", "--engine", str(PAINTER), "--human", "o", "--sandbox", "off",
                              "--db", str(tmp_path / "p.sqlite")])
    child.expect(pexpect.EOF)
    text = shown_safely(_screen(shown))
    assert f"{PAINTER} forfeits (no-answer: exited with status 1, " in text
    assert "You win! (o wins: x (" in text
    assert all(form in text for form in SHOWN)


def test_interactive_replay_clears_its_own_screen_but_shows_the_programs_sequences_as_text(
        painted: Painted) -> None:
    child, shown = _terminal(["replay", str(painted.db), "1"])
    child.expect_exact(b"[1/2]")
    child.send("\x1b[F")  # End: the forfeit and the result
    child.expect_exact(b"[2/2]")
    child.send("q")
    child.expect(pexpect.EOF)
    text = shown_safely(_screen(shown).replace(b"\x1b[H\x1b[2J", b""))  # its own clear-screen, each page
    assert "ply 1/1: x (painter) forfeits: no-answer: " in text
    assert all(form in text for form in SHOWN)
