"""scripts/bench_import.py: its games are a real schedule's, each a draw at the ply limit, and it
prints one figure per command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.store.store import Store
from harness.match.verify import check_record
from tests.conftest import load_script


def test_bench_games_pass_the_import_checks_and_end_at_the_ply_limit(tmp_path: Path) -> None:
    bench = load_script("bench_import")
    db = bench.build(tmp_path, 4, 30)
    with Store(db, read_only=True) as store:
        rows = store.game_rows()
        records = [store.game_record(row.id) for row in rows]
    assert [row.key for row in rows] == ["n5:r1:a:b:a", "n5:r1:a:b:b", "n5:r2:a:b:a", "n5:r2:a:b:b"]
    for record in records:
        check_record(record)
        assert (record.termination, len(record.moves)) == ("max-plies", 30)


def test_bench_prints_a_figure_per_command(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_script("bench_import")
    assert bench.main(["--games", "2", "--plies", "10", "--runs", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"2 games of up to 10 plies \([\d.]+ MB of JSON Lines; database built in [\d.]+ s\); "
                        r"best of 1, wall seconds:", lines[0])
    assert [line.split()[0] for line in lines[1:]] == ["start-up", "export", "import", "report", "report", "replay"]
