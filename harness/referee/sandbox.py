"""How one engine call is confined: a bubblewrap (``bwrap``) sandbox around the program.

Inside the sandbox an engine sees the system read-only (``/usr``, ``/etc`` and the ``/bin`` and
``/lib`` links), its own program folder and its interpreter as the operator's side resolves it,
read-only (harness/referee/programs.py: nothing in a student's folder chooses a bind; the project's own
programs, known by identity, also see the project and the n = 3 tables), a fresh ``/proc`` of its
own PID namespace, a minimal ``/dev``, and two private size-capped tmpfs folders: the working
directory (also ``$HOME``) and ``/tmp``. Nothing else of the host: no network, no results folder, no cache, no home, no other
engine's files, and an environment built from an allow-list instead of the harness's own.

Every limit is applied by ``prlimit`` just before the engine's program starts, so its children
inherit them: file size, processes (threads included), address space, CPU seconds, no core files.
A process cap is counted per user, and the kernel does not count it for root: when the harness runs
as root, the engine runs under an unused uid of its own (``setpriv``), one per concurrent call. As
an ordinary user, bwrap's user namespace gives the count its own scope.

The process tree dies with the sandbox: bwrap's init is PID 1 of the engine's namespace, and when it
or bwrap dies (``--die-with-parent``) the kernel kills every process in the namespace, including
those that left the process group.
"""

from __future__ import annotations

import atexit
import enum
import functools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError
from harness.referee.programs import (
    ENTRY_POINTS, PROJECT_DIR, SYSTEM_DIRS, SYSTEM_LINKS, Program, inside, interpreter_of, is_operators_interpreter,
    is_python, is_system, program_of,
)

SCRATCH = "/sandbox"
"""The engine's working directory and $HOME inside the sandbox."""
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
_ENV_PASSED = ("LANG", "LANGUAGE", "TZ")
"""Host variables passed through (besides every LC_*): the locale and time zone, nothing else."""
_UID_BASE = 1_800_000_000
"""Root only: sandboxed engines run as uids from here on (far above any allocated user or subuid)."""
MAX_FILE_MB = 4096
"""The largest file-size cap that may be set, in MiB (the sandbox folders are that large in memory)."""
MAX_PROCESSES = 4096
"""The largest process cap that may be set."""
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install "
    "bubblewrap)"
)


class SandboxMode(str, enum.Enum):
    """When engines run inside the sandbox."""

    AUTO = "auto"
    """When bwrap works here; otherwise unsandboxed, with a warning."""
    REQUIRED = "required"
    """Always; refuse to start without it."""
    OFF = "off"
    """Never: engines run with the harness's rights (for trusted programs only)."""

    def __str__(self) -> str:
        return self.value


class SandboxUnavailable(HarnessError):
    """``sandbox: required`` on a machine where bwrap cannot run."""


@dataclass(frozen=True)
class Caps:
    """Resource caps of one engine call (applied with and without the sandbox, where they can be)."""

    file_bytes: int = 64 << 20
    """Largest file the engine may write; also the size of each of its tmpfs folders."""
    processes: int = 64
    """Processes and threads the engine may run at once (sandbox only: the count needs its own uid)."""
    address_space: int | None = 4 << 30
    """RLIMIT_AS in bytes per process, or None for no limit."""


@dataclass(frozen=True)
class Plan:
    """What one engine command may see: read-only paths and extra environment variables."""

    readable: tuple[str, ...]
    """Host paths bound read-only at the same place (system paths excluded)."""
    path: str
    """$PATH inside: the bound interpreters' folders, then the system's."""
    env: tuple[tuple[str, str], ...] = ()
    staged: tuple[tuple[str, str], ...] = ()
    """(readable copy, original path): root only, for program folders only the owner could read."""


def _python_prefixes(interpreter: str) -> list[str]:
    """Folders a Python interpreter needs: its venv (if any), and the installation it runs on."""
    found: list[str] = []
    bin_dir = os.path.dirname(os.path.abspath(interpreter))
    venv = os.path.dirname(bin_dir)
    config = os.path.join(venv, "pyvenv.cfg")
    if os.path.isfile(config):
        found.append(venv)
        try:
            with open(config, encoding="utf-8", errors="replace") as file:
                for line in file:
                    key, _, value = line.partition("=")
                    if key.strip() == "home" and value.strip():
                        found.append(os.path.dirname(os.path.realpath(value.strip())))
        except OSError:
            pass
    real = os.path.realpath(interpreter)
    real_bin = os.path.dirname(real)
    found.append(os.path.dirname(real_bin) if os.path.basename(real_bin) == "bin" else real_bin)
    return found


@functools.lru_cache(maxsize=1)
def _real_python_of_shim(shim: str) -> str | None:
    """The interpreter behind a version-manager shim (pyenv, asdf), asked once."""
    try:
        done = subprocess.run([shim, "-c", "import sys; print(sys.executable)"], capture_output=True,
                              text=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    path = done.stdout.strip()
    return path if done.returncode == 0 and os.path.isabs(path) else None


def _interpreters(program: Program) -> tuple[list[str], list[str]]:
    """(interpreters, folders for $PATH) a command runs on, from the operator's side only: a Python
    head, or the ``#!`` interpreter of a directly executed program (``env NAME``: NAME on the
    harness's $PATH). One inside the student's folder is not one: it adds nothing."""
    candidates: list[str] = []
    path_dirs: list[str] = []
    if is_python(program.head) and os.path.isabs(program.head):
        candidates.append(program.head)
    named = interpreter_of(program)
    if named is not None and named.interpreter is not None and is_operators_interpreter(named.interpreter):
        found = named.interpreter
        if named.via_env:  # NAME's folder goes on $PATH too
            if "shims" in Path(found).parts:
                found = (_real_python_of_shim(found) or "") if is_python(found) else ""
            if found:
                path_dirs.append(os.path.dirname(found))
        if found:
            candidates.append(found)
    kept = [path for path in candidates if os.path.isabs(path) and not program.holds(path)
            and not program.holds(os.path.realpath(path))]
    path_dirs = [folder for folder in path_dirs if not program.holds(folder)]
    path_dirs += [os.path.dirname(os.path.abspath(path)) for path in kept if is_python(path) and not is_system(path)]
    return kept, path_dirs


def _interpreter_binds(program: Program, interpreters: Sequence[str]) -> list[str]:
    """Folders the interpreters need, without any that would show a student more than its own folder:
    one that holds a program folder (its neighbours), the project or the operator's home."""
    binds: list[str] = []
    for interpreter in interpreters:
        binds += _python_prefixes(interpreter) if is_python(interpreter) else [
            os.path.dirname(os.path.realpath(interpreter))]
    if program.own:
        return binds
    guarded = [*program.real_folders, PROJECT_DIR, os.path.realpath(os.path.expanduser("~"))]
    return [path for path in binds if not program.holds(path) and not any(
        inside(folder, os.path.normpath(path)) or inside(folder, os.path.realpath(path)) for folder in guarded)]


@functools.lru_cache(maxsize=256)
def plan_for(command: tuple[str, ...]) -> Plan:
    """The paths and variables an engine command needs (its argv before ``N PLAYER BOARD SECONDS``).

    A student's program sees its own folder, what the operator's command names, and its interpreter
    as the operator's side resolves it; the project's own programs (by identity) also see the
    project and the tables. As root, a program folder only its owner can read is bound as a copy
    others can read (``staged``)."""
    plan, runtime = _bindings(command)
    staged: list[tuple[str, str]] = []
    if os.geteuid() == 0:
        for path in plan.readable:
            if path not in runtime and path != PROJECT_DIR and not _others_can_read(path):
                copy = _stage(path)
                if copy is not None:
                    staged.append((copy, path))
    return Plan(plan.readable, plan.path, plan.env, tuple(staged))


def _bindings(command: tuple[str, ...]) -> tuple[Plan, list[str]]:
    """``plan_for`` without the copies: (the plan, the folders its interpreters need)."""
    program = program_of(command)
    binds: list[str] = []
    env: list[tuple[str, str]] = []
    for path in program.runs:
        if program.own or not program.holds(path):  # the operator's: follow its links
            binds += [os.path.dirname(os.path.realpath(path)), os.path.dirname(path)]
    binds += program.real_folders  # as written and resolved: Python puts the resolved folder on sys.path
    interpreters, path_dirs = _interpreters(program)
    runtime = _interpreter_binds(program, interpreters)
    binds += runtime
    # Any other path in the command is the operator's and readable itself (a file of the student's
    # folder is already there: not bound again, so a link there is not followed out of it).
    for token in command[1:]:
        if os.path.isabs(token) and token != program.script and os.path.exists(token) and not program.holds(token):
            binds.append(token)
    if program.own:
        from engines.tables import table_dir  # where the engines look: $BETSY_TABLES or the cache

        binds.append(PROJECT_DIR)
        tables = os.path.abspath(table_dir())
        env.append(("BETSY_TABLES", tables))
        if os.path.isdir(tables):
            binds.append(tables)
    readable = _outermost(path for path in binds if path and not is_system(path) and path != "/")
    search = ":".join(dict.fromkeys([*path_dirs, *SYSTEM_PATH.split(":")]))
    return Plan(readable, search, tuple(env)), runtime


_STAGE_LIMITS = (2000, 64 << 20)
"""At most this many files and bytes of a program folder are copied to make them readable."""


def _others_can_read(path: str) -> bool:
    """Whether a user other than the owner can read ``path`` (and, for a folder, what it holds)."""
    need_dir = stat.S_IROTH | stat.S_IXOTH
    try:
        top = os.stat(path)
        if stat.S_ISREG(top.st_mode):
            return bool(top.st_mode & stat.S_IROTH)
        if top.st_mode & need_dir != need_dir:
            return False
        for count, (folder, dirs, files) in enumerate(os.walk(path)):
            if count > _STAGE_LIMITS[0]:
                return True  # too large to copy anyway: bound as it is
            for name in dirs:
                if os.stat(os.path.join(folder, name)).st_mode & need_dir != need_dir:
                    return False
            for name in files:
                if not os.stat(os.path.join(folder, name)).st_mode & stat.S_IROTH:
                    return False
    except OSError:
        return True
    return True


def remove_at_exit(path: str) -> None:
    """Remove the folder ``path`` when this process ends, a pool worker included (multiprocessing
    ends one without running atexit handlers, but with its finalizers)."""
    atexit.register(shutil.rmtree, path, True)
    from multiprocessing import util

    util.Finalize(None, shutil.rmtree, args=(path, True), exitpriority=0)


_STAGE_ROOT: str | None = None
_STAGE_OWNER = 0
"""The process that made ``_STAGE_ROOT``: a forked worker inherits the variable, not the folder."""


def remove_staged() -> None:
    """Remove this process's staged copies now (a worker about to end without its exit handlers)."""
    if _STAGE_ROOT is not None and _STAGE_OWNER == os.getpid():
        shutil.rmtree(_STAGE_ROOT, True)


def _stage(path: str) -> str | None:
    """A copy of ``path`` that the engine's uid can read (root runs engines as another uid, and a
    program in a private folder, such as one made by mkdtemp, would otherwise be unreadable).
    None when it is too large to copy."""
    global _STAGE_ROOT, _STAGE_OWNER
    files = size = 0
    for folder, _dirs, names in os.walk(path) if os.path.isdir(path) else [("", [], [path])]:
        for name in names:
            files += 1
            try:
                size += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                pass
            if files > _STAGE_LIMITS[0] or size > _STAGE_LIMITS[1]:
                return None
    if _STAGE_ROOT is None or _STAGE_OWNER != os.getpid() or not os.path.isdir(_STAGE_ROOT):
        # Named before it is made: a worker told to stop (remove_staged) in between removes it too.
        _STAGE_ROOT = os.path.join(tempfile.gettempdir(), f"arena-stage-{os.getpid()}-{os.urandom(6).hex()}")
        _STAGE_OWNER = os.getpid()
        os.mkdir(_STAGE_ROOT, 0o700)
        remove_at_exit(_STAGE_ROOT)
    copy = tempfile.mkdtemp(dir=_STAGE_ROOT)
    target = os.path.join(copy, os.path.basename(path) or "root")
    try:
        if os.path.isdir(path):
            shutil.copytree(path, target, symlinks=True)
        else:
            shutil.copy2(path, target)
    except (OSError, shutil.Error):
        return None
    os.chmod(copy, 0o755)
    for folder, dirs, names in os.walk(target):
        for name in [*dirs, *names, ""]:
            full = os.path.join(folder, name) if name else folder
            if os.path.islink(full):
                continue
            mode = os.stat(full).st_mode
            wanted = stat.S_IROTH | stat.S_IRGRP | ((stat.S_IXOTH | stat.S_IXGRP) if mode & 0o111 or stat.S_ISDIR(mode) else 0)
            os.chmod(full, mode | wanted)
    return target


def _outermost(paths: Iterable[str]) -> tuple[str, ...]:
    """Existing absolute paths without those inside another one, sorted."""
    unique = sorted({os.path.normpath(path) for path in paths if os.path.exists(path)})
    kept: list[str] = []
    for path in unique:
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return tuple(kept)


_SLOTS: set[int] = set()
_SLOTS_LOCK = threading.Lock()


def _take_slot() -> int:
    with _SLOTS_LOCK:
        slot = next(i for i in range(len(_SLOTS) + 1) if i not in _SLOTS)
        _SLOTS.add(slot)
        return slot


def _release_slot(slot: int) -> None:
    with _SLOTS_LOCK:
        _SLOTS.discard(slot)


class Call:
    """The argv of one sandboxed engine call; ``close()`` frees its uid when the call is over."""

    def __init__(self, argv: Sequence[str], command_length: int, caps: Caps, cpu_seconds: int,
                 plan: Plan | None = None) -> None:
        plan = plan if plan is not None else plan_for(tuple(argv[:command_length]))
        self._slot: int | None = None
        wrapper: list[str] = []
        if os.geteuid() == 0:
            self._slot = _take_slot()
            uid = _UID_BASE + (os.getpid() % (1 << 22)) * 64 + self._slot % 64
            wrapper = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        # As an ordinary user, bwrap's init (PID 1 of the namespace) runs as the engine's uid and counts.
        counted = caps.processes + (0 if wrapper else 1)
        self.argv = [*bwrap_argv(plan, caps), *wrapper, *_prlimit(caps, counted, cpu_seconds), *argv]

    def close(self) -> None:
        if self._slot is not None:
            _release_slot(self._slot)
            self._slot = None


def _prlimit(caps: Caps, processes: int, cpu_seconds: int) -> list[str]:
    args = ["prlimit", f"--fsize={caps.file_bytes}", f"--nproc={processes}", "--core=0",
            f"--cpu={cpu_seconds}:{cpu_seconds + 1}"]
    if caps.address_space is not None:
        args.append(f"--as={caps.address_space}")
    return [*args, "--"]


def _scratch_name(readable: Sequence[str]) -> str:
    name = SCRATCH
    while any(path == name or path.startswith(name + "/") or name.startswith(path + "/") for path in readable):
        name += "_"
    return name


def bwrap_argv(plan: Plan, caps: Caps) -> list[str]:
    """bwrap and its options, up to the command it runs."""
    scratch = _scratch_name(plan.readable)
    args = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--hostname", "sandbox"]
    if os.geteuid() == 0:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user"]
    for top in SYSTEM_DIRS:
        if os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(caps.file_bytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
             "--perms", "1777", "--size", str(caps.file_bytes), "--tmpfs", "/tmp",
             "--perms", "0777", "--size", str(caps.file_bytes), "--tmpfs", scratch]
    made = {"/", "/tmp", scratch}
    copies = {original: copy for copy, original in plan.staged}
    for path in plan.readable:
        parents = []
        parent = os.path.dirname(path)
        while parent not in made and parent != "/":
            parents.append(parent)
            parent = os.path.dirname(parent)
        for directory in reversed(parents):
            if not is_system(directory):
                args += ["--perms", "0755", "--dir", directory]
            made.add(directory)
        args += ["--ro-bind", copies.get(path, path), path]
        made.add(path)
    args += ["--remount-ro", "/"]  # the skeleton bwrap built: writable only in its tmpfs folders
    args += ["--chdir", scratch, "--clearenv", "--setenv", "PATH", plan.path, "--setenv", "HOME", scratch,
             "--setenv", "TMPDIR", "/tmp", "--setenv", "PYTHONUNBUFFERED", "1"]
    for name, value in sorted(os.environ.items()):
        if name in _ENV_PASSED or name.startswith("LC_"):
            args += ["--setenv", name, value]
    for name, value in plan.env:
        args += ["--setenv", name, value]
    return [*args, "--"]


def exit_status(status: int | None) -> int | None:
    """The engine's exit status from bwrap's: bwrap exits with 128 + N when the engine died of signal N."""
    if status is not None and 128 < status < 128 + 65:
        return -(status - 128)
    return status


_PROBE: tuple[bool, str, str] | None = None
READABLE_HINT = (
    "make the project's code, its venv and the tables readable to all users (scripts/arena and scripts/test "
    "do it when they set up; or chmod -R go+rX on the folder named)"
)
"""The fix when root's sandbox cannot run the project's own engines: files other users cannot read."""


def probe() -> tuple[bool, str]:
    """Whether the sandbox works on this machine, and why not (cached for the process)."""
    global _PROBE
    if _PROBE is None:
        _PROBE = _probe()
    return _PROBE[0], _PROBE[1]


def _probe_fix() -> str:
    """How to make the sandbox work here (after ``probe``)."""
    return INSTALL_HINT if _PROBE is None else _PROBE[2]


def engine_files() -> list[str]:
    """What the project's own engines read to run, from their interpreter to their code: root runs
    engines as other users, so each must be readable (and each folder searchable) by every user.
    Without ``__pycache__`` (bytecode only spares the compile), the tables (an engine without them
    searches, with the same answers) and the interpreter's installation beyond its standard library's
    folder and first module."""
    files = [sys.executable, os.path.realpath(sys.executable), os.path.dirname(os.__file__), os.__file__]
    config = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(sys.executable))), "pyvenv.cfg")
    if os.path.isfile(config):
        files.append(config)
    files += [PROJECT_DIR, *(os.path.join(PROJECT_DIR, path) for path in ENTRY_POINTS)]
    for top in ("engines", "harness"):
        for folder, dirs, names in os.walk(os.path.join(PROJECT_DIR, top)):
            dirs[:] = sorted(name for name in dirs if name != "__pycache__")
            files.append(folder)
            files += [os.path.join(folder, name) for name in sorted(names) if name.endswith((".py", ".so"))]
    return files


_UNREADABLE_SCRIPT = (
    'for f; do if [ -d "$f" ]; then [ -r "$f" ] && [ -x "$f" ]; else [ -r "$f" ]; fi || { echo "cannot read $f"; '
    'exit 0; }; done; echo ok'
)


def _probe() -> tuple[bool, str, str]:
    """(works, why not, how to fix): bwrap runs a shell here; as root, whose engines run as other
    users, that shell (under an engine's uid, with a built-in engine's binds) can read every file
    ``engine_files`` names."""
    for tool in ("bwrap", "prlimit", *(("setpriv",) if os.geteuid() == 0 else ())):
        if shutil.which(tool) is None:
            package = "bubblewrap" if tool == "bwrap" else "util-linux"
            return False, f"{tool} ({package}) is not installed", INSTALL_HINT
    from harness.referee.engine_specs import BUILTIN_ENGINES, ENGINES_DIR

    files = engine_files() if os.geteuid() == 0 else []
    own, _ = _bindings((sys.executable, str(ENGINES_DIR / f"{BUILTIN_ENGINES[0].module}.py")))  # copies nothing
    probe_call = Call(["/bin/sh", "-c", _UNREADABLE_SCRIPT, "sh", *files], 1, Caps(), 5, plan=own)
    try:
        done = subprocess.run(probe_call.argv, capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL, cwd="/")
    except (OSError, subprocess.SubprocessError) as error:
        return False, f"bwrap could not run: {error}", INSTALL_HINT
    finally:
        probe_call.close()
    said = done.stdout.strip()
    if done.returncode != 0 or not (said == "ok" or said.startswith("cannot read ")):
        why = next((line for line in done.stderr.splitlines() if line.strip()), f"exit status {done.returncode}")
        return False, f"bwrap does not work here ({why.strip()})", INSTALL_HINT
    if said != "ok":
        path, mode = _closed(said.removeprefix("cannot read "), own.readable)
        return False, (f"as root, the sandbox runs each engine as a user of its own, who cannot read {path} ({mode}), "
                       f"which the built-in engines need"), READABLE_HINT
    return True, "", ""


def _closed(path: str, binds: Sequence[str]) -> tuple[str, str]:
    """The outermost of ``path``'s folders inside a bind (above one, the sandbox makes its own folders)
    that other users cannot enter, or else ``path`` itself, and its mode."""
    parts = Path(path).parts
    for end in range(1, len(parts) + 1):
        candidate = os.path.join(*parts[:end])
        if not any(inside(candidate, bind) for bind in binds) and end < len(parts):
            continue
        try:
            mode = os.stat(candidate).st_mode
        except OSError:
            return candidate, "no such file"
        last = end == len(parts)  # the folders on the way need only be entered
        need = (stat.S_IROTH if last else 0) | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
        if mode & need != need:
            return candidate, f"mode {stat.S_IMODE(mode):04o}"
    return path, "not readable"


def resolve(mode: SandboxMode) -> tuple[bool, str | None]:
    """(use the sandbox?, a one-line warning to print or None) for ``mode`` on this machine.

    Raises SandboxUnavailable for ``required`` when the sandbox cannot run here.
    """
    if mode is SandboxMode.OFF:
        return False, "sandbox off: engines run unconfined, with your rights, files and environment"
    works, why = probe()
    if works:
        return True, None
    if mode is SandboxMode.REQUIRED:
        raise SandboxUnavailable(f"sandbox required, but {why}; {_probe_fix()}, or set the sandbox to auto or off")
    return False, f"engines run without a sandbox: {why}; {_probe_fix()} (or give --sandbox off to silence this)"

