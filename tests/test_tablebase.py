"""The retrograde tablebase: solved facts, the oracle sample, self-consistency, and engine use."""

from __future__ import annotations

import itertools
import json
import math
import os
import sys
from pathlib import Path

import pytest

from engines.protocol import Rng
from engines import kings_horses_table as kht
from engines.tablebase import (
    DRAW, HEADER_BYTES, LOSS, WIN, Tablebase, build, header, position_index, probe, table_bytes, table_name,
    table_problem,
)
from harness.games.betsy.rules import Position, geometry, initial_position
from harness.referee.protocol import find_answer
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


N3 = geometry(3)
RADIX = 1 << (N3.height + 1)
"""Column codes of n = 3: a height-h column with pebbles p_0 (bottom) .. p_{h-1} is (1 << h) | bits,
bit i set for o (engines/tablebase.py's layout, decoded here without its code)."""


def position_at(index: int) -> Position | None:
    """The n = 3 position that table slot ``index`` holds (mover priority), or None for a slot of
    no position (a code with no column, or more than 9 pebbles of a colour)."""
    turn, board = index % 2, index // 2
    columns = []
    for column in range(3):
        code = board // RADIX ** (2 - column) % RADIX
        if code == 0:
            return None
        columns.append(["o" if code >> i & 1 else "x" for i in range(code.bit_length() - 1)])
    if any(sum(column.count(colour) for column in columns) > N3.supply for colour in "xo"):
        return None
    rows = "".join(columns[c][r] if r < len(columns[c]) else "." for r in range(N3.height - 1, -1, -1)
                   for c in range(3))
    return Position.from_text(3, "xo"[turn], rows)


def consistent(table: Tablebase, position: Position) -> str | None:
    """What is wrong with the table's (value, distance) of ``position`` given its children's, under
    the rules (None if nothing). An ended game is worth a win for the side with the line, at distance
    0; a win is one ply longer than its fastest move to a lost child; a loss, every child won, one
    ply longer than the slowest; a draw has no lost child, some drawn one, and distance 0."""
    value, distance = table.lookup(position)
    winner = position.winner()
    if winner is not None:
        expected = (WIN if winner == position.turn else LOSS, 0)
        return None if (value, distance) == expected else f"ended game stored as {(value, distance)}"
    children = []
    for move in position.legal_moves():
        position.push(move)
        ended = position.winner()
        children.append((WIN if ended == position.turn else LOSS, 0) if ended is not None else table.lookup(position))
        position.pop()
    lost = [d for v, d in children if v == LOSS]
    if value == WIN:
        ok = bool(lost) and distance == 1 + min(lost)
    elif value == LOSS:
        ok = all(v == WIN for v, _ in children) and distance == 1 + max(d for _, d in children)
    else:
        ok = value == DRAW and distance == 0 and not lost and any(v == DRAW for v, _ in children)
    return None if ok else f"stored {(value, distance)}, children {children}"


def test_every_n3_value_is_consistent_with_its_children(use_tables: Path) -> None:
    # The whole table (2.5 million positions) takes minutes here; this checks, seeded, 200,000
    # positions drawn uniformly from its slots, and every position of one class: both colours'
    # pebbles all on the board (48,620 full boards, each side to move), where only rotations remain.
    table = Tablebase.open_size(3)
    assert table is not None
    rng = Rng(3)
    sampled = ended = 0
    while sampled < 200_000:
        index = rng.randrange(2 * RADIX ** 3)
        position = position_at(index)
        if position is None:
            continue
        assert position_index(position) == index
        assert consistent(table, position) is None, position
        sampled += 1
        ended += position.winner() is not None
    assert 0 < ended < sampled
    full = 0
    top = 1 << N3.height  # the code of a full column with no o; every full column's code is top + bits
    for codes in itertools.product(range(top, 2 * top), repeat=3):
        for turn in (0, 1):
            position = position_at(2 * ((codes[0] * RADIX + codes[1]) * RADIX + codes[2]) + turn)
            if position is not None:  # nine pebbles of each colour
                assert consistent(table, position) is None, position
                full += 1
    assert full == 2 * math.comb(18, 9)
    table.close()


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


# --- the header: a stale or foreign file is refused, and the set-up builds it again -----------------

WON = Position.from_text("3", "x", "............o..xox")
"""x to move wins, with 3 only (the oracle sample): a table read wrongly would show it."""
SEED_EXPECTED = "betsy-arena table v2: betsy n=3 height=6 supply=9 priority=mover"


def body(folder: Path) -> bytes:
    """The values of the built n = 3 table, without its header: a file of version 1."""
    return (folder / table_name(3)).read_bytes()[HEADER_BYTES:]


@pytest.mark.parametrize("kind", ["version 1", "version 3", "blue", "n = 2", "kings-horses", "cut short"])
def test_a_stale_or_foreign_table_is_refused_and_the_engine_searches(
    kind: str, tables: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = body(tables)
    stale = {
        "version 1": values,  # the headerless layout of version 1
        "version 3": header(3, "mover").replace(b" v2:", b" v3:") + values,
        "blue": header(3, "blue") + values,
        "n = 2": header(2, "mover") + values,
        "kings-horses": kht.HEADER.pack(kht.MAGIC, kht.VERSION, 8, kht.pair_count(8)) + values,
        "cut short": header(3, "mover") + values[:-2],
    }[kind]
    path = tmp_path / table_name(3)
    path.write_bytes(stale)
    found = {
        "version 1": "\x01\x00" * 8,  # the first 16 bytes of a binary header
        "version 3": SEED_EXPECTED.replace(" v2:", " v3:"),
        "blue": SEED_EXPECTED.replace("mover", "blue"),
        "n = 2": "betsy-arena table v2: betsy n=2 height=5 supply=5 priority=mover",
        "kings-horses": "KHTB\x01\x00\x00\x00\x08\x00\x00\x00z\x01\x00\x00",  # S = 8, 378 = 0x17a pairs
    }.get(kind)
    problem = (f"{path}: {len(stale)} bytes, not {table_bytes(3)}; rebuild it" if found is None else
               f"{path}: header {found!r} is not {SEED_EXPECTED!r}; rebuild it")
    assert table_problem(str(path), 3) == problem
    monkeypatch.setenv("BETSY_TABLES", str(tmp_path))
    assert Tablebase.open_size(3) is None
    assert probe(WON) is None
    # The engine plays on by searching (within its second, it need not find the 21-ply win): legally.
    result = run_program([sys.executable, str(ROOT / "engines" / "alphabeta.py"), "3", "x", WON.board(), "1"])
    answer = find_answer(result.stdout.splitlines())
    assert (result.returncode, result.stderr) == (0, "")
    assert answer is not None and WON.is_legal(answer.move) and answer.board == WON.after(answer.move).board()


def test_the_table_written_is_the_one_read(tables: Path) -> None:
    path = tables / table_name(3)
    data = path.read_bytes()
    assert data[:HEADER_BYTES] == SEED_EXPECTED.encode().ljust(HEADER_BYTES - 1) + b"\n"
    assert len(data) == HEADER_BYTES + 2 * 2 * 128 ** 3 == table_bytes(3)
    assert table_problem(str(path), 3) is None and table_problem(str(path), 3, "blue") is not None
    table = Tablebase(str(path))
    assert table.lookup(WON)[0] == WIN  # the body starts after the header
    table.close()


def test_if_missing_rebuilds_a_stale_table_and_keeps_a_current_one(tables: Path, tmp_path: Path) -> None:
    script = [sys.executable, str(ROOT / "scripts" / "build_tablebase.py"), "--n", "2", "--priority", "mover",
              "--if-missing", "--dir", str(tmp_path)]
    path = tmp_path / table_name(2)
    good = (tables / table_name(2)).read_bytes()
    path.write_bytes(good[HEADER_BYTES:])  # the same values in the headerless layout of version 1
    rebuilt = run_program(script)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert rebuilt.stderr == (f"rebuilding {path}: header {(chr(1) + chr(0)) * 8!r} is not 'betsy-arena table v2: "
                              "betsy n=2 height=5 supply=5 priority=mover'\n")
    assert rebuilt.stdout.startswith(f"built {path} in ")
    assert path.read_bytes() == good
    kept = run_program(script)
    assert (kept.returncode, kept.stdout, kept.stderr) == (0, "", "")
    path.write_bytes(header(3, "mover")[:40])  # another table's header, cut short
    assert run_program(script).stdout.startswith(f"built {path} in ")
    assert path.read_bytes() == good
