"""Fault injection for the referee: real misbehaving programs (tests/fake_engines/) run through ``ask``.

Every call is checked for three things besides its verdict: ``ask`` returned within limit + grace + 10 s
of wall time (wide: a loaded machine can take seconds to start a Python program), no process of the
call is left alive (the fakes that spawn children record their pids in the file named by
``$FAKE_ENGINE_PIDS``; besides, the test process -- a child subreaper once the referee has run -- must
have no new live children), and the verdict is exactly the expected one.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import select
import shutil
import subprocess
import sys
import time
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from harness.games.betsy.rules import Position
from harness.referee.protocol import Clock, Verdict
from harness.referee import referee
from harness.referee.referee import CallResult, Limits, ask, resolve_interpreter
from tests.conftest import SEED_BOARD, namespaced_processes, require_sandbox

FAKES = Path(__file__).resolve().parent / "fake_engines"
SEED = Position.from_text(3, "o", SEED_BOARD)
ANSWER_MOVE = 2
ANSWER_BOARD = "...x..o.oxooxxxoxo"
"""o drops into column 2 of the seed position: the legal answer every well-behaved fake prints."""
KILLED_WARNING = "still running at the deadline; killed (its last answer counts)"


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text.rsplit(")", 1)[1].split()


def _is_alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie (or dead)."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X", "x")


def _live_children() -> set[int]:
    """Live (non-zombie) direct children of this process."""
    me = os.getpid()
    children = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        if fields is not None and int(fields[1]) == me and fields[0] not in ("Z", "X", "x"):
            children.add(int(entry.name))
    return children


SANDBOXED = False
"""Whether this test's calls run in the sandbox: every test here runs both ways."""


@pytest.fixture(autouse=True, params=["plain", pytest.param("sandboxed", marks=pytest.mark.setting)])
def referee_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "sandboxed":
        require_sandbox()
    monkeypatch.setattr(sys.modules[__name__], "SANDBOXED", request.param == "sandboxed")
    return str(request.param)


def mode(limits: Limits = Limits()) -> Limits:
    """``limits`` in this test's mode."""
    return dataclasses.replace(limits, sandbox=SANDBOXED)


@pytest.fixture
def pid_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the fakes that spawn processes record their pids (ask() passes os.environ through)."""
    path = tmp_path / "pids"
    path.touch()
    monkeypatch.setenv("FAKE_ENGINE_PIDS", str(path))
    return path


def recorded_pids(pid_file: Path) -> list[int]:
    """The pids the fakes recorded (outside the sandbox only: inside, the file and the variable
    naming it are out of reach, and the whole PID namespace is checked instead)."""
    return [int(token) for token in pid_file.read_text().split()]


def call(
    command: Sequence[str],
    pid_file: Path,
    clock: Clock = Clock(1),
    limits: Limits = Limits(),
    position: Position = SEED,
    slack: float = 10,
) -> tuple[CallResult, float]:
    """``ask`` once; check the wall time bound (the clock's allowance plus ``slack`` seconds) and that
    nothing of the call survives; (result, wall)."""
    before = _live_children()
    namespaced_before = namespaced_processes()
    started = time.monotonic()
    result = ask(command, position, clock, mode(limits))
    wall = time.monotonic() - started
    assert wall < clock.allowed + slack, f"ask() took {wall:.2f} s: {result}"
    survivors = [pid for pid in recorded_pids(pid_file) if _is_alive(pid)]
    assert not survivors, f"processes of the call still alive: {survivors}"
    assert namespaced_processes() <= namespaced_before, "processes of the sandbox still alive"
    new_children = _live_children() - before
    assert not new_children, f"new live children after the call: {new_children}"
    return result, wall


def fake(name: str) -> list[str]:
    """The command running fake engine ``name`` with this interpreter."""
    return [sys.executable, str(FAKES / f"{name}.py")]


def assert_ok(result: CallResult) -> None:
    assert result.verdict is Verdict.OK, result
    assert (result.move, result.board) == (ANSWER_MOVE, ANSWER_BOARD), result
    assert result.detail == ""


# --- time ------------------------------------------------------------------------------------------


def test_engine_that_hangs_loses_on_time(pid_file: Path) -> None:
    result, wall = call(fake("hangs"), pid_file)
    assert result.verdict is Verdict.TIME, result
    assert result.killed and result.exit_status == -9
    assert result.detail == "no answer within 1 s (+ 0.5 s grace); killed"
    assert wall >= 1.5


def test_engine_printing_answers_forever_keeps_its_last_answer_and_is_killed(pid_file: Path) -> None:
    result, wall = call(fake("answers_forever"), pid_file)
    assert_ok(result)
    assert result.killed
    assert result.warnings == (KILLED_WARNING,)
    assert len(result.stdout_tail) > 1, "unbuffered output: many answers should have been read"
    assert SANDBOXED or recorded_pids(pid_file), "the fake did not record its pid"


def test_engine_answering_after_the_deadline_loses_on_time(pid_file: Path) -> None:
    result, _ = call(fake("answers_after_deadline"), pid_file)
    assert result.verdict is Verdict.TIME, result
    assert result.killed and result.move is None and result.stdout_tail == ()


def test_engine_answering_just_before_the_limit_is_ok(pid_file: Path) -> None:
    result, _ = call(fake("answers_just_before_deadline"), pid_file, clock=Clock(2))
    assert_ok(result)
    assert not result.killed and result.exit_status == 0 and result.warnings == ()
    assert 1.6 <= result.seconds < 2.5  # its answer came 1.7 s after its start: before the limit, not the deadline


def test_complete_answer_counts_but_a_half_line_cut_off_by_the_kill_does_not(pid_file: Path) -> None:
    # The half line "-1 ...x" would itself parse as an answer (and be a board mismatch) if it counted.
    result, _ = call(fake("half_line_then_hangs"), pid_file)
    assert_ok(result)
    assert result.killed and result.warnings == (KILLED_WARNING,)
    assert result.stdout_tail == (f"{ANSWER_MOVE} {ANSWER_BOARD}",)


# --- processes left behind -------------------------------------------------------------------------


def test_grandchild_holding_stdout_delays_nothing_and_is_killed(pid_file: Path) -> None:
    # Waiting for the grandchild would last until the deadline at 5.5 s.
    result, wall = call(fake("leaves_grandchild"), pid_file, clock=Clock(5))
    assert_ok(result)
    assert wall < 4 and not result.killed and result.exit_status == 0
    if not SANDBOXED:
        _engine, grandchild = recorded_pids(pid_file)
        assert not _is_alive(grandchild)


def test_forked_child_still_running_and_writing_after_the_answer_is_killed(pid_file: Path) -> None:
    # The child writes only prose, after its parent has exited: at most it adds a warning.
    result, wall = call(fake("forks_writing_child"), pid_file, clock=Clock(5))
    assert result.verdict is Verdict.OK, result
    assert (result.move, result.board) == (ANSWER_MOVE, ANSWER_BOARD)
    assert wall < 4 and not result.killed and result.exit_status == 0  # not until the deadline at 5.5 s
    if not SANDBOXED:
        _parent, child = recorded_pids(pid_file)
        assert not _is_alive(child)


def test_answer_without_newline_counts_even_if_a_grandchild_holds_stdout(pid_file: Path) -> None:
    result, wall = call(fake("answer_without_newline_leaves_grandchild"), pid_file, clock=Clock(5))
    assert SANDBOXED or not _is_alive(recorded_pids(pid_file)[1])
    assert wall < 4  # not until the deadline at 5.5 s
    assert_ok(result)


def test_descendants_that_leave_the_process_group_are_killed_too(pid_file: Path) -> None:
    result, _ = call(fake("escapes_with_setsid"), pid_file, clock=Clock(3))
    assert_ok(result)
    pids = recorded_pids(pid_file)
    assert len(pids) == (0 if SANDBOXED else 3)  # the escapee, its child, the engine
    assert not [pid for pid in pids if _is_alive(pid)]


# --- output ----------------------------------------------------------------------------------------


def test_engine_flooding_stdout_hits_the_output_limit(pid_file: Path) -> None:
    result, wall = call(fake("floods_stdout"), pid_file, clock=Clock(5))
    assert result.verdict is Verdict.OUTPUT_LIMIT, result
    assert result.killed
    assert result.detail == "printed more than 1,048,576 bytes on stdout; stopped"
    assert wall < 4  # stopped at the cap, not at the deadline at 5.5 s


def test_answer_on_stderr_only_is_no_answer(pid_file: Path) -> None:
    result, _ = call(fake("answers_on_stderr"), pid_file)
    assert result.verdict is Verdict.NO_ANSWER, result
    assert result.detail.startswith("exited with status 0, printed nothing on stdout; stderr: 2 ")
    assert f"2 {ANSWER_BOARD}" in result.stderr_tail


def test_non_utf8_output_without_answer_is_no_answer(pid_file: Path) -> None:
    result, _ = call(fake("prints_invalid_utf8"), pid_file)
    assert result.verdict is Verdict.NO_ANSWER, result
    assert result.exit_status == 0
    assert "\ufffd" in result.stdout_tail[0]


def test_non_utf8_line_before_a_valid_answer_is_ok(pid_file: Path) -> None:
    result, _ = call(fake("invalid_utf8_then_answer"), pid_file)
    assert_ok(result)
    assert result.warnings == ()


def test_prose_after_the_answer_is_ok_with_a_warning(pid_file: Path) -> None:
    result, _ = call(fake("prose_after_answer"), pid_file)
    assert_ok(result)
    assert result.warnings == ("2 lines printed after the answer (the answer should be the last line)",)


def test_answer_without_final_newline_ended_by_exit_counts(pid_file: Path) -> None:
    result, _ = call(fake("answer_without_final_newline"), pid_file)
    assert_ok(result)
    assert result.warnings == ()


# --- judging the answer ----------------------------------------------------------------------------


def test_out_of_range_drop_is_an_illegal_move(pid_file: Path) -> None:
    result, _ = call(fake("illegal_move"), pid_file)
    assert result.verdict is Verdict.ILLEGAL_MOVE, result
    assert result.move == 9
    assert result.detail.startswith("move 9 is out of range: use 1..3 to drop or -1..-3 to rotate")


def test_drop_into_a_full_column_is_an_illegal_move(pid_file: Path) -> None:
    position = SEED.after(1)  # o fills column 1; x to move
    assert position.heights[0] == position.geometry.height
    result, _ = call(fake("drops_into_full_column"), pid_file, position=position)
    assert result.verdict is Verdict.ILLEGAL_MOVE, result
    assert result.move == 1
    assert result.detail.startswith("cannot drop into column 1: it is full")


def test_unchanged_board_is_a_board_mismatch(pid_file: Path) -> None:
    result, _ = call(fake("mismatching_board"), pid_file)
    assert result.verdict is Verdict.BOARD_MISMATCH, result
    assert result.detail == f"move 2 gives {ANSWER_BOARD}, but the engine printed {SEED_BOARD}"


def test_dropping_the_opponents_colour_is_a_board_mismatch(pid_file: Path) -> None:
    result, _ = call(fake("drops_opponent_colour"), pid_file)
    assert result.verdict is Verdict.BOARD_MISMATCH, result
    assert result.detail == f"move 2 gives {ANSWER_BOARD}, but the engine printed ...x..o.oxxoxxxoxo"


# --- crashes ---------------------------------------------------------------------------------------


def test_crash_after_the_answer_is_ok_with_a_warning(pid_file: Path) -> None:
    result, _ = call(fake("answers_then_crashes"), pid_file)
    assert_ok(result)
    assert result.exit_status == 1 and not result.killed
    assert result.warnings == ("exited with status 1 after answering",)
    assert "RuntimeError: crashed after answering" in result.stderr_tail


def test_crash_without_answer_is_no_answer_naming_status_and_stderr(pid_file: Path) -> None:
    result, _ = call(fake("crashes_without_answer"), pid_file)
    assert result.verdict is Verdict.NO_ANSWER, result
    assert result.exit_status == 1
    assert result.detail == (
        "exited with status 1, no well-formed 'MOVE BOARD' line; last line: 'thinking...'; "
        "stderr: RuntimeError: engine exploded"
    )


def test_unbounded_memory_under_an_address_space_limit_is_a_fast_no_answer(pid_file: Path) -> None:
    limits = Limits(address_space=512 << 20)
    result, _ = call(fake("allocates_forever"), pid_file, clock=Clock(2), limits=limits)
    assert result.verdict is Verdict.NO_ANSWER, result
    assert not result.killed and result.exit_status == 1
    assert result.detail.endswith("stderr: MemoryError")
    blocks = int(re.search(r"allocated (\d+) blocks of 16 MiB", result.stderr_tail).group(1))
    assert blocks * 16 < 512, "the address space limit was not applied"
    assert result.seconds < 2  # ended by itself, well before the deadline at 2.5 s


def test_the_limits_hold_from_the_programs_first_instruction(pid_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The referee gets its process only once the program has run to its end, its report and answer
    # waiting in the pipes: a limit the referee set from outside after the start would come after the
    # program read its own. So the limits it reports were in place before its first instruction, on
    # any machine and under any load (no race to win or lose).
    started: list[int] = []

    def popen_that_returns_once_the_program_ended(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(*args, **kwargs)
        pidfd = os.pidfd_open(process.pid)  # readable once it exits, before anyone reaps it
        try:
            assert select.select([pidfd], [], [], 120)[0], "the program did not end within 120 s"
        finally:
            os.close(pidfd)
        started.append(process.pid)
        return process

    patched = types.SimpleNamespace(**{name: getattr(subprocess, name) for name in dir(subprocess)})
    patched.Popen = popen_that_returns_once_the_program_ended
    monkeypatch.setattr(referee, "subprocess", patched)
    limits = Limits(address_space=768 << 20, file_bytes=3 << 20)
    result, _ = call(fake("reports_limits"), pid_file, clock=Clock(2), limits=limits)
    assert len(started) == 1
    assert_ok(result)
    cpu = math.ceil(2 + Clock(2).grace) + 1
    assert result.stderr_tail == f"{768 << 20} {3 << 20} 0 {cpu}\n"


def test_python2_syntax_is_no_answer_with_the_syntax_error(pid_file: Path) -> None:
    result, _ = call(fake("python2_print"), pid_file)
    assert result.verdict is Verdict.NO_ANSWER, result
    assert result.exit_status == 1
    assert "SyntaxError" in result.stderr_tail
    assert "stderr: SyntaxError: Missing parentheses in call to 'print'" in result.detail


# --- starting --------------------------------------------------------------------------------------


def test_program_without_exec_bit_fails_to_start_with_chmod_hint(pid_file: Path, tmp_path: Path) -> None:
    # A copy, so that the test does not depend on the mode the checkout gives the file.
    program = tmp_path / "no_exec_bit.py"
    shutil.copy(FAKES / "no_exec_bit.py", program)
    program.chmod(0o644)
    assert (FAKES / "no_exec_bit.py").stat().st_mode & 0o111 == 0
    result, _ = call([str(program)], pid_file)
    assert result.verdict is Verdict.FAILED_TO_START, result
    assert result.exit_status is None and result.move is None
    assert f"chmod +x {program}" in result.detail


def test_missing_program_fails_to_start(pid_file: Path, tmp_path: Path) -> None:
    program = tmp_path / "no_such_engine.py"
    result, _ = call([str(program)], pid_file)
    assert result.verdict is Verdict.FAILED_TO_START, result
    assert result.detail == f"cannot start {str(program)!r}: no such file or command"


def test_executable_without_shebang_fails_to_start(pid_file: Path, tmp_path: Path) -> None:
    program = tmp_path / "no_shebang"
    program.write_text('print("2 ...x..o.oxooxxxoxo")\n')
    program.chmod(0o755)
    result, _ = call([str(program)], pid_file)
    assert result.verdict is Verdict.FAILED_TO_START, result
    assert "not an executable format" in result.detail


def test_stdin_is_at_end_of_file(pid_file: Path) -> None:
    result, _ = call(fake("reads_stdin"), pid_file)
    assert_ok(result)


# --- the SECONDS argument --------------------------------------------------------------------------


def test_whole_seconds_are_passed_as_an_int_parsable_number(pid_file: Path) -> None:
    result, _ = call(fake("int_seconds"), pid_file)
    assert_ok(result)
    assert result.argv[-1] == "1"


def test_executable_fake_runs_directly_through_its_shebang(pid_file: Path) -> None:
    # Through `env python3`, perhaps a version manager's shim: slow to start on a loaded machine.
    result, _ = call([str(FAKES / "int_seconds.py")], pid_file, clock=Clock(2, grace=10))
    assert_ok(result)


def test_fractional_seconds_are_passed_when_allowed(pid_file: Path) -> None:
    result, _ = call(fake("echoes_seconds"), pid_file, clock=Clock(0.5, allow_fractional=True))
    assert_ok(result)
    assert result.argv[-1] == "0.5"
    assert result.stderr_tail == "0.5\n"


def test_clock_refuses_fractional_seconds_by_default() -> None:
    with pytest.raises(ValueError, match="not a whole number of seconds"):
        Clock(0.5)


# --- the interpreter -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["python3", "python"])
def test_leading_python_is_replaced_by_the_running_interpreter(name: str) -> None:
    assert resolve_interpreter([name, "x.py", "3"]) == [sys.executable, "x.py", "3"]


@pytest.mark.parametrize(
    "command",
    [["./engine"], ["/usr/bin/python3", "x.py"], ["python3.11", "x.py"], ["pypy3", "x.py"], ["x.py", "python"], []],
)
def test_other_commands_are_left_unchanged(command: list[str]) -> None:
    assert resolve_interpreter(command) == command


def test_python3_command_runs_an_engine(pid_file: Path) -> None:
    result, _ = call(["python3", str(FAKES / "reads_stdin.py")], pid_file)
    assert_ok(result)
    assert result.argv[0] == sys.executable


def test_calls_from_several_threads_do_not_disturb_each_other(pid_file: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    slow = [sys.executable, "-c", "import time; time.sleep(0.4); print('2 ...x..o.oxooxxxoxo')"]
    commands = [slow, fake("escapes_with_setsid"), slow, fake("leaves_grandchild"), slow, slow]
    before = namespaced_processes()
    with ThreadPoolExecutor(len(commands)) as pool:
        results = list(pool.map(lambda command: ask(command, SEED, Clock(3), mode()), commands))
    for result in results:
        assert_ok(result)
    assert not [pid for pid in recorded_pids(pid_file) if _is_alive(pid)]
    assert namespaced_processes() <= before


def test_the_time_of_the_answer_is_when_its_line_arrived_not_the_kill(pid_file: Path) -> None:
    result, _ = call(fake("half_line_then_hangs"), pid_file, clock=Clock(2))
    assert_ok(result)
    assert result.killed and result.seconds >= 2.5
    assert result.answered_after is not None and result.answered_after < 2.0  # it answers at once


def test_an_answer_ended_by_the_exit_is_timed_at_the_exit(pid_file: Path) -> None:
    result, _ = call(fake("answer_without_final_newline"), pid_file)
    assert_ok(result)
    assert result.answered_after is not None and result.answered_after <= result.seconds
