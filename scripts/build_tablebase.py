"""Build exact tables: Betsy on small boards (default n = 3, both win priorities), or All The King's
Horses near the corner (``--game kings-horses``: every position with all four knights on
row + col <= S, default S = 24; ``--if-missing`` skips it when a table at least as large is built and,
where the memory it needs is not available, builds a smaller one, or keeps the smaller one there).
``--if-missing`` counts only a table its reader accepts: a stale or foreign file (another version's
header, other rules, cut short) is built again.

Usage: .venv/bin/python scripts/build_tablebase.py [--n 3] [--priority mover|blue|both] [--dir DIR]
       .venv/bin/python scripts/build_tablebase.py --game kings-horses [--sum 24] [--max-memory GB] [--dir DIR]
Tables go to $BETSY_TABLES or ~/.cache/betsy-arena; engines and the solver use them when present.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import kings_horses_table as kh_table  # noqa: E402
from engines.tablebase import build, table_path, table_problem  # noqa: E402


_KH_COST = {16: "about 3 s, once per machine", 20: "about 15 s and 0.4 GB, once per machine",
            24: "about a minute and 1.5 GB, once per machine"}


def _available_memory() -> int | None:
    """Bytes of memory available now (Linux's MemAvailable), or None where it cannot be read."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("betsy", "kings-horses"), default="betsy")
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--sum", type=int, default=kh_table.DEFAULT_SUM,
                        help="kings-horses: the table covers the squares with row + col <= SUM")
    parser.add_argument("--max-memory", type=float, metavar="GB",
                        help="kings-horses: the most memory the build may take (default: what is available now)")
    parser.add_argument("--priority", choices=("mover", "blue", "both"), default="both")
    parser.add_argument("--dir", help="where to write (default $BETSY_TABLES or ~/.cache/betsy-arena)")
    parser.add_argument("--if-missing", action="store_true",
                        help="skip tables that already exist and are current: a stale or foreign file is rebuilt "
                             "(kings-horses: build a smaller one if memory is short)")
    args = parser.parse_args()
    if args.dir:
        os.environ["BETSY_TABLES"] = args.dir
    if args.game == "kings-horses":
        if not 4 <= args.sum <= 24:
            parser.error(f"--sum {args.sum} is out of range: give 4..24 (24 takes a minute and 1.5 GB; memory grows as SUM**8)")
        built = kh_table.default_table()
        if args.if_missing and built is not None and built.limit >= args.sum:
            return
        need = kh_table.build_memory(args.sum)
        free = int(args.max_memory * 2**30) if args.max_memory is not None else _available_memory()
        if free is not None and need > free:
            if args.if_missing and built is not None:
                return  # the set-up keeps the smaller table it could build
            smaller = next((s for s in (20, 16) if s < args.sum and kh_table.build_memory(s) <= free), None)
            if not args.if_missing or smaller is None:
                print(f"error: building the row + col <= {args.sum} table needs about {need / 2**30:.2f} GB of memory "
                      f"and {free / 2**30:.2f} GB is available; free some or build a smaller one (--sum 20 needs "
                      f"{kh_table.build_memory(20) / 2**30:.2f} GB)", file=sys.stderr)
                raise SystemExit(2)
            print(f"only {free / 2**30:.2f} GB of memory available: building row + col <= {smaller} instead of "
                  f"{args.sum}", file=sys.stderr)
            args.sum = smaller
        print(f"building the All The King's Horses corner table (row + col <= {args.sum}; "
              f"{_KH_COST.get(args.sum, 'once per machine')})", file=sys.stderr, flush=True)
        start = time.perf_counter()
        path = kh_table.build(args.sum)
        print(f"built {path} in {time.perf_counter() - start:.1f} s")
        return
    for priority in ("mover", "blue") if args.priority == "both" else (args.priority,):
        if args.if_missing:
            path = table_path(args.n, priority)
            problem = table_problem(path, args.n, priority) if os.path.exists(path) else "missing"
            if problem is None:
                continue
            if problem != "missing":
                print(f"rebuilding {problem.removesuffix('; rebuild it')}", file=sys.stderr)
        start = time.perf_counter()
        path = build(args.n, priority)
        print(f"built {path} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
