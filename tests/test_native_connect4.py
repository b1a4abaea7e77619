"""The native Connect Four search (engines/native/connect4_search.c) against the Python rules, evaluation
and search: the same legal moves, winners, keys and evaluations on random positions of every size (the
core's three board types: 64 bits, 128, and three words beyond 128), and the same value, best move,
root scores, principal variation and node count from fixed-depth searches of several sizes of each."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from types import ModuleType

import pytest

from engines import alphabeta, connect4_evaluation, mcts_alphabeta
from engines.search.alphabeta import AlphaBeta
from engines.search.native_connect4 import Core, NativeAlphaBeta, fits, library, searcher
from harness.games.connect4 import MAX_SIZE, MIN_SIZE, Position
from tests.conftest import ROOT

SIZES = [(w, h) for w in range(MIN_SIZE, MAX_SIZE + 1) for h in range(MIN_SIZE, MAX_SIZE + 1)]
"""Every supported size: the core holds them all."""
WIDE = [(12, 10), (10, 12), (11, 11), (11, 12), (12, 11), (12, 12)]
"""The sizes over 128 bits (W x (H + 1)), in the core's three-word board type."""


@pytest.fixture(scope="module")
def lib() -> ModuleType:
    found = library()
    assert found is not None, "the core is not built: run .venv/bin/python engines/native/build.py"
    return found


def random_positions(width: int, height: int, count: int, seed: int, past_wins: bool = False) -> list[Position]:
    """Positions after random playouts of 0 to W x H plies: games in progress or just won (stopping
    at the first four), or with ``past_wins`` boards filled on past any four."""
    rng = random.Random(seed * 10_000 + width * 100 + height)
    found = []
    while len(found) < count:
        position = Position(width, height)
        for _ in range(rng.randrange(0, width * height + 1)):
            moves = position.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            position.push(move)
            if not past_wins and position.winner_after_push(move) is not None:
                break
        found.append(position.copy())
    return found


def search_positions(width: int, height: int, count: int, seed: int) -> list[Position]:
    """Games in progress where the side to move cannot win at once (else depth 1 decides), alternately
    x and o to move, after random plies filling up to half the board."""
    rng = random.Random(seed * 10_000 + width * 100 + height)
    found: list[Position] = []
    while len(found) < count:
        position = Position(width, height)
        plies = rng.randrange(0, width * height // 2) // 2 * 2 + len(found) % 2
        for _ in range(plies):
            move = rng.choice(position.legal_moves())
            position.push(move)
            if position.winner_after_push(move) is not None:
                break
        if (position.turn == len(found) % 2 and position.winner() is None and position.legal_moves()
                and not position.has_winning_move()):
            found.append(position.copy())
    return found


@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_core_rules_and_evaluation_equal_the_python_ones_on_random_positions(
        lib: ModuleType, width: int, height: int) -> None:
    core = Core(lib, width, height, 1000)
    terms_seen = [0] * len(connect4_evaluation.FEATURES)
    positions = random_positions(width, height, 100, 1) + random_positions(width, height, 40, 2, past_wins=True)
    for position in positions:
        out = lib.probe(core.handle, *position.masks, width)
        moves = position.legal_moves()
        winners = []
        for move in moves:
            position.push(move)
            winner = position.winner_after_push(move)
            winners.append(-1 if winner is None else winner)
            position.pop()
        key = position.key()
        found = list(out[:7 + len(moves)])
        found[3:6] = [word & (1 << 64) - 1 for word in found[3:6]]  # the key's words, unsigned
        mask = (1 << 64) - 1
        assert found == [
            connect4_evaluation.evaluate(position), position.has_winning_move(),
            position.opponent_has_winning_move(), key & mask, key >> 64 & mask, key >> 128, len(moves), *moves,
        ], position
        assert list(out[7 + width:7 + width + len(moves)]) == winners, position
        for index, term in enumerate(connect4_evaluation.features(position)):
            terms_seen[index] += term != 0
    # Every term of the evaluation (centre, both kinds of threat, the four free-threat bonuses)
    # counted in some position.
    assert all(terms_seen), terms_seen


def pair(lib: ModuleType, position: Position, contempt: int, margin: int,
         table_limit: int = 2_000_000) -> tuple[AlphaBeta, NativeAlphaBeta]:
    python = AlphaBeta(connect4_evaluation.evaluate, table_limit=table_limit, contempt=contempt)
    native = NativeAlphaBeta(lib, position, table_limit=table_limit, contempt=contempt)
    python.root_margin = native.root_margin = margin
    return python, native


@pytest.mark.parametrize("width, height, depth", [
    (4, 4, 14), (5, 6, 11), (7, 6, 10), (8, 8, 9), (10, 10, 8), (11, 10, 8), (12, 9, 7), (9, 12, 7),
    (12, 10, 7), (10, 12, 7), (11, 11, 7), (11, 12, 7), (12, 11, 7), (12, 12, 7)])
def test_fixed_depth_search_gives_the_same_value_move_scores_pv_and_nodes(
        lib: ModuleType, width: int, height: int, depth: int) -> None:
    settings = [(0, 0), (alphabeta.CONTEMPT, 0), (mcts_alphabeta.CONTEMPT, mcts_alphabeta.MARGIN), (0, 80)]
    for index, position in enumerate(search_positions(width, height, 8, 1)):
        contempt, margin = settings[index % len(settings)]
        python, native = pair(lib, position, contempt, margin)
        expected = [(r.score, r.move, r.nodes, r.pv) for r in python.iterate(position, depth)]
        found = [(r.score, r.move, r.nodes, r.pv) for r in native.iterate(position, depth)]
        assert found == expected, position
        assert native.root_scores == python.root_scores, position
        # A second search reuses the table, killers and history alike.
        assert native.search(position, depth).nodes == python.search(position, depth).nodes, position


@pytest.mark.parametrize("width, height", [(7, 6), (8, 8), (11, 10), (12, 12)])  # each board type
def test_searches_agree_on_earlier_positions_node_limits_small_tables_and_wins_within(
        lib: ModuleType, width: int, height: int) -> None:
    for position in search_positions(width, height, 6, 2):
        # Keys passed as earlier game positions score as draws, with contempt, where the search
        # meets them (here: positions two plies on); a node limit stops both at the same node.
        history = set()
        for move in position.legal_moves()[:4]:
            position.push(move)
            for reply in position.legal_moves()[:3]:
                position.push(reply)
                history.add(position.key())
                position.pop()
            position.pop()
        python, native = pair(lib, position, mcts_alphabeta.CONTEMPT, 1)
        expected = [(r.score, r.move, r.nodes, r.partial) for r in python.iterate(position, 64, None, 20_000, history)]
        found = [(r.score, r.move, r.nodes, r.partial) for r in native.iterate(position, 64, None, 20_000, history)]
        assert found == expected, position
        assert python._repetitions > 0  # the earlier positions were reached
        assert native.nodes == python.nodes
        if abs(found[-1][0]) < 990_000:  # not proven before the limit: stopped at it (a block check adds W)
            assert 20_000 <= native.nodes <= 20_000 + position.width, position
        # A table of 50 entries, cleared whenever it fills, is cleared at the same moments.
        python, native = pair(lib, position, 0, 0, table_limit=50)
        assert [(r.score, r.move, r.nodes) for r in native.iterate(position, 8)] == [
            (r.score, r.move, r.nodes) for r in python.iterate(position, 8)], position
        python, native = pair(lib, position, 0, 0)
        python.reductions = native.reductions = False
        for depth in (1, 3, 5, 7):
            assert native.wins_within(position, depth) == python.wins_within(position, depth), position
            assert native.nodes == python.nodes


def test_a_deadline_stops_the_native_search(lib: ModuleType) -> None:
    position = Position(8, 8)
    native = NativeAlphaBeta(lib, position)
    start = time.monotonic()
    results = list(native.iterate(position, 64, start + 0.5))
    # 8x8 is not solved in half a second: the deadline ends the search, after several depths.
    assert time.monotonic() - start < 8
    assert results[-1].depth >= 4 and abs(results[-1].score) < 990_000
    assert results[-1].depth < 64


def test_native_searcher_refuses_a_position_of_another_size(lib: ModuleType) -> None:
    native = NativeAlphaBeta(lib, Position(7, 6))
    with pytest.raises(ValueError, match="the size it was made for"):
        native.search(Position(6, 7), 2)


def test_searcher_is_native_at_every_size_with_the_searches_evaluation_and_refuses_other_sizes(
        lib: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    evaluate = connect4_evaluation.evaluate
    for width, height in SIZES:  # every size, the boards over 128 bits too
        assert type(searcher(Position(width, height), evaluate)) is NativeAlphaBeta
    for width, height in ((13, 6), (7, 13), (3, 4)):  # no such Connect Four board: refused
        assert not fits(width, height)
        with pytest.raises(ValueError, match=f"boards of 4x4 to 12x12, not {width}x{height}"):
            Core(lib, width, height, 10)
        assert lib.new(width, height, [0] * 7, 10) is None

    def other(position: Position) -> int:
        return 0

    assert type(searcher(Position(7, 6), other)) is AlphaBeta  # the core has only the searches' evaluation
    assert type(alphabeta.searcher_for(Position(7, 6))) is NativeAlphaBeta
    assert type(mcts_alphabeta._searcher(Position(7, 6), evaluate)) is NativeAlphaBeta
    from engines import native

    monkeypatch.setenv("ARENA_PURE", "1")
    monkeypatch.setattr(native, "_loaded", {})
    assert type(searcher(Position(7, 6), evaluate)) is AlphaBeta
    assert type(alphabeta.searcher_for(Position(7, 6))) is AlphaBeta
    assert type(mcts_alphabeta._searcher(Position(7, 6), evaluate)) is AlphaBeta


def strip_timing(line: str) -> str:
    """An info line without its nps and time figures."""
    words = line.split()
    for name in ("nps", "time"):
        if name in words:
            at = words.index(name)
            del words[at:at + 2]
    return " ".join(words)


@pytest.mark.parametrize("width, height, depth", [(7, 6, 8), (8, 8, 8), (12, 12, 6)])
def test_engines_search_natively_and_answer_as_the_pure_python_engines(width: int, height: int, depth: int) -> None:
    board = Position(width, height)
    for move in (4, 4, 3, 5, 2, 3, 6, 1):
        board.push(move)
    for engine, options in (("alphabeta.py", []), ("mcts_alphabeta.py", ["--playouts", "200"])):
        outputs, cores = [], []
        for pure in ("0", "1"):
            done = subprocess.run(
                [sys.executable, str(ROOT / "engines" / engine), board.size_text, board.player, board.board(), "60",
                 "--depth", str(depth), "--info", "--seed", "1", *options],
                capture_output=True, text=True, env=dict(os.environ, ARENA_PURE=pure), timeout=120, check=True)
            info = [strip_timing(line) for line in done.stderr.splitlines() if line.startswith("info ")]
            cores.append(info.pop(0))
            outputs.append((done.stdout, info))
        assert outputs[0] == outputs[1], engine
        pure_cores = "connect4_search: ARENA_PURE is set; connect4_solver: ARENA_PURE is set"
        assert cores == ["info core native", f"info core python ({pure_cores})"], engine
        assert sum(line.startswith("info depth") for line in outputs[0][1]) == depth, outputs[0]


def test_the_module_refuses_bad_arguments_with_an_exception(lib: ModuleType) -> None:
    """A board too wide or negative, a foreign handle, wrong weights or no moves raise."""
    core = Core(lib, 7, 6, 100)
    x, o = Position(7, 6).masks
    for board, message in ((1 << 192, "at most 192 bits"), (-1, "non-negative")):
        with pytest.raises(ValueError, match=message):
            lib.table_move(core.handle, board, o)
        with pytest.raises(ValueError, match=message):
            lib.set_path(core.handle, [board])
    with pytest.raises(TypeError, match="expected a arena.connect4_search handle"):
        lib.table_move(object(), x, o)
    with pytest.raises(ValueError, match="expected 7 evaluation weights, got 2"):
        lib.new(7, 6, [1, 2], 100)
    with pytest.raises(ValueError, match="root: no moves to search"):
        lib.root(core.handle, x, o, 1, [], [0, 256, -1, 0, 0, 1, 0], -1.0)
    stopped, out, scores = lib.root(core.handle, x, o, 1, [4, 3, 5], [0, 256, -1, 0, 0, 1, 0], -1.0)
    assert stopped == 0 and out[1] in (3, 4, 5) and len(scores) == 3
