"""scripts/fit_connect4_evaluation.py: its labels, its regression and its command line."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

from engines.connect4_evaluation import FEATURES, weights
from engines.connect4_solver import Solver, parse_moves
from harness.games.connect4.rules import Position
from tests.conftest import load_script

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "fit_connect4_evaluation.py"


def test_labels_are_xs_result_whoever_is_to_move() -> None:
    fit = load_script("fit_connect4_evaluation")
    x_to_move = fit.replay(7, 6, "4455")
    o_to_move = fit.replay(7, 6, "445")
    assert (fit.label(x_to_move, 3), fit.label(x_to_move, 0), fit.label(x_to_move, -2)) == (1.0, 0.5, 0.0)
    assert (fit.label(o_to_move, 3), fit.label(o_to_move, 0), fit.label(o_to_move, -2)) == (0.0, 0.5, 1.0)


def test_regression_recovers_the_weights_behind_the_labels() -> None:
    fit = load_script("fit_connect4_evaluation")
    rng = random.Random(7)
    true = [0.8, -1.5, 0.3]
    rows = [[rng.uniform(-2, 2) for _ in true] for _ in range(400)]
    # Labels are the exact probabilities, so the maximum-likelihood weights are the true ones.
    labels = [1 / (1 + math.exp(-(sum(w * x for w, x in zip(true, row)) + 0.25))) for row in rows]
    found = fit.fit(rows, labels, ridge=0.0)
    assert [round(v, 3) for v in found] == true + [0.25]
    assert fit.log_loss(found, rows, labels) < fit.log_loss([0.0] * 4, rows, labels)


def test_command_line_fits_saved_positions_and_prints_every_weight(tmp_path: Path) -> None:
    rng = random.Random(11)
    lines = []
    while len(lines) < 40:
        position, sequence = Position(5, 5), ""
        for _ in range(rng.randrange(6, 14)):
            move = rng.choice(position.legal_moves())
            position.push(move)
            sequence += str(move)
            if position.winner_after_push(move) is not None:
                break
        else:
            if not position.has_winning_move():
                lines.append(f"{sequence} {Solver(5, 5).solve(parse_moves(sequence, 5, 5))}")
    saved = tmp_path / "solved.txt"
    saved.write_text("\n".join(lines) + "\n")
    run = subprocess.run([sys.executable, str(SCRIPT), "--size", "5x5", "--load", str(saved)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = run.stdout.splitlines()
    assert out[0].startswith("40 positions solved (") and out[0].endswith("fitted on 32, tested on 8")
    for name, weight in zip(FEATURES, weights()):
        assert any(line.startswith(name) and line.endswith(f"(in use {weight:+d})") for line in out), name
