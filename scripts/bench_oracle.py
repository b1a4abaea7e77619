"""Move quality against solved positions: ../shared/data/betsy3_oracle_sample.jsonl (or tests/data/'s 50).

Each line holds an n = 3 position, its exact value (1: the side to move wins, 0: draw) and the moves
that keep that value (`good`). The engine is run through the referee, exactly as in a game, with the
given time per move; a move counts if it is in `good`. Prints the share of value-keeping moves,
overall and by value, and any fault.

Usage: .venv/bin/python scripts/bench_oracle.py [--engine alphabeta] [--time 1] [--workers 2]
       [--data PATH] [--limit K]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.engines import resolve_engine  # noqa: E402
from harness.games.betsy import Position  # noqa: E402
from harness.referee import ask  # noqa: E402

FULL_DATA = ROOT.parent / "shared" / "data" / "betsy3_oracle_sample.jsonl"
"""All 300 positions, where they lie beside the repository; elsewhere the 50 of tests/data/."""
DEFAULT_DATA = FULL_DATA if FULL_DATA.is_file() else ROOT / "tests" / "data" / "betsy3_oracle_sample.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="alphabeta")
    parser.add_argument("--time", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=0, help="only the first K positions")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    if args.limit:
        rows = rows[: args.limit]
    engine = resolve_engine(args.engine)

    def judge(row: dict[str, object]) -> tuple[int, bool, str]:
        position = Position.from_text(str(row["n"]), str(row["player"]), str(row["board"]))
        result = ask([*engine.command], position, args.time, extra_args=engine.extra_args)
        good = result.ok and result.move in row["good"]  # type: ignore[operator]
        return int(row["value"]), good, result.verdict.value  # type: ignore[call-overload]

    # Threads suffice: each call waits on its own engine process.
    with ThreadPoolExecutor(args.workers) as pool:
        results = list(pool.map(judge, rows))
    total = Counter(value for value, _, _ in results)
    kept = Counter(value for value, good, _ in results if good)
    verdicts = Counter(verdict for _, _, verdict in results)
    share = sum(kept.values()) / len(results)
    print(f"{args.engine}, {args.time} s/move: {sum(kept.values())}/{len(results)} value-keeping moves "
          f"({share:.1%})")
    for value in sorted(total):
        label = "wins (value 1)" if value == 1 else "draws (value 0)"
        print(f"  {label}: {kept[value]}/{total[value]}")
    print(f"  verdicts: {dict(verdicts)}")


if __name__ == "__main__":
    main()
