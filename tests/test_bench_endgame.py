"""scripts/bench_endgame.py --engine: the engine's moves from won and drawn positions, each asked by the
referee at 1 s, checked against the solver."""

from __future__ import annotations

import re

import pytest

from engines.connect4_solver import Solver, sign, state_of
from harness.games.connect4.rules import Position
from tests.conftest import load_script

DRAWN = "21176541441241553617644266"
"""x to move, 26 discs: drawn, and only column 5 keeps the draw (the others lose)."""


def test_the_engines_moves_that_lose_value_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_script("bench_endgame")
    drawn = Position(7, 6)
    for column in DRAWN:
        drawn.push(int(column))
    checker = Solver(7, 6)
    won = drawn.after(7)  # o to move after x's 7: won for o, and x is lost after o's winning reply
    lost = next(won.after(move) for move in won.legal_moves()
                if not won.after(move).is_game_over() and sign(checker.solve(state_of(won.after(move)))) < 0)
    values = [sign(checker.solve(state_of(position))) for position in (drawn, lost)]
    assert values == [0, -1]
    assert [move for move in drawn.legal_moves() if bench.child_value(checker, drawn, move) >= 0] == [5]
    # greedy blocks nothing here and plays 7, which loses the draw; the lost position is not played.
    bench.engine_lapses("greedy", [drawn, lost], values, 1.0, 2, checker)
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(r"greedy at 1 s, 2 at once, \d+ s: 1 won or drawn positions \(0 won, 1 drawn\), "
                        r"1 move lost value: #0 \(drawn, 26 discs\): 7", line), line
    # The strongest engine proves the one move that keeps the draw.
    bench.engine_lapses("mcts-alphabeta", [drawn], [0], 1.0, 1, checker)
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(r"mcts-alphabeta at 1 s, 1 at once, \d+ s: 1 won or drawn positions \(0 won, 1 drawn\), "
                        r"0 moves lost value", line), line
    # Refused before any move, with the referee's own words.
    with pytest.raises(SystemExit) as refused:
        bench.engine_lapses("bestmove", [drawn], [0], 1.0, 1, checker)
    assert str(refused.value) == ("--engine: bestmove does not play Connect Four, only All The King's Horses; the "
                                  "built-in engines that play Connect Four are alphabeta, greedy, homework, "
                                  "mcts-alphabeta, random (or give a command)")
    with pytest.raises(SystemExit) as refused:
        bench.engine_lapses("nosuch", [drawn], [0], 1.0, 1, checker)
    assert str(refused.value) == ("--engine: unknown built-in engine 'nosuch': choose one of alphabeta, bestmove, "
                                  "greedy, homework, mcts-alphabeta, random")
