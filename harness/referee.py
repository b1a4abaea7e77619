"""One engine call: run the program for one move under supervision and judge what it printed.

The referee is the only authority on rules and time. For each call it:
- spawns the argv (never a shell) in a new session and process group, stdin from /dev/null, in a
  scratch working directory, with ``PYTHONUNBUFFERED=1`` and rlimits (address space, file size, no
  core files, CPU seconds as a backstop) set by ``prlimit`` before the program runs;
- reads stdout and stderr incrementally with a cap, until the program exits or the deadline
  (time limit + grace, on a monotonic clock from spawn) passes;
- then kills the whole process group and reaps it, so a grandchild holding the pipe delays nothing;
- takes the last complete well-formed ``MOVE BOARD`` line and judges it with the rules core.
"""

from __future__ import annotations

import errno
import functools
import math
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from harness import sandbox

if TYPE_CHECKING:
    from harness.games.registry import Position
from harness.protocol import (
    CallWarning,
    Verdict,
    WarningKind,
    answer_warnings,
    check_answer,
    decode_lines,
    engine_argv,
)
from harness.games.registry import game_of

STDOUT_LINES_KEPT = 20
STDERR_TAIL_BYTES = 4096
_READ_CHUNK = 65536


@dataclass(frozen=True)
class Limits:
    """Resource limits of one engine call."""

    grace: float = 0.5
    """Seconds past the time limit allowed for start-up and exit; the deadline is limit + grace."""
    stdout_bytes: int = 1 << 20
    """More stdout than this is an output-limit fault."""
    stderr_bytes: int = 1 << 20
    """More stderr than this is an output-limit fault (only the tail is kept)."""
    address_space: int | None = 4 << 30
    """RLIMIT_AS in bytes per process, or None for no limit."""
    allow_fractional_time: bool = False
    """Pass SECONDS with a fraction (e.g. 0.5) instead of requiring whole numbers."""
    sandbox: bool = False
    """Run the engine inside the bubblewrap sandbox (harness/sandbox.py); resolve the mode first."""
    file_bytes: int = 64 << 20
    """Largest file the engine may write (RLIMIT_FSIZE); in the sandbox, also its tmpfs sizes."""
    processes: int = 64
    """Processes and threads the engine may run at once (in the sandbox, where it can be counted)."""


@dataclass(frozen=True)
class CallResult:
    """What one engine call did, judged."""

    verdict: Verdict
    move: int | None
    """The answer's move (None without a well-formed answer)."""
    board: str | None
    """The answer's board as printed."""
    seconds: float
    """Wall time from spawn until the program exited or was stopped."""
    exit_status: int | None
    """Exit code; negative for a signal; None if the program never started."""
    killed: bool
    """Whether the referee had to kill the program (still running at the deadline or over the cap)."""
    detail: str
    """One line explaining a fault (empty when ok)."""
    argv: tuple[str, ...]
    stdout_tail: tuple[str, ...] = ()
    """The last complete stdout lines (up to 20)."""
    stderr_tail: str = ""
    """The end of stderr (up to 4 KiB)."""
    warnings: tuple[CallWarning, ...] = field(default_factory=tuple)
    """Protocol warnings that do not lose the game."""
    answered_after: float | None = None
    """Seconds from spawn until the answer line (the last well-formed one) was read; None without one."""

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.OK


def resolve_interpreter(argv: Sequence[str]) -> list[str]:
    """Replace a leading ``python``/``python3`` with the real interpreter running the harness.

    A pyenv-style shim is a shell script that costs tens of milliseconds per call.
    """
    args = list(argv)
    if args and args[0] in ("python", "python3"):
        args[0] = sys.executable
    return args


def _become_subreaper() -> None:
    """Adopt orphaned grandchildren of engines (Linux), so that they can be reaped here."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_CHILD_SUBREAPER = 36
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


_SUBREAPER_PID: int | None = None


def _ensure_subreaper() -> None:
    global _SUBREAPER_PID
    if _SUBREAPER_PID != os.getpid():
        _become_subreaper()
        _SUBREAPER_PID = os.getpid()


@functools.cache
def _prlimit_tool() -> str | None:
    """util-linux ``prlimit``, which sets limits on itself and then runs a program (None if missing)."""
    return shutil.which("prlimit")


_NAMES = {resource.RLIMIT_CORE: "core", resource.RLIMIT_CPU: "cpu", resource.RLIMIT_FSIZE: "fsize",
          resource.RLIMIT_AS: "as"}
_AT_ONCE = (resource.RLIMIT_CORE, resource.RLIMIT_FSIZE, resource.RLIMIT_AS)
"""The limits a program can break in its first instructions; CPU seconds take seconds to use up."""


def _rlimits(limits: Limits, cpu_seconds: int) -> dict[int, tuple[int, int]]:
    """The call's rlimits, (soft, hard) by resource, each within this process's hard limit (which no
    unprivileged process can raise): no core files, CPU seconds, file size, address space."""
    wanted = {resource.RLIMIT_CORE: (0, 0), resource.RLIMIT_CPU: (cpu_seconds, cpu_seconds + 1),
              resource.RLIMIT_FSIZE: (limits.file_bytes, limits.file_bytes)}
    if limits.address_space is not None:
        wanted[resource.RLIMIT_AS] = (limits.address_space, limits.address_space)
    for which, (soft, hard) in wanted.items():
        ceiling = resource.getrlimit(which)[1]
        if ceiling != resource.RLIM_INFINITY:
            wanted[which] = (min(soft, ceiling), min(hard, ceiling))
    return wanted


def inherit_limits(limits: Limits) -> None:
    """Make the limits of ``limits`` that a program can break at once (address space, file size, no
    core files) this process's own, so that the engines it starts hold them from their first
    instruction with no ``prlimit`` in front: one exec less per call. Only for a process that runs
    games and nothing else (a tournament's pool worker without the sandbox): it cannot undo them."""
    for which, value in _rlimits(limits, 1).items():
        if which in _AT_ONCE:
            resource.setrlimit(which, value)


def _spawn_argv(argv: list[str], wanted: dict[int, tuple[int, int]]) -> tuple[list[str], list[int]]:
    """How to start ``argv`` so that its rlimits hold from its first instruction (its children
    inherit them), and which limits are left to set from outside just after the start.

    Inherited when this process has them itself (``inherit_limits``); else through ``prlimit ... --``,
    which sets them on itself and then runs the program in its place (as in the sandbox,
    ``sandbox._prlimit``). Only CPU seconds, which take seconds to use up, are set after the start;
    everything, where the tool is missing."""
    if all(resource.getrlimit(which) == wanted[which] for which in _AT_ONCE if which in wanted):
        return argv, [resource.RLIMIT_CPU]
    tool = _prlimit_tool()
    if tool is None:
        return argv, list(wanted)
    return [tool, *(f"--{_NAMES[which]}={soft}:{hard}" for which, (soft, hard) in wanted.items()), "--", *argv], []


def _limit_resources(pid: int, wanted: dict[int, tuple[int, int]], which: Sequence[int]) -> None:
    """Set the rlimits ``which`` of the just-started engine from outside."""
    try:
        for resource_id in which:
            resource.prlimit(pid, resource_id, wanted[resource_id])
    except (ProcessLookupError, PermissionError, ValueError, AttributeError):
        pass  # already exited, or a platform without prlimit


_SCRATCH: dict[tuple[int, int], str] = {}
_ACTIVE: set[int] = set()
"""Engine processes (= their process groups) of calls in progress in this process, any thread."""
_ACTIVE_LOCK = threading.Lock()


_STOPPED = False
"""Set by ``stop_calls``: this process is about to exit and starts no engine."""


def stop_calls() -> None:
    """Kill every engine call in progress, in any thread, and make every later call return at once
    without starting its program: for a process about to exit (from a signal handler too, so it
    takes no lock; a call that starts meanwhile sees the flag once its engine is in ``_ACTIVE``)."""
    global _STOPPED
    _STOPPED = True
    for pgid in list(_ACTIVE):
        _kill_group(pgid)


def _scratch_dir() -> str:
    """This process's scratch working directory for engine calls, empty at each call.

    One directory per harness process and thread, emptied after any call that leaves files in it:
    cheaper than creating and removing a directory per call, with the same isolation (calls in one
    thread run one at a time).
    """
    owner = (os.getpid(), threading.get_ident())
    path = _SCRATCH.get(owner)
    if path is None or not os.path.isdir(path):
        path = _SCRATCH[owner] = tempfile.mkdtemp(prefix="arena-engine-")
        sandbox.remove_at_exit(path)
    return path


def remove_scratch() -> None:
    """Remove this process's scratch directories now (a worker about to end without its exit handlers)."""
    pid = os.getpid()
    for (owner_pid, _thread), path in list(_SCRATCH.items()):
        if owner_pid == pid:
            shutil.rmtree(path, True)


def _empty_dir(path: str) -> None:
    try:
        entries = os.listdir(path)
    except OSError:
        return
    for entry in entries:
        full = os.path.join(path, entry)
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full, ignore_errors=True)
        else:
            try:
                os.unlink(full)
            except OSError:
                pass


def _children() -> set[int]:
    """PIDs of this process's children (Linux /proc; empty elsewhere)."""
    pids: set[int] = set()
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as file:
                pids.update(int(pid) for pid in file.read().split())
    except (OSError, ValueError):
        pass
    return pids


def _kill_escaped(before: set[int], rounds: int = 50) -> None:
    """Kill and reap engine descendants that left the process group (setsid) and were adopted.

    This process is a child subreaper, so once the group is dead its escaped descendants are our
    children; killing one orphans its own children to us, hence the rounds.
    """
    for _ in range(rounds):
        with _ACTIVE_LOCK:  # engines of other threads' calls are children too: leave them be
            escaped = _children() - before - _ACTIVE
        if not escaped:
            return
        for pid in escaped:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in escaped:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap_group(pgid: int, timeout: float = 2.0) -> None:
    """Reap the group's processes that were adopted by this process (see _become_subreaper)."""
    end = time.monotonic() + timeout
    while True:
        try:
            pid, _ = os.waitpid(-pgid, os.WNOHANG)
        except ChildProcessError:
            return
        except OSError as error:
            if error.errno == errno.EINTR:
                continue
            return
        if pid == 0:
            if time.monotonic() > end:
                return
            time.sleep(0.002)


class _Stream:
    """Incremental, capped reading of one pipe."""

    __slots__ = ("fd", "data", "total", "cap", "keep_tail", "eof", "newlines")

    def __init__(self, fd: int, cap: int, keep_tail: int | None) -> None:
        self.fd = fd
        self.data = bytearray()
        self.total = 0
        self.cap = cap
        self.keep_tail = keep_tail
        self.eof = False
        self.newlines: list[tuple[int, float]] = []
        """(lines completed so far, when) after each read: when each line arrived."""
        os.set_blocking(fd, False)

    def line_time(self, number: int) -> float | None:
        """When the ``number``-th line (1-based) was complete, or None if it never was."""
        for count, when in self.newlines:
            if count >= number:
                return when
        return None

    @property
    def over_cap(self) -> bool:
        return self.total > self.cap

    def read_available(self) -> None:
        """Read whatever the pipe holds now (non-blocking), stopping at EOF or past the cap."""
        while not self.eof and not self.over_cap:
            try:
                chunk = os.read(self.fd, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                self.eof = True
                return
            if not chunk:
                self.eof = True
                return
            self.total += len(chunk)
            self.data += chunk
            done = (self.newlines[-1][0] if self.newlines else 0) + chunk.count(b"\n")
            self.newlines.append((done, time.monotonic()))
            if self.keep_tail is not None and len(self.data) > 2 * self.keep_tail:
                del self.data[: len(self.data) - self.keep_tail]
            elif self.keep_tail is None and self.over_cap:
                del self.data[self.cap:]

    def tail_text(self) -> str:
        data = bytes(self.data if self.keep_tail is None else self.data[-self.keep_tail:])
        return data.decode("utf-8", errors="replace")


def ask(
    command: Sequence[str],
    position: Position,
    seconds: float,
    limits: Limits = Limits(),
    extra_args: Sequence[str] = (),
) -> CallResult:
    """Ask the program ``command`` for a move in ``position`` with ``seconds`` to answer.

    ``extra_args`` follow the protocol's four arguments (options of built-in engines).
    """
    argv = resolve_interpreter(
        engine_argv(command, position, seconds, limits.allow_fractional_time, extra_args)
    )
    return run_call(argv, position, seconds, limits, command_length=len(command))


def run_call(
    argv: list[str], position: Position, seconds: float, limits: Limits, command_length: int = 1
) -> CallResult:
    """Run one prepared argv as an engine call (see ``ask``); its first ``command_length`` words
    are the engine's command (what the sandbox makes readable)."""
    _ensure_subreaper()
    cpu_seconds = math.ceil(seconds + limits.grace) + 1
    confined: sandbox.Call | None = None
    scratch: str | None = None
    if _STOPPED:
        return CallResult(Verdict.FAILED_TO_START, None, None, 0.0, None, False,
                          "not started: the harness is stopping", tuple(argv))
    wanted: dict[int, tuple[int, int]] = {}
    after_start: list[int] = []
    spawn = argv
    if not limits.sandbox:
        wanted = _rlimits(limits, cpu_seconds)
        spawn, after_start = _spawn_argv(argv, wanted)
    # Started behind another program (bwrap, prlimit), whose own start would hide one that cannot
    # start: that is found first (started directly, Popen says so itself).
    problem = _cannot_start(argv) if limits.sandbox or spawn is not argv else None
    if problem is not None:
        return CallResult(Verdict.FAILED_TO_START, None, None, 0.0, None, False,
                          _start_failure(argv, problem), tuple(argv))
    if limits.sandbox:
        caps = sandbox.Caps(limits.file_bytes, limits.processes, limits.address_space)
        confined = sandbox.Call(argv, command_length, caps, cpu_seconds)
        # bwrap gets no variable of the harness: its init, PID 1 inside, keeps the environment
        # bwrap started with, and an engine of the same uid could read it in /proc/1/environ.
        spawn, cwd, env = confined.argv, "/", {"PATH": os.environ.get("PATH") or sandbox.SYSTEM_PATH}
    else:
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        cwd = scratch = _scratch_dir()
    started = time.monotonic()
    deadline = started + seconds + limits.grace
    _ACTIVE_LOCK.acquire()
    children_before = _children()
    try:
        process = subprocess.Popen(
            spawn,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
    except (OSError, subprocess.SubprocessError) as error:
        _ACTIVE_LOCK.release()
        if confined is not None:
            confined.close()
        return CallResult(
            Verdict.FAILED_TO_START, None, None, time.monotonic() - started, None, False,
            _start_failure(spawn, error), tuple(argv),
        )
    _ACTIVE.add(process.pid)
    _ACTIVE_LOCK.release()
    if _STOPPED:  # stop_calls ran after the check above and may have missed this engine
        _kill_group(process.pid)
    if after_start:
        _limit_resources(process.pid, wanted, after_start)
    pgid = process.pid  # start_new_session: the child leads its own group
    assert process.stdout is not None and process.stderr is not None
    out = _Stream(process.stdout.fileno(), limits.stdout_bytes, None)
    err = _Stream(process.stderr.fileno(), limits.stderr_bytes, STDERR_TAIL_BYTES)
    exited = False
    ended = started
    try:
        exited = _supervise(process, out, err, deadline)
        ended = time.monotonic()
    finally:
        _kill_group(pgid)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - unkillable (D state) process
            pass
        _reap_group(pgid)
        with _ACTIVE_LOCK:
            _ACTIVE.discard(pgid)
        _kill_escaped(children_before)
        process.stdout.close()
        process.stderr.close()
        if scratch is not None:
            _empty_dir(scratch)
        if confined is not None:
            confined.close()
    elapsed = ended - started
    killed = not exited
    returncode = process.returncode
    if confined is not None and exited:
        returncode = sandbox.exit_status(returncode)
    exit_status = returncode if exited else None
    # A last line without a newline counts when the program ended it by exiting, even if a
    # grandchild still held the pipe open.
    lines = decode_lines(bytes(out.data), ended_by_exit=exited)
    stdout_tail = tuple(lines[-STDOUT_LINES_KEPT:])
    stderr_tail = err.tail_text()

    def result(verdict: Verdict, detail: str, answer_move: int | None = None,
               answer_board: str | None = None, warnings: Sequence[CallWarning] = (),
               answered_after: float | None = None) -> CallResult:
        return CallResult(verdict, answer_move, answer_board, elapsed, returncode, killed,
                          detail, tuple(argv), stdout_tail, stderr_tail, tuple(warnings), answered_after)

    if out.over_cap or err.over_cap:
        stream, cap = ("stdout", limits.stdout_bytes) if out.over_cap else ("stderr", limits.stderr_bytes)
        return result(Verdict.OUTPUT_LIMIT, f"printed more than {cap:,} bytes on {stream}; stopped")
    answer = game_of(position).find_answer(position, lines)
    if answer is None:
        if not exited:
            return result(
                Verdict.TIME,
                f"no answer within {seconds:g} s (+ {limits.grace:g} s grace); killed",
            )
        return result(Verdict.NO_ANSWER, _no_answer_detail(exit_status, lines, out.total, stderr_tail))
    verdict, detail = check_answer(position, answer.move, answer.board, answer.text)
    warnings = answer_warnings(answer, exit_status)
    if not exited:
        warnings.append(CallWarning(WarningKind.KILLED_AT_DEADLINE,
                                    "still running at the deadline; killed (its last answer counts)"))
    arrived = out.line_time(answer.line_number)  # None: the last line, ended by the exit
    answered_after = min((arrived if arrived is not None else ended) - started, elapsed)
    return result(verdict, detail, answer.move, answer.board, warnings, answered_after)


def _supervise(process: subprocess.Popen[bytes], out: _Stream, err: _Stream, deadline: float) -> bool:
    """Read until the program exits (True) or the deadline passes or output overflows (False)."""
    selector = selectors.DefaultSelector()
    pidfd = -1
    try:
        selector.register(out.fd, selectors.EVENT_READ, out)
        selector.register(err.fd, selectors.EVENT_READ, err)
        if hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(process.pid)
                selector.register(pidfd, selectors.EVENT_READ, None)
            except OSError:
                pidfd = -1
        while True:
            if process.poll() is not None:
                # Exited: collect what it left in the pipes, but do not wait for grandchildren.
                out.read_available()
                err.read_available()
                return not (out.over_cap or err.over_cap)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                out.read_available()
                err.read_available()
                return False
            timeout = remaining if pidfd >= 0 else min(remaining, 0.005)
            for key, _ in selector.select(timeout):
                stream = key.data
                if stream is None:
                    continue
                stream.read_available()
                if stream.eof:
                    selector.unregister(stream.fd)
                if stream.over_cap:
                    return False
    finally:
        selector.close()
        if pidfd >= 0:
            os.close(pidfd)


def _cannot_start(argv: Sequence[str]) -> OSError | None:
    """Why the program could not be started, found before starting prlimit or the sandbox in front
    of it (there, the failure would look like an engine that printed nothing); None if it looks
    startable."""
    if not argv:
        return FileNotFoundError(errno.ENOENT, "empty command")
    program = argv[0] if os.sep in argv[0] else shutil.which(argv[0])
    if program is None or not os.path.isfile(program):
        return FileNotFoundError(errno.ENOENT, "no such file")
    if not os.access(program, os.X_OK):
        return PermissionError(errno.EACCES, "not executable")
    try:
        with open(program, "rb") as file:
            magic = file.read(4)
    except OSError as error:
        return error
    if magic[:2] != b"#!" and magic != b"\x7fELF":
        return OSError(errno.ENOEXEC, "exec format error")
    return None


def _start_failure(argv: Sequence[str], error: BaseException) -> str:
    program = argv[0] if argv else "(empty command)"
    if isinstance(error, FileNotFoundError):
        return f"cannot start {program!r}: no such file or command"
    if isinstance(error, PermissionError):
        return f"cannot start {program!r}: permission denied (chmod +x {program}, or prefix python3)"
    if isinstance(error, OSError) and error.errno == errno.ENOEXEC:
        return f"cannot start {program!r}: not an executable format (add a #! line, or prefix python3)"
    return f"cannot start {program!r}: {error}"


def _no_answer_detail(
    exit_status: int | None, lines: Sequence[str], stdout_bytes: int, stderr_tail: str
) -> str:
    if exit_status is not None and exit_status < 0:
        how = f"killed by signal {-exit_status}"
        if -exit_status == signal.SIGXCPU:
            how += " (CPU time limit)"
    else:
        how = f"exited with status {exit_status}"
    if not stdout_bytes:
        what = "printed nothing on stdout"
    elif not lines:
        what = f"printed {stdout_bytes} bytes on stdout but no complete line"
    else:
        what = f"no well-formed 'MOVE BOARD' line; last line: {lines[-1][:120]!r}"
    last_error = next((line for line in reversed(stderr_tail.splitlines()) if line.strip()), "")
    hint = f"; stderr: {last_error[:160]}" if last_error else ""
    return f"{how}, {what}{hint}"
