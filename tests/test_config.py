"""Tournament configs: real YAML files through load_config, and the exact messages users see."""

from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from harness.tournament.config import Opening, TournamentConfig, load_config
from harness.referee.engine_specs import ENGINES_DIR
from harness.errors import ConfigError
from harness.games.betsy.rules import initial_position
from harness.referee.sandbox import SandboxMode

ROOT = Path(__file__).resolve().parent.parent

ENGINES = "engines:\n  - {name: a, builtin: random}\n  - {name: b, builtin: greedy}\n"
TOP_KEYS = (
    "name, game, time, allow_fractional_time, grace, max_plies, win_priority, time_scale, n, size, concurrency, "
    "cluster, "
    "cluster_certs, sandbox, max_file_mb, max_processes, format, rounds, replay_stalls, openings, engines"
)
NAME_RULE = "expected letters, digits, '_', '.' or '-' (it names the results file)"


def write(folder: Path, text: str, name: str = "t.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path | str, concurrency: int | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path, concurrency)
    return str(info.value)


def problem(tmp_path: Path, text: str) -> tuple[Path, str]:
    """Write ``text`` as a config and return (path, message of the ConfigError it raises)."""
    path = write(tmp_path, text)
    return path, error_of(path)


# --- happy path ----------------------------------------------------------------------------------


def test_quick_yaml_loads_with_its_fields() -> None:
    path = ROOT / "configs" / "quick.yaml"
    config = load_config(path)
    assert isinstance(config, TournamentConfig)
    assert (config.name, config.rules.name, config.sizes) == ("quick", "betsy", ("5",))
    assert (config.settings.time, config.settings.allow_fractional_time, config.settings.grace) == (1.0, False, 0.5)
    assert (config.settings.max_plies, config.settings.win_priority, config.format) == (200, "mover", "round-robin")
    assert config.rounds == 1
    assert (config.openings_plies, config.openings_seed, config.openings_file) == (2, 1, None)
    assert config.opening_positions == {}
    assert config.path == str(path)
    assert [e.name for e in config.engines] == ["random", "greedy", "alphabeta", "mcts-alphabeta"]
    assert [e.builtin for e in config.engines] == ["random", "greedy", "alphabeta", "mcts-alphabeta"]
    assert config.engines[0].command == (sys.executable, str(ENGINES_DIR / "random_mover.py"))
    assert config.engines[1].command == (sys.executable, str(ENGINES_DIR / "greedy.py"))
    assert config.engines[3].command == (sys.executable, str(ENGINES_DIR / "mcts_alphabeta.py"))
    assert all(e.extra_args == () for e in config.engines)


EXPECTED_GAMES = {
    # config file: games its schedule holds (n sizes x pairings x rounds x 2 colours)
    "alphabeta-vs-greedy.yaml": 40,
    "betsy-vs-strategies.yaml": 900,
    "connect4-alphabeta-strength.yaml": 300,
    "connect4-mcts-alphabeta-strength.yaml": 300,
    "connect4-quick.yaml": 20,
    "hybrid-time-check.yaml": 20,
    "hybrid-vs-alphabeta-n5.yaml": 200,
    "hybrid-vs-alphabeta-n8.yaml": 200,
    "hybrid-vs-baselines-n5.yaml": 300,
    "kings-horses.yaml": 168,
    "quick.yaml": 12,
    "time-check.yaml": 20,
}


def test_every_shipped_config_loads_and_schedules_the_games_its_comment_promises() -> None:
    from harness.tournament.schedule import schedule

    shipped = sorted(path.name for path in (ROOT / "configs").glob("*.yaml") if path.name != "class.yaml")
    assert shipped == sorted(EXPECTED_GAMES)  # class.yaml is arena class's (tests/test_class_intake.py)
    for name, games in EXPECTED_GAMES.items():
        config = load_config(ROOT / "configs" / name)
        scheduled = schedule(config)
        assert len(scheduled) == games, name
        assert len({game.game_id for game in scheduled}) == games, name


def test_n_as_a_single_int_becomes_a_tuple(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "name: t\nn: 4\n" + ENGINES))
    assert config.sizes == ("4",)


def test_n_as_a_list_keeps_its_order(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "name: t\nn: [6, 4]\n" + ENGINES))
    assert config.sizes == ("6", "4")


def test_whole_time_given_as_int_is_a_float(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "name: t\ntime: 2\n" + ENGINES))
    assert config.settings.time == 2.0


def test_relative_command_resolves_against_the_config_folder_not_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = (tmp_path / "cfg").resolve()
    (folder / "submissions").mkdir(parents=True)
    script = folder / "submissions" / "betsy.py"
    script.write_text("print('1 x')\n")
    (folder / "native").mkdir()
    program = folder / "native" / "engine.sh"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    write(folder, "name: t\nengines:\n  - {name: student, command: python3 submissions/betsy.py}\n"
                  "  - {name: native, command: ./native/engine.sh --fast}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config(Path("..") / "cfg" / "t.yaml")
    student, native = config.engines
    assert student.command == ("python3", str(script))
    assert student.program == str(script)
    assert native.command == (str(program), "--fast")
    assert native.program == str(program)
    assert config.path == str(Path("..") / "cfg" / "t.yaml")


def test_builtin_options_become_extra_args(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, (
        "name: t\nengines:\n  - {name: r3, builtin: random, options: {seed: 3}}\n"
        "  - {name: g, builtin: alphabeta, options: {info: true, nodes: 500, depth: 2}}\n"
        "  - {name: m, builtin: mcts-alphabeta, options: {info: false, mcts_share: 0.5}}\n"
    )))
    assert config.engines[0].extra_args == ("--seed", "3")
    assert config.engines[0].name == "r3"
    assert config.engines[1].extra_args == ("--info", "--nodes", "500", "--depth", "2")
    assert config.engines[2].extra_args == ("--mcts-share", "0.5")


def test_concurrency_defaults_to_the_cpus_arena_may_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "name: t\n" + ENGINES)
    assert load_config(path).concurrency == len(os.sched_getaffinity(0))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4, 5, 6})
    monkeypatch.setattr("harness.machine._cgroup_quota", lambda: None)
    assert load_config(path).concurrency == 7


def test_concurrency_from_the_file_and_the_argument_overrides_it(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\nconcurrency: 3\n" + ENGINES)
    assert load_config(path).concurrency == 3
    assert load_config(path, concurrency=5).concurrency == 5


def test_cluster_address_is_parsed_and_left_out_of_the_fingerprint(tmp_path: Path) -> None:
    from harness.tournament.cluster import ClusterAddress

    base = load_config(write(tmp_path, "name: t\n" + ENGINES))
    assert base.cluster is None
    remote = load_config(write(tmp_path / "tcp", "name: t\ncluster: tcp://head.example:8786\n" + ENGINES))
    assert remote.cluster == ClusterAddress(scheduler="tcp://head.example:8786")
    local = load_config(write(tmp_path / "local", "name: t\ncluster: local:4\n" + ENGINES))
    assert local.cluster == ClusterAddress(local_slots=4)
    assert str(local.cluster) == "local:4"
    secure = load_config(write(tmp_path / "tls", "name: t\ncluster: tls://head.example:8786\ncluster_certs: ../certs\n"
                                                 + ENGINES))
    assert (secure.cluster, secure.cluster_certs) == (ClusterAddress(scheduler="tls://head.example:8786"),
                                                      str(tmp_path / "certs"))
    assert base.cluster_certs is None and not base.insecure_cluster
    assert remote.fingerprint_hash() == local.fingerprint_hash() == secure.fingerprint_hash() == base.fingerprint_hash()


@pytest.mark.parametrize("value", ["head:8786", "tcp://head", "tcp://head:0", "tcp://head:70000", "local:0",
                                   "local:257", "local", "udp://head:8786", "tls://[head]:8786", "'5'"])
def test_bad_cluster_address_says_what_is_expected(tmp_path: Path, value: str) -> None:
    path, message = problem(tmp_path, f"name: t\ncluster: {value}\n" + ENGINES)
    shown = value.strip("'")
    assert message == (
        f"{path}: cluster: expected tls://HOST:PORT (a running dask scheduler with TLS), tcp://HOST:PORT (one "
        f"without: loopback only, unless --insecure-cluster) or local:K (a cluster of K worker slots on this machine, "
        f"1 to 256), got {shown!r}"
    )


def test_cluster_address_must_be_text(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\ncluster: 8786\n" + ENGINES)
    assert message == f"{path}: cluster: expected text, got 8786"


def test_fingerprint_ignores_concurrency_but_not_rounds(tmp_path: Path) -> None:
    base = load_config(write(tmp_path, "name: t\nrounds: 2\n" + ENGINES))
    assert load_config(base.path, concurrency=1).fingerprint_hash() == base.fingerprint_hash()
    assert load_config(base.path, concurrency=9).fingerprint_hash() == base.fingerprint_hash()
    more = load_config(write(tmp_path / "other", "name: t\nrounds: 3\n" + ENGINES))
    assert more.fingerprint_hash() != base.fingerprint_hash()
    assert more.fingerprint()["rounds"] == 3


def test_fractional_time_is_accepted_when_allowed(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "name: t\ntime: 0.5\nallow_fractional_time: true\n" + ENGINES))
    assert (config.settings.time, config.settings.allow_fractional_time) == (0.5, True)


# --- unknown keys --------------------------------------------------------------------------------


def test_unknown_top_level_key_lists_the_valid_keys(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\nround: 3\n" + ENGINES)
    assert message == f"{path}: unknown key 'round' (valid keys: {TOP_KEYS})"


def test_unknown_key_in_an_engine_lists_the_engine_keys(tmp_path: Path) -> None:
    path, message = problem(tmp_path, (
        "name: t\nengines:\n  - {name: a, builtin: random}\n  - {name: b, builtin: greedy, colour: red}\n"
    ))
    assert message == f"{path}: engines[1]: unknown key 'colour' (valid keys: name, builtin, command, options)"


def test_unknown_key_in_openings_lists_the_openings_keys(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\nopenings: {plys: 4}\n" + ENGINES)
    assert message == f"{path}: openings: unknown key 'plys' (valid keys: plies, seed, file)"


# --- wrong types ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "expected"), [
    ("rounds: two", "rounds: expected a whole number, got 'two'"),
    ("rounds: 2.5", "rounds: expected a whole number, got 2.5"),
    ("rounds: true", "rounds: expected a whole number, got True"),
    ("time: [1]", "time: expected a number, got [1]"),
    ("time: '1'", "time: expected a number, got '1'"),
    ("grace: x", "grace: expected a number, got 'x'"),
    ("n: [5, '6']", "n[1]: expected a whole number, got '6'"),
    ("allow_fractional_time: 1", "allow_fractional_time: expected true or false, got 1"),
    ("openings: [1]", "openings: expected a mapping (key: value), got [1]"),
    ("openings: {seed: abc}", "openings.seed: expected a whole number, got 'abc'"),
    ("openings: {file: 5}", "openings.file: expected text, got 5"),
])
def test_wrong_type_names_the_key_the_expectation_and_the_value(
    tmp_path: Path, line: str, expected: str
) -> None:
    path, message = problem(tmp_path, f"name: t\n{line}\n" + ENGINES)
    assert message == f"{path}: {expected}"


def test_n_type_error_says_a_single_whole_number_is_fine(tmp_path: Path) -> None:
    path, message = problem(tmp_path, 'name: t\nn: "5"\n' + ENGINES)
    assert message.startswith(f"{path}: n: expected a whole number")
    assert "got '5'" in message


def test_engines_not_a_list(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\nengines: 3\n")
    assert message == f"{path}: engines: expected a list, got 3"


def test_engines_as_plain_names_say_each_needs_a_mapping(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\nengines: [random, greedy]\n")
    assert message == (
        f"{path}: 2 problems: engines[0]: expected a mapping (key: value), got 'random'; "
        f"engines[1]: expected a mapping (key: value), got 'greedy'"
    )


def test_name_not_text(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: 5\n" + ENGINES)
    assert message == f"{path}: name: expected text, got 5"


def test_wrong_option_type_is_one_problem_at_the_option_key(tmp_path: Path) -> None:
    path, message = problem(tmp_path, (
        "name: t\nengines:\n  - {name: a, builtin: random, options: {seed: [1]}}\n"
        "  - {name: b, builtin: greedy}\n"
    ))
    assert message.startswith(f"{path}: engines[0].options.seed: expected ")
    assert "problems" not in message
    assert ".str" not in message and ".int" not in message
    assert message.endswith("got [1]")


# --- out of range --------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "expected"), [
    ("rounds: 0", "rounds: expected a number >= 1, got 0"),
    ("time: 0", "time: expected a number > 0.0, got 0"),
    ("time: -1.5", "time: expected a number > 0.0, got -1.5"),
    ("grace: -1", "grace: expected a number >= 0.0, got -1"),
    ("n: [0]", "n[0]: expected a number > 0, got 0"),
    ("n: [5, -3]", "n[1]: expected a number > 0, got -3"),
    ("n: []", "n: expected at least 1 entries, got 0"),
    ("max_plies: 0", "max_plies: expected a number >= 1, got 0"),
    ("concurrency: 0", "concurrency: expected a number >= 1, got 0"),
    ("openings: {plies: -1}", "openings.plies: expected a number >= 0, got -1"),
])
def test_value_out_of_range_names_the_bound(tmp_path: Path, line: str, expected: str) -> None:
    path, message = problem(tmp_path, f"name: t\n{line}\n" + ENGINES)
    assert message == f"{path}: {expected}"


@pytest.mark.parametrize("lines", [
    "time: .inf\nallow_fractional_time: true",
    "grace: .inf",
])
def test_infinite_time_or_grace_is_refused(tmp_path: Path, lines: str) -> None:
    path = write(tmp_path, f"name: t\n{lines}\n" + ENGINES)
    message = error_of(path)
    key = lines.split(":")[0]
    assert message.startswith(f"{path}: {key}: ")
    assert "inf" in message


# --- literals and built-ins ----------------------------------------------------------------------


@pytest.mark.parametrize(("line", "expected"), [
    ("format: swiss", "format: expected one of 'round-robin' or 'gauntlet', got 'swiss'"),
    ("win_priority: red", "win_priority: expected one of 'mover' or 'blue', got 'red'"),
    ("game: chess", "game: expected one of 'betsy', 'connect4' or 'kings-horses', got 'chess'"),
])
def test_literal_mismatch_lists_the_choices(tmp_path: Path, line: str, expected: str) -> None:
    path, message = problem(tmp_path, f"name: t\n{line}\n" + ENGINES)
    assert message == f"{path}: {expected}"


def test_unknown_builtin_lists_the_valid_names(tmp_path: Path) -> None:
    path, message = problem(tmp_path, (
        "name: t\nengines:\n  - {name: a, builtin: random}\n  - {name: b, builtin: alphabeat}\n"
    ))
    assert message == (
        f"{path}: engines[1].builtin: unknown built-in engine 'alphabeat'; expected one of alphabeta, bestmove, "
        "greedy, homework, mcts-alphabeta, random"
    )


def test_options_on_a_command_engine_are_refused(tmp_path: Path) -> None:
    path, message = problem(tmp_path, (
        "name: t\nengines:\n  - {name: a, command: ls, options: {seed: 1}}\n  - {name: b, builtin: greedy}\n"
    ))
    assert message == (
        f"{path}: engines[0].options: options are for built-in engines; put them in the command"
    )


# --- command engines -----------------------------------------------------------------------------


def test_missing_program_names_the_path_resolved_against_the_config_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = (tmp_path / "cfg").resolve()
    path = write(folder, (
        "name: t\nengines:\n  - {name: student, command: python3 submissions/betsy.py}\n"
        "  - {name: b, builtin: greedy}\n"
    ))
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "submissions").mkdir(parents=True)
    (elsewhere / "submissions" / "betsy.py").write_text("")  # in the cwd: must not be used
    monkeypatch.chdir(elsewhere)
    assert error_of(path) == (
        f"{path}: engines[0].command: engine 'student': script 'submissions/betsy.py' not found "
        f"(looked for {folder / 'submissions' / 'betsy.py'}); check the path "
        f"(relative paths start from {folder})"
    )


def test_missing_executable_names_the_resolved_path(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    path, message = problem(folder, (
        "name: t\nengines:\n  - {name: a, builtin: random}\n  - {name: bin, command: ./bin/engine}\n"
    ))
    assert message == (
        f"{path}: engines[1].command: engine 'bin': program './bin/engine' not found "
        f"(looked for {folder / 'bin' / 'engine'}); check the path (relative paths start from {folder})"
    )


def test_program_without_exec_bit_suggests_chmod_or_python3(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    program = folder / "engine.py"
    program.write_text("#!/usr/bin/env python3\n")
    program.chmod(0o644)
    assert not program.stat().st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    path, message = problem(folder, (
        "name: t\nengines:\n  - {name: student, command: ./engine.py}\n  - {name: b, builtin: greedy}\n"
    ))
    assert message == (
        f"{path}: engines[0].command: engine 'student': {program} is not executable; run chmod +x "
        f"{program}, or prefix the command with python3 (python3 ./engine.py)"
    )


def test_empty_command(tmp_path: Path) -> None:
    path, message = problem(tmp_path, (
        "name: t\nengines:\n  - {name: a, command: ''}\n  - {name: b, builtin: greedy}\n"
    ))
    assert message == (
        f"{path}: engines[0].command: engine 'a': empty command; give a program, e.g. python3 betsy.py"
    )


@pytest.mark.parametrize("entry", [
    "{name: a, builtin: random, command: ./engine}",
    "{name: a}",
    "{name: a, builtin: null, command: null}",
])
def test_an_engine_needs_exactly_one_of_builtin_or_command(tmp_path: Path, entry: str) -> None:
    path, message = problem(tmp_path, f"name: t\nengines:\n  - {entry}\n  - {{name: b, builtin: greedy}}\n")
    assert message == f"{path}: engines[0]: give exactly one of builtin or command"


def test_duplicate_engine_names(tmp_path: Path) -> None:
    path, message = problem(tmp_path, (
        "name: t\nengines:\n  - {name: a, builtin: random}\n  - {name: b, builtin: greedy}\n"
        "  - {name: a, builtin: greedy}\n"
    ))
    assert message == f"{path}: engines[2].name: duplicate engine name 'a' (also engines[0])"


def test_empty_engine_name_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, (
        "name: t\nengines:\n  - {name: '', builtin: random}\n  - {name: random, builtin: greedy}\n"
    ))
    message = error_of(path)
    assert message.startswith(f"{path}: engines[0].name: ")


@pytest.mark.parametrize(("engines", "count"), [
    ("engines:\n  - {name: a, builtin: random}\n", 1),
    ("engines: []\n", 0),
])
def test_fewer_than_two_engines(tmp_path: Path, engines: str, count: int) -> None:
    path, message = problem(tmp_path, "name: t\n" + engines)
    assert message == f"{path}: engines: expected at least 2 entries, got {count}"


# --- required keys -------------------------------------------------------------------------------


def test_missing_name(tmp_path: Path) -> None:
    path, message = problem(tmp_path, ENGINES)
    assert message == f"{path}: missing required key 'name'"


def test_missing_engines(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\n")
    assert message == f"{path}: missing required key 'engines'"


def test_missing_name_inside_an_engine(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\nengines:\n  - {builtin: random}\n  - {name: b, builtin: greedy}\n")
    assert message == f"{path}: engines[0]: missing required key 'name'"


# --- name and time -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a/b", "../x", "''", "my tournament", ".hidden"])
def test_bad_tournament_name(tmp_path: Path, name: str) -> None:
    path, message = problem(tmp_path, f"name: {name}\n" + ENGINES)
    shown = "" if name == "''" else name
    assert message == f"{path}: name: {NAME_RULE}, got {shown!r}"


def test_fractional_time_needs_allow_fractional_time(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\ntime: 0.5\n" + ENGINES)
    assert message == (
        f"{path}: time: expected a whole number of seconds (or set allow_fractional_time: true), got 0.5"
    )


# --- file-level problems -------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "where"), [
    ("name: t\n  rounds: 2\n" + ENGINES, "at line 2, column 9: mapping values are not allowed here"),
    ("name: [t\n", "at line 2, column 1: expected ',' or ']', but got '<stream end>'"),
    ("name: t\n\trounds: 2\n", "at line 2, column 1: found character '\\t' that cannot start any token"),
])
def test_invalid_yaml_gives_line_and_column(tmp_path: Path, text: str, where: str) -> None:
    path, message = problem(tmp_path, text)
    assert message == f"{path}: not valid YAML {where}"


@pytest.mark.parametrize(("text", "kind"), [
    ("- name: t\n- rounds: 2\n", "list"),
    ("hello\n", "str"),
])
def test_top_level_must_be_a_mapping(tmp_path: Path, text: str, kind: str) -> None:
    path, message = problem(tmp_path, text)
    assert message == f"{path}: expected a mapping of keys (name:, engines:, ...), got {kind}"


@pytest.mark.parametrize("text", ["", "# nothing yet\n"])
def test_empty_file_says_it_is_empty(tmp_path: Path, text: str) -> None:
    path, message = problem(tmp_path, text)
    assert message == f"{path}: the file is empty; expected a mapping of keys (name:, engines:, ...)"


def test_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\nrounds: 2\nrounds: 3\n" + ENGINES)
    assert message == f"{path}: not valid YAML at line 3, column 1: duplicate key 'rounds'"


def test_config_file_that_does_not_exist(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    assert error_of(path) == f"{path}: no such file; check the path"


def test_config_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_bytes(b"\xffname: t\n")
    assert error_of(path) == f"{path}: not UTF-8 text (byte 1 is not); give a config file"


# --- several problems ----------------------------------------------------------------------------


def test_several_schema_problems_are_counted_and_listed(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\ntime: x\nrounds: 0\nformat: swiss\n" + ENGINES)
    assert message == (
        f"{path}: 3 problems: time: expected a number, got 'x'; "
        f"format: expected one of 'round-robin' or 'gauntlet', got 'swiss'; "
        f"rounds: expected a number >= 1, got 0"
    )


def test_several_engine_problems_are_counted_and_listed(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    path, message = problem(folder, (
        "name: a/b\ntime: 0.5\nengines:\n  - {name: a, command: python3 nope.py}\n"
        "  - {name: a, builtin: alpha}\n"
    ))
    assert message == (
        f"{path}: 5 problems: name: {NAME_RULE}, got 'a/b'; "
        f"time: expected a whole number of seconds (or set allow_fractional_time: true), got 0.5; "
        f"engines[0].command: engine 'a': script 'nope.py' not found (looked for {folder / 'nope.py'}); "
        f"check the path (relative paths start from {folder}); "
        f"engines[1].name: duplicate engine name 'a' (also engines[0]); "
        f"engines[1].builtin: unknown built-in engine 'alpha'; expected one of alphabeta, bestmove, greedy, "
        f"homework, mcts-alphabeta, random"
    )


def test_schema_and_engine_problems_are_reported_together(tmp_path: Path) -> None:
    path, message = problem(tmp_path, (
        "name: a/b\nrounds: 0\nengines:\n  - {name: a, builtin: alpha}\n  - {name: b, builtin: greedy}\n"
    ))
    assert message.startswith(f"{path}: 3 problems: ")
    assert "rounds: expected a number >= 1, got 0" in message
    assert f"name: {NAME_RULE}, got 'a/b'" in message
    assert "engines[0].builtin: unknown built-in engine 'alpha'" in message


# --- openings files ------------------------------------------------------------------------------


def _board_after(n: int, moves: list[int]) -> tuple[str, str]:
    position = initial_position(n)
    for move in moves:
        position = position.after(move)
    return position.board(), position.player


N3_OVER = "xxx" "ooo" "xxo" "oox" "xoo" "oxx"
"""A full n = 3 board whose top row is x's line: the game is over."""


def test_openings_file_loads_by_n_in_file_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = (tmp_path / "cfg").resolve()
    b3, p3 = _board_after(3, [1, 2])
    b5, p5 = _board_after(5, [3])
    write(folder, (
        f"# start positions\n3 {p3} {b3}   # after 1 2\n\n   \n5 {p5} {b5}\n3 x {'.' * 18}\n"
    ), name="openings.txt")
    path = write(folder, "name: t\nn: [3, 5]\nopenings: {file: openings.txt}\n" + ENGINES)
    monkeypatch.chdir(tmp_path)  # the openings file is found from the config's folder, not here
    config = load_config(path)
    assert config.openings_file == str(folder / "openings.txt")
    assert config.opening_positions == {
        "3": (Opening(b3, "x"), Opening("." * 18, "x")),
        "5": (Opening(b5, "o"), ),
    }
    assert (p3, p5) == ("x", "o")
    positions = config.fingerprint()["openings"]["positions"]
    assert positions == {"3": [f"x {b3}", f"x {'.' * 18}"], "5": [f"o {b5}"]}


@pytest.mark.parametrize(("line", "expected"), [
    ("3 x", "expected 'N PLAYER BOARD', got 2 words"),
    ("3 x ...... extra", "expected 'N PLAYER BOARD', got 4 words"),
    ("3 x " + "." * 17, "board has 17 characters, expected 18 for n = 3 (3 columns x 6 rows)"),
    ("3 z " + "." * 18, "invalid player ...: use x (blue) or o (red)"),
    ("three x " + "." * 18, "invalid board size ...: n must be a whole number >= 1"),
    ("3 x ..q" + "." * 15, "bad character ... at position 3 (row 1, column 3): use . (empty), x (blue) or o (red)"),
])
def test_bad_openings_line_names_the_file_and_line_but_not_its_text(tmp_path: Path, line: str, expected: str) -> None:
    folder = tmp_path.resolve()
    openings = write(folder, f"# header\n3 x {'.' * 18}\n{line}  # bad\n", name="openings.txt")
    path, message = problem(folder, "name: t\nn: 3\nopenings: {file: openings.txt}\n" + ENGINES)
    assert message == f"{path}: openings.file: {openings} line 3: {expected}"


def test_openings_position_where_the_game_is_over_is_refused(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    openings = write(folder, f"3 x {'.' * 18}\n3 o {N3_OVER}\n", name="openings.txt")
    path, message = problem(folder, "name: t\nn: 3\nopenings: {file: openings.txt}\n" + ENGINES)
    assert message == f"{path}: openings.file: {openings} line 2: the game is already over in this position"


def test_openings_file_without_a_needed_n_is_refused(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    openings = write(folder, f"3 x {'.' * 18}\n", name="openings.txt")
    path, message = problem(folder, "name: t\nn: [3, 5, 6]\nopenings: {file: openings.txt}\n" + ENGINES)
    assert message == f"{path}: openings.file: no opening for n = 5, 6 in {openings}"


def test_openings_file_with_no_positions(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    openings = write(folder, "# nothing here\n\n", name="openings.txt")
    path, message = problem(folder, "name: t\nopenings: {file: openings.txt}\n" + ENGINES)
    assert message == f"{path}: openings.file: {openings} holds no positions"


def test_openings_file_that_does_not_exist(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    path, message = problem(folder, "name: t\nopenings: {file: openings.txt}\n" + ENGINES)
    assert message == f"{path}: openings.file: {folder / 'openings.txt'}: no such file; check the path"


def test_sandbox_keys_are_read_and_a_bare_off_means_off(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("name: t\nsandbox: off\nmax_file_mb: 8\nmax_processes: 16\n" + ENGINES)
    config = load_config(path)
    assert (config.sandbox, config.max_file_mb, config.max_processes) == (SandboxMode.OFF, 8, 16)
    path.write_text("name: t\n" + ENGINES)
    config = load_config(path)
    assert (config.sandbox, config.max_file_mb, config.max_processes) == (SandboxMode.AUTO, 64, 64)
    _, message = problem(tmp_path, "name: t\nsandbox: on\n" + ENGINES)
    assert message.endswith("sandbox: expected one of 'auto', 'required' or 'off', got True")


# --- bounded inputs ------------------------------------------------------------------------------


def _run_limited(args: list[str], address_space: int = 512 << 20) -> subprocess.CompletedProcess[str]:
    """Run `arena` with at most ``address_space`` bytes of memory: a blow-up fails, not the machine."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return subprocess.run([str(Path(sys.executable).parent / "arena"), *args], capture_output=True, text=True,
                          timeout=120, preexec_fn=limit, stdin=subprocess.DEVNULL)


def alias_bomb(levels: int = 9) -> str:
    """A 'billion laughs' config: each anchor lists the previous one ten times (10**levels values)."""
    lines = ["name: bomb", "engines:", "  - &a0 {name: a, builtin: random, options: {seed: 1}}"]
    for level in range(1, levels + 1):
        lines.append(f"  - &a{level} [{', '.join([f'*a{level - 1}'] * 10)}]")
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_is_refused_fast_in_one_line_under_a_modest_memory_limit(tmp_path: Path) -> None:
    path = write(tmp_path, alias_bomb())
    done = _run_limited(["tournament", str(path), "--db", str(tmp_path / "t.sqlite")])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"arena: error: {path}: refused: it expands to more than 100,000 values (an alias counts "
                           f"as all it stands for, at each use); write a smaller config, with fewer aliases\n")
    assert not (tmp_path / "t.sqlite").exists()


def test_small_anchors_aliases_and_merge_keys_still_work(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\nn: &n 3\nrounds: *n\nengines:\n"
                           "  - &random {name: a, builtin: random, options: {seed: 1}}\n"
                           "  - {<<: *random, name: b}\n  - {<<: *random, name: c, options: {seed: 2}}\n")
    config = load_config(path)
    assert (config.sizes, config.rounds) == (("3",), 3)
    assert [(e.name, e.extra_args) for e in config.engines] == [
        ("a", ("--seed", "1")), ("b", ("--seed", "1")), ("c", ("--seed", "2"))]


@pytest.mark.parametrize(("text", "expected"), [
    ("name: t\nrounds: &r [1, *r]\n" + ENGINES, "refused: an alias refers to a value that holds it; write the value out"),
    ("name: t\nrounds: " + "[" * 100 + "]" * 100 + "\n" + ENGINES,
     "refused: lists and mappings nested more than 64 deep; write a flatter config"),
    ("name: t\nrounds: " + "[" * 5000 + "]" * 5000 + "\n" + ENGINES,
     "refused: lists and mappings nested too deep; write a flatter config"),
])
def test_recursive_and_deeply_nested_yaml_is_refused_in_one_line(tmp_path: Path, text: str, expected: str) -> None:
    path, message = problem(tmp_path, text)
    assert message == f"{path}: {expected}"


def test_an_integer_python_cannot_read_is_one_line_not_an_internal_error(tmp_path: Path) -> None:
    path, message = problem(tmp_path, "name: t\nrounds: " + "1" * 5000 + "\n" + ENGINES)
    assert message.startswith(f"{path}: a value cannot be read (Exceeds the limit (4300 digits) for integer string")


def test_a_config_over_one_mib_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\n" + ENGINES + "# padding\n" * 220_000 + "{[: not yaml\n")
    assert path.stat().st_size > 2 << 20  # 2 MiB
    assert error_of(path) == f"{path}: larger than 1 MiB, the most a config file may be; give a smaller file"
    at_cap = write(tmp_path, "name: t\n" + ENGINES + "#" * ((1 << 20) - len("name: t\n" + ENGINES)), "cap.yaml")
    assert at_cap.stat().st_size == 1 << 20
    assert load_config(at_cap).name == "t"


def test_dev_zero_as_a_config_is_refused_without_reading_it_all() -> None:
    assert error_of("/dev/zero") == "/dev/zero: larger than 1 MiB, the most a config file may be; give a smaller file"


SHADOW = "r00t:$6$saltsalt$s3cr3thash:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n"
"""A file that is not an openings file (as /etc/shadow is, which root can read)."""


@pytest.mark.parametrize(("content", "expected"), [
    (SHADOW, "line 1: expected 'N PLAYER BOARD', got 1 word"),
    ("s3cr3t1 s3cr3t2 s3cr3t3\n", "line 1: invalid board size ...: n must be a whole number >= 1"),
    ("3 s3cr3t " + "." * 18 + "\n", "line 1: invalid player ...: use x (blue) or o (red)"),
    (b"\xffs3cr3t\n", "not UTF-8 text (byte 1 is not); give an openings file"),
])
def test_an_openings_file_that_is_not_one_is_refused_without_echoing_its_content(
        tmp_path: Path, content: str | bytes, expected: str) -> None:
    folder = tmp_path.resolve()
    openings = folder / "openings.txt"
    openings.write_bytes(content if isinstance(content, bytes) else content.encode())
    path, message = problem(folder, "name: t\nn: 3\nopenings: {file: openings.txt}\n" + ENGINES)
    separator = " " if expected.startswith("line") else ": "
    assert message == f"{path}: openings.file: {openings}{separator}{expected}"
    assert "s3cr3t" not in message and "r00t" not in message
    done = _run_limited(["match", "random", "random", "--openings", str(openings)])
    assert done.returncode == 2
    assert done.stderr == f"arena: error: invalid --openings: {openings}{separator}{expected}\n"


def test_an_openings_file_over_four_mib_is_refused(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text(f"3 x {'.' * 18}\n" * ((4 << 20) // 23 + 1))
    assert openings.stat().st_size > 4 << 20
    path, message = problem(tmp_path, "name: t\nn: 3\nopenings: {file: openings.txt}\n" + ENGINES)
    assert message == (f"{path}: openings.file: {openings}: larger than 4 MiB, the most an openings file may be; "
                       f"give a smaller file")


def test_a_configs_game_settings_are_its_checked_values_alone_with_their_clock(tmp_path: Path) -> None:
    from harness.match.settings import GameSettings

    path = tmp_path / "t.yaml"
    path.write_text("name: t\ngame: connect4\nsize: [7x6]\ntime: 0.5\nallow_fractional_time: true\ngrace: 2\n"
                    "engines:\n  - {name: a, builtin: random}\n  - {name: b, builtin: greedy}\n")
    settings = load_config(path).settings
    assert type(settings) is GameSettings
    assert settings == GameSettings(game="connect4", time=0.5, allow_fractional_time=True, grace=2)
    assert (settings.clock.seconds_text, settings.clock.allowed) == ("0.5", 2.5)


def test_replay_stalls_is_on_unless_the_config_says_false_and_reaches_every_call(tmp_path: Path) -> None:
    from harness.tournament.run import _job

    path = tmp_path / "c.yaml"
    path.write_text("name: t\n" + ENGINES)
    plain = load_config(path)
    path.write_text("name: t\nreplay_stalls: false\n" + ENGINES)
    off = load_config(path)
    assert (plain.replay_stalls, off.replay_stalls) == (True, False)
    assert plain.fingerprint() == {**off.fingerprint(), "name": "t"}  # how the machine behaves, not the games
    assert (_job(plain, ()).limits(False).replay_stalls, _job(off, ()).limits(True).replay_stalls) == (True, False)
    _, message = problem(tmp_path, "name: t\nreplay_stalls: sometimes\n" + ENGINES)
    assert message.endswith("replay_stalls: expected true or false, got 'sometimes'")
