"""The native Betsy core (engines/native/betsy_search.c) against the Python rules and search: the same
moves, positions, winners, keys and evaluations on random positions of every board size, and the same
value, best move, node count and principal variation from fixed-depth searches."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from types import ModuleType

import pytest

from engines import mcts_alphabeta
from engines.evaluation import DEFAULT_WEIGHTS, Weights, make_evaluator
from engines.search.alphabeta import AlphaBeta
from engines.search.native_betsy import Core, NativeAlphaBeta, evaluation_tables, library
from harness.games.betsy.rules import MAX_N, Position
from tests.conftest import ROOT

ODD_WEIGHTS = Weights(base=3.0, blocked=0.25, hand=3.0, tempo=10.0, ring=1.5, stack=0.75)
"""Every term of the evaluation on, with roundings that differ from the defaults'."""


@pytest.fixture(scope="module")
def lib() -> ModuleType:
    found = library()
    assert found is not None, "the core is not built: run .venv/bin/python engines/native/build.py"
    return found


def random_positions(n: int, count: int, seed: int, priority: str = "mover",
                     stop_at_win: bool = False) -> list[Position]:
    """Positions after random playouts of 0 to 3n(n+3) plies (some past a completed line, unless
    ``stop_at_win``)."""
    rng = random.Random(seed * 1000 + n)
    found = []
    while len(found) < count:
        position = Position(n, None, 0, priority)  # type: ignore[arg-type]
        for _ in range(rng.randrange(0, 3 * n * (n + 3) + 1)):
            move = rng.choice(position.legal_moves())
            position.push(move)
            if stop_at_win and position.winner_after_push(move) is not None:
                position.pop()
                break
        found.append(position.copy())
    return found


def search_positions(n: int, count: int, seed: int) -> list[Position]:
    """Positions of games in progress where the side to move cannot win at once (else depth 1
    decides), after 2 to n(n+3) random plies."""
    found = []
    for position in random_positions(n, 20 * count, seed, stop_at_win=True):
        if len(found) < count and position.winner() is None and not position.has_winning_move():
            found.append(position)
    return found


def boards_with_lines(n: int, count: int, seed: int, priority: str) -> list[Position]:
    """Boards holding a complete line (or nearly: one pebble of it exchanged): a full board of
    random colours with one random line made one colour, then a few pebbles taken off the tops of
    random columns. Random playouts seldom complete a line on large boards."""
    rng = random.Random(seed * 1000 + n)
    height = n + 3
    found = []
    for index in range(count):
        cells = ["x"] * (n * height // 2) + ["o"] * (n * height // 2)
        rng.shuffle(cells)  # row-major from the top, as board strings are
        kind = rng.randrange(3)
        pick = rng.randrange(n)
        line = ([pick * n + c for c in range(n)] if kind == 0 else [r * n + pick for r in range(n)]
                if kind == 1 else [i * n + (i if pick % 2 else n - 1 - i) for i in range(n)])
        colour = rng.choice("xo")
        others = [i for i in range(len(cells)) if i not in line and cells[i] == colour]
        rng.shuffle(others)
        for cell in line:
            if cells[cell] != colour:
                swap = others.pop()
                cells[cell], cells[swap] = cells[swap], cells[cell]
        if index % 2 and n > 1:  # one pebble of the line exchanged: a win or a threat, not a line
            cell = rng.choice(line)
            swap = rng.choice([i for i in range(len(cells)) if i not in line and cells[i] != colour])
            cells[cell], cells[swap] = cells[swap], cells[cell]
        for _ in range(rng.randrange(0, 2 * n)):  # take pebbles off the tops
            column = rng.randrange(n)
            for row in range(height):
                if cells[row * n + column] != ".":
                    cells[row * n + column] = "."
                    break
        found.append(Position(n, "".join(cells), rng.randrange(2), priority))  # type: ignore[arg-type]
    return found


@pytest.mark.parametrize("priority", ["mover", "blue"])
@pytest.mark.parametrize("n", range(1, MAX_N + 1))
def test_core_rules_equal_the_python_rules_on_random_positions(lib: ModuleType, n: int, priority: str) -> None:
    cores = [(Core(lib, n, w, priority == "blue", 1000), make_evaluator(w))
             for w in (DEFAULT_WEIGHTS, mcts_alphabeta.WEIGHTS, ODD_WEIGHTS)]
    core = cores[0][0]
    lines_seen = wins_seen = 0
    positions = random_positions(n, 30 if n <= 8 else 10, 1, priority) + boards_with_lines(n, 20, 1, priority)
    for position in positions:
        key = core.encode(position.key())
        assert list(lib.moves(core.handle, key)) == position.legal_moves(), position
        for move in position.legal_moves():
            winner, after = lib.play(core.handle, key, move)
            position.push(move)
            expected = position.winner_after_push(move)
            assert int.from_bytes(after, "little") == position.key(), (position, move)
            assert winner == (-1 if expected is None else expected), (position, move)
            position.pop()
        outcome = position.winner()
        lines_seen += outcome is not None
        wins_seen += position.has_winning_move()
        for each, evaluate in cores:
            assert list(lib.probe(each.handle, each.encode(position.key()))) == [
                position.has_winning_move(), position.opponent_has_winning_move(),
                -1 if outcome is None else outcome, evaluate(position), 1,
            ], position
    if n > 1:  # the positions reach both cases the rules distinguish
        assert lines_seen and wins_seen


def pair(lib: ModuleType, position: Position, weights: Weights, contempt: int, margin: int,
         table_limit: int = 2_000_000) -> tuple[AlphaBeta, NativeAlphaBeta]:
    evaluate = make_evaluator(weights)
    python = AlphaBeta(evaluate, table_limit=table_limit, contempt=contempt)
    native = NativeAlphaBeta(lib, position, weights, table_limit=table_limit, contempt=contempt,
                             evaluate=evaluate)
    python.root_margin = native.root_margin = margin
    return python, native


@pytest.mark.parametrize("n, depth", [(3, 11), (4, 9), (5, 8), (8, 6)])
def test_fixed_depth_search_gives_the_same_value_move_and_nodes(lib: ModuleType, n: int, depth: int) -> None:
    settings = [(DEFAULT_WEIGHTS, 20, 0), (mcts_alphabeta.WEIGHTS, mcts_alphabeta.CONTEMPT, 1), (ODD_WEIGHTS, 0, 5)]
    for index, position in enumerate(search_positions(n, 9, 2)):
        weights, contempt, margin = settings[index % 3]
        python, native = pair(lib, position, weights, contempt, margin)
        expected = [(r.score, r.move, r.nodes, r.pv) for r in python.iterate(position, depth)]
        found = [(r.score, r.move, r.nodes, r.pv) for r in native.iterate(position, depth)]
        assert found == expected, position
        assert native.root_scores == python.root_scores
        # A second search reuses the table, killers and history alike.
        assert native.search(position, depth).nodes == python.search(position, depth).nodes


def test_searches_agree_on_repetitions_node_limits_small_tables_and_wins_within(lib: ModuleType) -> None:
    for position in search_positions(5, 6, 3):
        # Earlier game positions (the position after each legal move and the reply back) score as
        # draws with contempt; a node limit stops both at the same node with the same partial result.
        history = set()
        for move in position.legal_moves()[:4]:
            position.push(move)
            history.add(position.key())
            position.pop()
        python, native = pair(lib, position, mcts_alphabeta.WEIGHTS, 150, 1)
        expected = [(r.score, r.move, r.nodes, r.partial) for r in python.iterate(position, 9, None, 20_000, history)]
        found = [(r.score, r.move, r.nodes, r.partial) for r in native.iterate(position, 9, None, 20_000, history)]
        assert found == expected, position
        assert python._repetitions > 0  # the history was reached
        # A table of 50 entries, cleared whenever it fills, is cleared at the same moments.
        python, native = pair(lib, position, DEFAULT_WEIGHTS, 20, 0, table_limit=50)
        assert [(r.score, r.move, r.nodes) for r in native.iterate(position, 6)] == [
            (r.score, r.move, r.nodes) for r in python.iterate(position, 6)]
        python, native = pair(lib, position, DEFAULT_WEIGHTS, 0, 0)
        python.reductions = native.reductions = False
        for depth in (1, 3, 5):
            assert native.wins_within(position, depth) == python.wins_within(position, depth)
            assert native.nodes == python.nodes


def test_native_searcher_refuses_a_position_of_another_size(lib: ModuleType) -> None:
    native = NativeAlphaBeta(lib, Position(5), DEFAULT_WEIGHTS)
    with pytest.raises(ValueError, match="size and win priority"):
        native.search(Position(6), 2)


def test_engines_search_natively_and_answer_as_the_pure_python_engines() -> None:
    board = Position(5)
    for move in (3, 3, 2, 4, -3, 1, 2, 5, -2):
        board.push(move)
    for engine in ("alphabeta.py", "mcts_alphabeta.py"):
        outputs, cores = [], []
        for pure in ("0", "1"):
            done = subprocess.run(
                [sys.executable, str(ROOT / "engines" / engine), "5", board.player, board.board(), "30",
                 "--depth", "6", "--info", "--seed", "1"],
                capture_output=True, text=True, env=dict(os.environ, ARENA_PURE=pure), timeout=120, check=True)
            info = [strip_timing(line) for line in done.stderr.splitlines() if line.startswith("info ")]
            cores.append(info.pop(0))
            outputs.append((done.stdout, info))
        assert outputs[0] == outputs[1], engine
        assert cores == ["info core native", "info core python (betsy_search: ARENA_PURE is set)"], engine
        assert sum(line.startswith("info depth") for line in outputs[0][1]) == 6


def strip_timing(line: str) -> str:
    """An info line without its nps and time figures."""
    words = line.split()
    for name in ("nps", "time"):
        if name in words:
            at = words.index(name)
            del words[at:at + 2]
    return " ".join(words)


def test_hybrid_uses_the_native_searcher_unless_pure(monkeypatch: pytest.MonkeyPatch, lib: ModuleType) -> None:
    position = Position(5)
    assert type(mcts_alphabeta._searcher(position, mcts_alphabeta.evaluate)) is NativeAlphaBeta
    from engines import native

    monkeypatch.setenv("ARENA_PURE", "1")
    monkeypatch.setattr(native, "_loaded", {})
    assert type(mcts_alphabeta._searcher(position, mcts_alphabeta.evaluate)) is AlphaBeta


def test_boards_beyond_the_core_are_searched_in_python(lib: ModuleType) -> None:
    from engines.search.native_betsy import searcher

    big = Position(MAX_N + 1)  # the rules hold any n; the tools stop at MAX_N
    found = searcher(big, mcts_alphabeta.evaluate, mcts_alphabeta.WEIGHTS)
    assert type(found) is AlphaBeta
    assert found.search(big, 1).move == 1
    with pytest.raises(ValueError, match=f"n = 1 to {MAX_N}, not {MAX_N + 1}"):
        Core(lib, MAX_N + 1, DEFAULT_WEIGHTS, False, 10)


def test_the_module_refuses_bad_arguments_with_an_exception(lib: ModuleType) -> None:
    """A short key, a foreign handle, a wrong evaluation or no moves raise; nothing reads past a buffer."""
    core = Core(lib, 5, DEFAULT_WEIGHTS, False, 100)
    key = core.encode(Position(5).key())
    assert core.nbytes == len(key) == 11  # 2 x 40 cells and the side to move: 81 bits
    with pytest.raises(ValueError, match="a key of n = 5 takes 11 bytes, not 10"):
        lib.probe(core.handle, key[:10])
    with pytest.raises(ValueError, match="set_path: fewer key bytes than count x stride"):
        lib.set_path(core.handle, key, 2, core.nbytes)
    with pytest.raises(TypeError, match="expected a arena.betsy_search handle"):
        lib.probe(object(), key)
    assert len(evaluation_tables(DEFAULT_WEIGHTS, 5)) == 63  # 3 x 6 line values, 4 flags, 41 hand values
    with pytest.raises(ValueError, match="n = 5 takes 63 evaluation values, not 3"):
        lib.new(5, 0, [1, 2, 3], 100)
    with pytest.raises(ValueError, match="root: no moves to search"):
        lib.root(core.handle, key, 1, [], [0, 256, -1, 0, 0, 1, 0], -1.0)
    with pytest.raises(TypeError, match="root\\(\\) argument 5 must be list, not tuple"):
        lib.root(core.handle, key, 1, [1], (0, 256, -1, 0, 0, 1, 0), -1.0)  # written back: a list
    with pytest.raises(TypeError, match="limits: expected a list of 7 ints"):
        lib.root(core.handle, key, 1, [1], [0, 256, -1], -1.0)
    assert lib.new(MAX_N + 1, 0, [], 100) is None
    stopped, out, scores = lib.root(core.handle, key, 1, Position(5).legal_moves(), [0, 256, -1, 0, 0, 1, 0], -1.0)
    assert stopped == 0 and len(out) == 5 and len(scores) == len(Position(5).legal_moves())
