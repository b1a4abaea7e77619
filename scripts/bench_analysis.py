"""How often the losing move of a real tournament's games is proved, assessed or not found, and what
the analysis costs per game (harness/analysis, ``arena analyse``).

With ``--db DB`` it reads a results database's games (a copy of it is analysed: DB is not written);
with ``--play PRESET`` it first plays a small round-robin of the built-in engines (random, greedy,
alphabeta, or bestmove for All The King's Horses; 0.2 s per move, 1 s for All The King's Horses, one
opening per pairing played with colours swapped) into a temporary database. It prints, per game and
size, the games analysed, the share of each kind (proved, assessment, none, not reached), and the
mean, median and slowest seconds per game.

Usage: .venv/bin/python scripts/bench_analysis.py --play betsy3|betsy5|connect4-6x5|connect4-7x6|kings-horses
       [--budget SECONDS] [--rounds K]
       .venv/bin/python scripts/bench_analysis.py --db DB [--tournament T] [--budget SECONDS]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.analysis.losing import BUDGET, KINDS  # noqa: E402
from harness.analysis.run import analyse_stored  # noqa: E402
from harness.store.store import Store  # noqa: E402

PRESETS = {
    "betsy3": "game: betsy\nn: [3]\nmax_plies: 120\n",
    "betsy5": "game: betsy\nn: [5]\nmax_plies: 120\n",
    "connect4-6x5": "game: connect4\nsize: [6x5]\n",
    "connect4-7x6": "game: connect4\nsize: [7x6]\n",
    "kings-horses": "game: kings-horses\nsize: [8]\n",
}
"""The games of ``--play``: each a round-robin of random, greedy and alphabeta (bestmove, the solver's
engine, for All The King's Horses)."""


def play(preset: str, folder: Path, rounds: int) -> Path:
    config = folder / f"{preset}.yaml"
    strongest = "bestmove" if preset == "kings-horses" else "alphabeta"
    engines = "".join(f"  - {{name: {name}, builtin: {name}}}\n" for name in ("random", "greedy", strongest))
    seconds = "time: 1\n" if preset == "kings-horses" else "time: 0.2\nallow_fractional_time: true\n"
    config.write_text(f"name: bench-{preset}\n{PRESETS[preset]}{seconds}grace: 0.5\nformat: round-robin\n"
                      f"rounds: {rounds}\nopenings: {{plies: 2, seed: 1}}\nengines:\n{engines}")
    db = folder / f"{preset}.sqlite"
    arena = ROOT / "scripts" / "arena"
    subprocess.run([str(arena), "tournament", str(config), "--db", str(db), "--no-progress"], check=True,
                   stdout=subprocess.DEVNULL)
    return db


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--db", type=Path)
    source.add_argument("--play", choices=sorted(PRESETS))
    parser.add_argument("--tournament", type=int)
    parser.add_argument("--budget", type=float, default=BUDGET)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if args.play:
            db = play(args.play, folder, args.rounds)
        else:
            db = folder / "copy.sqlite"
            shutil.copyfile(args.db, db)
        kinds: dict[str, Counter[str]] = defaultdict(Counter)
        seconds: dict[str, list[float]] = defaultdict(list)
        with Store(db, role="arena analyse") as store:
            analyse_stored(store, args.tournament, args.budget, again=True)
            for row in store.game_rows(args.tournament):
                stored = store.analysis(row.id)
                assert stored is not None
                kinds[f"{row.game} {row.size}"][stored["finding"]["kind"]] += 1
                seconds[f"{row.game} {row.size}"].append(stored["seconds"])
    print(f"budget {args.budget:g} s per game; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    print(f"{'game':<18} {'games':>5} " + " ".join(f"{kind:>12}" for kind in KINDS)
          + f" {'mean s':>7} {'median s':>8} {'max s':>6}")
    for where in sorted(kinds):
        total = sum(kinds[where].values())
        shares = " ".join(f"{kinds[where][kind]:>4} {100 * kinds[where][kind] / total:5.1f}%" for kind in KINDS)
        times = seconds[where]
        print(f"{where:<18} {total:>5} {shares} {statistics.mean(times):7.2f} {statistics.median(times):8.2f} "
              f"{max(times):6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
