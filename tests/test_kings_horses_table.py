"""All The King's Horses corner table: built by retrograde analysis, checked against a plain minimax,
and used by the solver in place of its search."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engines import kings_horses_solver as khs
from engines import kings_horses_table as kht
from tests.test_kings_horses_solver import own_and_other, plain_wins, random_position

ROOT = Path(__file__).resolve().parent.parent
Sq = tuple[int, int]


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("kh-tables")
    kht.build(10, str(directory / "kings-horses-10.tb"))
    return directory


def test_squares_and_pair_numbers() -> None:
    cells = kht.squares(5)
    assert cells == [(1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (4, 1)]
    numbers = sorted(kht.pair_index(i, j) for j in range(len(cells)) for i in range(j))
    assert numbers == list(range(45))
    assert kht.pair_index(3, 7) == kht.pair_index(7, 3) == 7 * 6 // 2 + 3


def test_table_matches_plain_minimax_on_random_positions(table_dir: Path) -> None:
    table = kht.Table(str(table_dir / "kings-horses-10.tb"))
    assert (table.limit, table.pairs) == (10, 990)
    rng = random.Random(10)
    cells = kht.squares(10)
    wins = 0
    for _ in range(3000):
        a, b, x, y = rng.sample(cells, 4)
        expected = plain_wins((a, b), (x, y))
        assert table.mover_wins((a, b), (x, y)) is expected, (a, b, x, y)
        wins += expected
    assert 0 < wins < 3000
    assert table.mover_wins(((2, 2), (3, 3)), ((1, 2), (3, 1))) is True  # the seed's example, BLACK to move
    assert table.mover_wins(((1, 1), (9, 2)), ((2, 2), (3, 3))) is None  # (9, 2) lies outside row + col <= 10


def test_solver_reads_the_table_inside_and_searches_outside(table_dir: Path) -> None:
    table = kht.Table(str(table_dir / "kings-horses-10.tb"))
    inside = khs.Solver(corner=table)
    assert inside.mover_wins("BLACK", ((2, 2), (3, 3)), ((1, 2), (3, 1))) is True
    assert (inside.nodes, inside.corner_reads) == (0, 1)
    rng = random.Random(11)
    with_table, without = khs.Solver(corner=table), khs.Solver(corner=False)
    for size, count in ((6, 300), (10, 200)):  # inside and across the triangle's edge
        for _ in range(count):
            mover, black, white = random_position(rng, size)
            expected = without.mover_wins(mover, black, white)
            if size == 6:
                assert expected is plain_wins(*own_and_other(mover, black, white)), (mover, black, white)
            assert with_table.mover_wins(mover, black, white) is expected, (mover, black, white)
    assert with_table.corner_reads > 0 and without.corner_reads == 0
    assert with_table.nodes < without.nodes


def test_solver_finds_the_built_table_in_the_table_directory(table_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    position = ("WHITE", ((4, 3), (2, 5)), ((5, 1), (3, 4)))
    monkeypatch.setenv("BETSY_TABLES", str(table_dir))
    solver = khs.Solver()
    verdict = solver.mover_wins(*position)
    assert verdict is plain_wins(position[2], position[1])
    assert (solver.nodes, solver.corner_reads) == (0, 1)
    monkeypatch.setenv("BETSY_TABLES", str(table_dir / "missing"))
    assert solver.mover_wins(*position) is verdict  # the answer it has; a fresh one searches
    fresh = khs.Solver()
    assert fresh.mover_wins(*position) is verdict
    assert fresh.corner_reads == 0 and fresh.nodes > 0


def test_the_command_line_gives_the_same_answers_with_and_without_the_table(table_dir: Path, tmp_path: Path) -> None:
    rng = random.Random(12)
    for _ in range(3):
        mover, black, white = random_position(rng, 7)
        args = [mover, *(str(v) for sq in (*black, *white) for v in sq)]
        outputs = []
        for directory in (table_dir, tmp_path):
            env = {**os.environ, "BETSY_TABLES": str(directory)}
            run = subprocess.run([sys.executable, str(ROOT / "scripts" / "bestmove.py"), "--move", *args],
                                 capture_output=True, text=True, timeout=60, env=env)
            assert run.returncode == 0 and run.stderr == ""
            outputs.append(run.stdout)
        assert outputs[0] == outputs[1]
        mine, theirs = own_and_other(mover, black, white)
        expected = mover if plain_wins(mine, theirs) else ("WHITE" if mover == "BLACK" else "BLACK")
        assert outputs[0].splitlines()[-1] == f"{expected} WILL WIN"


BODY_10 = bytes(122513)
"""The body of a row + col <= 10 table: 990 * 990 bits."""


@pytest.mark.parametrize(("content", "problem"), [
    (b"KHTB", "not a kings-horses table (too short)"),
    (b"XXXX" + bytes(12), "not a kings-horses table of version 1; rebuild it"),
    (kht.HEADER.pack(kht.MAGIC, 2, 10, 990) + BODY_10, "not a kings-horses table of version 1; rebuild it"),
    (b"betsy-arena table v2: betsy n=3 height=6 supply=9 priority=mover".ljust(95) + b"\n",
     "not a kings-horses table of version 1; rebuild it"),
    (kht.HEADER.pack(kht.MAGIC, kht.VERSION, 8, 378) + bytes(17861), "a table of row + col <= 8, not 10; rebuild it"),
    (kht.HEADER.pack(kht.MAGIC, kht.VERSION, 10, 989) + BODY_10, "989 pairs for row + col <= 10, which has 990; "
                                                                 "rebuild it"),
    (kht.HEADER.pack(kht.MAGIC, kht.VERSION, 10, 990) + bytes(10), "truncated (122529 bytes expected); rebuild it"),
])
def test_a_damaged_table_is_refused_and_the_solver_searches(
        content: bytes, problem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "kings-horses-10.tb"
    path.write_bytes(content)
    with pytest.raises(ValueError) as caught:
        kht.Table(str(path), 10)  # as default_table opens it: the S its name gives
    assert str(caught.value) == f"{path}: {problem}"
    monkeypatch.setenv("BETSY_TABLES", str(tmp_path))
    assert kht.default_table() is None
    solver = khs.Solver()
    assert solver.mover_wins("BLACK", ((2, 2), (3, 3)), ((1, 2), (3, 1))) is True
    assert solver.corner_reads == 0


def test_the_build_script_writes_the_table_and_refuses_a_bad_size(tmp_path: Path) -> None:
    script = str(ROOT / "scripts" / "build_tablebase.py")
    run = subprocess.run([sys.executable, script, "--game", "kings-horses", "--sum", "8", "--dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"built {tmp_path / 'kings-horses-8.tb'} in ")
    assert kht.Table(str(tmp_path / "kings-horses-8.tb")).pairs == 28 * 27 // 2
    bad = subprocess.run([sys.executable, script, "--game", "kings-horses", "--sum", "30", "--dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.splitlines()[-1] == ("build_tablebase.py: error: --sum 30 is out of range: give 4..24 "
                                          "(24 takes a minute and 1.5 GB; memory grows as SUM**8)")


def test_where_memory_is_short_the_build_refuses_or_the_set_up_builds_a_smaller_table(tmp_path: Path) -> None:
    script = str(ROOT / "scripts" / "build_tablebase.py")
    base = [sys.executable, script, "--game", "kings-horses", "--max-memory", "0.3", "--dir", str(tmp_path)]
    refused = subprocess.run(base, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == ("error: building the row + col <= 24 table needs about 1.57 GB of memory and 0.30 GB "
                              "is available; free some or build a smaller one (--sum 20 needs 0.43 GB)\n")
    assert list(tmp_path.iterdir()) == []
    set_up = subprocess.run([*base, "--if-missing"], capture_output=True, text=True, timeout=120)
    assert set_up.returncode == 0, set_up.stderr
    assert set_up.stderr.splitlines()[0] == "only 0.30 GB of memory available: building row + col <= 16 instead of 24"
    assert kht.Table(str(tmp_path / "kings-horses-16.tb")).limit == 16
    again = subprocess.run([*base, "--if-missing"], capture_output=True, text=True, timeout=60)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")  # keeps the smaller table
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kings-horses-16.tb"]


def test_if_missing_rebuilds_a_stale_table(tmp_path: Path) -> None:
    script = [sys.executable, str(ROOT / "scripts" / "build_tablebase.py"), "--game", "kings-horses", "--sum", "8",
              "--if-missing", "--dir", str(tmp_path)]
    path = tmp_path / "kings-horses-8.tb"
    path.write_bytes(kht.HEADER.pack(kht.MAGIC, kht.VERSION + 1, 8, 378) + bytes(17861))  # another version's
    built = subprocess.run(script, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    assert built.stdout.startswith(f"built {path} in ")
    table = kht.Table(str(path), 8)
    assert table.mover_wins(((2, 2), (3, 3)), ((1, 2), (3, 1))) is True  # the seed's example, BLACK to move
    again = subprocess.run(script, capture_output=True, text=True, timeout=60)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")  # a current table is kept
