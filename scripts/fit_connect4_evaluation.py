"""Fit the Connect Four evaluation's weights to exact results (engines/connect4_evaluation.py).

1. Positions: games of noisy greedy self-play (greedy's move, or with probability ``--noise`` a
   random legal move) from a random first move each, one position per game at a random number of
   empty cells in ``--empties``, kept when the side to move cannot win at once.
2. Labels: the exact solver (engines/connect4_solver.py, under the engines' endgame timer,
   ``connect4_endgame.solve_moves``) scores each position within ``--cap`` seconds (positions it
   cannot solve in time are left out): 1 when x wins, 0.5 for a draw, 0 when o wins.
3. Fit: logistic regression of the label on the evaluation's features (``features``: centre
   windows, threats, free threats by colour and row parity), by Newton's method, on 4/5 of the
   positions; the other fifth reports the mean log loss of the fit and of the weights in use.

The weights are printed in evaluation points, scaled so that the centre term keeps its weight
(``CENTRE`` per window), ready to be copied into the module. Nothing is written unless ``--save``
names a file for the solved positions (``SEQUENCE SCORE`` lines, Pons's notation and score);
``--load`` fits from such a file instead of solving again.

Usage: .venv/bin/python scripts/fit_connect4_evaluation.py [--games 4000] [--noise 0.1]
       [--empties 32-41] [--cap 3] [--seed 1] [--workers 2] [--size 8x8] [--save F | --load F]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines import greedy  # noqa: E402
from engines.connect4_endgame import solve_moves  # noqa: E402
from engines.connect4_evaluation import FEATURES, features, weights  # noqa: E402
from engines.protocol import Rng  # noqa: E402
from harness.games.connect4.rules import Position, parse_size  # noqa: E402


def replay(width: int, height: int, sequence: str) -> Position:
    """The position after ``sequence`` (one digit per move: boards up to 9 columns)."""
    position = Position(width, height)
    for char in sequence:
        position.push(int(char))
    return position


def sample(args: tuple[int, int, int, float, int, int, float]) -> str | None:
    """One game of noisy greedy self-play and its solved position, as ``SEQUENCE SCORE``."""
    width, height, seed, noise, low, high, cap = args
    rng = random.Random(seed)
    empties = rng.randint(low, high)
    plies = width * height - empties
    position = Position(width, height)
    sequence: list[int] = []
    while len(sequence) < plies:
        moves = position.legal_moves()
        if not sequence or rng.random() < noise:
            move = rng.choice(moves)
        else:
            move = greedy.choose_move(position, Rng(rng.randrange(1 << 30)))
        position.push(move)
        sequence.append(move)
        if position.winner_after_push(move) is not None:
            return None  # decided before the sampled point
    if position.has_winning_move():
        return None
    # The endgame's timed solve scores the last move for the side that played it.
    last = position.pop()
    scores = solve_moves(position, [last], time.monotonic() + cap, stop_at_win=False)
    if last not in scores:
        return None  # not solved within the cap
    return f"{''.join(map(str, sequence))} {-scores[last]}"


def label(position: Position, score: int) -> float:
    """x's result under perfect play: 1, 0.5 or 0 (the score is the side to move's)."""
    mover = 0.5 if score == 0 else 1.0 if score > 0 else 0.0
    return mover if position.turn == 0 else 1.0 - mover


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


def fit(rows: list[list[float]], labels: list[float], ridge: float = 1e-3, rounds: int = 50) -> list[float]:
    """Logistic regression by Newton's method: weights for each column, then a bias."""
    k = len(rows[0]) + 1
    w = [0.0] * k
    data = [row + [1.0] for row in rows]
    for _ in range(rounds):
        grad = [ridge * w[i] if i < k - 1 else 0.0 for i in range(k)]
        hess = [[(ridge if i == j and i < k - 1 else 0.0) for j in range(k)] for i in range(k)]
        for x, y in zip(data, labels):
            p = _sigmoid(sum(a * b for a, b in zip(w, x)))
            d, v = p - y, p * (1 - p)
            for i in range(k):
                grad[i] += d * x[i] / len(data)
                for j in range(k):
                    hess[i][j] += v * x[i] * x[j] / len(data)
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step)]
        if max(map(abs, step)) < 1e-9:
            break
    return w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a`` x = ``b`` by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-15:
            continue
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] if abs(m[i][i]) >= 1e-15 else 0.0 for i in range(n)]


def log_loss(w: list[float], rows: list[list[float]], labels: list[float]) -> float:
    """Mean log loss of weights ``w`` (columns, then bias)."""
    total = 0.0
    for x, y in zip(rows, labels):
        p = min(max(_sigmoid(sum(a * b for a, b in zip(w, x)) + w[-1]), 1e-12), 1 - 1e-12)
        total -= y * math.log(p) + (1 - y) * math.log(1 - p)
    return total / len(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size", default="8x8")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--noise", type=float, default=0.1)
    parser.add_argument("--empties", default="32-41", help="range of empty cells, LOW-HIGH")
    parser.add_argument("--cap", type=float, default=3.0, help="seconds the solver may take per position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--load", type=Path)
    args = parser.parse_args()
    width, height = parse_size(args.size)
    if args.load:
        lines = args.load.read_text().split("\n")
    else:
        low, high = map(int, args.empties.split("-"))
        jobs = [(width, height, args.seed * 1_000_003 + i, args.noise, low, high, args.cap) for i in range(args.games)]
        with ProcessPoolExecutor(args.workers) as pool:
            lines = [line for line in pool.map(sample, jobs, chunksize=8) if line]
        if args.save:
            args.save.write_text("\n".join(lines) + "\n")
    rows, labels = [], []
    for line in filter(None, lines):
        sequence, score = line.split()
        position = replay(width, height, sequence)
        rows.append([float(v) for v in features(position)])
        labels.append(label(position, int(score)))
    order = list(range(len(rows)))
    random.Random(args.seed).shuffle(order)
    cut = len(order) * 4 // 5
    train, test = order[:cut], order[cut:]
    w = fit([rows[i] for i in train], [labels[i] for i in train])
    draws = labels.count(0.5)
    print(f"{len(rows)} positions solved ({draws} draws); fitted on {len(train)}, tested on {len(test)}")
    in_use = list(weights())
    # The weights in use, on the fitted weights' logit scale (by their best single scale factor).
    test_rows, test_labels = [rows[i] for i in test], [labels[i] for i in test]
    scores = [[sum(a * b for a, b in zip(in_use, row))] for row in (rows[i] for i in train)]
    scale = fit(scores, [labels[i] for i in train])
    current = [scale[0] * v for v in in_use] + [scale[1]]
    print(f"test log loss: fitted {log_loss(w, test_rows, test_labels):.4f}, in use "
          f"{log_loss(current, test_rows, test_labels):.4f}, none {math.log(2):.4f}")
    points = in_use[0] / w[0] if w[0] > 0 else float("nan")
    for name, value, used in zip(FEATURES, w, in_use):
        print(f"{name:<18} {value * points:+8.1f}   (in use {used:+d})")
    print(f"{'logit scale':<18} {points:8.1f} points per unit of log odds; bias {w[-1] * points:+.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
