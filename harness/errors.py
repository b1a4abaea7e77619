"""The harness's exception hierarchy; cli.py turns each into a one-line message and exit status 2."""

from __future__ import annotations


class HarnessError(Exception):
    """A problem the user can fix: the message says what was wrong and how to fix it."""


class ConfigError(HarnessError, ValueError):
    """A tournament config or command-line value that is invalid."""


class EngineError(HarnessError):
    """An engine that cannot be used at all (missing program, no exec bit, unknown built-in)."""


class UsageError(HarnessError, ValueError):
    """Bad command-line input, such as an invalid position for `arena moves`."""


class StoreError(HarnessError):
    """A results database path that cannot be used: the file is not an SQLite database."""


class LayoutError(EngineError):
    """Engine programs laid out so that one could read what it should not, or given as a link."""


class OutputError(UsageError):
    """An output (file, folder or results database) that cannot be written: refused before the
    work, or, found at the end, said with where the result went instead (harness.outputs)."""
