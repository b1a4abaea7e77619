"""Does the Connect Four engine keep the value of a position? Games at 1 s per move under the real
referee (``arena tournament``: a process per move, the sandbox, the clock), from start positions
whose value the exact solver proves.

``--size 7x6`` (the default): ``--positions`` start positions after ``--plies`` random plies (each
count in the range equally likely; seeded; a position with a game over, or where the side to move
can win at once, is drawn again), each solved by the native solver within ``--solve-seconds`` (a
position it does not prove in time is replaced). Then, for each opponent of ``--opponents``
(``greedy``, ``homework``, ``self``: the engine against itself), one tournament plays every start
position twice, colours swapped, and the table says per opponent and colour how many won, drawn
and lost positions the engine had and how many it kept (against itself, every game counts once for
each colour): a game keeps the value when the engine's result is at least the start position's
value for its colour (a won one won, a drawn one drawn or won). For every game that did not, the
solver walks the game forward and names the engine's first move that lost value (its ply, the
value before and after, and the moves that kept it).

``--size 8x8``: 8x8 is solved only near its end, so the games start from the tournaments' random
openings of ``--opening-plies`` plies (``--positions`` of them, each twice with colours swapped) and
the table gives the engine's games per colour (won, drawn, lost); for every lost game, the first
move that lost value where the solver reaches (``arena analyse``, ``--analyse`` seconds per game:
proved, or assessed by search before the solver's reach).

Everything goes into ``--out`` (the openings file, the configs, one results database): a rerun
goes on from the games stored there, and ``--report`` prints the tables again without playing.

Usage: .venv/bin/python scripts/bench_value.py [--size 7x6] [--positions 200] [--plies 8-12]
       [--opponents greedy,homework,self] [--engine mcts-alphabeta] [--time 1] [--concurrency 2]
       [--seed 1] [--solve-seconds 60] [--analyse 30] [--opening-plies 2] [--out results/value]
       [--report]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines.connect4_solver import OutOfBudget, Solver, sign, state_of  # noqa: E402
from harness.games.connect4.rules import Position, parse_size  # noqa: E402

WORDS = {1: "won", 0: "drawn", -1: "lost"}
ENGINE = "engine"
"""The engine's name in the tournaments (``engine-2`` too, against itself)."""


def value_of(solver: Solver, position: Position, deadline: float | None = None) -> int:
    """The value (1 won, 0 drawn, -1 lost) for the side to move; OutOfBudget past ``deadline``."""
    if position.has_winning_move():
        return 1
    return sign(solver.solve(state_of(position), deadline=deadline))


def start_positions(width: int, height: int, count: int, plies: tuple[int, int], seed: int,
                    solve_seconds: float) -> tuple[list[tuple[Position, int]], int, float]:
    """``count`` distinct positions with their proven values, how many were replaced (not proved in
    time), and the seconds the solving took."""
    rng = random.Random(f"value:{width}x{height}:{seed}")
    solver = Solver(width, height)
    found: list[tuple[Position, int]] = []
    seen: set[str] = set()
    replaced = 0
    started = time.monotonic()
    while len(found) < count:
        position = Position(width, height)
        for _ in range(rng.randint(*plies)):
            if position.is_game_over():
                break
            position.push(rng.choice(position.legal_moves()))
        if position.is_game_over() or position.has_winning_move() or position.board() in seen:
            continue
        seen.add(position.board())
        try:
            value = value_of(solver, position, time.monotonic() + solve_seconds)
        except OutOfBudget:
            replaced += 1
            continue
        found.append((position, value))
    return found, replaced, time.monotonic() - started


def write_config(out: Path, name: str, size: str, seconds: float, rounds: int, engines: list[dict[str, str]],
                 openings: dict[str, object]) -> Path:
    config = out / f"{name}.yaml"
    lines = [f"name: {name}", "game: connect4", f"size: {size}", f"time: {seconds:g}", "format: round-robin",
             f"rounds: {rounds}", f"openings: {json.dumps(openings)}", "engines:"]
    lines += [f"  - {{name: {engine['name']}, builtin: {engine['builtin']}}}" for engine in engines]
    config.write_text("\n".join(lines) + "\n")
    return config


def play(config: Path, db: Path, concurrency: int, analyse: float | None) -> None:
    command = [sys.executable, "-m", "harness", "tournament", str(config), "--db", str(db),
               "--concurrency", str(concurrency), "--no-progress"]
    if analyse is not None:
        command += ["--analyse", f"{analyse:g}"]
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    print(f"  {config.stem}: exit {done.returncode} in {time.monotonic() - started:.0f} s", flush=True)
    if done.returncode != 0:
        raise SystemExit(f"arena tournament {config} failed with status {done.returncode}")


def engine_sides(row: sqlite3.Row) -> list[str]:
    """The colours the engine played in a game (both against itself)."""
    return [colour for colour in ("x", "o") if row[colour].startswith(ENGINE)]


def points(row: sqlite3.Row, colour: str) -> int:
    """1 won, 0 drawn, -1 lost, for ``colour``."""
    return 0 if row["winner"] is None else (1 if row["winner"] == colour else -1)


def first_lost_value(conn: sqlite3.Connection, row: sqlite3.Row, colour: str, width: int, height: int) -> str:
    """The engine's first move of the game that lost value (``colour``'s), solved forward from the start."""
    position = Position.from_text(f"{width}x{height}", row["start_player"], row["start_board"])
    solver = Solver(width, height)
    moves = conn.execute("SELECT ply, player, move FROM moves WHERE game = ? ORDER BY ply", (row["id"],)).fetchall()
    for ply, player, move in moves:
        if move is None or position.is_game_over():
            break
        if player == colour:
            before = value_of(solver, position)
            scores = {candidate: child_value(solver, position, candidate) for candidate in position.legal_moves()}
            keeping = [candidate for candidate, score in scores.items() if score >= before]
            if move not in keeping:
                return (f"ply {ply} ({colour} plays {move}): {WORDS[before]} -> {WORDS[scores[move]]}; "
                        f"kept by {', '.join(map(str, keeping))}")
        position.push(move)
    return "no move of the engine lost value (the referee ended the game: see its reason)"


def child_value(solver: Solver, position: Position, move: int) -> int:
    """The value of playing ``move`` for the side to move."""
    position.push(move)
    if position.winner_after_push(move) is not None:
        value = 1
    elif position.is_full():
        value = 0
    else:
        value = -value_of(solver, position)
    position.pop()
    return value


def report_proven(db: Path, values: dict[tuple[str, str], int], width: int, height: int,
                  opponents: list[str]) -> int:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    dropped_total = 0
    print(f"\n{'opponent':<9} {'colour':<6} {'games':>5} {'won: kept':>10} {'drawn: kept':>12} {'lost':>5}"
          f" {'results W/D/L':>14} {'value lost':>10}")
    details: list[str] = []
    for opponent in opponents:
        rows = conn.execute(
            "SELECT g.* FROM games g JOIN tournaments t ON t.id = g.tournament_id WHERE t.name = ? ORDER BY g.id",
            (f"value-{width}x{height}-{opponent}",)).fetchall()
        for colour in ("x", "o"):
            had: Counter[int] = Counter()
            kept: Counter[int] = Counter()
            results: Counter[int] = Counter()
            games = 0
            for row in rows:
                if colour not in engine_sides(row):
                    continue
                to_move = values[(row["start_player"], row["start_board"])]
                value = to_move if row["start_player"] == colour else -to_move
                result = points(row, colour)
                games += 1
                had[value] += 1
                results[result] += 1
                if result >= value:
                    kept[value] += 1
                else:
                    dropped_total += 1
                    where = first_lost_value(conn, row, colour, width, height)
                    details.append(f"  {opponent}, engine {colour}, game {row['id']} ({row['game_id']}): "
                                   f"{WORDS[value]} position, {WORDS[result]} game ({row['reason']}); {where}")
            print(f"{opponent:<9} {colour:<6} {games:>5} {f'{kept[1]}/{had[1]}':>10} {f'{kept[0]}/{had[0]}':>12}"
                  f" {had[-1]:>5} {f'{results[1]}/{results[0]}/{results[-1]}':>14} {games - sum(kept.values()):>10}")
    print("\nAgainst itself both sides are the engine: every game counts once for each colour.")
    print("Games that lost value:" if details else "No game lost value.")
    print("\n".join(details))
    return 0


def report_games(db: Path, width: int, height: int, opponents: list[str]) -> int:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    print(f"\n{'opponent':<9} {'colour':<6} {'games':>5} {'won':>5} {'drawn':>6} {'lost':>5}")
    losses: list[str] = []
    for opponent in opponents:
        rows = conn.execute(
            "SELECT g.*, a.kind, a.finding_json FROM games g JOIN tournaments t ON t.id = g.tournament_id "
            "LEFT JOIN analyses a ON a.game = g.id WHERE t.name = ? ORDER BY g.id",
            (f"value-{width}x{height}-{opponent}",)).fetchall()
        for colour in ("x", "o"):
            tally: Counter[int] = Counter()
            for row in rows:
                if row[colour] != ENGINE:
                    continue
                result = points(row, colour)
                tally[result] += 1
                if result < 0:
                    finding = json.loads(row["finding_json"]) if row["finding_json"] else {}
                    where = (f"{row['kind']}: ply {finding.get('ply')} ({finding.get('player')} plays "
                             f"{finding.get('move')}), {finding.get('before')} -> {finding.get('after')}, "
                             f"kept by {finding.get('keeping')}" if finding.get("ply") else
                             f"{row['kind'] or 'not analysed'}")
                    losses.append(f"  {opponent}, engine {colour}, game {row['id']} ({row['game_id']}, "
                                  f"{row['plies']} plies, {row['reason']}): {where}")
            print(f"{opponent:<9} {colour:<6} {sum(tally.values()):>5} {tally[1]:>5} {tally[0]:>6} {tally[-1]:>5}")
    print("\nLosses, with the first move that lost value where the solver reaches:" if losses else "\nNo loss.")
    print("\n".join(losses))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="7x6")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--plies", default="8-12", help="random plies of each start position, LOW-HIGH")
    parser.add_argument("--opponents", default="greedy,homework,self")
    parser.add_argument("--engine", default="mcts-alphabeta", help="the built-in engine under test")
    parser.add_argument("--time", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--solve-seconds", type=float, default=60.0)
    parser.add_argument("--analyse", type=float, default=30.0, help="8x8: seconds of analysis per lost game")
    parser.add_argument("--opening-plies", type=int, default=2, help="8x8: plies of the random openings")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "value")
    parser.add_argument("--report", action="store_true", help="print the tables from the stored games only")
    args = parser.parse_args(argv)
    width, height = parse_size(args.size)
    size = f"{width}x{height}"
    opponents = [name for name in args.opponents.split(",") if name]
    out = args.out / size
    out.mkdir(parents=True, exist_ok=True)
    db = out / "value.sqlite"
    proven = size != "8x8"
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    values: dict[tuple[str, str], int] = {}
    if proven:
        cache = out / "positions.json"
        low, high = (int(part) for part in args.plies.split("-"))
        key = {"positions": args.positions, "plies": [low, high], "seed": args.seed}
        stored = json.loads(cache.read_text()) if cache.is_file() else {}
        if stored.get("key") == key:
            found = [(Position.from_text(size, player, board), value) for player, board, value in stored["found"]]
            print(f"{len(found)} start positions read from {cache}")
        else:
            found, replaced, seconds = start_positions(width, height, args.positions, (low, high), args.seed,
                                                       args.solve_seconds)
            cache.write_text(json.dumps({"key": key, "found": [[p.player, p.board(), v] for p, v in found]}))
            print(f"{len(found)} start positions after {args.plies} random plies, solved in {seconds:.0f} s "
                  f"({replaced} not proved within {args.solve_seconds:g} s, replaced)")
        counts = Counter(value for _, value in found)
        print(f"values for the side to move: {counts[1]} won, {counts[0]} drawn, {counts[-1]} lost")
        values = {(position.player, position.board()): value for position, value in found}
        openings_file = out / "openings.txt"
        openings_file.write_text("".join(f"{size} {p.player} {p.board()}  # {WORDS[v]} for {p.player}\n"
                                         for p, v in found))
        openings: dict[str, object] = {"file": openings_file.name}
    else:
        openings = {"plies": args.opening_plies, "seed": args.seed}
    if not args.report:
        for opponent in opponents:
            rival = ({"name": f"{ENGINE}-2", "builtin": args.engine} if opponent == "self"
                     else {"name": opponent, "builtin": opponent})
            config = write_config(out, f"value-{size}-{opponent}", size, args.time, args.positions,
                                  [{"name": ENGINE, "builtin": args.engine}, rival], openings)
            play(config, db, args.concurrency, None if proven else args.analyse)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if proven:
        return report_proven(db, values, width, height, opponents)
    return report_games(db, width, height, opponents)


if __name__ == "__main__":
    raise SystemExit(main())
