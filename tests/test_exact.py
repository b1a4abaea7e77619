"""Exact n = 3 values for validation (harness/games/betsy/exact.py), against the solved tables."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.games.betsy.exact import exact_suite, keeping_moves, open_table, value_after
from harness.games.betsy.rules import Position
from tests.conftest import ARENA, ROOT, run_program


@pytest.fixture
def tables(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real n = 3 tables: this machine's (built by scripts/test), or built here (about 10 s)."""
    from engines.tablebase import build, table_name, table_problem

    home = Path.home() / ".cache" / "betsy-arena"
    if table_problem(str(home / table_name(3)), 3) is not None:
        home = tmp_path_factory.mktemp("tables")
        build(3, "mover", home / table_name(3))
    monkeypatch.setenv("BETSY_TABLES", str(home))
    return home


def test_every_move_of_a_position_where_all_win_keeps_the_value(tables: Path) -> None:
    # The position of a former false alarm: every legal move wins (2 and -2 in 5, 1 and -1 in 7).
    table = open_table()
    assert table is not None
    position = Position.from_text(3, "x", "..x..o.ox.oo.xxoxx")
    assert keeping_moves(table, position) == (1, frozenset(position.legal_moves()), len(position.legal_moves()))
    table.close()


def test_exact_suite_asks_only_positions_where_some_moves_do_not_keep_the_value(tables: Path) -> None:
    table = open_table()
    assert table is not None
    cases = exact_suite(table, 24)
    assert len(cases) == 24
    assert len({(c.position.player, c.position.board()) for c in cases}) == 24
    assert {c.position.player for c in cases} == {"x", "o"} and {c.value for c in cases} == {0, 1}
    for case in cases:
        assert table.lookup(case.position)[0] == case.value
        for move in case.position.legal_moves():
            assert (value_after(table, case.position, move) >= case.value) == (move in case.keeping)
        assert 0 < len(case.keeping) < case.legal == len(case.position.legal_moves())
    again = exact_suite(table, 24)
    assert [(c.position.board(), c.keeping) for c in again] == [(c.position.board(), c.keeping) for c in cases]
    table.close()


def test_validate_scores_value_keeping_moves_by_the_tables(tables: Path) -> None:
    # The table-backed engine keeps every value; a student's answers are judged move by move.
    # The exact checks are all at n = 3, so the suite is asked at n = 3 alone.
    env_program = f"python3 {ROOT / 'engines' / 'alphabeta.py'}"
    result = run_program([ARENA, "validate", env_program, "--quick", "--games", "0", "--json", "--quiet", "--n", "3"],
                         timeout=300)
    report = json.loads(result.stdout)
    assert report["strength"]["exact"] == {"asked": 10, "kept": 10, "random_share": report["strength"]["exact"]["random_share"]}
    assert 0.1 < report["strength"]["exact"]["random_share"] < 0.6
    student = f"python3 {ROOT / 'tests' / 'fake_engines' / 'students' / 'greedy_student.py'}"
    result = run_program([ARENA, "validate", student, "--quick", "--games", "0", "--json", "--quiet", "--n", "3"],
                         timeout=300)
    report = json.loads(result.stdout)
    table = open_table()
    assert table is not None
    checks = [c for c in report["categories"]["strength"]["checks"] if c["id"].startswith("n3-value-")]
    assert len(checks) == 10
    for check in checks:
        position = Position.from_text(3, check["player"], check["board"])
        move = int(check["printed"][-1].split()[0])
        _, keeping, _ = keeping_moves(table, position)
        assert check["status"] == "info" and check["passed"] is None  # information, not pass/fail
        assert check["detail"].startswith(f"played {move}: keeps the position ") == (move in keeping), check
    kept = sum(check["detail"].startswith(f"played {check['printed'][-1].split()[0]}: keeps ") for check in checks)
    assert report["strength"]["exact"]["kept"] == kept < 10
    assert os.environ["BETSY_TABLES"] == str(tables)
    table.close()
