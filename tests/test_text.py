"""harness.text: the one sanitiser for text from outside, names, CSV cells, excerpts, bounded reads."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest

from harness.errors import ConfigError, UsageError
from harness.text import (
    check_name,
    csv_cell,
    cut_note,
    excerpt,
    name_problem,
    read_bounded,
    size_text,
    visible,
    without_values,
)


def test_visible_shows_escape_sequences_c1_and_bidi_controls_as_escapes() -> None:
    hostile = "PASS\x1b[2J\x1b]0;title\x07\x1b]52;c;aGk=\x07\x9b31m\u202eevil\u2066x\u200f"
    assert visible(hostile) == (
        "PASS\\x1b[2J\\x1b]0;title\\x07\\x1b]52;c;aGk=\\x07\\x9b31m\\u202eevil\\u2066x\\u200f")


def test_visible_escapes_the_newline_and_carriage_return_unless_lines_are_kept() -> None:
    assert visible("one\ntwo\rthree\tfour") == "one\\ntwo\\rthree\tfour"
    assert visible("one\ntwo\rthree\tfour", lines=True) == "one\ntwo\\rthree\tfour"


def test_visible_escapes_separators_surrogates_and_tags_with_their_code_points() -> None:
    assert visible("a\u2028b\u2029c\udc80d\U000e0041e\x7f") == "a\\u2028b\\u2029c\\udc80d\\U000e0041e\\x7f"


def test_visible_returns_printable_text_unchanged_including_other_scripts() -> None:
    text = "alphabeta (x) drops into column 3 — Ünïcödé 中文 עברית ●"
    assert visible(text) is text


def test_visible_escapes_every_control_format_and_separator_character_of_this_python() -> None:
    """The hand-written class is checked against unicodedata: every Cc (but tab and, with lines,
    newline), Cf, Cs, Zl and Zp code point comes out as an escape."""
    missed = []
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp") and char != "\t":
            shown = visible(char)
            if shown == char or not shown.isascii() or not shown.isprintable():
                missed.append(hex(code))
    assert missed == []


def test_visible_output_holds_no_control_or_format_character_and_is_idempotent() -> None:
    text = "".join(chr(code) for code in range(0x300)) + "\u202e\u2066\ufeff"
    once = visible(text)
    assert [char for char in once if unicodedata.category(char) in ("Cc", "Cf") and char != "\t"] == []
    assert visible(once) == once


def test_name_problem_names_the_first_character_that_is_not_printable() -> None:
    assert name_problem("alpha-beta 2") is None
    assert name_problem("") == "a name cannot be empty"
    assert name_problem("ab\x1b[2Jc") == "character 3 is \\x1b, which is not printable; use printable characters only"
    assert name_problem("x\u202e") == "character 2 is \\u202e, which is not printable; use printable characters only"


def test_check_name_refuses_an_unprintable_name_in_one_line_showing_it_escaped() -> None:
    assert check_name("greedy", "engine name") == "greedy"
    with pytest.raises(UsageError) as error:
        check_name("evil\x1b]0;pwned\x07", "engine name")
    assert str(error.value) == ("invalid engine name 'evil\\x1b]0;pwned\\x07': character 5 is \\x1b, which is "
                                "not printable; use printable characters only")


@pytest.mark.parametrize(("cell", "written"), [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
    ("+cmd", "'+cmd"),
    ("-2+3", "'-2+3"),
    ("@SUM(A1)", "'@SUM(A1)"),
    ("\tx", "'\tx"),
    ("\rx", "'\rx"),
    ("-inf", "'-inf"),
    ("-35", "-35"),
    ("-35.0", "-35.0"),
    ("+1.5e3", "+1.5e3"),
    ("alphabeta", "alphabeta"),
    ("", ""),
    (-35, -35),
])
def test_csv_cell_quotes_what_a_spreadsheet_would_run_but_not_plain_numbers(cell: object, written: object) -> None:
    assert csv_cell(cell) == written


def test_excerpt_keeps_the_last_lines_each_cut_to_its_first_bytes_and_counts_the_cut() -> None:
    lines = [f"line {k}" for k in range(20)] + ["a" * 1_000_000, "1 ....x"]
    kept, cut = excerpt(lines, 8, 512)
    assert kept == [f"line {k}" for k in range(14, 20)] + ["a" * 512, "1 ....x"]
    assert cut == 1_000_000 - 512


def test_excerpt_cuts_at_a_character_boundary_counting_bytes() -> None:
    kept, cut = excerpt(["é" * 300], 8, 511)  # 600 bytes; 255 whole characters fit in 511
    assert kept == ["é" * 255]
    assert cut == 600 - 510


def test_cut_note_and_size_text_say_the_figures() -> None:
    assert cut_note(999_488) == "... (999,488 bytes cut)"
    assert cut_note(1) == "... (1 byte cut)"
    assert [size_text(s) for s in (1 << 20, 4 << 20, 512 << 10, 100)] == ["1 MiB", "4 MiB", "512 KiB", "100 bytes"]


def test_read_bounded_refuses_a_file_over_the_cap_without_reading_it_all(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * ((1 << 20) + 1))
    with pytest.raises(ConfigError) as error:
        read_bounded(big, 1 << 20, "a config")
    assert str(error.value) == f"{big}: larger than 1 MiB, the most a config file may be; give a smaller file"
    with pytest.raises(ConfigError) as error:
        read_bounded(Path("/dev/zero"), 1 << 20, "a config")
    assert str(error.value) == "/dev/zero: larger than 1 MiB, the most a config file may be; give a smaller file"


def test_read_bounded_reads_a_file_at_the_cap_and_says_why_others_fail_without_content(tmp_path: Path) -> None:
    exact = tmp_path / "exact.txt"
    exact.write_text("x" * 100)
    assert read_bounded(exact, 100, "an openings") == "x" * 100
    binary = tmp_path / "secret.bin"
    binary.write_bytes(b"root:\xff\xfe secret")
    with pytest.raises(UsageError) as error:
        read_bounded(binary, 100, "an openings", UsageError)
    assert str(error.value) == f"{binary}: not UTF-8 text (byte 6 is not); give an openings file"
    with pytest.raises(ConfigError) as error:
        read_bounded(tmp_path / "missing", 100, "a config")
    assert str(error.value) == f"{tmp_path / 'missing'}: no such file; check the path"
    with pytest.raises(ConfigError) as error:
        read_bounded(tmp_path, 100, "a config")
    assert str(error.value) == f"{tmp_path}: a folder, not a file; give a config file"


def test_without_values_hides_every_quoted_value_of_a_message() -> None:
    assert without_values("invalid player 'root:$6$x': use x (blue) or o (red)") == (
        "invalid player ...: use x (blue) or o (red)")
    assert without_values("invalid board size \"it's\": n must be a whole number >= 1") == (
        "invalid board size ...: n must be a whole number >= 1")
    assert without_values("bad character 'z' at position 3 and 'q\\'x'") == "bad character ... at position 3 and ..."
