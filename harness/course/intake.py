"""Intake: every student's folder checked, hashed and copied to a snapshot before anything runs.

A course platform's download is one folder per student (``SUBMISSIONS/<student>/betsy.py`` plus any
helper files). Each folder is checked whole: the program file present and a regular file, nothing but
regular files and folders (no link, no device, no pipe), at most the size cap; a Python program must
compile as Python 3 (a Python 2 program fails here, with its line and the Python 2 construct on it,
instead of in every check). A problem is the student's status with a one-line reason; the other students go on.

Each submission is identified by a content hash of its folder (SHA-256 over every file's relative path
and content, compiled caches left out), and copied once into a snapshot folder named by that hash: the
programs run from their snapshots, so a folder that changes while the class runs, or after the deadline,
changes nothing that was graded.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import shlex
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from harness.course.config import ClassConfig
from harness.errors import ConfigError
from harness.text import is_text, name_problem, visible

MAX_FILES = 2000
"""Most files a submission folder may hold."""
MAX_ROSTER_BYTES = 4 << 20
SKIPPED = ("__pycache__", ".DS_Store", "__MACOSX")
"""Names left out of the hash and the snapshot: caches and archive debris, not the student's work."""


@dataclass(frozen=True)
class Student:
    """A row of the roster, or a folder without one."""

    folder: str
    """The folder's name under the submissions folder (the student's key everywhere)."""
    id: str = ""
    name: str = ""
    on_roster: bool = False


@dataclass(frozen=True)
class Submission:
    """What intake found of one student."""

    student: Student
    status: str
    """``ok``, ``missing`` or ``refused`` (intake's own), or ``failed`` (does not compile)."""
    reason: str = ""
    hash: str | None = None
    files: int = 0
    bytes: int = 0
    skipped: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def read_roster(path: Path) -> list[Student]:
    """The roster CSV: a header with ``id`` and ``name`` (and optionally ``folder``: the student's folder
    name in the download, else the id). Raises ConfigError naming the line."""
    from harness.text import read_bounded

    text = read_bounded(path, MAX_ROSTER_BYTES, "a roster")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    columns = [column.strip().lower() for column in reader.fieldnames or []]
    if "id" not in columns or "name" not in columns:
        raise ConfigError(f"{path}: the roster needs a header line with the columns id and name (and "
                          f"optionally folder); found {', '.join(columns) or 'no header'}")
    students: list[Student] = []
    seen: dict[str, int] = {}
    for line, row in enumerate(reader, 2):
        values = {(key or "").strip().lower(): (value or "").strip() for key, value in row.items()
                  if isinstance(value, str)}
        folder = values.get("folder") or values.get("id", "")
        if not folder:
            raise ConfigError(f"{path}: line {line}: no id (or folder); every student needs one")
        if folder in seen:
            raise ConfigError(f"{path}: line {line}: {folder!r} is also on line {seen[folder]}; "
                              "each folder belongs to one student")
        seen[folder] = line
        students.append(Student(folder, values.get("id", ""), values.get("name", ""), True))
    return students


def students_of(config: ClassConfig) -> tuple[list[Student], list[str]]:
    """Every student: the roster's, in its order, then folders on no roster (by name); and the
    names at the top of the submissions folder that are no student's folder."""
    roster = read_roster(config.roster) if config.roster is not None else []
    listed = {student.folder for student in roster}
    others: list[Student] = []
    stray: list[str] = []
    for entry in sorted(os.scandir(config.submissions), key=lambda e: e.name):
        if entry.name in SKIPPED or entry.name.startswith("."):
            continue
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in listed:
                others.append(Student(entry.name))
        elif entry.is_symlink() and entry.name not in listed:
            others.append(Student(entry.name))  # refused below, with why
        else:
            stray.append(entry.name)
    return roster + others, stray


def intake(config: ClassConfig, student: Student) -> Submission:
    """Check one student's folder; never raises for what is in it."""
    name = visible(student.folder)
    folder = config.submissions / student.folder
    bad_name = name_problem(student.folder) if is_text(student.folder) else "it is not UTF-8 text"
    if bad_name is not None or len(student.folder) > 200:
        why = bad_name or "it is longer than 200 characters"
        return Submission(student, "refused", f"the folder name '{name}' cannot name a student ({why}); "
                                              "rename the folder")
    if os.path.islink(folder):
        return Submission(student, "refused", f"{name} is a link to another folder; submit the files themselves")
    if not folder.exists():
        return Submission(student, "missing", "no submission (no folder in the download)")
    if not folder.is_dir():
        return Submission(student, "refused", f"{name} is not a folder")
    digest = hashlib.sha256()
    files = 0
    total = 0
    skipped: list[str] = []
    problem: str | None = None
    walked = _walk(folder)
    for path, kind in walked:
        relative = path.relative_to(folder).as_posix()
        shown = f"{name}/{visible(relative)}"
        if kind == "skip":
            skipped.append(relative)
            continue
        if kind == "link":
            problem = f"{shown} is a link; submit the file itself"
            break
        if kind == "other":
            problem = f"{shown} is not a regular file or folder (a device, pipe or socket); remove it"
            break
        if kind == "dir":
            digest.update(b"d\0" + relative.encode("utf-8", "surrogateescape") + b"\0")
            continue
        files += 1
        size = path.stat().st_size
        total += size
        if files > MAX_FILES:
            problem = f"more than {MAX_FILES} files; submit the program and its helper files only"
            break
        if total > config.max_submission_bytes:
            problem = (f"over the {config.max_submission_bytes >> 20} MB cap of a submission "
                       f"(max_submission_mb); submit the program and its helper files only")
            break
        digest.update(b"f\0" + relative.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(_file_digest(path) + b"\0")
    if problem is not None:
        return Submission(student, "refused", problem, files=files, bytes=total)
    found, missing = find_program(folder, config.program, walked)
    if found is None:
        status = "refused" if missing.startswith("several") else "missing"
        return Submission(student, status, missing.replace("{folder}", name), digest.hexdigest(), files, total)
    program = folder / found
    hash_ = digest.hexdigest()
    compile_problem = python3_problem(program, config.command, found)
    if compile_problem is not None:
        return Submission(student, "failed", compile_problem, hash_, files, total, tuple(skipped))
    return Submission(student, "ok", "", hash_, files, total, tuple(skipped))


def _walk(folder: Path) -> list[tuple[Path, str]]:
    """Every entry under ``folder`` (links never followed), sorted, with its kind: file, dir, link,
    other, or skip (a cache or archive debris)."""
    found: list[tuple[Path, str]] = []
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            found.append((current, "other"))
            continue
        for entry in entries:
            path = Path(entry.path)
            mode = entry.stat(follow_symlinks=False).st_mode
            if entry.name in SKIPPED or entry.name.endswith(".pyc"):
                found.append((path, "skip"))
            elif stat.S_ISLNK(mode):
                found.append((path, "link"))
            elif stat.S_ISDIR(mode):
                found.append((path, "dir"))
                stack.append(path)
            elif stat.S_ISREG(mode):
                found.append((path, "file"))
            else:
                found.append((path, "other"))
    found.sort(key=lambda item: item[0].as_posix())
    return found


def _file_digest(path: Path) -> bytes:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 16), b""):
            digest.update(block)
    return digest.digest()


def python3_problem(program: Path, command: str, shown: str) -> str | None:
    """Why a Python program cannot run under Python 3 (its first syntax error), or None. Only
    compiled, never run; a program not run by Python, or too large to check, is left to validation."""
    words = shlex.split(command)
    if not words or not os.path.basename(words[0]).startswith("python") or not shown.endswith(".py"):
        return None
    if program.stat().st_size > 1 << 20:
        return None
    source = program.read_bytes()
    try:
        compile(source, shown, "exec", dont_inherit=True)
    except SyntaxError as error:
        text = visible(str(error.msg))
        construct = python2_construct(error)
        hint = f" (Python 2 syntax: {construct}; the class runs Python 3)" if construct else ""
        return f"{shown} does not compile as Python 3: line {error.lineno}: {text}{hint}"
    except (ValueError, RecursionError, MemoryError) as error:
        return f"{shown} does not compile as Python 3: {visible(str(error))[:120]}"
    return None


_PYTHON2 = (  # (what Python 3 said, a pattern the line must match, the Python 2 construct it shows)
    ("Missing parentheses in call to 'print'", r"\bprint\b", "a print statement"),
    ("Missing parentheses in call to 'exec'", r"\bexec\b", "an exec statement"),
    ("multiple exception types must be parenthesized", r"^\s*except\s+[\w.]+\s*,\s*\w+\s*:", "'except E, name:'"),
    ("leading zeros in decimal integer literals", r"\b0[0-7]+\b", "an octal literal such as 0777"),
    ("invalid decimal literal", r"\b\d+[lL]\b", "a long literal such as 10L"),
    ("invalid syntax", r"[\w)\]]\s*<>\s*[\w(\[]", "the <> operator"),
    ("invalid syntax", r"^\s*raise\s+[\w.]+\s*,", "'raise E, message'"),
)
"""Python 2 constructs, each named only when Python 3's message and the failing line, where it failed, show it."""


def python2_construct(error: SyntaxError) -> str | None:
    """The Python 2 construct that the syntax error shows (its message, and its line at the place it
    failed), or None: the hint names what the line holds there, never a guess from the message alone."""
    message, line = str(error.msg), error.text or ""
    at = (error.offset or 1) - 1  # where Python 3 failed on the line: the construct must be there
    for said, pattern, construct in _PYTHON2:
        if message.startswith(said) and any(found.start() <= at < max(found.end(), found.start() + 1)
                                            for found in re.finditer(pattern, line)):
            return construct
    return None


def snapshot(config: ClassConfig, submission: Submission, root: Path) -> Path:
    """The submission's snapshot folder under ``root`` (made once; a snapshot never changes): the
    program runs from here. Files are copied as plain files (owner read/write, others read)."""
    assert submission.hash is not None
    target = root / submission.hash[:16]
    done = root / f"{submission.hash[:16]}.done"
    if done.exists() and target.is_dir():
        return target
    staging = root / f".{submission.hash[:16]}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    source = config.submissions / submission.student.folder
    for path, kind in _walk(source):
        relative = path.relative_to(source)
        if kind == "dir":
            (staging / relative).mkdir(exist_ok=True)
        elif kind == "file":
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, staging / relative)
            os.chmod(staging / relative, 0o644)
    shutil.rmtree(target, ignore_errors=True)
    os.replace(staging, target)
    done.write_text(submission.hash + "\n")
    return target


def find_program(folder: Path, name: str, walked: list[tuple[Path, str]] | None = None) -> tuple[str | None, str]:
    """The program's path relative to ``folder``: ``name`` at the top, else the one file of that name
    in a subfolder (a download that kept the student's own folder); or None and why, with ``{folder}``
    for the folder's shown name. ``walked``: ``_walk(folder)`` when the caller has it already."""
    if (folder / name).is_file() and not (folder / name).is_symlink():
        return name, ""
    files = [path for path, kind in (walked if walked is not None else _walk(folder)) if kind == "file"]
    found = [path.relative_to(folder).as_posix() for path in files if path.name == name]
    if len(found) == 1:
        return found[0], ""
    if found:
        return None, (f"several {name}: {', '.join(visible(f) for f in found[:4])}; keep the one to grade and "
                      f"remove the others")
    listed = ", ".join(visible(path.relative_to(folder).as_posix()) for path in files[:6]) + (
        ", ..." if len(files) > 6 else "")
    return None, f"no {name} in {{folder}}/" + (f" (found: {listed})" if files else " (the folder is empty)")


def program_command(config: ClassConfig, folder: Path) -> str:
    """The command that runs a snapshot's program: the config's ``command`` with ``{file}`` filled in."""
    relative, _ = find_program(folder, config.program)
    return config.command.replace("{file}", shlex.quote(str(folder / (relative or config.program))))
