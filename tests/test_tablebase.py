"""The retrograde tablebase: solved facts, the oracle sample, self-consistency, and engine use."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from engines.protocol import Rng
from engines.tablebase import LOSS, WIN, Tablebase, build, position_index, probe
from harness.games.betsy import Position, initial_position
from harness.protocol import find_answer
from tests.conftest import ROOT, run_program

ORACLE = ROOT / "tests" / "data" / "betsy3_oracle_sample.jsonl"
"""50 solved n = 3 positions (tests/data/README.md)."""


@pytest.fixture(scope="session")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tables")
    previous = os.environ.get("BETSY_TABLES")
    os.environ["BETSY_TABLES"] = str(folder)
    try:
        build(3, "mover")
        for priority in ("mover", "blue"):
            build(2, priority)
            build(1, priority)
    finally:
        if previous is None:
            os.environ.pop("BETSY_TABLES", None)
        else:
            os.environ["BETSY_TABLES"] = previous
    return folder


@pytest.fixture
def use_tables(tables: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BETSY_TABLES", str(tables))
    return tables


def child_value(position: Position, table: Tablebase, move: int) -> int:
    """Value for the side to move after ``move`` (terminal positions decided by the rules)."""
    child = position.after(move)
    winner = child.winner()
    if winner is not None:
        return WIN if winner == child.turn else LOSS
    return table.lookup(child)[0]


def test_n3_from_the_empty_board_is_a_draw(use_tables: Path) -> None:
    table = Tablebase.open_for(initial_position(3))
    assert table is not None
    assert table.lookup(initial_position(3)) == (0, 0)


def test_table_agrees_with_every_oracle_position(use_tables: Path) -> None:
    rows = [json.loads(line) for line in ORACLE.read_text().splitlines() if line.strip()]
    assert len(rows) == 50
    table = Tablebase.open_for(initial_position(3))
    assert table is not None
    for row in rows:
        position = Position.from_text("3", row["player"], row["board"])
        value, distance = table.lookup(position)
        assert value == row["value"], row
        if value == WIN:
            assert distance == row["dist"], row
        keeping = {m for m in position.legal_moves() if -child_value(position, table, m) == value}
        assert keeping == set(row["good"]), row
        assert table.best_move(position)[0] in row["good"]


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("priority", ["mover", "blue"])
def test_every_value_is_consistent_with_its_children(use_tables: Path, n: int, priority: str) -> None:
    # Win iff some move leads to a loss for the opponent; loss iff every move leads to its win.
    for seed in range(150):
        rng = Rng(seed)
        position = initial_position(n, priority)  # type: ignore[arg-type]
        table = Tablebase.open_for(position)
        assert table is not None
        for _ in range(40):
            if position.winner() is not None:
                break
            value, _ = table.lookup(position)
            children = [child_value(position, table, m) for m in position.legal_moves()]
            if value == WIN:
                assert LOSS in children
            elif value == LOSS:
                assert set(children) == {WIN}
            else:
                assert LOSS not in children and 0 in children
            position.push(rng.choice(position.legal_moves()))


def test_position_index_is_unique_per_position() -> None:
    seen: dict[int, tuple[str, int]] = {}
    for seed in range(200):
        rng = Rng(seed)
        position = initial_position(3)
        for _ in range(30):
            index = position_index(position)
            assert seen.setdefault(index, (position.board(), position.turn)) == (position.board(), position.turn)
            position.push(rng.choice(position.legal_moves()))


def test_engine_plays_the_table_move_when_a_table_exists(use_tables: Path) -> None:
    # x to move, value 1 at distance 21 (oracle sample): the only winning move is 3.
    argv = [sys.executable, str(ROOT / "engines" / "alphabeta.py"), "3", "x", "............o..xox", "1"]
    result = run_program(argv)
    answer = find_answer(result.stdout.splitlines())
    assert answer is not None and answer.move == 3
    assert probe(Position.from_text("3", "x", "............o..xox")) == 3


def test_without_a_table_probe_declines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BETSY_TABLES", str(tmp_path))
    assert probe(initial_position(3)) is None
    assert probe(initial_position(5)) is None


def test_build_refuses_boards_too_large() -> None:
    with pytest.raises(ValueError, match="tablebases are built for n = 1 .. 3, not 4"):
        build(4)
