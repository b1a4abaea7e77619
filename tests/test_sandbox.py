"""The sandbox against hostile engines: small real programs that attack what a student could reach,
played in real tournaments and matches through the CLI. Each hostile engine forfeits with
``LEAKED: ...`` on stderr when an attack works, and otherwise plays a legal move."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engines.tablebase import table_name
from harness.referee import sandbox as sandbox
from harness.games.betsy.rules import PLAYERS, Position
from harness.referee.programs import inside
from harness.referee.protocol import Clock, Verdict
from harness.referee.referee import Limits, ask
from tests.conftest import ARENA, ROOT, SEED_BOARD, cannot_run_here, live_descendants, namespaced_processes, require_sandbox

HOSTILE = ROOT / "tests" / "fake_engines" / "hostile"
SECRET = ("ARENA_TEST_SECRET", "operator-token-4242")
SEED = Position.from_text(3, "o", SEED_BOARD)

pytestmark = pytest.mark.setting  # scripts/test_settings runs these in the other settings too


@pytest.fixture(autouse=True)
def _sandbox_works() -> None:
    require_sandbox()


def sandbox_uid_processes() -> list[int]:
    """Live processes started by this test process that run as a sandbox uid (root runs engines as
    uids from 1,800,000,000)."""
    return sorted(pid for pid, fields in live_descendants().items() if int(fields["Uid"].split()[0]) >= 1_800_000_000)


def arm(folder: Path, targets: dict[str, object], engine: str) -> Path:
    """A copy of the hostile engine ``engine`` in ``folder``, a folder of its own (with what it shares
    with the others and its targets beside it); its program file."""
    folder.mkdir(parents=True)
    for name in (f"{engine}.py", "_attack.py"):
        shutil.copy(HOSTILE / name, folder / name)
    (folder / "targets.json").write_text(json.dumps(targets))
    return folder / f"{engine}.py"


def digest(folder: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())}


def run_arena(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, **{SECRET[0]: SECRET[1]})
    return subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=600, cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL)


def replay_matches_record(db: Path) -> list[str]:
    """Problems found by replaying every stored game with the rules (empty when all agree)."""
    problems = []
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        games = connection.execute(
            "SELECT id, game_id, n, start_player, start_board, result, winner, termination, reason, plies "
            "FROM games").fetchall()
        for row_id, game_id, n, player, board, result, winner, termination, reason, plies in games:
            position = Position.from_text(n, player, board)
            moves = connection.execute(
                "SELECT move, board, verdict FROM moves WHERE game = ? ORDER BY ply", (row_id,)).fetchall()
            for move, after, verdict in moves:
                if verdict != "ok":
                    break
                position.push(move)
                if position.board() != after:
                    problems.append(f"{game_id}: stored board {after} is not the result of {move}")
            if len(moves) != plies:
                problems.append(f"{game_id}: {plies} plies recorded, {len(moves)} moves stored")
            if termination == "line":
                outcome = position.outcome()
                played = None if outcome is None else PLAYERS[outcome.winner]
                if played != winner or result != {"x": "1-0", "o": "0-1"}.get(winner):
                    problems.append(f"{game_id}: stored {result} ({winner}) but the line is {played}'s")
            elif termination == "max-plies" and (result, winner) != ("1/2-1/2", None):
                problems.append(f"{game_id}: a max-plies game stored as {result}")
            if "TAMPERED" in reason or "LEAKED" in reason:
                problems.append(f"{game_id}: {reason}")
    return problems


def test_hostile_engines_in_a_sandboxed_tournament_change_nothing_and_reach_nothing(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    db = results / "hostile.sqlite"
    tables = Path(os.environ["BETSY_TABLES"])
    (tables / table_name(3)).write_bytes(hashlib.sha256(b"table").digest() * 64)
    tables_before = digest(tables)
    home = tmp_path / "operator-home"
    home.mkdir()
    (home / "notes.txt").write_text("private\n")
    rival = tmp_path / "rival"
    rival.mkdir()
    shutil.copy(ROOT / "tests" / "fake_engines" / "students" / "_common.py", rival / "_common.py")
    shutil.copy(ROOT / "tests" / "fake_engines" / "students" / "random_legal.py", rival / "rival.py")
    targets = {
        "db": str(db), "table": str(tables / table_name(3)), "secret_variable": SECRET[0],
        "files": [str(ROOT / "engines" / "random_mover.py"), str(ROOT / "README.md"), str(db),
                  str(rival / "rival.py"), str(home / "notes.txt")],
        "folders": [str(results), str(home), str(rival), str(tables), str(ROOT / "harness")],
        "cap_bytes": 64 << 20, "budget_bytes": 128 << 20, "cap_processes": 64,
        "fence": [str(tmp_path), str(tables)],  # where the attacks may write, should the sandbox fail
    }
    hostile = ["tamper_db", "tamper_tables", "snoop", "disk_hog", "fork_bomb"]
    for name in hostile:
        arm(tmp_path / name, targets, name)
    engines = "\n".join(f"  - {{name: {name.replace('_', '-')}, command: python3 {name}/{name}.py}}"
                        for name in hostile)
    config = tmp_path / "hostile.yaml"
    config.write_text(f"""
name: hostile
n: [4]
time: 1
grace: 10
max_plies: 6
format: gauntlet
rounds: 1
openings: {{plies: 0}}
concurrency: 2
sandbox: required
engines:
  - {{name: rnd, builtin: random}}
  - {{name: rival, command: python3 rival/rival.py}}
{engines}
""")
    before = namespaced_processes()
    done = run_arena(["tournament", str(config), "--db", str(db), "--no-progress"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        games = connection.execute("SELECT count(*), count(DISTINCT game_id) FROM games").fetchone()
        faults = connection.execute("SELECT game_id, fault_json FROM games WHERE fault_json IS NOT NULL").fetchall()
        details = connection.execute("SELECT detail FROM moves WHERE verdict != 'ok'").fetchall()
    assert games == (12, 12)  # 6 opponents of rnd, each game played once, colours swapped
    assert faults == [] and details == [], f"an attack worked, or an engine failed: {faults} {details}"
    assert replay_matches_record(db) == []
    assert digest(tables) == tables_before
    assert namespaced_processes() <= before
    assert sandbox_uid_processes() == []


def test_the_same_attacks_work_without_the_sandbox_and_off_warns(tmp_path: Path) -> None:
    # Shows that the hostile engines can fail the test above: unconfined, the snoop finds the secret.
    snoop = arm(tmp_path / "snoop", {"secret_variable": SECRET[0], "files": [str(ROOT / "README.md")]}, "snoop")
    command = f"python3 {snoop}"
    off = run_arena(["match", command, "random", "--n", "4", "--sandbox", "off", "--json"], tmp_path)
    assert off.returncode == 0, off.stderr
    assert off.stderr.splitlines() == [
        "arena: warning: sandbox off: engines run unconfined, with your rights, files and environment"]
    record = json.loads(off.stdout)
    assert record["termination"] == "forfeit"
    assert record["fault"]["verdict"] == "no-answer"
    assert f"LEAKED: the environment holds {SECRET[0]}={SECRET[1]}" in record["fault"]["stderr_tail"]
    on = run_arena(["match", command, "random", "--n", "4", "--max-plies", "4", "--sandbox", "required",
                    "--json"], tmp_path)
    assert on.returncode == 0, on.stderr
    assert on.stderr == ""
    record = json.loads(on.stdout)
    assert record["termination"] == "max-plies" and record["fault"] is None


# --- each attack works unconfined, and the sandbox stops it ----------------------------------------
# The same program, with the same targets, run once with the sandbox off (the referee's rlimits only)
# and once with it on. Every attempt reports itself (tests/fake_engines/hostile/_attack.py): LEAKED
# and the engine forfeits, or BLOCKED with the reason and it plays on. What the attacks write is
# fenced inside tmp_path, and the hog and the bomb are bounded by their targets.

OFF = Limits(sandbox=False)
ON = Limits(sandbox=True)
"""The referee's limits without and with the sandbox."""
CLOCK = Clock(5, grace=10)
"""Time to spare on a loaded machine."""


def attack(program: Path, limits: Limits) -> tuple[str, list[str]]:
    """(verdict, stderr lines) of one call of a hostile engine in the seed position."""
    result = ask([sys.executable, str(program)], SEED, CLOCK, limits)
    return result.verdict.value, result.stderr_tail.splitlines()


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process that has the secret variable in its environment and a database on its command line,
    as the harness running a tournament has."""
    database = tmp_path / "held.sqlite"
    env = dict(os.environ, **{SECRET[0]: SECRET[1]})
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", str(database)], env=env)
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def games_of(db: Path) -> list[tuple[str, str | None, str]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        rows: list[tuple[str, str | None, str]] = connection.execute(
            "SELECT result, winner, reason FROM games ORDER BY id").fetchall()
    return rows


def test_tamper_db_rewrites_results_unconfined_and_reaches_none_in_the_sandbox(
    tmp_path: Path, tiny_db: Path, holder: subprocess.Popen[bytes]
) -> None:
    named, held = tmp_path / "results.sqlite", tmp_path / "held.sqlite"
    program = arm(tmp_path / "tamper", {"db": str(named), "fence": [str(tmp_path)]}, "tamper_db")

    def fresh_copies() -> None:
        for path in (named, held):
            with sqlite3.connect(tiny_db) as source, sqlite3.connect(path) as copy:
                source.backup(copy)

    fresh_copies()
    honest = games_of(named)
    assert len(honest) == 2 and all(reason != "TAMPERED" for _, _, reason in honest)
    assert attack(program, OFF) == ("no-answer", [f"LEAKED: rewrote 2 games in {held}",
                                                  f"LEAKED: rewrote 2 games in {named}"])
    assert games_of(named) == games_of(held) == [("1-0", "x", "TAMPERED")] * 2
    fresh_copies()
    assert attack(program, ON) == ("ok", ["BLOCKED: find a database on a process's command line: none seen",
                                          f"BLOCKED: rewrite {named}: unable to open database file"])
    assert games_of(named) == games_of(held) == honest


def test_tamper_tables_overwrites_the_table_unconfined_and_cannot_in_the_sandbox(tmp_path: Path) -> None:
    table = tmp_path / "tables" / "betsy3-mover.tb"
    table.parent.mkdir()
    content = hashlib.sha256(b"table").digest() * 4
    program = arm(tmp_path / "tamper", {"table": str(table), "fence": [str(tmp_path)]}, "tamper_tables")
    table.write_bytes(content)
    assert attack(program, OFF) == ("no-answer", [f"LEAKED: overwrote {table}",
                                                  "LEAKED: created a file beside the tables"])
    assert table.read_bytes() == b"\0" * 16 + content[16:]
    assert (table.parent / "planted.tb").read_bytes() == b"\0" * 16
    table.write_bytes(content)
    (table.parent / "planted.tb").unlink()
    assert attack(program, ON) == ("ok", [f"BLOCKED: overwrite {table}: No such file or directory",
                                          "BLOCKED: create a file beside the tables: No such file or directory"])
    assert table.read_bytes() == content and sorted(os.listdir(table.parent)) == ["betsy3-mover.tb"]


def test_snoop_finds_secrets_and_files_unconfined_and_nothing_in_the_sandbox(
    tmp_path: Path, holder: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(*SECRET)  # the harness's environment: the unconfined engine inherits it
    rival = tmp_path / "rival" / "rival.py"
    rival.parent.mkdir()
    rival.write_text("print('my secret opening')\n")
    results = tmp_path / "results"
    results.mkdir()
    (results / "course.sqlite").write_bytes(b"")
    (tmp_path / "arena-engine-other").mkdir()  # another engine's scratch folder
    program = arm(tmp_path / "snoop", {"secret_variable": SECRET[0], "files": [str(rival)], "folders": [str(results)],
                                       "scratch": str(tmp_path / "arena-engine-*")}, "snoop")
    verdict, lines = attack(program, OFF)
    assert verdict == "no-answer"
    # Other processes of this machine may hold the variable too (other tests' arena runs): the
    # holder must be among them.
    assert f"LEAKED: /proc/{holder.pid}/environ holds {SECRET[0]}" in lines
    assert [line for line in lines if not line.startswith("LEAKED: /proc/")] == [
        f"LEAKED: the environment holds {SECRET[0]}={SECRET[1]}",
        f"LEAKED: read 27 bytes of {rival}",
        f"LEAKED: listed {results}: ['course.sqlite']",
        f"LEAKED: found other engines' scratch folders: ['{tmp_path / 'arena-engine-other'}']",
    ]
    assert attack(program, ON) == ("ok", [
        f"BLOCKED: read {SECRET[0]} in the environment: not there",
        f"BLOCKED: find {SECRET[0]} in another process's environment: none of the 1 others seen holds it",
        f"BLOCKED: read {rival}: No such file or directory",
        f"BLOCKED: list {results}: No such file or directory",
        "BLOCKED: find other engines' scratch folders: none seen",
    ])


def test_disk_hog_fills_past_the_cap_unconfined_and_is_stopped_at_it_in_the_sandbox(tmp_path: Path) -> None:
    # Both runs hold the referee's file size limit (4 MiB a file); only the sandbox caps a folder.
    # Unconfined, the hog writes 12 MiB (its budget) into the referee's scratch folder, emptied after.
    cap = 4 << 20
    program = arm(tmp_path / "hog", {"cap_bytes": cap, "budget_bytes": 3 * cap, "places": ["."]}, "disk_hog")
    assert attack(program, Limits(sandbox=False, file_bytes=cap)) == (
        "no-answer", [f"LEAKED: wrote {3 * cap} bytes to . in 3 files (cap {cap})"])
    assert attack(program, Limits(sandbox=True, file_bytes=cap)) == (
        "ok", [f"BLOCKED: write over {cap} bytes to .: stopped at {cap} bytes: No space left on device"])


def test_fork_bomb_starts_its_processes_unconfined_and_is_stopped_short_in_the_sandbox(tmp_path: Path) -> None:
    # Bounded by its target: unconfined it starts 16 sleepers, which the referee kills with its group.
    program = arm(tmp_path / "bomb", {"cap_processes": 16}, "fork_bomb")
    before = set(live_descendants())
    assert attack(program, Limits(sandbox=False, processes=16)) == (
        "no-answer", ["LEAKED: started 16 processes (cap 16)"])
    assert set(live_descendants()) - before == set()
    # In the sandbox the engine itself is the sixteenth.
    assert attack(program, Limits(sandbox=True, processes=16)) == (
        "ok", ["BLOCKED: start 16 processes: stopped at 15: Resource temporarily unavailable"])
    assert set(live_descendants()) - before == set() and sandbox_uid_processes() == []


def call(command: list[str], limits: Limits = Limits(sandbox=True)) -> tuple[str, str]:
    """(verdict, stderr) of one sandboxed call of a small program in the seed position."""
    result = ask(command, SEED, Clock(2), limits)
    return result.verdict.value, result.stderr_tail


def test_file_size_and_folder_sizes_are_capped_and_configurable(tmp_path: Path) -> None:
    aims: dict[str, object] = {"cap_bytes": 8 << 20, "budget_bytes": 32 << 20}
    hog = arm(tmp_path / "large", aims, "disk_hog")
    verdict, stderr = call([sys.executable, str(hog)], Limits(sandbox=True, file_bytes=8 << 20))
    assert (verdict, stderr) == ("ok", "".join(
        f"BLOCKED: write over {8 << 20} bytes to {place}: stopped at {8 << 20} bytes: No space left on device\n"
        for place in (".", "/tmp")))
    # The cap binds: the same program, told the cap is 4 MiB, reports a write over it.
    hog = arm(tmp_path / "small", {**aims, "cap_bytes": 4 << 20}, "disk_hog")
    verdict, stderr = call([sys.executable, str(hog)], Limits(sandbox=True, file_bytes=8 << 20))
    assert verdict == "no-answer"
    assert stderr == "".join(f"LEAKED: wrote {8 << 20} bytes to {place} in 1 file (cap {4 << 20})\n"
                             for place in (".", "/tmp"))


def test_process_cap_counts_threads_and_is_configurable(tmp_path: Path) -> None:
    code = ("import threading, time\n"
            "started = 0\n"
            "try:\n"
            "    for _ in range(100):\n"
            "        threading.Thread(target=time.sleep, args=(5,), daemon=True).start(); started += 1\n"
            "except RuntimeError:\n"
            "    pass\n"
            "import sys; print(started, file=sys.stderr); print('2 ...x..o.oxooxxxoxo')\n")
    verdict, stderr = call([sys.executable, "-c", code], Limits(sandbox=True, processes=10))
    assert (verdict, stderr) == ("ok", "9\n")  # the engine's main thread is the tenth
    assert sandbox_uid_processes() == []


def test_inside_the_sandbox_only_allowed_variables_and_paths_are_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(*SECRET)
    code = ("import json, os, sys\n"
            "print(json.dumps({'env': dict(os.environ), 'cwd': os.getcwd(), "
            "'pids': sorted(int(p) for p in os.listdir('/proc') if p.isdigit())}), file=sys.stderr)\n"
            "print('2 ...x..o.oxooxxxoxo')\n")
    verdict, stderr = call([sys.executable, "-c", code])
    assert verdict == "ok"
    seen = json.loads(stderr)
    passed = {"HOME", "PATH", "PWD", "PYTHONUNBUFFERED", "TMPDIR", *(n for n in os.environ if n.startswith("LC_")),
              *(n for n in ("LANG", "LANGUAGE", "TZ") if n in os.environ)}
    assert sorted(seen["env"]) == sorted(passed)
    assert (seen["cwd"], seen["env"]["HOME"]) == (sandbox.SCRATCH, sandbox.SCRATCH)
    assert seen["pids"] == [1, 2]  # bwrap's init and the engine: no process of the host


def test_no_network_inside_the_sandbox() -> None:
    code = ("import socket, sys\n"
            "names = sorted(n for _, n in socket.if_nameindex())\n"
            "try:\n"
            "    socket.create_connection(('127.0.0.1', 9), timeout=1); how = 'connected'\n"
            "except OSError as error:\n"
            "    how = type(error).__name__\n"
            "print(names, how, file=sys.stderr); print('2 ...x..o.oxooxxxoxo')\n")
    verdict, stderr = call([sys.executable, "-c", code])
    assert (verdict, stderr) == ("ok", "['lo'] ConnectionRefusedError\n")


def test_the_engine_has_no_capabilities_and_writes_only_its_private_folders() -> None:
    code = ("import os, sys\n"
            "caps = [l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')]\n"
            "seen = []\n"
            "for folder in ('/', '/usr', '/etc', '/dev', '/dev/shm', '/tmp', os.getcwd(), os.path.dirname(sys.executable)):\n"
            "    try:\n"
            "        open(os.path.join(folder, 'planted'), 'w').close(); seen.append('written')\n"
            "    except OSError as error:\n"
            "        seen.append(error.strerror)\n"
            "print(caps[0], seen, file=sys.stderr); print('2 ...x..o.oxooxxxoxo')\n")
    verdict, stderr = call([sys.executable, "-c", code])
    assert verdict == "ok"
    read_only = "Read-only file system"
    assert stderr == f"0000000000000000 {[read_only] * 4 + ['written'] * 3 + [read_only]}\n"


def test_plan_makes_readable_only_the_program_folder_and_its_interpreter(tmp_path: Path) -> None:
    program = tmp_path / "student" / "betsy.py"
    program.parent.mkdir()
    program.write_text("print()\n")
    data = tmp_path / "book.dat"
    data.write_text("x")
    plan = sandbox.plan_for((sys.executable, str(program), "--book", str(data)))
    # The interpreter's files, whichever Python runs the suite (a venv's, pyenv's, the system's): its
    # venv, if any, and the installation it runs on. Each is bound unless it lies in a system folder
    # (/usr with the system's Python), which the sandbox binds for every engine.
    prefixes = {sys.prefix, os.path.realpath(sys.base_prefix)}
    bound_for_all = [top for top in ("/usr", "/etc") if os.path.isdir(top)]
    own = {path for path in prefixes if not any(inside(path, top) for top in bound_for_all)}
    own = {path for path in own if not any(path != other and inside(path, other) for other in own)}
    assert sorted(plan.readable) == sorted({str(program.parent), str(data), *own})  # and nothing else
    argv = sandbox.bwrap_argv(plan, sandbox.Caps())
    bound = [argv[at + 1] for at, word in enumerate(argv) if word == "--ro-bind"]
    assert all(any(inside(prefix, path) for path in bound) for prefix in prefixes), (prefixes, bound)
    assert str(ROOT) not in plan.readable  # a student's program does not see the project
    assert plan.env == ()
    builtin = sandbox.plan_for((sys.executable, str(ROOT / "engines" / "greedy.py")))
    assert str(ROOT) in builtin.readable
    assert builtin.env == (("BETSY_TABLES", os.path.abspath(os.environ["BETSY_TABLES"])),)


def test_as_root_the_sandbox_is_refused_when_an_engines_user_cannot_read_what_built_in_engines_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root runs each engine as a user of its own: a file of the built-in engines that only root can
    read (a checkout or venv made under a umask of 077) would make them fail in every game. The sandbox
    is refused up front, naming the outermost closed folder and the fix; an ordinary user's engines run
    as that user, who reads it."""
    tables = tmp_path / "tables"  # bound for the built-in engines as it is ($BETSY_TABLES)
    (tables / "deep").mkdir(parents=True)
    (tables / "deep").chmod(0o755)
    (tables / "deep" / "part.py").write_text("")
    (tables / "deep" / "part.py").chmod(0o644)
    tables.chmod(0o700)
    monkeypatch.setenv("BETSY_TABLES", str(tables))
    needed = sandbox.engine_files()
    monkeypatch.setattr(sandbox, "engine_files", lambda: [*needed, str(tables / "deep" / "part.py")])
    works, why, fix = sandbox._probe()
    if os.geteuid() != 0:
        assert (works, why, fix) == (True, "", "")
        return
    assert (works, fix) == (False, sandbox.READABLE_HINT)
    assert why == (f"as root, the sandbox runs each engine as a user of its own, who cannot read {tables} (mode 0700), "
                   f"which the built-in engines need")
    tables.chmod(0o711)  # entered, not listed: enough to read a file by its name
    (tables / "deep" / "part.py").chmod(0o600)
    assert sandbox._probe()[1].startswith(f"as root, the sandbox runs each engine as a user of its own, who cannot read "
                                          f"{tables / 'deep' / 'part.py'} (mode 0600)")
    (tables / "deep" / "part.py").chmod(0o644)
    assert sandbox._probe() == (True, "", "")


def test_required_without_bwrap_refuses_and_auto_warns(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "PATH"}
    env["PATH"] = str(tmp_path)  # no bwrap, prlimit or setpriv here
    for name in ("python3",):
        (tmp_path / name).symlink_to(sys.executable)
    argv = [ARENA, "match", "random", "random", "--n", "3", "--max-plies", "2", "--json"]
    required = subprocess.run([*argv, "--sandbox", "required"], capture_output=True, text=True, env=env,
                              timeout=120)
    assert required.returncode == 2
    assert required.stderr == (
        "arena: error: sandbox required, but bwrap (bubblewrap) is not installed; "
        f"{sandbox.INSTALL_HINT}, or set the sandbox to auto or off\n")
    auto = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert auto.returncode == 0, auto.stderr
    assert auto.stderr == (
        "arena: warning: engines run without a sandbox: bwrap (bubblewrap) is not installed; "
        f"{sandbox.INSTALL_HINT} (or give --sandbox off to silence this)\n")
    assert json.loads(auto.stdout)["termination"] == "max-plies"


def test_exit_status_of_a_signalled_engine_is_the_signal_in_both_modes() -> None:
    code = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    for confined in (False, True):
        result = ask([sys.executable, "-c", code], SEED, Clock(1), Limits(sandbox=confined))
        assert result.verdict is Verdict.NO_ANSWER
        assert (result.exit_status, result.detail) == (-11, "killed by signal 11, printed nothing on stdout")


def test_killing_the_referee_kills_the_sandboxed_engine(tmp_path: Path) -> None:
    script = tmp_path / "referee.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from harness.games.betsy.rules import Position\n"
        "from harness.referee.protocol import Clock\n"
        "from harness.referee.referee import Limits, ask\n"
        "print('asking', flush=True)\n"
        f"ask([sys.executable, {str(ROOT / 'tests' / 'fake_engines' / 'hangs.py')!r}], "
        f"Position.from_text(3, 'o', {SEED_BOARD!r}), Clock(60), Limits(sandbox=True))\n")
    before = namespaced_processes()
    referee = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert referee.stdout is not None and referee.stdout.readline() == "asking\n"
        for _ in range(200):  # the engine appears inside its namespace
            if namespaced_processes() - before:
                break
            time.sleep(0.05)
        assert namespaced_processes() - before, "the sandboxed engine never started"
    finally:
        referee.kill()
        referee.wait()
    for _ in range(100):
        if not namespaced_processes() - before:
            break
        time.sleep(0.05)
    assert namespaced_processes() <= before
    assert sandbox_uid_processes() == []


def test_a_program_in_a_private_folder_runs(tmp_path: Path) -> None:
    # mkdtemp makes 0700 folders; under root the engine runs as another uid, which must still read it.
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    shutil.copy(ROOT / "tests" / "fake_engines" / "students" / "_common.py", folder / "_common.py")
    shutil.copy(ROOT / "tests" / "fake_engines" / "students" / "greedy_student.py", folder / "betsy.py")
    (folder / "betsy.py").chmod(0o600)
    assert folder.stat().st_mode & 0o777 == 0o700
    result = ask([sys.executable, str(folder / "betsy.py")], SEED, Clock(2), Limits(sandbox=True))
    assert result.verdict is Verdict.OK, result
    assert (folder / "betsy.py").stat().st_mode & 0o777 == 0o600  # the program's own files untouched


def test_the_projects_own_programs_see_the_project_and_the_tables() -> None:
    # scripts/betsy.py (the file students submit) imports the engines: it runs as a built-in does.
    for program in ([sys.executable, str(ROOT / "scripts" / "betsy.py")], [str(ROOT / "scripts" / "betsy.py")]):
        plan = sandbox.plan_for(tuple(program))
        assert str(ROOT) in plan.readable
        result = ask(program, SEED, Clock(1), Limits(sandbox=True))
        assert result.verdict is Verdict.OK, result
    fake = sandbox.plan_for((sys.executable, str(ROOT / "tests" / "fake_engines" / "hangs.py")))
    assert str(ROOT) not in fake.readable and fake.env == ()  # test programs are run as students'


def test_a_forked_worker_stages_into_its_own_folder_and_removes_only_that(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = tmp_path / "prog"
    program.mkdir()
    (program / "engine.py").write_text("print('1 board')\n")
    monkeypatch.setattr(sandbox, "_STAGE_ROOT", None)
    monkeypatch.setattr(sandbox, "_STAGE_OWNER", 0)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    copy = sandbox._stage(str(program))
    assert copy is not None and (Path(copy) / "engine.py").read_text() == "print('1 board')\n"
    parent_root = sandbox._STAGE_ROOT
    assert parent_root is not None
    pid = os.fork()
    if pid == 0:  # the worker: its copies go to a folder of its own, and only that one is removed
        status = 1
        try:
            child_copy = sandbox._stage(str(program))
            child_root = sandbox._STAGE_ROOT
            sandbox.remove_staged()
            if child_copy is not None and child_root != parent_root and not os.path.exists(child_root or ""):
                status = 0
        finally:
            os._exit(status)
    _, wait_status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(wait_status) == 0
    assert Path(copy, "engine.py").is_file()  # the parent's copy survived the worker
    sandbox.remove_staged()
    assert not os.path.exists(parent_root)


# --- who sees what: identity, binds and layouts ------------------------------------------------------


def reader(folder: Path, paths: list[Path], name: str = "betsy.py") -> Path:
    """The reader (tests/fake_engines/hostile/reader.py) as a student's program in ``folder``, with
    a helper file of its own; it reports on stderr which of ``paths`` it can read, then forfeits."""
    program = arm(folder, {"read": [str(path) for path in paths]}, "reader")
    (folder / "helper.txt").write_text("mine\n")
    return program.rename(folder / name)


def reported(db: Path, engine: str) -> list[dict[str, str]]:
    """What ``engine`` reported it could read, once per game it forfeited."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        faults = [json.loads(row[0]) for row in connection.execute(
            "SELECT fault_json FROM games WHERE fault_json IS NOT NULL ORDER BY id")]
    return [json.loads(fault["stderr_tail"]) for fault in faults if fault["engine"] == engine]


@pytest.fixture
def in_checkout() -> Iterator[Path]:
    """A course folder inside the project checkout, removed afterwards (.gitignore'd meanwhile)."""
    folder = ROOT / f".arena-test-{os.getpid()}-{time.monotonic_ns()}"
    folder.mkdir()
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("where", ["checkout", "elsewhere"])
def test_a_submission_sees_its_own_folder_and_nothing_else_inside_or_outside_the_checkout(
    where: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    course = request.getfixturevalue("in_checkout") if where == "checkout" else tmp_path / "course"
    subs, results = course / "submissions", course / "results"
    db, log = results / "course.sqlite", results / "course.sqlite.log"
    bob = subs / "bob" / "betsy.py"
    bob.parent.mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "fake_engines" / "students" / "random_legal.py", bob)
    shutil.copy(ROOT / "tests" / "fake_engines" / "students" / "_common.py", bob.parent / "_common.py")
    tables = Path(os.environ["BETSY_TABLES"]) / table_name(3)
    tables.write_bytes(b"table")
    aims = [subs / "mallory" / "helper.txt", bob, db, log, ROOT / "README.md", ROOT / "scripts" / "betsy.py",
            ROOT / "engines" / "random_mover.py", tables]
    reader(subs / "mallory", aims)
    (course / "course.yaml").write_text("""
name: course
n: [4]
time: 1
grace: 10
max_plies: 4
rounds: 1
openings: {plies: 0}
concurrency: 2
sandbox: required
engines:
  - {name: rnd, builtin: random}
  - {name: bob, command: python3 submissions/bob/betsy.py}
  - {name: mallory, command: python3 submissions/mallory/betsy.py}
""")
    done = run_arena(["tournament", "course.yaml", "--db", str(db), "--no-progress"], course)
    assert done.returncode == 0, done.stderr
    seen = {str(path): "missing" for path in aims}
    seen[str(subs / "mallory" / "helper.txt")] = "read"
    assert reported(db, "mallory") == [seen] * 4  # her four games, each lost at her first move
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        bob_games = connection.execute(
            "SELECT termination FROM games WHERE 'bob' IN (x, o) AND 'rnd' IN (x, o)").fetchall()
    assert bob_games == [("max-plies",), ("max-plies",)]  # one folder per student just works


def system_python() -> str:
    found = shutil.which("python3", path="/usr/bin:/bin")
    if found is None:
        cannot_run_here("no system python3 in /usr/bin to link to (apt-get install python3)")
    return os.path.realpath(found)


def test_a_pyvenv_cfg_or_an_interpreter_in_the_students_folder_binds_nothing(tmp_path: Path) -> None:
    secret = tmp_path / "staff"
    (secret / "bin").mkdir(parents=True)
    (secret / "marks.txt").write_text("eve: 12/20\n")
    eve = tmp_path / "subs" / "eve"
    program = reader(eve, [eve / "helper.txt", secret / "marks.txt", secret])
    (eve / "bin").mkdir()
    (eve / "bin" / "python").symlink_to(system_python())
    (eve / "pyvenv.cfg").write_text(f"home = {secret / 'bin'}\n")  # what chose the bind: /ANY
    program.write_text(program.read_text().replace("#!/usr/bin/env python3", f"#!{eve / 'bin' / 'python'}", 1))
    program.chmod(0o755)
    saw = json.dumps({str(eve / "helper.txt"): "read", str(secret): "missing", str(secret / "marks.txt"): "missing"},
                     sort_keys=True)
    for command in ([str(program)], [str(eve / "bin" / "python"), str(program)]):
        assert sandbox.plan_for(tuple(command)).readable == (str(eve),)
        assert call(command) == ("no-answer", saw + "\n")
    # Before any game, the command line refuses such a program in one line, with the fix.
    done = run_arena(["match", "subs/eve/betsy.py", "random", "--n", "3"], tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"arena: error: engine 'subs/eve/betsy.py' ({program}): its #! line (#!{eve / 'bin' / 'python'}) names an "
        f"interpreter inside its own folder, which decides nothing in the sandbox; run it as 'python3 {program}', "
        "or name an interpreter outside its folder\n")
    done = run_arena(["validate", "subs/eve/bin/python subs/eve/betsy.py", "--quick"], tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"arena: error: engine 'subs/eve/bin/python subs/eve/betsy.py' ({program}): its interpreter "
        f"{eve / 'bin' / 'python'} lies inside its own folder, which decides nothing in the sandbox; run it with "
        "python3 or an interpreter outside its folder\n")


def test_side_by_side_programs_would_read_each_other_so_only_a_folder_each_is_accepted(tmp_path: Path) -> None:
    student = ROOT / "tests" / "fake_engines" / "students" / "random_legal.py"
    side = tmp_path / "side"
    ann = reader(side, [side / "bob.py", side / "helper.txt"], "ann.py")
    shutil.copy(student, side / "bob.py")
    # In one folder, the sandbox binds that folder: the wall is the refusal (tests/test_programs.py).
    assert call([sys.executable, str(ann)]) == ("no-answer", json.dumps(
        {str(side / "bob.py"): "read", str(side / "helper.txt"): "read"}, sort_keys=True) + "\n")
    apart = tmp_path / "apart"
    ann = reader(apart / "ann", [apart / "bob" / "bob.py", apart / "ann" / "helper.txt"], "ann.py")
    (apart / "bob").mkdir()
    shutil.copy(student, apart / "bob" / "bob.py")
    assert call([sys.executable, str(ann)]) == ("no-answer", json.dumps(
        {str(apart / "ann" / "helper.txt"): "read", str(apart / "bob" / "bob.py"): "missing"}, sort_keys=True) + "\n")


def test_a_link_to_our_program_is_not_ours_and_cannot_reach_its_target(tmp_path: Path) -> None:
    eve = tmp_path / "eve"
    eve.mkdir()
    (eve / "betsy.py").symlink_to(ROOT / "scripts" / "betsy.py")
    command = (sys.executable, str(eve / "betsy.py"))
    plan = sandbox.plan_for(command)
    scripts = str(ROOT / "scripts")
    assert str(eve) in plan.readable and plan.env == ()
    assert [path for path in plan.readable if scripts == path or scripts.startswith(path + "/")
            or path.startswith(scripts + "/")] == []  # neither the project nor scripts/
    verdict, stderr = call(list(command))
    assert verdict == "no-answer"
    assert "No such file or directory" in stderr  # the link leads nowhere inside: nothing of ours runs


def test_a_shebang_naming_another_folders_interpreter_binds_nothing_of_it(tmp_path: Path) -> None:
    # zed's folder holds a venv-like python and a pyvenv.cfg; eve's #! names zed's python.
    secret = tmp_path / "staff"
    secret.mkdir()
    (secret / "marks.txt").write_text("zed: 20/20\n")
    zed = tmp_path / "subs" / "zed"
    (zed / "bin").mkdir(parents=True)
    (zed / "bin" / "python").symlink_to(system_python())
    (zed / "pyvenv.cfg").write_text(f"home = {secret}\n")
    (zed / "betsy.py").write_text("print('1 x')\n")
    eve = tmp_path / "subs" / "eve"
    program = reader(eve, [eve / "helper.txt", zed / "betsy.py", secret / "marks.txt"])
    body = program.read_text().split("\n", 1)[1]
    for index, line in enumerate((f"#!{zed / 'bin' / 'python'}", f"#!/usr/bin/env {zed / 'bin' / 'python'}",
                                  "#!/usr/bin/env ../zed/bin/python")):
        variant = eve / f"variant{index}.py"  # a file each: plans are kept per command
        variant.write_text(f"{line}\n{body}")
        variant.chmod(0o755)
        assert sandbox.plan_for((str(variant),)).readable == (str(eve),), line
    # Naming the harness's own interpreter instead, the same program runs and still sees its folder only.
    program.write_text(f"#!{sys.executable}\n{body}")
    program.chmod(0o755)
    assert call([str(program)]) == ("no-answer", json.dumps(
        {str(eve / "helper.txt"): "read", str(secret / "marks.txt"): "missing", str(zed / "betsy.py"): "missing"},
        sort_keys=True) + "\n")


@pytest.mark.parametrize("engine", ["alphabeta", "mcts_alphabeta"])
def test_the_built_in_engines_search_on_the_native_core_inside_the_sandbox(engine: str) -> None:
    # Run as root, the sandbox runs the engine under a uid of its own: the core's modules must be
    # readable by it, or every search in a tournament silently runs in Python, twenty times slower.
    from harness.games.connect4.rules import initial_position

    command = [sys.executable, str(ROOT / "engines" / f"{engine}.py")]
    for position in (SEED, initial_position(7, 6)):
        result = ask(command, position, Clock(2), Limits(sandbox=True), ["--info", "--depth", "2"])
        assert result.verdict == Verdict.OK, result.detail
        assert result.stderr_tail.splitlines()[0] == "info core native", position


def test_an_env_command_runs_in_the_sandbox_with_its_variables() -> None:
    # `env ARENA_PURE=1 python3 engines/alphabeta.py` measures the engine without its core (as arena
    # sprt does): the sandbox must see the program env runs, or it finds neither script nor interpreter.
    from harness.referee.engine_specs import command_engine
    from harness.referee.referee import resolve_interpreter

    spec = command_engine("env ARENA_PURE=1 python3 engines/alphabeta.py", ROOT)
    result = ask(resolve_interpreter(spec.command), SEED, Clock(2), Limits(sandbox=True), ["--info", "--depth", "2"])
    assert result.verdict == Verdict.OK, result.detail
    assert result.stderr_tail.splitlines()[0] == "info core python (betsy_search: ARENA_PURE is set)"
