"""Tournament schedules: deterministic, balanced, stable ids, and openings that are real positions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import pytest

from harness.tournament.config import Opening, TournamentConfig, load_config
from harness.games.betsy.rules import Position, initial_position
from harness.errors import UsageError
from harness.games.registry import get_game
from harness.tournament.schedule import (
    ScheduledGame,
    check_schedule_size,
    pairings,
    random_opening,
    schedule,
    start_position,
)

BETSY = get_game("betsy")

ROOT = Path(__file__).resolve().parent.parent


def engines_yaml(*names: str) -> str:
    builtins = ["random", "greedy"]
    return "engines:\n" + "".join(
        f"  - {{name: {name}, builtin: {builtins[i % 2]}}}\n" for i, name in enumerate(names)
    )


def config_of(folder: Path, text: str, file: str = "t.yaml") -> TournamentConfig:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def small(tmp_path: Path, *, names: tuple[str, ...] = ("a", "b", "c"), extra: str = "") -> TournamentConfig:
    return config_of(tmp_path, f"name: t\nn: [5]\nrounds: 1\n{extra}" + engines_yaml(*names))


# --- determinism ---------------------------------------------------------------------------------


def test_two_loads_of_the_same_config_give_identical_schedules(tmp_path: Path) -> None:
    text = "name: t\nn: [4, 5]\nrounds: 4\nopenings: {plies: 3, seed: 11}\n" + engines_yaml("a", "b", "c")
    first = schedule(config_of(tmp_path / "one", text))
    second = schedule(config_of(tmp_path / "two", text))
    assert first == second
    assert [(g.start_board, g.start_player) for g in first] == [
        (g.start_board, g.start_player) for g in second
    ]
    assert schedule(config_of(tmp_path / "one", text)) == first


def test_schedule_is_the_same_in_a_fresh_process_with_another_hash_seed(tmp_path: Path) -> None:
    text = "name: t\nn: [3, 5]\nrounds: 3\nopenings: {plies: 4, seed: 5}\n" + engines_yaml("a", "b", "c")
    config = config_of(tmp_path, text)
    code = (
        "import json, sys; from dataclasses import asdict; from harness.tournament.config import load_config; "
        "from harness.tournament.schedule import schedule; "
        "print(json.dumps([asdict(g) for g in schedule(load_config(sys.argv[1]))]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    result = subprocess.run(
        [sys.executable, "-c", code, config.path], capture_output=True, text=True, cwd=ROOT, env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [asdict(g) for g in schedule(config)]


def test_a_different_openings_seed_gives_different_openings(tmp_path: Path) -> None:
    def boards(seed: int) -> list[tuple[str, str]]:
        config = config_of(tmp_path / str(seed), (
            f"name: t\nn: [5]\nrounds: 6\nopenings: {{plies: 4, seed: {seed}}}\n" + engines_yaml("a", "b")
        ))
        return [(g.start_board, g.start_player) for g in schedule(config)]

    assert boards(1) != boards(2)
    assert boards(1) == boards(1)


def test_random_opening_is_a_function_of_n_plies_seed_and_round() -> None:
    assert random_opening(BETSY, "5", 4, 1, 0) == random_opening(BETSY, "5", 4, 1, 0)
    openings = {random_opening(BETSY, "5", 4, 1, r) for r in range(8)}
    assert len(openings) > 1  # rounds differ
    by_seed = [[random_opening(BETSY, "5", 4, seed, r) for r in range(8)] for seed in (1, 2)]
    assert by_seed[0] != by_seed[1]


# --- ids and pairings ----------------------------------------------------------------------------


def test_game_ids_for_three_engines_one_round(tmp_path: Path) -> None:
    games = schedule(small(tmp_path))
    assert [g.game_id for g in games] == [
        "n5:r1:a:b:a", "n5:r1:a:b:b",
        "n5:r1:a:c:a", "n5:r1:a:c:b",
        "n5:r1:b:c:a", "n5:r1:b:c:b",
    ]
    assert [g.pair_key for g in games] == [
        "n5:r1:a:b", "n5:r1:a:b", "n5:r1:a:c", "n5:r1:a:c", "n5:r1:b:c", "n5:r1:b:c",
    ]
    assert [(g.x, g.o) for g in games] == [
        ("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b"),
    ]
    assert {(g.size, g.round) for g in games} == {("5", 1)}


def test_game_ids_go_round_by_round_then_by_n(tmp_path: Path) -> None:
    config = config_of(tmp_path, "name: t\nn: [5, 3]\nrounds: 2\n" + engines_yaml("a", "b"))
    assert [g.game_id for g in schedule(config)] == [
        "n5:r1:a:b:a", "n5:r1:a:b:b", "n3:r1:a:b:a", "n3:r1:a:b:b",
        "n5:r2:a:b:a", "n5:r2:a:b:b", "n3:r2:a:b:a", "n3:r2:a:b:b",
    ]


def test_game_ids_are_unique_and_stable(tmp_path: Path) -> None:
    text = "name: t\nn: [4, 5, 6]\nrounds: 3\n" + engines_yaml("alpha", "beta", "gamma", "delta")
    games = schedule(config_of(tmp_path, text))
    ids = [g.game_id for g in games]
    assert len(ids) == len(set(ids))
    # Stable: independent of concurrency and of where the config lives.
    again = schedule(config_of(tmp_path / "elsewhere", text))
    assert [g.game_id for g in again] == ids
    assert [g.game_id for g in schedule(load_config(tmp_path / "t.yaml", concurrency=1))] == ids


def test_game_ids_are_unique_whatever_the_engine_names(tmp_path: Path) -> None:
    config = small(tmp_path, names=("a-b", "c", "a", "b-c"))
    games = schedule(config)
    ids = [g.game_id for g in games]
    assert len(ids) == len(set(ids)), [i for i, k in Counter(ids).items() if k > 1]
    assert len({g.pair_key for g in games}) == len(games) // 2


def test_pairings_functions() -> None:
    names = ["a", "b", "c", "d"]
    assert pairings(names, "round-robin") == [
        ("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d"),
    ]
    assert pairings(names, "gauntlet") == [("a", "b"), ("a", "c"), ("a", "d")]
    assert pairings(["a", "b"], "round-robin") == pairings(["a", "b"], "gauntlet") == [("a", "b")]


@pytest.mark.parametrize("count", [2, 3, 5])
def test_round_robin_plays_every_pair_once_per_round_and_size(tmp_path: Path, count: int) -> None:
    names = tuple(f"e{i}" for i in range(count))
    config = config_of(tmp_path, "name: t\nn: [4, 5]\nrounds: 3\n" + engines_yaml(*names))
    games = schedule(config)
    for round_ in (1, 2, 3):
        for n in (4, 5):
            keys = {g.pair_key for g in games if g.round == round_ and g.size == str(n)}
            assert len(keys) == count * (count - 1) // 2
            pairs = {frozenset((g.x, g.o)) for g in games if g.round == round_ and g.size == str(n)}
            assert pairs == {frozenset((a, b)) for i, a in enumerate(names) for b in names[i + 1:]}


def test_gauntlet_pairs_the_first_engine_with_each_other(tmp_path: Path) -> None:
    config = config_of(tmp_path, (
        "name: t\nformat: gauntlet\nn: [5]\nrounds: 2\n" + engines_yaml("hero", "x1", "x2", "x3")
    ))
    games = schedule(config)
    assert all("hero" in (g.x, g.o) for g in games)
    assert Counter(g.o if g.x == "hero" else g.x for g in games) == {"x1": 4, "x2": 4, "x3": 4}
    assert [g.game_id for g in games if g.round == 1] == [
        "n5:r1:hero:x1:a", "n5:r1:hero:x1:b", "n5:r1:hero:x2:a", "n5:r1:hero:x2:b",
        "n5:r1:hero:x3:a", "n5:r1:hero:x3:b",
    ]


@pytest.mark.parametrize(("fmt", "count", "sizes", "rounds"), [
    ("round-robin", 2, [5], 1),
    ("round-robin", 3, [4, 5], 2),
    ("round-robin", 4, [3, 4, 5], 3),
    ("gauntlet", 4, [5, 6], 2),
    ("gauntlet", 2, [5], 4),
])
def test_total_is_pairings_times_sizes_times_rounds_times_two(
    tmp_path: Path, fmt: str, count: int, sizes: list[int], rounds: int
) -> None:
    names = [f"e{i}" for i in range(count)]
    config = config_of(tmp_path, (
        f"name: t\nformat: {fmt}\nn: {sizes}\nrounds: {rounds}\n" + engines_yaml(*names)
    ))
    assert len(schedule(config)) == len(pairings(names, fmt)) * len(sizes) * rounds * 2


# --- colours -------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["round-robin", "gauntlet"])
def test_every_engine_plays_x_and_o_equally_often(tmp_path: Path, fmt: str) -> None:
    config = config_of(tmp_path, (
        f"name: t\nformat: {fmt}\nn: [4, 5]\nrounds: 3\n" + engines_yaml("a", "b", "c", "d")
    ))
    games = schedule(config)
    as_x = Counter(g.x for g in games)
    as_o = Counter(g.o for g in games)
    assert as_x == as_o
    assert set(as_x) == {"a", "b", "c", "d"}


def test_each_pair_key_is_two_games_with_colours_swapped_and_the_same_start(tmp_path: Path) -> None:
    config = config_of(tmp_path, (
        "name: t\nn: [4, 5]\nrounds: 3\nopenings: {plies: 3}\n" + engines_yaml("a", "b", "c")
    ))
    by_key: dict[str, list[ScheduledGame]] = {}
    for game in schedule(config):
        by_key.setdefault(game.pair_key, []).append(game)
    assert len(by_key) == 3 * 2 * 3
    for key, (first, second) in ((k, v) for k, v in by_key.items() if len(v) == 2):
        assert (first.x, first.o) == (second.o, second.x)
        assert (first.start_board, first.start_player) == (second.start_board, second.start_player)
        assert (first.size, first.round) == (second.size, second.round)
        assert (first.game_id, second.game_id) == (f"{key}:a", f"{key}:b")
    assert all(len(v) == 2 for v in by_key.values())


def test_every_pairing_plays_the_same_opening_in_a_round(tmp_path: Path) -> None:
    config = config_of(tmp_path, "name: t\nn: [4, 5]\nrounds: 4\n" + engines_yaml("a", "b", "c", "d"))
    starts: dict[tuple[int, int], set[tuple[str, str]]] = {}
    for game in schedule(config):
        starts.setdefault((int(game.size), game.round), set()).add((game.start_board, game.start_player))
    assert all(len(found) == 1 for found in starts.values())
    assert len(starts) == 2 * 4


# --- random openings -----------------------------------------------------------------------------


def _reachable(n: int, plies: int) -> set[tuple[str, str]]:
    """Every (board, player) reached by exactly ``plies`` legal moves from the empty board, passing
    only through positions without a winner."""
    frontier = {initial_position(n).key(): initial_position(n)}
    for _ in range(plies):
        following: dict[int, Position] = {}
        for position in frontier.values():
            for move in position.legal_moves():
                child = position.after(move)
                if child.winner() is None:
                    following.setdefault(child.key(), child)
        frontier = following
    return {(p.board(), p.player) for p in frontier.values()}


@pytest.mark.parametrize(("n", "plies"), [(3, 1), (3, 2), (3, 4), (4, 3), (4, 4)])
def test_random_openings_are_reachable_in_exactly_plies_moves(n: int, plies: int) -> None:
    reachable = _reachable(n, plies)
    for seed in (1, 2, 3):
        for round_index in range(5):
            opening = random_opening(BETSY, str(n), plies, seed, round_index)
            assert (opening.board, opening.player) in reachable, (seed, round_index, opening)


@pytest.mark.parametrize(("n", "plies"), [(5, 1), (5, 2), (5, 7), (6, 10), (8, 6)])
def test_random_openings_are_valid_positions_with_the_right_side_to_move(n: int, plies: int) -> None:
    for round_index in range(10):
        opening = random_opening(BETSY, str(n), plies, 1, round_index)
        position = Position.from_text(str(n), opening.player, opening.board)  # valid board
        assert opening.player == ("x" if plies % 2 == 0 else "o")
        assert position.winner() is None
        pebbles = opening.board.count("x") + opening.board.count("o")
        assert 1 <= pebbles <= plies  # a rotation moves a pebble without adding one
        assert opening.board.count("x") >= 1  # x's first move is a drop: the board starts empty


def test_openings_with_zero_plies_are_the_empty_board(tmp_path: Path) -> None:
    for n in (3, 5, 7):
        assert random_opening(BETSY, str(n), 0, 1, 0) == Opening("." * (n * (n + 3)), "x")
    config = config_of(tmp_path, "name: t\nn: [3, 5]\nrounds: 3\nopenings: {plies: 0}\n" + engines_yaml("a", "b"))
    for game in schedule(config):
        assert (game.start_board, game.start_player) == ("." * (int(game.size) * (int(game.size) + 3)), "x")


def test_default_openings_are_two_plies(tmp_path: Path) -> None:
    config = small(tmp_path, names=("a", "b"))
    (game, _) = schedule(config)
    assert (game.start_board, game.start_player) == (
        random_opening(BETSY, "5", 2, 1, 0).board, random_opening(BETSY, "5", 2, 1, 0).player
    )
    assert game.start_player == "x"


def test_start_position_rebuilds_the_scheduled_start(tmp_path: Path) -> None:
    config = config_of(tmp_path, "name: t\nn: [5]\nrounds: 2\nwin_priority: blue\n" + engines_yaml("a", "b"))
    for game in schedule(config):
        position = start_position(game, config.settings)
        assert (position.n, position.board(), position.player) == (int(game.size), game.start_board, game.start_player)
        assert position.win_priority == "blue"


# --- openings from a file ------------------------------------------------------------------------


def test_openings_from_a_file_cycle_through_the_positions_by_round(tmp_path: Path) -> None:
    b3 = initial_position(3).after(1).after(2)
    b3b = initial_position(3).after(2)
    b5 = initial_position(5).after(3)
    (tmp_path / "openings.txt").write_text(
        f"3 x {'.' * 18}\n3 {b3.player} {b3.board()}\n5 {b5.player} {b5.board()}  # only one\n"
        f"3 {b3b.player} {b3b.board()}\n"
    )
    config = config_of(tmp_path, (
        "name: t\nn: [3, 5]\nrounds: 7\nopenings: {file: openings.txt, plies: 4}\n"
        + engines_yaml("a", "b", "c")
    ))
    suite3 = [("." * 18, "x"), (b3.board(), "x"), (b3b.board(), "o")]
    games = schedule(config)
    for game in games:
        expected = suite3[(game.round - 1) % 3] if int(game.size) == 3 else (b5.board(), "o")
        assert (game.start_board, game.start_player) == expected, game.game_id
    rounds_for_n3 = [
        (g.start_board, g.start_player) for g in games if g.size == "3" and g.game_id.endswith(":a:b:a")
    ]
    assert rounds_for_n3 == [suite3[r % 3] for r in range(7)]


# --- size cap ------------------------------------------------------------------------------------


def huge(tmp_path: Path) -> Path:
    """200 engines x 14 sizes x 10,000 rounds: 5,572,000,000 games."""
    path = tmp_path / "huge.yaml"
    path.write_text("name: huge\nn: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]\nrounds: 10000\n"
                    + engines_yaml(*(f"e{k}" for k in range(200))))
    return path


def test_a_huge_schedule_is_refused_with_its_figure_before_it_is_built(tmp_path: Path) -> None:
    config = load_config(huge(tmp_path))
    with pytest.raises(UsageError) as error:
        schedule(config)
    assert str(error.value) == (
        f"{config.path}: 5,572,000,000 games to schedule (10,000 rounds x 14 board sizes x 19,900 pairings x 2 "
        f"colours), more than the 1,000,000 one run may play; lower rounds, the sizes or the engines in the "
        f"config, or play it in shares with --rounds, at most 1 round each (e.g. --rounds 1-1)")
    assert check_schedule_size(config, (7, 7)) == 557_200
    assert len(schedule(config, (7, 7))) == 557_200


def test_when_one_round_is_over_the_cap_the_message_says_to_lower_sizes_or_engines(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("name: t\nn: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]\nrounds: 1\n"
                    + engines_yaml(*(f"e{k}" for k in range(260))))
    with pytest.raises(UsageError) as error:
        check_schedule_size(load_config(path))
    assert str(error.value).endswith(
        "1,077,440 games to schedule (1 round x 16 board sizes x 33,670 pairings x 2 colours), more than the "
        "1,000,000 one run may play; lower rounds, the sizes or the engines in the config, or one round alone is "
        "more: lower the sizes or the engines")


def test_a_share_of_rounds_lists_only_its_rounds_with_the_ids_of_the_whole(tmp_path: Path) -> None:
    config = config_of(tmp_path / "five", "name: t\nn: [5]\nrounds: 5\n" + engines_yaml("a", "b", "c"))
    whole = schedule(config)
    assert schedule(config, (2, 3)) == [game for game in whole if game.round in (2, 3)]


def test_arena_tournament_refuses_a_huge_schedule_in_one_line_under_a_modest_memory_limit(tmp_path: Path) -> None:
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))

    path = huge(tmp_path)
    for extra in ([], ["--rounds", "1-5"]):
        done = subprocess.run([str(Path(sys.executable).parent / "arena"), "tournament", str(path), "--db",
                               str(tmp_path / "h.sqlite"), *extra], capture_output=True, text=True, timeout=120,
                              preexec_fn=limit, stdin=subprocess.DEVNULL)
        assert done.returncode == 2
        rounds = "10,000" if not extra else "5"
        games = "5,572,000,000" if not extra else "2,786,000"
        assert done.stderr.startswith(f"arena: error: {path}: {games} games to schedule ({rounds} rounds x 14 board ")
        assert done.stderr.endswith("at most 1 round each (e.g. --rounds 1-1)\n")
        assert not (tmp_path / "h.sqlite").exists()
