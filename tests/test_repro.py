"""Fault capsules and ``arena repro``: a real tournament of misbehaving programs (tests/fake_engines/)
against the random engine, its capsules read back field by field, and each fault run again through
the installed ``arena`` command."""

from __future__ import annotations

import hashlib
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.referee.protocol import Clock, Verdict
from harness.referee.referee import Limits, ask
from harness.games.betsy.rules import Position
from harness.match.verify import RecordRefused
from harness.store.records import fault_from_data
from harness.store.store import Store
from tests.conftest import ROOT, arena

FAKES = ROOT / "tests" / "fake_engines"
EMPTY = "." * 18
"""The empty n = 3 board, where the faulty program moves first (openings of 0 plies)."""


@dataclass(frozen=True)
class Fake:
    name: str
    file: str
    verdict: Verdict
    exit_status: int | None
    killed: bool
    detail: str
    """The fault's detail when the program moves first on the empty n = 3 board."""


FAKE_LIST = (
    Fake("segv", "segfaults.py", Verdict.NO_ANSWER, -11, False,
         "killed by signal 11, printed nothing on stdout; stderr: about to crash"),
    Fake("crash", "allocates_then_crashes.py", Verdict.NO_ANSWER, 3, False,
         "exited with status 3, printed nothing on stdout; stderr: allocated 200 MiB"),
    Fake("illegal", "illegal_move.py", Verdict.ILLEGAL_MOVE, 0, False,
         f"move 9 is out of range: use 1..3 to drop or -1..-3 to rotate (position 3 x {EMPTY})"),
    Fake("mismatch", "mismatching_board.py", Verdict.BOARD_MISMATCH, 0, False,
         "move 2 gives ................x., but the engine printed ...x..o.ox.oxxxoxo"),
    Fake("prose", "prints_prose.py", Verdict.NO_ANSWER, 0, False,
         "exited with status 0, no well-formed 'MOVE BOARD' line; last line: 'I think column 2 is best'"),
    Fake("flood", "floods_stdout.py", Verdict.OUTPUT_LIMIT, -9, True,
         "printed more than 1,048,576 bytes on stdout; stopped"),
    Fake("hang", "hangs.py", Verdict.TIME, -9, True, "no answer within 1 s (+ 0.5 s grace); killed"),
)
FAKES_BY_NAME = {fake.name: fake for fake in FAKE_LIST}


@dataclass(frozen=True)
class Played:
    db: Path
    folder: Path
    games: dict[tuple[str, str], int]
    """Game number by (x, o)."""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """One gauntlet: random (seeded) against each fake and against greedy, both colours."""
    folder = tmp_path_factory.mktemp("repro")
    lines = ["name: repro", "n: 3", "time: 1", "rounds: 1", "format: gauntlet", "sandbox: off", "concurrency: 2",
             "openings: {plies: 0}", "engines:", "  - {name: rnd, builtin: random, options: {seed: 7}}",
             "  - {name: grd, builtin: greedy, options: {seed: 1}}"]
    for fake in FAKE_LIST:
        (folder / fake.name).mkdir()
        shutil.copy(FAKES / fake.file, folder / fake.name / fake.file)
        lines.append(f"  - {{name: {fake.name}, command: python3 {fake.name}/{fake.file}}}")
    (folder / "t.yaml").write_text("\n".join(lines) + "\n")
    db = folder / "t.sqlite"
    done = arena("tournament", str(folder / "t.yaml"), "--db", str(db), "--no-progress")
    assert done.returncode == 0, done.stderr
    with Store(db, read_only=True) as store:
        games = {(row.x, row.o): row.id for row in store.game_rows()}
    return Played(db, folder, games)


def _fault_game(played: Played, name: str) -> int:
    return played.games[(name, "rnd")]


@pytest.mark.parametrize("name", list(FAKES_BY_NAME))
def test_each_kind_of_fault_keeps_a_capsule_of_the_exact_call(played: Played, name: str) -> None:
    fake = FAKES_BY_NAME[name]
    program = played.folder / name / fake.file
    with Store(played.db, read_only=True) as store:
        record = store.game_record(_fault_game(played, name))
    fault = record.fault
    assert fault is not None and fault.capsule is not None
    capsule = fault.capsule
    assert capsule.argv == (sys.executable, str(program), "3", "x", EMPTY, "1")
    assert capsule.command_length == 2
    assert (capsule.game, capsule.size, capsule.player, capsule.board) == ("betsy", "3", "x", EMPTY)
    assert capsule.program == str(program)
    assert capsule.sha256 == hashlib.sha256(program.read_bytes()).hexdigest()
    assert (capsule.seconds, capsule.grace, capsule.allow_fractional) == (1.0, 0.5, False)
    assert (capsule.sandbox, capsule.stdout_bytes, capsule.stderr_bytes, capsule.address_space, capsule.file_bytes,
            capsule.processes, capsule.cpu_limit) == (False, 1 << 20, 1 << 20, 4 << 30, 64 << 20, 64, 3)
    assert (capsule.verdict, capsule.exit_status, capsule.killed, capsule.detail) == (
        fake.verdict, fake.exit_status, fake.killed, fake.detail)
    assert (fault.verdict, fault.exit_status, fault.detail) == (fake.verdict, fake.exit_status, fake.detail)
    assert capsule.cpu_seconds is not None and 0 < capsule.cpu_seconds < 3
    assert capsule.peak_memory is not None and capsule.peak_memory > 1 << 20
    assert capsule.wall_seconds == record.moves[-1].seconds
    if fake.verdict is Verdict.TIME:
        assert capsule.wall_seconds >= 1.5 and capsule.run_queue is not None and capsule.cores is not None
    else:
        assert (capsule.run_queue, capsule.cores, capsule.stall) == (None, None, "") or fake.killed
    assert capsule.first_attempt is None


def test_a_program_that_touches_200_mib_shows_a_peak_of_at_least_200_mib(played: Played) -> None:
    with Store(played.db, read_only=True) as store:
        capsule = store.game_record(_fault_game(played, "crash")).fault.capsule  # type: ignore[union-attr]
    assert capsule is not None and capsule.peak_memory is not None
    assert capsule.peak_memory >= 200 << 20


def test_a_spinning_program_shows_cpu_time_near_its_wall_time() -> None:
    """One busy thread cannot use more CPU than the wall time, and gets at least a share of it."""
    result = ask([sys.executable, str(FAKES / "spins.py")], Position.from_text(3, "x", EMPTY), Clock(2, 1), Limits())
    assert result.verdict is Verdict.TIME and result.cpu_seconds is not None
    assert 0.5 <= result.cpu_seconds <= result.seconds + 0.05


def _rows(output: str) -> dict[str, list[str]]:
    """The then/now table of ``arena repro``: each row's label and its words."""
    table: dict[str, list[str]] = {}
    for line in output.splitlines():
        label = line[:11].strip()
        if label in ("verdict", "exit", "cpu", "memory", "wall", "time fault"):
            table[label] = line[11:].split()
    return table


@pytest.mark.parametrize("name", list(FAKES_BY_NAME))
def test_repro_runs_each_fault_again_and_prints_then_beside_now(played: Played, name: str) -> None:
    fake = FAKES_BY_NAME[name]
    program = played.folder / name / fake.file
    game = _fault_game(played, name)
    done = arena("repro", str(played.db), str(game))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    digest = hashlib.sha256(program.read_bytes()).hexdigest()
    assert lines[:3] == [
        f"game {game} (n3:r1:rnd:{name}:b), ply 1: x ({name}) to move in betsy 3 {EMPTY}",
        f"program: {program}, SHA-256 {digest[:12]}... (unchanged)",
        f"argv: {sys.executable} {program} 3 x {EMPTY} 1",
    ]
    table = _rows(done.stdout)
    assert table["verdict"] == [fake.verdict.value, fake.verdict.value]
    exit_text = {None: [], -11: ["signal", "11", "(SIGSEGV)"], 3: ["status", "3"], 0: ["status", "0"]}
    expected_exit = ["killed", "by", "the", "referee"] if fake.killed else exit_text[fake.exit_status]
    assert table["exit"] == expected_exit * 2
    assert f"detail then: {fake.detail}" in lines
    assert f"detail now:  {fake.detail}" in lines
    if name == "crash":
        then_mib, now_mib = int(table["memory"][0]), int(table["memory"][2])
        assert then_mib >= 200 and now_mib >= 200
        assert "then stderr| allocated 200 MiB" in lines and "now stderr| allocated 200 MiB" in lines
    if name == "hang":
        assert table["time fault"][0] in ("slow:", "stalled:")


def test_repro_refuses_a_program_whose_file_changed_since_the_game(played: Played) -> None:
    program = played.folder / "segv" / "segfaults.py"
    before = program.read_bytes()
    try:
        program.write_bytes(before + b"# changed\n")
        done = arena("repro", str(played.db), str(_fault_game(played, "segv")))
        now = hashlib.sha256(program.read_bytes()).hexdigest()
    finally:
        program.write_bytes(before)
    was = hashlib.sha256(before).hexdigest()
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"arena: error: the program changed since the game: SHA-256 {was[:12]}... then, "
                           f"{now[:12]}... now; repro needs the program as it was\n")


def test_repro_reruns_an_answered_ply_from_the_position_before_it(played: Played) -> None:
    """Ply 1 of the game where the faulty program plays o is the random engine's (seeded) move."""
    game = played.games[("rnd", "segv")]
    with Store(played.db, read_only=True) as store:
        first = store.game_record(game).moves[0]
    done = arena("repro", str(played.db), str(game), "--ply", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"game {game} (n3:r1:rnd:segv:a), ply 1: x (rnd) to move in betsy 3 {EMPTY}"
    table = _rows(done.stdout)
    assert table["verdict"] == ["ok", str(first.move), "ok", str(first.move)]
    assert table["cpu"][:2] == ["not", "recorded"]
    assert f"now stdout| {first.move} {first.board}" in done.stdout.splitlines()


@pytest.mark.parametrize(("args", "message"), [
    (["99"], "{db} has no game '99'; list them with 'arena games {db}'"),
    (["{clean}"], "game {clean} has no fault (it ended: {reason}); give --ply N to run one of its calls again"),
    (["{clean}", "--ply", "999"], "game {clean} has no ply 999; give --ply 1 to {plies}"),
])
def test_repro_refuses_in_one_line_what_it_cannot_run(played: Played, args: list[str], message: str) -> None:
    clean = played.games[("rnd", "grd")]
    with Store(played.db, read_only=True) as store:
        record = store.game_record(clean)
    values = {"db": played.db, "clean": clean, "reason": record.reason, "plies": record.plies}
    done = arena("repro", str(played.db), *(arg.format(**values) for arg in args))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"arena: error: {message.format(**values)}\n"


def test_an_imported_capsule_with_a_wrong_value_is_refused_naming_the_field(played: Played) -> None:
    with Store(played.db, read_only=True) as store:
        fault = store.game_data(_fault_game(played, "segv"))["fault"]
    fault["capsule"]["cpu_seconds"] = "fast"
    with pytest.raises(RecordRefused, match=re.escape("fault.capsule.cpu_seconds: expected a number from 0 to "
                                                      "1e+09, got 'fast'")):
        fault_from_data(fault, "fault")


def test_a_sandboxed_fault_keeps_the_sandbox_its_wrapped_argv_and_its_peak_memory() -> None:
    """In the sandbox the engine is bwrap's grandchild: its rusage reaches the referee through bwrap."""
    from tests.conftest import require_sandbox

    require_sandbox()
    program = FAKES / "allocates_then_crashes.py"
    result = ask([sys.executable, str(program)], Position.from_text(3, "x", EMPTY), Clock(1), Limits(sandbox=True))
    capsule = result.capsule
    assert capsule is not None and (capsule.verdict, capsule.exit_status, capsule.sandbox) == (
        Verdict.NO_ANSWER, 3, True)
    assert capsule.spawn_argv[0] == "bwrap" and capsule.spawn_argv[-6:] == capsule.argv
    assert capsule.peak_memory is not None and capsule.peak_memory >= 200 << 20
