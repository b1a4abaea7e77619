"""Which files an engine command runs, whose they are, and the layouts of programs that are refused.

Trust comes from identity, never from location: the project's own programs are a fixed list of
files (the built-in engines, the entry points in scripts/, the console scripts of the project's
venv), compared by resolved path. Every other program is a student's, wherever it lies: the sandbox
gives it its own folder and nothing else of the project, and nothing in that folder decides what
else it may see: not a ``pyvenv.cfg`` or a link there, nor a ``#!`` line naming an interpreter that
is not the operator's.

Two programs whose folders are the same or nested could read each other's files, and a program
whose folder holds the project, or lies in the project's own program folders, could read those:
such layouts are refused before any game, as is a program file or folder that is a link.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engines.tables import table_dir
from harness.referee.engine_specs import BUILTIN_ENGINES, ENGINES_DIR, EngineSpec, env_command_start
from harness.errors import LayoutError

PROJECT_DIR = str(ENGINES_DIR.parent)
ENTRY_POINTS = (
    "scripts/betsy.py", "scripts/bestmove.py", "engines/strongest.py",
    "engines/opponents/column_stacker.py", "engines/opponents/mirror.py", "engines/opponents/rotation_spammer.py",
)
"""The project's programs besides the built-ins: the files students are given (scripts/), the module
behind the ``betsy`` console script, and the strategy opponents (they import the rules)."""
CONSOLE_SCRIPTS = ("betsy", "bestmove")
"""The project's engine console scripts ([project.scripts] in pyproject.toml), in its venv's bin/."""
SYSTEM_DIRS = ("/usr", "/etc")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def is_system(path: str) -> bool:
    """Whether ``path`` lies in the system's folders (bound read-only for every engine)."""
    return any(path == top or path.startswith(top + "/") for top in (*SYSTEM_DIRS, *SYSTEM_LINKS))


_PYTHON = re.compile(r"(python|pypy)[0-9.]*[a-z]?")


def is_python(path: str) -> bool:
    """Whether ``path`` names a Python interpreter (python, python3.11, pypy3), not a file such as
    python_bot.py."""
    return _PYTHON.fullmatch(os.path.basename(path)) is not None


def inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it (both normalised absolute paths)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _venvs() -> list[str]:
    """The project's venv, and the venv running the harness (where its console scripts are)."""
    found = [os.path.join(PROJECT_DIR, ".venv")]
    if sys.prefix != sys.base_prefix:
        found.append(sys.prefix)
    return [os.path.realpath(venv) for venv in found if os.path.isdir(venv)]


@functools.lru_cache(maxsize=1)
def own_programs() -> frozenset[str]:
    """Resolved paths of the project's own engine programs (computed once)."""
    files = [str(ENGINES_DIR / f"{engine.module}.py") for engine in BUILTIN_ENGINES]
    files += [os.path.join(PROJECT_DIR, path) for path in ENTRY_POINTS]
    files += [os.path.join(venv, "bin", name) for venv in _venvs() for name in CONSOLE_SCRIPTS]
    return frozenset(os.path.realpath(path) for path in files if os.path.isfile(path))


@functools.lru_cache(maxsize=1)
def own_folders() -> tuple[str, ...]:
    """Folders the project's own programs run from or import: no student's folder may be one of
    them, lie inside one or hold one (the tables, which depend on $BETSY_TABLES, are added by
    ``layout_problems``)."""
    folders = {os.path.dirname(path) for path in own_programs()}
    folders.add(os.path.join(PROJECT_DIR, "harness"))
    folders.update(_venvs())
    return tuple(sorted(folders))


def is_own_program(path: str) -> bool:
    """Whether ``path`` is one of the project's own programs: by its resolved path, and neither it nor
    its folder a link (a link to scripts/betsy.py in a student's folder is the student's)."""
    return (os.path.realpath(path) in own_programs() and not os.path.islink(path)
            and not os.path.islink(os.path.dirname(path)))


def _on_operator_path(path: str) -> bool:
    """Whether ``path`` lies in a folder of the harness's $PATH (absolute entries only): a program
    the operator installed, found by its name."""
    folder = os.path.dirname(path)
    return any(os.path.normpath(entry) == folder for entry in os.environ.get("PATH", "").split(os.pathsep)
               if os.path.isabs(entry))


def shebang(path: str) -> list[str]:
    """The interpreter line of a script (``["/usr/bin/env", "python3"]``), or [] for a binary."""
    try:
        with open(path, "rb") as file:
            head = file.read(256)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    return head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()


@dataclass(frozen=True)
class Program:
    """What an engine command runs, as the sandbox and the layout checks see it."""

    head: str
    """The command's first word: absolute (looked up on the operator's $PATH when given as a name),
    or as given when it is found nowhere."""
    script: str | None
    """The file an interpreter runs (``python3 x.py``, ``node x.js``, ``java -jar x.jar``): the first
    word after the head that is not an option, when it is an existing absolute file."""
    runs: tuple[str, ...]
    """The program files: the script, and the head unless it is a Python interpreter."""
    own: bool
    """Every program file is one of the project's own (by resolved path)."""
    folders: tuple[str, ...]
    """A student's program folders (absolute, normalised, links in them not followed): those of its
    program files, except a head that is a Python interpreter or the operator's (a system folder or
    one on $PATH). Empty for the project's own programs."""

    def holds(self, path: str) -> bool:
        """Whether ``path`` lies in one of the program's folders: compared with every component
        resolved but the last (a link in the folder is the student's, and is not followed)."""
        if not self.folders:
            return False
        literal = os.path.normpath(os.path.abspath(path))
        parent = os.path.realpath(os.path.dirname(literal))
        candidates = {literal, os.path.join(parent, os.path.basename(literal))}
        return any(inside(candidate, folder) for candidate in candidates for folder in self.real_folders)

    @property
    def real_folders(self) -> tuple[str, ...]:
        """The program folders, each as written and resolved."""
        return tuple(dict.fromkeys([*self.folders, *(os.path.realpath(folder) for folder in self.folders)]))


@functools.lru_cache(maxsize=256)
def program_of(command: tuple[str, ...]) -> Program:
    """The program files and folders of an engine command (its argv before ``N PLAYER BOARD SECONDS``):
    for the system's ``env NAME=VALUE... COMMAND``, those of COMMAND."""
    start = env_command_start(command)
    if start is not None:
        return program_of(command[start:])
    head = ""
    if command:
        head = command[0] if os.path.isabs(command[0]) else (shutil.which(command[0]) or command[0])
        head = os.path.normpath(head) if os.path.isabs(head) else head
    first = next((token for token in command[1:] if not token.startswith("-")), None)
    script = os.path.normpath(first) if first is not None and os.path.isabs(first) and os.path.isfile(first) else None
    runs: list[str] = []
    folders: list[str] = []
    if os.path.isabs(head) and not is_python(head):
        runs.append(head)
        if not is_system(head) and not _on_operator_path(head):
            folders.append(os.path.dirname(head))
    if script is not None:
        runs.append(script)
        if not is_system(script):
            folders.append(os.path.dirname(script))
    own = bool(runs) and all(is_own_program(path) for path in runs)
    return Program(head, script, tuple(runs), own, () if own else tuple(dict.fromkeys(folders)))


@dataclass(frozen=True)
class Shebang:
    """The ``#!`` line of a directly executed program file, and the interpreter it names."""

    line: str
    """The line as written, without ``#!``."""
    interpreter: str | None
    """The absolute path written, or for ``env NAME`` NAME on the harness's $PATH: never looked up
    anywhere the program chooses (None when it names no such file)."""
    via_env: bool


def interpreter_of(program: Program) -> Shebang | None:
    """The ``#!`` line of a program executed directly (its head is its program file), or None: a
    Python head's script, or a binary, has none."""
    if not program.runs or program.runs[0] != program.head:
        return None
    words = shebang(program.head)
    if not words:
        return None
    target: str | None = words[0]
    via_env = os.path.basename(words[0]) == "env"
    if via_env:
        names = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        target = names[0] if names else None
        if target is not None and os.sep not in target:
            target = shutil.which(target)
    return Shebang(" ".join(words), target if target is not None and os.path.isabs(target) else None, via_env)


def is_operators_interpreter(path: str) -> bool:
    """Whether an interpreter a ``#!`` line names is the operator's: in a system folder, in a folder
    of the harness's $PATH, or in the folder of the harness's own interpreter."""
    path = os.path.normpath(path)
    return (is_system(path) or _on_operator_path(path)
            or os.path.dirname(path) == os.path.dirname(os.path.abspath(sys.executable)))


def _shown(engine: EngineSpec) -> str:
    return engine.program or engine.command[0]


def _engine_problems(engine: EngineSpec, program: Program, tables: str) -> list[str]:
    """What is wrong with one engine's program folder on its own."""
    problems: list[str] = []
    label = f"engine {engine.name!r} ({_shown(engine)})"
    fix = "give each program a folder of its own"
    held = {PROJECT_DIR: "the project", os.path.realpath(os.path.expanduser("~")): "your home",
            os.path.realpath(tempfile.gettempdir()): "the temporary folder (other engines' copies and scratch)"}
    for folder in program.real_folders:
        holds = next((path for path in held if inside(path, folder)), None)
        if holds is not None:
            problems.append(f"{label}: its folder {folder} holds {held[holds]} {holds}, which it could then read; {fix}")
            break
        seen = next((own for own in (*own_folders(), tables) if inside(folder, own) or inside(own, folder)), None)
        if seen is not None:
            where = "is" if folder == seen else f"lies inside {seen}," if inside(folder, seen) else f"holds {seen},"
            problems.append(f"{label}: its folder {folder} {where} a folder the project's own programs use; {fix}, "
                            f"outside engines/, scripts/, harness/, the venv and the tables")
            break
    if is_python(program.head) and program.holds(program.head):
        problems.append(f"{label}: its interpreter {program.head} lies inside its own folder, which decides "
                        f"nothing in the sandbox; run it with python3 or an interpreter outside its folder")
    named = interpreter_of(program)
    if named is not None and named.interpreter is not None:
        interpreter = named.interpreter
        if program.holds(interpreter) or program.holds(os.path.realpath(interpreter)):
            problems.append(f"{label}: its #! line (#!{named.line}) names an interpreter inside its own folder, "
                            f"which decides nothing in the sandbox; run it as 'python3 {program.head}', or name an "
                            f"interpreter outside its folder")
        elif not is_operators_interpreter(interpreter):
            problems.append(f"{label}: its #! line (#!{named.line}) names {interpreter}, which is not one of your "
                            f"interpreters (a system one, one on your PATH or the harness's); run it as 'python3 "
                            f"{program.head}', or put {os.path.dirname(interpreter)} on your PATH")
    return problems


def layout_problems(engines: Sequence[EngineSpec]) -> list[tuple[int, str]]:
    """(index of the engine, problem) for each engine whose program folder another engine could read
    or that could read the project's own folders; the project's own programs are one program."""
    tables = os.path.realpath(table_dir())  # where our engines look: $BETSY_TABLES or the cache
    programs = [program_of(engine.command) for engine in engines]
    problems = [(index, problem) for index, (engine, program) in enumerate(zip(engines, programs))
                for problem in _engine_problems(engine, program, tables)]
    for later in range(len(engines)):
        for earlier in range(later):
            a, b = programs[earlier], programs[later]
            if not a.folders or not b.folders or _same_program(a, b):
                continue
            problem = _shared(engines[earlier], a, engines[later], b)
            if problem is not None:
                problems.append((later, problem))
                break  # one problem per engine: the first program it shares with
    for index, program in enumerate(programs):
        for interpreter in _interpreters_named(program):
            owner = next((other for other, found in enumerate(programs) if other != index and found.holds(interpreter)
                          and not _same_program(found, program)), None)
            if owner is not None:
                problems.append((index, (
                    f"engine {engines[index].name!r} ({_shown(engines[index])}) runs on {interpreter}, inside the "
                    f"folder of engine {engines[owner].name!r} ({_shown(engines[owner])}), whose files would then "
                    f"decide what it may read; give each program a folder of its own, and name an interpreter of "
                    f"yours")))
                break
    return problems


def _interpreters_named(program: Program) -> list[str]:
    """The interpreters a command names: its Python first word, and a #! line's interpreter."""
    named = interpreter_of(program)
    found = [program.head] if is_python(program.head) and os.path.isabs(program.head) else []
    return found + ([named.interpreter] if named is not None and named.interpreter is not None else [])


def _same_program(a: Program, b: Program) -> bool:
    return sorted(map(os.path.realpath, a.runs)) == sorted(map(os.path.realpath, b.runs))


def _shared(earlier: EngineSpec, a: Program, later: EngineSpec, b: Program) -> str | None:
    """The problem of ``later`` when its program folder and that of ``earlier`` are the same or nested."""
    subject, other = f"engine {later.name!r} ({_shown(later)})", f"engine {earlier.name!r} ({_shown(earlier)})"
    fix = "give each program a folder of its own"
    for x in _real(a.folders):
        for y in _real(b.folders):
            if x == y:
                return f"{subject} is in the same folder as {other}, {y}, where each could read the other's files; {fix}"
            if inside(y, x):
                return f"{subject} lies inside {x}, the folder of {other}, which could read its files; {fix}"
            if inside(x, y):
                return f"{subject} has its folder {y} holding {other}, whose files it could read; {fix}"
    return None


def _real(folders: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(os.path.realpath(folder) for folder in folders))


def check_layout(engines: Sequence[EngineSpec]) -> None:
    """Raise LayoutError with the first problem of ``layout_problems``."""
    problems = layout_problems(engines)
    if problems:
        raise LayoutError(problems[0][1])


def program_file(command: Sequence[str]) -> str | None:
    """The file that identifies an engine command: its script (``python3 x.py``), else its
    executable unless that is a Python interpreter; None for a command found nowhere."""
    program = program_of(tuple(command))
    if program.script is not None:
        return program.script
    return program.head if program.head in program.runs and os.path.isfile(program.head) else None


def file_sha256(path: str | None) -> str | None:
    """SHA-256 of a program file, or None when there is no file to hash."""
    if path is None:
        return None
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as file:
            for chunk in iter(lambda: file.read(1 << 16), b""):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()
