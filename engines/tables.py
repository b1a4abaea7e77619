"""Where built tables live: ``$BETSY_TABLES``, else ``~/.cache/betsy-arena`` (generated on the machine,
never committed). Kept apart so that a reader imports nothing else."""

from __future__ import annotations

import os


def table_dir() -> str:
    return os.environ.get("BETSY_TABLES") or os.path.join(os.path.expanduser("~"), ".cache", "betsy-arena")
