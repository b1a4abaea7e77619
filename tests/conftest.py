"""Shared test helpers: run real engine programs as subprocesses."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEED_BOARD = "...x..o.ox.oxxxoxo"
"""The seed's Figure 1(a), n = 3."""
TYPO_BOARD = "...x..o.ox.oxxxo.o"
"""The seed's first command example: a floating pebble in column 2."""
ARENA = str(Path(sys.executable).parent / "arena")
"""The installed `arena` console script."""
TINY = """
name: tiny
n: [3]
time: 1
rounds: 1
max_plies: 4
concurrency: 1
engines:
  - {name: a, builtin: random}
  - {name: b, builtin: random}
"""
"""A two-game tournament of random against random at n = 3."""


def run_program(argv: list[str], timeout: float = 60, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a program to completion, capturing text output (stdin: ``input``, or nothing)."""
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT, input=input,
                          stdin=None if input is not None else subprocess.DEVNULL)


def run_counting_cpu(argv: list[str], timeout: float = 60) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run a program to completion like run_program; also the CPU seconds it used (user + system, as
    the kernel counts them for it: a loaded machine stretches a program's wall time, not this)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=ROOT)
        pidfd = os.pidfd_open(process.pid)  # readable once it exits; wait4 then reaps it with its usage
        try:
            ended = select.select([pidfd], [], [], timeout)[0]
        finally:
            os.close(pidfd)
        if not ended:
            process.kill()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if not ended:
            raise subprocess.TimeoutExpired(argv, timeout)
        out.seek(0)
        err.seek(0)
        result = subprocess.CompletedProcess(argv, process.returncode, out.read().decode(), err.read().decode())
    return result, usage.ru_utime + usage.ru_stime


def load_script(name: str) -> ModuleType:
    """The module of ``scripts/NAME.py`` (scripts are not a package), loaded afresh."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def python() -> str:
    return sys.executable


@pytest.fixture(autouse=True)
def no_tablebase(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Engines search unless a test gives them a table: results must not depend on whether this
    machine has built one (engines read $BETSY_TABLES, inherited by their processes)."""
    monkeypatch.setenv("BETSY_TABLES", str(tmp_path_factory.mktemp("no-tables")))


def on_ci() -> bool:
    """Whether this run is CI's (the CI variable set and not 0 or false; .ci/run sets CI=1)."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def cannot_run_here(reason: str) -> NoReturn:
    """Skip this test for a part this machine lacks (``reason`` names it and how to get it); on CI,
    which must have every part, fail instead."""
    if on_ci():
        pytest.fail(f"CI must run this test, but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def n3_tables(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A folder with the exact n = 3 table (mover priority): this machine's, or one built for this
    run (about 10 s) where scripts/build_tablebase.py has not built one."""
    from engines.tablebase import build, table_name, table_problem

    default = os.path.join(os.path.expanduser("~"), ".cache", "betsy-arena")
    if table_problem(os.path.join(default, table_name(3)), 3) is None:
        return default
    folder = tmp_path_factory.mktemp("n3-tables")
    build(3, "mover", folder / table_name(3))
    return str(folder)


@functools.cache
def sandbox_warning() -> str:
    """What arena prints on stderr before anything else when it runs engines with the sandbox on auto:
    nothing where the sandbox works here, else its one-line warning (a machine without bubblewrap, such
    as an ordinary user's who could not install it, runs engines unconfined and says so)."""
    from harness.referee.sandbox import SandboxMode, resolve

    warning = resolve(SandboxMode.AUTO)[1]
    return "" if warning is None else f"arena: warning: {warning}\n"


def require_sandbox() -> None:
    """Skip (with the reason) where the bubblewrap sandbox cannot run; on CI, fail instead."""
    from harness.referee.sandbox import probe

    works, why = probe()
    if not works:
        cannot_run_here(f"the sandbox cannot run here: {why} (scripts/test installs bubblewrap when it can)")


SKIPS_ALLOWED = ROOT / "tests" / "skips_allowed.txt"
"""Reasons a test may skip on CI, one per line (a skip's reason must start with one)."""
_SKIPS: list[tuple[str, str]] = []
"""(test id, reason) of every skip of this run, as the reports reach this process."""


def allowed_skip_reasons() -> list[str]:
    return [line.strip() for line in SKIPS_ALLOWED.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def _note_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        _SKIPS.append((report.nodeid, reason.removeprefix("Skipped: ")))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _note_skip(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _note_skip(report)


def _unallowed_skips() -> list[tuple[str, str]]:
    allowed = allowed_skip_reasons()
    return [(test, reason) for test, reason in _SKIPS if not any(reason.startswith(a) for a in allowed)]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """On CI, a skip whose reason is not on tests/skips_allowed.txt fails the run."""
    if hasattr(session.config, "workerinput"):  # a pytest-xdist worker: its controller judges
        return
    if on_ci() and _unallowed_skips() and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The skip count, always; on CI, each skip that fails the run."""
    unallowed = _unallowed_skips()
    terminalreporter.write_line(f"skipped tests: {len(_SKIPS)} ({len(_SKIPS) - len(unallowed)} for a reason on "
                                f"tests/skips_allowed.txt)")
    if on_ci():
        for test, reason in unallowed:
            terminalreporter.write_line(f"CI fails on this skip (its reason is not on tests/skips_allowed.txt): "
                                        f"{test}: {reason}", red=True)


def pytest_configure(config: pytest.Config) -> None:
    """Make this test process a child subreaper: a process its tests start that escapes its parent
    (a double fork, setsid) is re-parented here, not to init, so it stays among this process's
    descendants. Checks for leftover processes then look at this process's descendants alone, and
    test processes running side by side (scripts/test runs several) do not see each other's engines."""
    import ctypes

    pr_set_child_subreaper = 36
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)


def _process_status() -> dict[int, dict[str, str]]:
    """The fields of /proc/PID/status of every process that can be read."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text()
        except OSError:
            continue
        found[int(entry.name)] = dict((key, value.strip()) for key, value in
                                      (line.split(":", 1) for line in status.splitlines() if ":" in line))
    return found


def live_descendants() -> dict[int, dict[str, str]]:
    """Live (not zombie) descendants of this test process, with their /proc status fields."""
    status = _process_status()
    children: dict[int, list[int]] = {}
    for pid, fields in status.items():
        children.setdefault(int(fields.get("PPid", "0")), []).append(pid)
    found = {}
    todo = list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        if not status[pid].get("State", "").startswith("Z"):
            found[pid] = status[pid]
    return found


def command_line(pid: int) -> str:
    """The command line of process ``pid``, its arguments joined by spaces ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def assert_nothing_left(before: set[int], scratch: Path | None = None, patience: float = 15) -> None:
    """Within ``patience`` seconds, no process this test started since ``before`` (pids of
    live_descendants) is alive, escaped ones included (this process is a child subreaper), and the
    scratch root ``scratch`` (the $TMPDIR given to the command) is empty: a pool worker stops its
    engine, removes its folders and exits."""
    deadline = time.monotonic() + patience
    while True:
        left = {pid: command_line(pid) for pid in live_descendants() if pid not in before}
        folders = sorted(os.listdir(scratch)) if scratch is not None else []
        if (not left and not folders) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert left == {}
    assert folders == []


def namespaced_processes() -> set[int]:
    """Live processes in a PID namespace below this one, started by this test process: sandboxed
    engines and their children."""
    return {pid for pid, fields in live_descendants().items() if len(fields.get("NSpid", "").split()) > 1}


def bound_by_permissions() -> list[str]:
    """A command prefix under which file permissions bind the command, whoever runs the suite.

    An ordinary user is bound already: nothing. Root keeps its uid, so that the command still reaches a
    checkout and a Python only root can enter (a drop to another uid could not), and loses the
    capabilities that override permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER) from its
    bounding set, so that no program it runs has them either."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        cannot_run_here("setpriv (util-linux) is not installed, and root is not bound by a folder's permissions "
                        "without it (apt-get install util-linux)")
    return ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]


def arena(*args: str, cwd: Path = ROOT, user: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the `arena` command (after ``user``, a prefix such as ``bound_by_permissions()``) to completion."""
    return subprocess.run([*(user or []), ARENA, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.fixture(scope="module")
def tiny_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished TINY tournament's database, alone in its folder (beside its log and lock file)."""
    folder = tmp_path_factory.mktemp("tiny")
    (folder / "tiny.yaml").write_text(TINY)
    result = arena("tournament", "tiny.yaml", "--db", "tiny.sqlite", "--no-progress", cwd=folder)
    assert result.returncode == 0, result.stderr
    return folder / "tiny.sqlite"


def arena_here(*args: str | Path) -> tuple[int, str, str]:
    """Run the arena CLI in this process: (exit status, stdout, stderr)."""
    from harness.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(arg) for arg in args])
        except SystemExit as stop:
            code = stop.code
    return int(code) if isinstance(code, int) else 0, out.getvalue(), err.getvalue()


def set_at(data: Any, path: str, value: object) -> None:
    """Set the value at a dotted path of nested objects and lists (``moves.0.ply``)."""
    *parents, last = path.split(".")
    node: Any = data
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
