from __future__ import annotations

import pytest

from harness.games.betsy.rules import Position
from harness.referee.protocol import (
    Clock,
    Answer,
    Verdict,
    answer_warnings,
    check_answer,
    decode_lines,
    engine_argv,
    find_answer,
    format_seconds,
    parse_answer_line,
)
from tests.conftest import SEED_BOARD


def test_whole_seconds_are_printed_without_a_decimal_point() -> None:
    assert format_seconds(5) == "5"
    assert format_seconds(5.0) == "5"


def test_fractional_seconds_are_refused_unless_allowed() -> None:
    with pytest.raises(ValueError) as info:
        format_seconds(0.5)
    assert str(info.value) == (
        "time limit 0.5 is not a whole number of seconds; use a whole number, or allow fractions "
        "(allow_fractional_time: true) if every engine accepts them"
    )
    assert format_seconds(0.5, allow_fractional=True) == "0.5"
    assert format_seconds(2.0, allow_fractional=True) == "2"


@pytest.mark.parametrize("seconds", [0, -1, float("inf"), float("nan")])
def test_non_positive_or_infinite_time_limit_is_refused(seconds: float) -> None:
    with pytest.raises(ValueError, match="time limit must be a positive number of seconds"):
        format_seconds(seconds)


def test_engine_argv_is_program_n_player_board_seconds() -> None:
    position = Position.from_text("3", "o", SEED_BOARD)
    assert engine_argv(["python3", "betsy.py"], position, Clock(5)) == [
        "python3", "betsy.py", "3", "o", SEED_BOARD, "5",
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("2 ...x..o.oxooxxxoxo", (2, "...x..o.oxooxxxoxo")),
        ("-1 ...o..x.ooooxxxxxo", (-1, "...o..x.ooooxxxxxo")),
        ("  +3\t..x  ", (3, "..x")),
        ("12 .", (12, ".")),
    ],
)
def test_well_formed_answer_lines_parse(line: str, expected: tuple[int, str]) -> None:
    assert parse_answer_line(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "I'd recommend dropping a pebble in column 2.",
        "2",
        "2 ...X..o",
        "two ......",
        "2 ... extra",
        "2.0 ......",
        "",
        "- 2 ...",
    ],
)
def test_other_lines_are_not_answers(line: str) -> None:
    assert parse_answer_line(line) is None


def test_the_answer_is_the_last_well_formed_line() -> None:
    lines = [
        "Shhh... I'm thinking!",
        "1 ...x..o.ox.oxxxoxo",
        "I'd recommend dropping a pebble in column 2.",
        "2 ...x..o.oxooxxxoxo",
    ]
    assert find_answer(lines) == Answer(2, "...x..o.oxooxxxoxo", 4, 0)


def test_prose_after_the_answer_is_counted_for_a_warning() -> None:
    answer = find_answer(["3 ..x", "", "done!", "bye"])
    assert answer == Answer(3, "..x", 1, 2)
    assert answer_warnings(answer, 0) == [
        "2 lines printed after the answer (the answer should be the last line)"
    ]


def test_no_well_formed_line_means_no_answer() -> None:
    assert find_answer(["thinking", "column 2"]) is None
    assert find_answer([]) is None


def test_non_zero_exit_or_signal_after_answering_is_a_warning() -> None:
    answer = Answer(1, ".", 1, 0)
    assert answer_warnings(answer, 0) == []
    assert answer_warnings(answer, None) == []
    assert answer_warnings(answer, 3) == ["exited with status 3 after answering"]
    assert answer_warnings(answer, -9) == ["killed by signal 9 after answering"]
    assert answer_warnings(Answer(1, ".", 1, 1), 1) == [
        "1 line printed after the answer (the answer should be the last line)",
        "exited with status 1 after answering",
    ]


def test_check_answer_accepts_the_seed_example() -> None:
    position = Position.from_text("3", "o", SEED_BOARD)
    assert check_answer(position, 2, "...x..o.oxooxxxoxo") == (Verdict.OK, "")


def test_check_answer_rejects_out_of_range_move() -> None:
    position = Position.from_text("3", "o", SEED_BOARD)
    assert check_answer(position, 4, SEED_BOARD) == (
        Verdict.ILLEGAL_MOVE,
        "move 4 is out of range: use 1..3 to drop or -1..-3 to rotate "
        f"(position 3 o {SEED_BOARD})",
    )
    assert check_answer(position, 0, SEED_BOARD)[0] is Verdict.ILLEGAL_MOVE


def test_check_answer_rejects_drop_into_full_column() -> None:
    position = Position.from_text("3", "x", "x..o..xoooooxxxxxo")
    verdict, detail = check_answer(position, 1, "x..o..xoooooxxxxxo")
    assert verdict is Verdict.ILLEGAL_MOVE
    assert detail.startswith("cannot drop into column 1: it is full")


def test_check_answer_rejects_a_board_that_is_not_the_moves_result() -> None:
    position = Position.from_text("3", "o", SEED_BOARD)
    assert check_answer(position, 2, "...x..o.oxxoxxxoxo") == (
        Verdict.BOARD_MISMATCH,
        "move 2 gives ...x..o.oxooxxxoxo, but the engine printed ...x..o.oxxoxxxoxo",
    )
    assert check_answer(position, 2, "...")[0] is Verdict.BOARD_MISMATCH


def test_decode_lines_drops_a_cut_off_last_line_unless_the_program_exited() -> None:
    data = b"1 ...\r\n2 ..x\n3 .x"
    assert decode_lines(data, ended_by_exit=False) == ["1 ...", "2 ..x"]
    assert decode_lines(data, ended_by_exit=True) == ["1 ...", "2 ..x", "3 .x"]
    assert decode_lines(b"", ended_by_exit=True) == []


def test_decode_lines_replaces_undecodable_bytes() -> None:
    assert decode_lines(b"\xff\xfe hello\n", ended_by_exit=False) == ["\ufffd\ufffd hello"]


def test_verdict_values_are_the_wire_names() -> None:
    assert [str(v) for v in Verdict] == [
        "ok", "time", "no-answer", "output-limit", "illegal-move", "board-mismatch", "failed-to-start",
    ]


def test_warnings_carry_a_kind_and_serialise_as_kind_and_text() -> None:
    from harness.referee.protocol import CallWarning, WarningKind

    warnings = answer_warnings(Answer(1, ".", 1, 2), -9)
    assert [w.kind for w in warnings] == [WarningKind.LINES_AFTER_ANSWER, WarningKind.SIGNAL_AFTER_ANSWER]
    assert [w.to_json() for w in warnings] == [
        {"kind": "lines-after-answer", "text": "2 lines printed after the answer (the answer should be the last line)"},
        {"kind": "signal-after-answer", "text": "killed by signal 9 after answering"},
    ]
    import copy
    import pickle

    for clone in (pickle.loads(pickle.dumps(warnings[1])), copy.deepcopy(warnings[1])):
        assert isinstance(clone, CallWarning) and clone.kind is WarningKind.SIGNAL_AFTER_ANSWER
        assert clone == "killed by signal 9 after answering"
