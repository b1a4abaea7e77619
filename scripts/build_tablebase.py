"""Build the exact tablebase for small boards (default n = 3, both win priorities).

Usage: .venv/bin/python scripts/build_tablebase.py [--n 3] [--priority mover|blue|both] [--dir DIR]
Tables go to $BETSY_TABLES or ~/.cache/betsy-arena; engines use them when present.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.tablebase import build, table_path  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--priority", choices=("mover", "blue", "both"), default="both")
    parser.add_argument("--dir", help="where to write (default $BETSY_TABLES or ~/.cache/betsy-arena)")
    parser.add_argument("--if-missing", action="store_true", help="skip tables that already exist")
    args = parser.parse_args()
    if args.dir:
        os.environ["BETSY_TABLES"] = args.dir
    for priority in ("mover", "blue") if args.priority == "both" else (args.priority,):
        if args.if_missing and os.path.exists(table_path(args.n, priority)):
            continue
        start = time.perf_counter()
        path = build(args.n, priority)
        print(f"built {path} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
