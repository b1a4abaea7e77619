"""Benchmark the engines' proven endgame: the CPU time to a move that provably keeps the value.

On the value benchmark's 7x6 start positions (scripts/bench_value.py: ``--positions`` after 8-12
random plies, ``--seed``, 1 by default) and, for each, the position after one random move more (8
to 13 discs: where the engines' first moves from those positions are played), two ways of deciding,
each with a fresh solver and no deadline but ``--limit`` seconds:

- ``keep``: engines.connect4_endgame.keep_value, what the engines do: the position's value first
  (a weak solve), then the first move in the static order that keeps it.
- ``exact``: each move solved exactly, in the static order, up to the first win (what they did
  before): a won position is decided at its first winning move, a drawn or lost one only when every
  move is solved.

For each it prints how many positions were decided, the mean, median, 90th percentile and largest
CPU time, and how many took more than ``--budget`` seconds (the native solver's share of a 1 s move:
``NATIVE_ENDGAME_SHARE`` of the 0.87 s an engine has, 0.74 s).
Every move played is checked against the exact scores: none may lose value.

``--engine NAME`` measures the engine instead: the built-in engine's move from each won or drawn
position, each asked by the referee at ``--time`` seconds as in a game (a fresh process,
``--concurrency`` at once), and
the moves that lose value (the won position's move that does not win, the drawn one's that loses).
These positions are those of the value benchmark's first moves, where its lapses come from, and a
run takes minutes instead of its games' quarter of an hour; from one run to the next a few
positions near the solver's budget change sides.

Usage: .venv/bin/python scripts/bench_endgame.py [--positions 200] [--seed 1] [--limit 60] [--budget 0.74]
       [--engine mcts-alphabeta [--time 1] [--concurrency 2]]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_value import child_value, start_positions, value_of  # noqa: E402
from engines import connect4_endgame  # noqa: E402
from engines.alphabeta import EXIT_MARGIN, TIME_FRACTION  # noqa: E402
from engines.connect4_solver import Solver  # noqa: E402
from harness.games.connect4.rules import Position  # noqa: E402


def decide(method: str, position: Position, limit: float) -> tuple[int | None, float]:
    """The move ``method`` settles on (None: not settled within ``limit`` seconds), and its CPU seconds."""
    order = connect4_endgame.static_order(position)
    solver = Solver(position.width, position.height)
    started = time.process_time()
    if method == "keep":
        move = connect4_endgame.keep_value(position, order, time.monotonic() + limit, solver).move
    else:
        scores = connect4_endgame.solve_moves(position, order, time.monotonic() + limit, solver)
        move = connect4_endgame.proven_move(scores, order)
    return move, time.process_time() - started


WORDS = {1: "won", 0: "drawn"}


def engine_lapses(name: str, positions: list[Position], values: list[int], seconds: float, concurrency: int,
                  checker: Solver) -> None:
    """Print how many of the engine's moves from the won and drawn ``positions`` lose value: each
    asked of the built-in engine ``name`` by the referee, as in a game."""
    from harness.errors import EngineError
    from harness.referee.engine_specs import builtin_engine, game_problem
    from harness.referee.protocol import Clock
    from harness.referee.referee import ask

    try:
        engine = builtin_engine(name)
    except EngineError as error:
        raise SystemExit(f"--engine: {error}") from None
    problem = game_problem(engine, "connect4")
    if problem is not None:
        raise SystemExit(f"--engine: {problem}")
    clock = Clock(seconds, allow_fractional=True)

    def move_from(index: int) -> int:
        call = ask(engine.command, positions[index], clock, extra_args=engine.extra_args)
        if not call.ok or call.move is None:
            raise SystemExit(f"{name} failed on {positions[index].board()}: {call.verdict.value}: {call.detail}")
        return call.move

    todo = [index for index, value in enumerate(values) if value >= 0]
    started = time.monotonic()
    with ThreadPoolExecutor(concurrency) as pool:  # the engines' processes run at once; checked after
        moves = list(pool.map(move_from, todo))
    lapses = []
    for index, move in zip(todo, moves):
        if child_value(checker, positions[index], move) < values[index]:
            lapses.append(f"#{index} ({WORDS[values[index]]}, {positions[index].plies} discs): {move}")
    won = sum(values[index] == 1 for index in todo)
    print(f"{name} at {seconds:g} s, {concurrency} at once, {time.monotonic() - started:.0f} s: "
          f"{len(todo)} won or drawn positions ({won} won, {len(todo) - won} drawn), "
          f"{len(lapses)} move{'' if len(lapses) == 1 else 's'} lost value{': ' if lapses else ''}{'; '.join(lapses)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--limit", type=float, default=60.0, help="seconds a method may take per position")
    budget = connect4_endgame.NATIVE_ENDGAME_SHARE * (TIME_FRACTION - EXIT_MARGIN)
    parser.add_argument("--budget", type=float, default=round(budget, 2), help="the solver's share of a 1 s move")
    parser.add_argument("--seed", type=int, default=1, help="of the start positions (bench_value.py's)")
    parser.add_argument("--engine", help="a built-in engine: its moves at --time seconds instead")
    parser.add_argument("--time", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    found, _, seconds = start_positions(7, 6, args.positions, (8, 12), args.seed, 60.0)
    rng = random.Random("endgame" + ("" if args.seed == 1 else str(args.seed)))
    positions = []
    for position, _value in found:
        positions.append(position)
        after = position.after(rng.choice(position.legal_moves()))
        if not after.is_game_over() and not after.has_winning_move():
            positions.append(after)
    checker = Solver(7, 6)
    values = [value_of(checker, position) for position in positions]
    print(f"{len(positions)} positions (7x6, {min(p.plies for p in positions)}-{max(p.plies for p in positions)} "
          f"discs): {values.count(1)} won, {values.count(0)} drawn, {values.count(-1)} lost for the side to move")
    if args.engine is not None:
        engine_lapses(args.engine, positions, values, args.time, args.concurrency, checker)
        return
    for method in ("keep", "exact"):
        times: dict[int, list[float]] = {1: [], 0: [], -1: []}
        lost_value = 0
        for position, value in zip(positions, values):
            move, cpu = decide(method, position, args.limit)
            if move is not None:
                times[value].append(cpu)
                lost_value += child_value(checker, position, move) < value
        for value, word in ((1, "won"), (0, "drawn"), (-1, "lost")):
            spent = sorted(times[value])
            if not spent:
                print(f"{method:5} {word:5}  decided 0/{values.count(value)}")
                continue
            print(f"{method:5} {word:5}  decided {len(spent)}/{values.count(value)}  CPU s: mean "
                  f"{statistics.mean(spent):.3f} median {statistics.median(spent):.3f} "
                  f"p90 {spent[int(0.9 * (len(spent) - 1))]:.3f} max {spent[-1]:.3f}  "
                  f"over {args.budget:g} s: {sum(t > args.budget for t in spent)}")
        print(f"{method:5} moves that lost value: {lost_value}")


if __name__ == "__main__":
    main()
