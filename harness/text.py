"""Text from outside, made safe: what a program printed, a config or a file claimed, on its way to a
terminal, a log or a spreadsheet; and the bounds on what the harness reads.

- ``visible``: control characters (C0, DEL, C1), Unicode format and bidirectional controls,
  line/paragraph separators and lone surrogates become visible escapes (``\\x1b``, ``\\x9b``,
  ``\\u202e``), so no escape sequence reaches a terminal and no line can pretend to be another.
- ``check_name``: names (engines, tournaments) are printable text, refused otherwise.
- ``csv_cell``: a cell a spreadsheet would run as a formula starts with ``'``.
- ``excerpt``: the last lines of a program's output, each cut to a bounded length, with the count cut.
- ``read_bounded``: a file read whole only up to a cap, refused in one line past it.
- ``VisibleFormatter``: the log's formatter; each record is one line of safe text.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.errors import ConfigError, HarnessError, UsageError

if TYPE_CHECKING:
    import os

_FORMAT = (
    # Unicode format characters (category Cf: soft hyphen, bidirectional embeddings, overrides and
    # isolates, marks, zero-width characters, tags), line and paragraph separators (Zl, Zp), lone
    # surrogates (Cs, from undecodable file names). tests/test_text.py checks the list against
    # unicodedata.
    "\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\ud800-\udfff"
)
_ONE_LINE = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f{_FORMAT}]")
"""What ``visible`` escapes: every control character but the tab (C0, DEL, C1) and _FORMAT."""
_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_FORMAT}]")
"""The same, keeping the newline: for a text shown as several lines."""


_SHORT = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str, lines: bool = False) -> str:
    """``text`` with control and format characters shown as escapes (``\\x1b``, ``\\u202e``); the
    tab stays, and the newline too when ``lines`` is true (a text shown as several lines)."""
    pattern = _LINES if lines else _ONE_LINE
    if pattern.search(text) is None:  # the usual case: nothing to do, nothing copied
        return text
    return pattern.sub(_escape, text)


class VisibleFormatter(logging.Formatter):
    """A log formatter for the tournament's ``.log`` and ``-v``: each message is one line of safe
    text (``visible``: a newline a program printed cannot start a fake record), and a traceback's
    lines are shown safely."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = visible(record.message)
        return super().formatMessage(record)

    def formatException(self, ei: object) -> str:
        return visible(super().formatException(ei), lines=True)  # type: ignore[arg-type]

    def formatStack(self, stack_info: str) -> str:
        return visible(super().formatStack(stack_info), lines=True)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an engine or a tournament (empty, or a character that is not
    printable: a control, format or separator character), or None when it can."""
    if not name:
        return "a name cannot be empty"
    for index, char in enumerate(name):
        if not char.isprintable():  # controls, format characters, separators other than the space
            return f"character {index + 1} is {repr(char)[1:-1]}, which is not printable; use printable characters only"
    return None


def check_name(name: str, what: str = "name") -> str:
    """``name`` itself if it is printable text; otherwise UsageError naming ``what`` (``engine name``,
    ``tournament name``) and the first character that is not printable, the name shown escaped."""
    problem = name_problem(name)
    if problem is not None:
        raise UsageError(f"invalid {what} {name!r}: {problem}")
    return name


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A CSV cell that no spreadsheet runs: text beginning with ``= + - @``, a tab or a carriage
    return gets a leading ``'``, unless it is a plain number (an Elo of ``-35`` stays a number)."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS) and _NUMBER.fullmatch(value) is None:
        return "'" + value
    return value


EXCERPT_LINES = 8
"""Lines of a program's output an excerpt keeps (the last ones)."""
EXCERPT_LINE_BYTES = 512
"""Bytes (UTF-8) of each line an excerpt keeps (its start): 8 x 512 = 4 KiB per call at most."""


def excerpt(lines: Sequence[str], max_lines: int = EXCERPT_LINES,
            line_bytes: int = EXCERPT_LINE_BYTES) -> tuple[list[str], int]:
    """The last ``max_lines`` of ``lines``, each cut to its first ``line_bytes`` bytes (UTF-8, at a
    character boundary), and how many bytes were cut from them."""
    kept: list[str] = []
    cut = 0
    for line in lines[-max_lines:] if max_lines else ():
        if len(line) * 4 <= line_bytes:  # short enough whatever its characters: the usual case
            kept.append(line)
            continue
        data = line.encode("utf-8", "surrogatepass")
        if len(data) <= line_bytes:
            kept.append(line)
            continue
        head = data[:line_bytes].decode("utf-8", "ignore")
        kept.append(head)
        cut += len(data) - len(head.encode("utf-8", "surrogatepass"))
    return kept, cut


def clip(text: str, most: int) -> str:
    """Free text (a reason, a list of names) for a message: its first ``most`` characters, and ``...``
    where it went on."""
    return text if len(text) <= most else text[:most] + "..."


def cut_note(cut: int) -> str:
    """``... (1,044,000 bytes cut)``, said where an excerpt was shortened."""
    return f"... ({cut:,} byte{'s' if cut != 1 else ''} cut)"


MIB = 1 << 20


def size_text(size: int) -> str:
    """``1 MiB``, ``512 KiB`` or ``100 bytes``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size:,} bytes"


def read_bounded(path: str | os.PathLike[str], limit: int, what: str, error: type[HarnessError] = ConfigError) -> str:
    """The text (UTF-8) of the file at ``path``, read only up to ``limit`` bytes: a larger file, one
    that is not UTF-8 or one that cannot be read is refused with ``error``, in one line that names
    the file and never shows what it holds. ``what`` names the kind of file (``a config``)."""
    try:
        with open(path, "rb") as file:
            data = file.read(limit + 1)
    except FileNotFoundError:
        raise error(f"{path}: no such file; check the path") from None
    except IsADirectoryError:
        raise error(f"{path}: a folder, not a file; give {what} file") from None
    except OSError as problem:
        raise error(f"{path}: cannot read it ({problem.strerror or type(problem).__name__})") from None
    if len(data) > limit:
        raise error(f"{path}: larger than {size_text(limit)}, the most {what} file may be; "
                    f"give a smaller file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as problem:
        raise error(f"{path}: not UTF-8 text (byte {problem.start + 1} is not); give {what} file") from None


def is_text(value: str) -> bool:
    """Whether ``value`` is text that UTF-8 can hold: not a file name of undecodable bytes (those
    arrive as lone surrogates, which no database, page or log can store)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")


def without_values(message: str) -> str:
    """``message`` with every value it quotes (``'...'``, as ``!r`` writes it) replaced by ``...``:
    a problem found in a file, said without showing what the file holds."""
    return _QUOTED.sub("...", message)
