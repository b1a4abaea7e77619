"""Benchmark what believing nothing costs: `arena import` of exported games, and the readers.

Builds a results database of GAMES games of a real tournament schedule (Betsy n = 5, two
engines), each PLIES plies long: the moves are drawn at random among those that neither end the
game nor repeat a board a third time, so each game is a draw at the ply limit. Nothing is played
by an engine; the records are what play_game would store. Then it times, as subprocesses of this
interpreter (`python -m harness`), the best of RUNS of: `export` to JSON Lines, `import` of that
file into a new database, `report` and `report --html`; and, in this process, the replay check
alone (harness.match.verify.check_record on each stored record). Run it with PYTHONPATH pointing at
another checkout of the project to time that version on the same games.

Usage: .venv/bin/python scripts/bench_import.py [--games 1000] [--plies 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = """
name: bench
n: [5]
time: 1
rounds: {rounds}
max_plies: {plies}
openings: {{plies: 2, seed: 1}}
engines:
  - {{name: a, builtin: random}}
  - {{name: b, builtin: greedy}}
"""


def build(folder: Path, games: int, plies: int) -> Path:
    """A database of ``games`` games of the bench tournament's schedule, each a draw at ``plies``."""
    from harness.tournament.config import load_config
    from harness.match.match import GameRecord, MoveRecord, finish, game_end
    from harness.referee.protocol import Verdict
    from harness.rng import Rng
    from harness.tournament.schedule import schedule, start_position
    from harness.tournament.run import tournament_entry
    from harness.store.store import Store

    (folder / "bench.yaml").write_text(CONFIG.format(rounds=(games + 1) // 2, plies=plies))
    config = load_config(folder / "bench.yaml")
    rules = config.settings.rules
    db = folder / "bench.sqlite"
    rng = Rng(7)
    with Store(db) as store:
        tournament = store.open_tournament(tournament_entry(config))
        for game in schedule(config)[:games]:
            position = start_position(game, config.settings)
            record = GameRecord(game.x, game.o, rules.name, game.size, config.settings.time, position.board(),
                                position.player, plies, config.settings.win_priority)
            seen = {position.key(): 1}
            names = {"x": game.x, "o": game.o}
            while True:
                quiet = []
                for move in position.legal_moves():
                    position.push(move)
                    if (position.winner() is None and rules.end_reason(position) is None
                            and seen.get(position.key(), 0) < 2):
                        quiet.append(move)
                    position.pop()
                mover = position.player
                move = rng.choice(quiet or position.legal_moves())
                position.push(move)
                record.moves.append(MoveRecord(len(record.moves) + 1, mover, names[mover], move, position.board(),
                                               Verdict.OK, 0.05))
                ended = game_end(rules, position, seen, len(record.moves), plies, mover, names[mover], move)
                if ended is not None:
                    finish(record, *ended)
                    break
            store.save_record(tournament, game.game_id, game.pair_key, game.round, record)
    return db


def replay_check(db: Path, runs: int) -> tuple[float, int]:
    """Seconds per game of harness.match.verify.check_record over the stored records (best of ``runs``),
    and the plies checked."""
    from harness.store.store import Store
    from harness.match.verify import check_record

    with Store(db, read_only=True) as store:
        records = [store.game_record(row.id) for row in store.game_rows()]
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        for record in records:
            check_record(record)
        best = min(best, time.perf_counter() - started)
    return best / len(records), sum(len(record.moves) for record in records)


def best_of(runs: int, argv: list[str], before: object = None, stdout: Path | None = None) -> float:
    """The shortest wall time of ``runs`` runs of ``argv`` (``before`` runs first, untimed, each time)."""
    times = []
    for _ in range(runs):
        if callable(before):
            before()
        started = time.perf_counter()
        with open(stdout, "w") if stdout is not None else open(os.devnull, "w") as out:
            done = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, text=True, cwd=tempfile.gettempdir())
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"bench_import: {' '.join(argv[2:])} failed: {done.stderr.strip()}")
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--plies", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    if args.games < 1 or args.plies < 1 or args.runs < 1:
        parser.error("--games, --plies and --runs must be at least 1")
    folder = Path(tempfile.mkdtemp(prefix="bench-import-"))
    try:
        started = time.perf_counter()
        db = build(folder, args.games, args.plies)
        built = time.perf_counter() - started
        arena = [sys.executable, "-m", "harness"]
        lines = folder / "games.jsonl"
        target = folder / "imported.sqlite"

        def fresh() -> None:
            for path in folder.glob("imported.sqlite*"):
                path.unlink()

        export = best_of(args.runs, [*arena, "export", str(db)], stdout=lines)
        imported = best_of(args.runs, [*arena, "import", str(target), str(lines)], fresh)
        report = best_of(args.runs, [*arena, "report", str(target)])
        pages = best_of(args.runs, [*arena, "report", str(target), "--html", str(folder / "html")],
                        lambda: shutil.rmtree(folder / "html", ignore_errors=True))
        bare = best_of(args.runs, [*arena, "--help"])
        check, checked = replay_check(db, args.runs)
        games = sum(1 for _ in open(lines))  # one line per game
        print(f"{games} games of up to {args.plies} plies ({lines.stat().st_size / 1e6:.1f} MB of JSON Lines; "
              f"database built in {built:.1f} s); best of {args.runs}, wall seconds:")
        print(f"  start-up (arena --help)          {bare:7.2f}")
        for name, seconds in (("export", export), ("import", imported), ("report", report),
                              ("report --html", pages)):
            print(f"  {name:<31}  {seconds:7.2f}   {(seconds - bare) / games * 1000:6.2f} ms per game")
        print(f"  replay check alone (check_record)          {check * 1000:6.2f} ms per game, "
              f"{check * games / checked * 1e6:.1f} us per ply")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    if "PYTHONPATH" not in os.environ:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
