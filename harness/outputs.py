"""Where the commands write: each output is checked before the work starts, and a result that cannot
be written where asked at the end is written to a fallback beside the user (the current folder, or
the system's temporary folder), never lost.

The checks leave nothing behind: a folder that does not exist yet is made only when the output is
written, and writing in a folder is tried with a file that is removed at once.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from harness.errors import OutputError

T = TypeVar("T")


def _existing_ancestor(path: Path) -> Path:
    """The nearest of ``path``'s folders that exists (``path`` itself when it does), as given."""
    folder = Path(path)
    while not os.path.lexists(folder) and folder.parent != folder:
        folder = folder.parent
    return folder


def folder_problem(folder: Path) -> str | None:
    """Why files cannot be made in ``folder`` or below it (folders made as needed), or None."""
    found = _existing_ancestor(folder)
    if not found.is_dir():
        return f"{found} is not a folder"
    try:
        handle, probe = tempfile.mkstemp(prefix=".arena-probe-", dir=found)
    except OSError as error:
        return f"cannot write in {found} ({error.strerror or error})"
    os.close(handle)
    os.unlink(probe)
    return None


def file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be written as a file, or None; an existing file is opened to append,
    which changes nothing in it."""
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return folder_problem(path.parent)
    except OSError as error:
        return error.strerror or str(error)
    if stat.S_ISDIR(info.st_mode):
        return "it is a folder"
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISCHR(info.st_mode)):  # /dev/stdout is fine; a FIFO is not
        return "it is not a regular file"
    if stat.S_ISREG(info.st_mode):
        problem = folder_problem(path.parent)  # a file of /proc or /sys is regular, yet no file can be made there
        if problem is not None:
            return problem
    try:
        with open(path, "ab"):
            pass
    except OSError as error:
        return f"cannot write it ({error.strerror or error})"
    return None


def check_file(path: Path, option: str, example: str = "report.html") -> None:
    """Refuse, before any work, a file output that cannot be written (OutputError naming ``option``)."""
    if path.is_dir():
        raise OutputError(f"invalid {option} {path}: it is a folder; give a file name in it, e.g. {path / example}")
    problem = file_problem(path)
    if problem is not None:
        raise OutputError(f"invalid {option} {path}: {problem}; give a file in a folder you can write")


def check_folder(path: Path, option: str) -> None:
    """Refuse, before any work, a folder to write files into that is a file, or that cannot be made
    or written."""
    if os.path.lexists(path) and not path.is_dir():
        raise OutputError(f"invalid {option} {path}: it is a file; give a folder (created if missing)")
    problem = folder_problem(path)
    if problem is not None:
        raise OutputError(f"invalid {option} {path}: {problem}; give a folder you can write")


def fallback_path(name: str) -> list[Path]:
    """Where a result that could not be written where asked goes instead, in order: ``name`` in the
    current folder, then in the system's temporary folder (``name`` stamped with the time)."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    stem, dot, suffix = name.partition(".")
    stamped = f"{stem}-{stamp}{dot}{suffix}"
    return [Path.cwd() / stamped, Path(tempfile.gettempdir()) / stamped]


def write_kept(write: Callable[[Path], T], path: Path, fallback: str, option: str) -> T:
    """``write(path)``; when writing fails (OSError, or the writer's UsageError naming the file),
    ``write`` into each fallback_path in turn, then raise OutputError saying where the result went:
    the result is never lost because the asked path could not be written. Any other error (a
    damaged database being read) goes up as it is."""
    from harness.errors import UsageError

    try:
        return write(path)
    except (OSError, UsageError) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    for place in fallback_path(fallback):
        try:
            write(place)
        except (OSError, UsageError):
            continue
        raise OutputError(f"cannot write {option} {path} ({why}); written to {place} instead")
    raise OutputError(f"cannot write {option} {path} ({why}), nor to the current or the temporary folder")


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, its folder made if missing; a character UTF-8 cannot hold (a file name
    of undecodable bytes) written as a backslash escape."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="backslashreplace") as file:
        file.write(text)
