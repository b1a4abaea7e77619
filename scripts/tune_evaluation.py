"""Tune the evaluation by matches: a candidate weight set against a baseline, in-process self-play.

Each game: random opening (4 plies), then both sides search with the same node budget per move
(so the comparison does not depend on machine load), colours swapped on each opening. Games end on a
line, the third occurrence of a position, or 150 plies. Prints the candidate's score and Elo
difference with a 95% interval.

A weight set is a JSON object of engines.evaluation.Weights fields, plus optionally "contempt" (the
search's, default engines.alphabeta.CONTEMPT).

Usage: .venv/bin/python scripts/tune_evaluation.py --candidate '{"base": 6}' [--baseline '{}']
       [--games 100] [--n 5] [--nodes 4000] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines.alphabeta import CONTEMPT  # noqa: E402
from engines.evaluation import Weights, make_evaluator  # noqa: E402
from engines.protocol import Rng  # noqa: E402
from engines.search.alphabeta import AlphaBeta  # noqa: E402
from harness.games.betsy.rules import initial_position  # noqa: E402


def play(args: tuple[int, int, int, dict[str, float], dict[str, float], bool]) -> float:
    """One game; returns the candidate's points."""
    n, seed, nodes, candidate, baseline, candidate_is_x = args
    sides = [dict(candidate), dict(baseline)]
    contempts = [side.pop("contempt", CONTEMPT) for side in sides]
    evaluators = [make_evaluator(Weights(**side)) for side in sides]
    if not candidate_is_x:
        evaluators.reverse()
        contempts.reverse()
    rng = Rng(seed)
    position = initial_position(n)
    for _ in range(4):
        moves = [m for m in position.legal_moves() if position.after(m).winner() is None]
        position.push(rng.choice(moves))
    seen: dict[int, int] = {position.key(): 1}
    for _ in range(150):
        searcher = AlphaBeta(evaluators[position.turn], contempt=contempts[position.turn])
        result = None
        for result in searcher.iterate(position, 64, max_nodes=nodes):
            pass
        assert result is not None
        mover = position.turn
        position.push(result.move)
        winner = position.winner()
        if winner is not None:
            candidate_won = (winner == 0) == candidate_is_x
            return 1.0 if candidate_won else 0.0
        key = position.key()
        seen[key] = seen.get(key, 0) + 1
        if seen[key] >= 3:
            return 0.5
        del mover
    return 0.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", required=True)
    parser.add_argument("--baseline", default="{}")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    candidate = json.loads(args.candidate)
    baseline = json.loads(args.baseline)
    tasks = []
    for i in range(args.games // 2):
        seed = args.seed * 100_003 + i
        tasks.append((args.n, seed, args.nodes, candidate, baseline, True))
        tasks.append((args.n, seed, args.nodes, candidate, baseline, False))
    with ProcessPoolExecutor(args.workers) as pool:
        scores = list(pool.map(play, tasks))
    games = len(scores)
    points = sum(scores)
    mean = points / games
    variance = sum((s - mean) ** 2 for s in scores) / max(games - 1, 1)
    half = 1.96 * math.sqrt(variance / games)

    def elo(p: float) -> float:
        p = min(max(p, 1e-6), 1 - 1e-6)
        return -400 * math.log10(1 / p - 1)

    wins = scores.count(1.0)
    draws = scores.count(0.5)
    print(f"candidate {candidate} vs baseline {baseline}: n={args.n}, {args.nodes} nodes/move")
    print(f"  {points:g}/{games} (+{wins} ={draws} -{games - wins - draws}), score {mean:.3f}, "
          f"Elo {elo(mean):+.0f} [{elo(mean - half):+.0f}, {elo(mean + half):+.0f}]")


if __name__ == "__main__":
    main()
