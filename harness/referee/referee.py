"""One engine call: run the program for one move under supervision and judge what it printed.

The referee is the only authority on rules and time. For each call it:
- spawns the argv (never a shell) in a new session and process group, stdin from /dev/null, in a
  scratch working directory, with ``PYTHONUNBUFFERED=1`` and rlimits (address space, file size, no
  core files, CPU seconds as a backstop) set by ``prlimit`` before the program runs;
- reads stdout and stderr incrementally with a cap, until the program exits or its time runs out:
  the time limit + grace on the program's own clock (wall time from spawn less the time its tasks
  waited, runnable, for a CPU the machine gave to others: the kernel's run delay), so a loaded
  machine does not take a program's time; a call so starved that its wall time reaches ``STRETCH``
  times its allowed time first is run again alone (``machine_turn``), and one still starved is
  left for the caller to call not judged, never a time fault of the program;
- then kills the whole process group and reaps it, so a grandchild holding the pipe delays nothing;
- takes the last complete well-formed ``MOVE BOARD`` line and judges it with the rules core;
- measures the call's CPU time and peak memory (the kernel's counts: wait4, and /proc for a call
  stopped alive) and, for a fault, keeps a ``Capsule`` of the call whole (``arena repro``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from harness.referee import sandbox as sandbox
from harness.referee.engine_specs import PYTHONS, env_command_start
from harness.referee.programs import file_sha256, program_file

if TYPE_CHECKING:
    from harness.games.registry import Position
from harness.referee.protocol import (
    Clock,
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

    stdout_bytes: int = 1 << 20
    """More stdout than this is an output-limit fault."""
    stderr_bytes: int = 1 << 20
    """More stderr than this is an output-limit fault (only the tail is kept)."""
    address_space: int | None = 4 << 30
    """RLIMIT_AS in bytes per process, or None for no limit."""
    sandbox: bool = False
    """Run the engine inside the bubblewrap sandbox (harness/referee/sandbox.py); resolve the mode first."""
    file_bytes: int = 64 << 20
    """Largest file the engine may write (RLIMIT_FSIZE); in the sandbox, also its tmpfs sizes."""
    processes: int = 64
    """Processes and threads the engine may run at once (in the sandbox, where it can be counted)."""
    replay_stalls: bool = True
    """Run a starved call again (``starved_of``), alone on the machine, up to ``REPLAYS`` times; the last counts."""


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
    """Seconds of the program's own time (wall time less ``waited`` by then) from spawn until the
    answer line (the last well-formed one) was read; None without one."""
    cpu_seconds: float | None = None
    """CPU time (user + system) of the call's process tree, from the kernel's accounting; None if
    the program never started."""
    peak_memory: int | None = None
    """Bytes: the largest peak resident set of any process of the call's tree (the kernel's
    ``ru_maxrss``/``VmHWM``, which is per process, not a sum); None if the program never started."""
    spawn_argv: tuple[str, ...] = ()
    """The argv as started: ``argv`` behind the sandbox or ``prlimit`` wrapper, if any."""
    run_queue: int | None = None
    """Time faults only: runnable tasks on the machine at the deadline, not counting the call's own
    processes nor the referee (from ``/proc/loadavg``); None otherwise or where it cannot be read."""
    cores: int | None = None
    """Time faults only: the machine's CPU count, beside ``run_queue``."""
    stall: str = ""
    """Time faults only: why the call was starved by the machine rather than slow (``starved_of``),
    with its figures; empty when it was not."""
    capsule: Capsule | None = None
    """Faults only: everything needed to run the call again (``arena repro``)."""
    run_delay: float | None = None
    """Seconds the call's processes waited, runnable, for a CPU the machine gave to others: the
    kernel's per-task run delay (``/proc/PID/task/TID/schedstat``), summed over the tree; None where
    it cannot be read."""
    waited: float | None = None
    """Seconds of wall time the call lost to waiting for a CPU: the run delays summed over its tree,
    but no more than the wall time its tasks were not on a CPU and no less than the most of one task
    (``_Waits.lost``). The referee's clock does not count it (``own_seconds``)."""
    replays: int = 0
    """Times the call was run again, alone on the machine, because it was starved (``starved_of``)."""

    @property
    def own_seconds(self) -> float:
        """The program's own time: wall time less the time it waited for a CPU (``waited``)."""
        return max(0.0, self.seconds - (self.waited or 0.0))

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.OK


STRETCH = 4.0
"""How far a starved call's wall time may stretch: the referee's clock counts the program's own time
(wall time less the time it waited for a CPU), but stops any call at this many times its allowed
time (limit + grace) of wall time, whatever it waited."""
REPLAYS = 2
"""Times a starved call is run again, alone on the machine (``machine_turn``), before it is left
not judged."""
SAMPLE_EVERY = 0.05
"""Seconds between two readings of a running call's run delay (the clock's precision under load)."""


def starved_of(verdict: Verdict, killed: bool, wall: float, waited: float | None, allowed: float,
               cpu_seconds: float | None) -> str:
    """Why a time fault is the machine's, not the program's, or "" when it is the program's.

    The referee's clock counts the program's own time: wall time less ``waited``, the time it waited,
    runnable, for a CPU the machine gave to others (the kernel's run delay). A program that computes
    or sleeps through its allowed time is slow on any machine: its own time ran out. A call stopped
    at the wall-time cap (``STRETCH`` times ``allowed``) before its own time ran out was starved: the
    machine, not the program, was slow."""
    if verdict is not Verdict.TIME or not killed or waited is None:
        return ""
    own = wall - waited
    if own >= allowed:
        return ""
    cpu = f", {cpu_seconds:.2f} s on a CPU" if cpu_seconds is not None else ""
    return (f"starved: waited {waited:.2f} s for a CPU in {wall:.2f} s of wall time{cpu}; its own time "
            f"{own:.2f} s of the {allowed:g} s allowed had not run out")


@dataclass(frozen=True)
class Capsule:
    """One faulty call, kept whole so that it can be run again exactly (``arena repro``)."""

    argv: tuple[str, ...]
    """The program's own argv: its command, the protocol's arguments, its extra arguments."""
    command_length: int
    """How many words of ``argv`` are the engine's command (what the sandbox makes readable)."""
    spawn_argv: tuple[str, ...]
    """The argv as started: ``argv`` behind the sandbox or ``prlimit`` wrapper, if any."""
    game: str
    size: str
    player: str
    board: str
    """The position as sent: game, size, side to move, board."""
    program: str | None
    """The program file that identifies the engine (its script, else its executable)."""
    sha256: str | None
    """The SHA-256 of ``program`` when the call was made."""
    seconds: float
    grace: float
    allow_fractional: bool
    """The clock: time limit, grace past it, and whether SECONDS may have a fraction."""
    sandbox: bool
    stdout_bytes: int
    stderr_bytes: int
    address_space: int | None
    file_bytes: int
    processes: int
    cpu_limit: int
    """The call's limits: sandbox on or off, output caps, RLIMIT_AS, file size, processes, RLIMIT_CPU."""
    verdict: Verdict
    detail: str
    exit_status: int | None
    """Exit code; negative for the signal that ended it (-9 when the referee stopped it, see
    ``killed``); None if it never started."""
    killed: bool
    wall_seconds: float
    cpu_seconds: float | None
    peak_memory: int | None
    run_queue: int | None
    cores: int | None
    stall: str
    first_attempt: Capsule | None = None
    """The starved call this one replayed, if it is a replay."""
    time_scale: float = 1.0
    """The clock's scale (harness.referee.calibrate)."""
    run_delay: float | None = None
    waited: float | None = None
    """Seconds the call's tasks waited for a CPU (summed; the most of any one task): CallResult's."""

    def limits(self) -> Limits:
        """The call's limits (a replay made from this capsule never replays a stall itself)."""
        return Limits(self.stdout_bytes, self.stderr_bytes, self.address_space, self.sandbox, self.file_bytes,
                      self.processes)

    def clock(self) -> Clock:
        return Clock(self.seconds, self.grace, self.allow_fractional, self.time_scale)


def _capsule(result: CallResult, position: Position, clock: Clock, limits: Limits, command_length: int,
             cpu_limit: int) -> Capsule:
    program = program_file(result.argv[:command_length])
    return Capsule(
        result.argv, command_length, result.spawn_argv or result.argv, game_of(position).name,
        position.size_text, position.player, position.board(), program, file_sha256(program),
        clock.seconds, clock.grace, clock.allow_fractional, limits.sandbox, limits.stdout_bytes,
        limits.stderr_bytes, limits.address_space, limits.file_bytes, limits.processes, cpu_limit,
        result.verdict, result.detail, result.exit_status, result.killed, round(result.seconds, 4),
        result.cpu_seconds, result.peak_memory, result.run_queue, result.cores, result.stall,
        time_scale=clock.scale, run_delay=result.run_delay, waited=result.waited)


def resolve_interpreter(argv: Sequence[str]) -> list[str]:
    """Replace a leading ``python``/``python3`` (or the one an ``env NAME=VALUE...`` head runs) with
    the real interpreter running the harness.

    A pyenv-style shim is a shell script that costs tens of milliseconds per call, and the shim's
    own files are not in the sandbox.
    """
    args = list(argv)
    start = env_command_start(args)
    head = start if start is not None else 0
    if head < len(args) and args[head] in PYTHONS:
        args[head] = sys.executable
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


def _kill_escaped(before: set[int], usage: _Usage, rounds: int = 50) -> None:
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
                usage.add(os.wait4(pid, 0)[2])
            except ChildProcessError:
                pass


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap_group(pgid: int, usage: _Usage, timeout: float = 2.0) -> None:
    """Reap the group's processes that were adopted by this process (see _become_subreaper)."""
    end = time.monotonic() + timeout
    while True:
        try:
            pid, _, rusage = os.wait4(-pgid, os.WNOHANG)
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
        else:
            usage.add(rusage)


class _Usage:
    """CPU seconds and the largest peak resident set (KiB) of processes, as the kernel counts them."""

    __slots__ = ("cpu", "peak_kib")

    def __init__(self, cpu: float = 0.0, peak_kib: int = 0) -> None:
        self.cpu = cpu
        self.peak_kib = peak_kib

    def add(self, rusage: resource.struct_rusage) -> None:
        """Count one reaped process: wait4's rusage holds it and the descendants it reaped itself."""
        self.cpu += rusage.ru_utime + rusage.ru_stime
        self.peak_kib = max(self.peak_kib, rusage.ru_maxrss)  # KiB on Linux


def _reap_child(process: subprocess.Popen[bytes], usage: _Usage, timeout: float = 0.0) -> bool:
    """Reap the engine with wait4 (which, unlike Popen.poll, gives its rusage) if it has exited,
    waiting up to ``timeout``; whether it has."""
    end = time.monotonic() + timeout
    while process.returncode is None:
        try:
            pid, status, rusage = os.wait4(process.pid, os.WNOHANG)
        except ChildProcessError:  # pragma: no cover - reaped elsewhere: Popen knows what to say
            process.poll()
            break
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            usage.add(rusage)
            break
        if time.monotonic() >= end:
            return False
        time.sleep(0.002)
    return True


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _tree(root: int) -> Iterator[tuple[int, list[str]]]:
    """Each live process of the tree under ``root`` (Linux /proc), as (pid, its task ids); its
    children, found through every task's ``children`` file, come after it."""
    pending = [root]
    seen: set[int] = set()
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        yield pid, tasks
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children", "rb") as file:
                    pending.extend(int(child) for child in file.read().split())
            except (OSError, ValueError):
                continue


def _tree_usage(root: int) -> tuple[_Usage, int]:
    """The live process tree under ``root`` (Linux /proc): CPU seconds of its processes and of the
    children they reaped, their largest peak resident set (VmHWM), and how many are running."""
    usage = _Usage()
    running = 0
    for pid, _tasks in _tree(root):
        try:
            with open(f"/proc/{pid}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{pid}/status", "rb") as file:
                for line in file:
                    if line.startswith(b"VmHWM:"):
                        usage.peak_kib = max(usage.peak_kib, int(line.split()[1]))
                        break
        except (OSError, ValueError, IndexError):
            continue
        # After the name: state (0), ..., utime (11), stime (12), cutime (13), cstime (14), in ticks.
        usage.cpu += sum(int(value) for value in fields[11:15]) / _CLOCK_TICKS
        running += fields[0] == b"R"
    return usage, running


def _run_queue(own: int) -> int | None:
    """Runnable tasks on the machine now (``/proc/loadavg``'s fourth field), less the referee's own
    thread and the call's ``own`` running processes; None where it cannot be read."""
    try:
        with open("/proc/loadavg", "rb") as file:
            runnable = int(file.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(0, runnable - 1 - own)


class _Waits:
    """The run delay of a call's process tree: how long its tasks waited, runnable, for a CPU (the
    second figure of ``/proc/PID/task/TID/schedstat``, in nanoseconds; the first is their time on a
    CPU), the largest reading of each task kept, so a task that has ended still counts. Read at most
    every few milliseconds.

    The wall time the call lost (``lost``) lies between the most any one task waited (tasks waiting
    at once) and the sum over the tasks (one waiting after another: the sandbox, a wrapper, then the
    program): the sum, but no more than the wall time its tasks were not on a CPU, and never less
    than the most of one task. So a chain of processes is credited every wait, and a program cannot
    gain time by running many threads that wait at once."""

    __slots__ = ("root", "started", "delay", "on_cpu", "moved", "pending", "read_at", "readable")

    MIN_GAP = 0.005

    def __init__(self, root: int, started: float) -> None:
        self.root = root
        self.started = started
        self.delay: dict[int, int] = {}
        self.on_cpu: dict[int, int] = {}
        self.moved: dict[int, float] = {}
        """When each task was last seen on a CPU or not runnable."""
        self.pending: dict[int, float] = {}
        """Seconds each task has been waiting since, runnable and not run: the kernel adds a wait to
        the run delay only when it ends (the task gets a CPU), so a wait still going on is counted here."""
        self.read_at = -math.inf
        self.readable = False
        """Whether any reading succeeded (else the machine gives no run delays: the wall clock rules)."""

    def _waited(self) -> list[float]:
        return [delay / 1e9 + self.pending.get(tid, 0.0) for tid, delay in self.delay.items()]

    @property
    def total(self) -> float:
        """Seconds waited, summed over the tasks."""
        return sum(self._waited())

    def lost(self, now: float) -> float:
        """Seconds of wall time lost to waiting for a CPU, by ``now`` (a monotonic time)."""
        waited = self._waited()
        most = max(waited, default=0.0)
        idle = now - self.started - sum(self.on_cpu.values()) / 1e9
        return max(0.0, min(sum(waited), max(most, idle)))

    def sample(self, now: float, force: bool = False) -> None:
        if not force and now - self.read_at < self.MIN_GAP:
            return
        self.read_at = now
        for pid, tasks in _tree(self.root):
            for task in tasks:
                try:
                    with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as file:
                        figures = file.read().split()
                    on_cpu, delay = int(figures[0]), int(figures[1])
                    with open(f"/proc/{pid}/task/{task}/stat", "rb") as file:
                        runnable = file.read().rsplit(b")", 1)[1].split()[0] == b"R"
                except (OSError, ValueError, IndexError):
                    continue
                self.readable = True
                tid = int(task)
                ran = on_cpu > self.on_cpu.get(tid, -1) or delay > self.delay.get(tid, -1)
                if ran or not runnable:
                    self.moved[tid] = now
                    self.pending[tid] = 0.0
                else:
                    self.pending[tid] = now - self.moved.get(tid, now)
                self.delay[tid] = max(delay, self.delay.get(tid, -1))
                self.on_cpu[tid] = max(on_cpu, self.on_cpu.get(tid, -1))


class _Stream:
    """Incremental, capped reading of one pipe."""

    __slots__ = ("fd", "data", "total", "cap", "keep_tail", "eof", "newlines", "waits")

    def __init__(self, fd: int, cap: int, keep_tail: int | None, waits: _Waits | None = None) -> None:
        self.fd = fd
        self.data = bytearray()
        self.total = 0
        self.cap = cap
        self.keep_tail = keep_tail
        self.eof = False
        self.newlines: list[tuple[int, float, float]] = []
        """(lines completed so far, when, seconds the call had waited for a CPU by then) after each
        read: when each line arrived, on the wall clock and on the program's own."""
        self.waits = waits
        os.set_blocking(fd, False)

    def line_time(self, number: int) -> tuple[float, float] | None:
        """When the ``number``-th line (1-based) was complete, and the seconds the call had waited for
        a CPU by then; None if it never was."""
        for count, when, waited in self.newlines:
            if count >= number:
                return when, waited
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
            lines = chunk.count(b"\n")
            done = (self.newlines[-1][0] if self.newlines else 0) + lines
            now = time.monotonic()
            waited = 0.0
            if self.waits is not None:
                if lines:
                    self.waits.sample(now)
                waited = self.waits.lost(now)
            self.newlines.append((done, now, waited))
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
    clock: Clock,
    limits: Limits = Limits(),
    extra_args: Sequence[str] = (),
) -> CallResult:
    """Ask the program ``command`` for a move in ``position`` within ``clock``'s limit (plus grace).

    ``extra_args`` follow the protocol's four arguments (options of built-in engines).
    """
    argv = resolve_interpreter(
        engine_argv(command, position, clock, extra_args)
    )
    return run_call(argv, position, clock, limits, command_length=len(command))


def run_call(
    argv: list[str], position: Position, clock: Clock, limits: Limits, command_length: int = 1
) -> CallResult:
    """Run one prepared argv as an engine call (see ``ask``); its first ``command_length`` words
    are the engine's command (what the sandbox makes readable). A fault carries its ``capsule``.

    A starved call (``starved_of``: the machine, not the program, kept it from its time) is run again,
    alone on the machine (``machine_turn``), up to ``REPLAYS`` times when ``limits.replay_stalls``:
    the last run counts, with a warning that says what the first did, and its capsule keeps the
    first's. One still starved keeps its ``stall`` sentence: the caller leaves it not judged."""
    cpu_limit = math.ceil(clock.allowed) + 1
    with machine_turn(alone=False):
        first = _with_capsule(_run_once(argv, position, clock, limits, command_length, cpu_limit),
                              position, clock, limits, command_length, cpu_limit)
    if not (first.stall and limits.replay_stalls):
        return first
    again = first
    replays = 0
    while again.stall and replays < REPLAYS and not _STOPPED:
        replays += 1
        with machine_turn(alone=True):
            again = _with_capsule(_run_once(argv, position, clock, limits, command_length, cpu_limit),
                                  position, clock, limits, command_length, cpu_limit)
    outcome = ("ok" if again.ok else f"still starved ({again.stall.removeprefix('starved: ')})" if again.stall
               else f"{again.verdict.value}")
    times = "once" if replays == 1 else f"{replays} times"
    note = CallWarning(WarningKind.STALL_REPLAYED, f"{first.stall}; run again alone {times}: {outcome}")
    capsule = None if again.capsule is None else replace(again.capsule, first_attempt=first.capsule)
    return replace(again, warnings=(note, *again.warnings), capsule=capsule, replays=replays)


_TURN_LOCAL = threading.local()
_TURN_FOLDER = "/dev/shm" if os.path.isdir("/dev/shm") else "/tmp"
"""Where the turn files are: one place for the whole machine, whatever $TMPDIR a run was given."""


TURN_PATIENCE = 30.0
"""Seconds a call waits for its turn (a replay in progress, or calls in progress before a replay)
before it runs without turns: a turn held for longer is stuck (a stopped process holding it), and
this process then leaves turns alone for the rest of its life."""
_TURNS_BROKEN = False
_HELD: set[int] = set()
"""Turn descriptors held by this process: closed in a forked child, which must not keep them."""


def _forget_turns() -> None:
    for fd in list(_HELD):
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_turns)


def _flock(fd: int, operation: int, until: float) -> bool:
    """``flock`` without blocking past ``until`` (a monotonic time); whether it was taken."""
    pause = 0.002
    while True:
        try:
            fcntl.flock(fd, operation | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= until:
                return False
            time.sleep(pause)
            pause = min(0.05, pause * 2)
        except OSError:
            return False


@contextlib.contextmanager
def machine_turn(alone: bool) -> Iterator[None]:
    """Hold a turn on this machine for one engine call: shared with every other call of this user's
    arena processes (a tournament's workers, a class run beside a validation), or, ``alone``, with
    none of them: a starved call's replay waits until the calls in progress end, and no new call
    starts until it is done (``fcntl.flock`` on two files in ``_TURN_FOLDER``: a turnstile that
    a waiting replay holds, so a stream of new calls cannot keep it out). Where the files cannot be
    opened, or a turn is not had within ``TURN_PATIENCE``, calls run without turns."""
    global _TURNS_BROKEN
    if getattr(_TURN_LOCAL, "held", False) or _TURNS_BROKEN:  # nested, or turns are stuck here
        yield
        return
    base = os.path.join(_TURN_FOLDER, f"arena-{os.getuid()}-calls")
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
    opened: list[int] = []
    try:
        for suffix in (".turnstile", ".lock"):
            opened.append(os.open(base + suffix, flags, 0o600))
            _HELD.add(opened[-1])
    except OSError:
        pass
    try:
        had = False
        if len(opened) == 2:
            turnstile, turns = opened
            until = time.monotonic() + TURN_PATIENCE
            if _flock(turnstile, fcntl.LOCK_EX, until):
                had = _flock(turns, fcntl.LOCK_EX if alone else fcntl.LOCK_SH, until)
                fcntl.flock(turnstile, fcntl.LOCK_UN)
            if not had:
                _TURNS_BROKEN = True
        _TURN_LOCAL.held = True
        try:
            yield
        finally:
            _TURN_LOCAL.held = False
    finally:
        for fd in opened:  # closing the last descriptor of the open file releases its lock
            _HELD.discard(fd)
            os.close(fd)


def _with_capsule(result: CallResult, position: Position, clock: Clock, limits: Limits, command_length: int,
                  cpu_limit: int) -> CallResult:
    if result.ok:
        return result
    return replace(result, capsule=_capsule(result, position, clock, limits, command_length, cpu_limit))


def _run_once(argv: list[str], position: Position, clock: Clock, limits: Limits, command_length: int,
              cpu_seconds: int) -> CallResult:
    """One call, measured (see ``run_call``)."""
    _ensure_subreaper()
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
    waits = _Waits(process.pid, started)
    out = _Stream(process.stdout.fileno(), limits.stdout_bytes, None, waits)
    err = _Stream(process.stderr.fileno(), limits.stderr_bytes, STDERR_TAIL_BYTES)
    exited = False
    ended = started
    usage = _Usage()
    live = _Usage()
    run_queue: int | None = None
    try:
        exited = _supervise(process, out, err, started, clock.allowed, waits, usage)
        ended = time.monotonic()
    finally:
        if not exited:  # what the tree used until now: a sandbox's processes die unreaped by us
            waits.sample(time.monotonic(), force=True)
            live, running = _tree_usage(process.pid)
            run_queue = _run_queue(running)
        _kill_group(pgid)
        _reap_child(process, usage, timeout=5)
        _reap_group(pgid, usage)
        with _ACTIVE_LOCK:
            _ACTIVE.discard(pgid)
        _kill_escaped(children_before, usage)
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

    # Both are the kernel's counts and both can only miss processes, never count one twice over:
    # wait4's rusage of everything reaped here (the engine, with the descendants it reaped itself,
    # and descendants adopted by this subreaper), and for a call stopped at the deadline, /proc's
    # figures of the live tree just before the kill (a sandbox's processes die with its namespace
    # and reach no wait4 here). So the larger of the two.
    cpu_used = round(max(usage.cpu, live.cpu), 4)
    peak = max(usage.peak_kib, live.peak_kib) * 1024
    cores = os.cpu_count() if run_queue is not None else None
    spawn_argv = tuple(spawn) if spawn is not argv else ()
    waited = round(min(waits.lost(ended), elapsed), 4) if waits.readable else None
    run_delay = round(waits.total, 4) if waits.readable else None

    def result(verdict: Verdict, detail: str, answer_move: int | None = None,
               answer_board: str | None = None, warnings: Sequence[CallWarning] = (),
               answered_after: float | None = None) -> CallResult:
        stall = starved_of(verdict, killed, elapsed, waited, clock.allowed, cpu_used)
        return CallResult(verdict, answer_move, answer_board, elapsed, returncode, killed,
                          detail, tuple(argv), stdout_tail, stderr_tail, tuple(warnings), answered_after,
                          cpu_used, peak, spawn_argv, run_queue, cores, stall, run_delay=run_delay,
                          waited=waited)

    if out.over_cap or err.over_cap:
        stream, cap = ("stdout", limits.stdout_bytes) if out.over_cap else ("stderr", limits.stderr_bytes)
        return result(Verdict.OUTPUT_LIMIT, f"printed more than {cap:,} bytes on {stream}; stopped")
    answer = game_of(position).find_answer(position, lines)
    if answer is None:
        if not exited:
            return result(
                Verdict.TIME,
                f"no answer within {clock.limit:g} s (+ {clock.grace * clock.scale:g} s grace); killed",
            )
        return result(Verdict.NO_ANSWER, _no_answer_detail(exit_status, lines, out.total, stderr_tail))
    verdict, detail = check_answer(position, answer.move, answer.board, answer.text)
    warnings = answer_warnings(answer, exit_status)
    if not exited:
        warnings.append(CallWarning(WarningKind.KILLED_AT_DEADLINE,
                                    "still running at the deadline; killed (its last answer counts)"))
    # When the answer came, on the program's own clock (the time it waited for a CPU not counted).
    arrived = out.line_time(answer.line_number)  # None: the last line, ended by the exit
    when, lost = arrived if arrived is not None else (ended, waits.lost(ended))
    answered_after = max(0.0, min(when - started, elapsed) - lost)
    return result(verdict, detail, answer.move, answer.board, warnings, answered_after)


def _supervise(process: subprocess.Popen[bytes], out: _Stream, err: _Stream, started: float, allowed: float,
               waits: _Waits, usage: _Usage) -> bool:
    """Read until the program exits (True), or its time runs out, or output overflows (False).

    Its time is its own: wall time from ``started`` less the time it waited for a CPU (``waits``,
    read every ``SAMPLE_EVERY`` seconds), until ``allowed`` seconds; and never more than ``STRETCH``
    times ``allowed`` of wall time."""
    selector = selectors.DefaultSelector()
    pidfd = -1
    cap = started + STRETCH * allowed
    try:
        selector.register(out.fd, selectors.EVENT_READ, out)
        selector.register(err.fd, selectors.EVENT_READ, err)
        if hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(process.pid)
                selector.register(pidfd, selectors.EVENT_READ, None)
            except OSError:
                pidfd = -1
        ended = False
        while True:
            now = time.monotonic()
            waits.sample(now, force=ended)  # an exited program is a zombie until reaped: read it last
            if _reap_child(process, usage):
                # Exited: collect what it left in the pipes, but do not wait for grandchildren.
                out.read_available()
                err.read_available()
                return not (out.over_cap or err.over_cap)
            remaining = min(allowed - (now - started - waits.lost(now)), cap - now)
            if remaining <= 0:
                out.read_available()
                err.read_available()
                return False
            timeout = min(remaining, SAMPLE_EVERY) if pidfd >= 0 else min(remaining, 0.005)
            for key, _ in selector.select(timeout):
                stream = key.data
                if stream is None:
                    ended = True
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
