"""Whole games through the referee with real engine processes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.referee.engine_specs import EngineSpec, builtin_engine
from harness.games.betsy.rules import Position
from harness.match.settings import GameSettings
from harness.match.match import Termination, play_game
from tests.conftest import ROOT, SEED_BOARD

SCRIPTED = ROOT / "tests" / "fake_engines" / "scripted_moves.py"
HANG = "import time; time.sleep(600)"


def scripted(tmp_path: Path, name: str, table: dict[str, int]) -> EngineSpec:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(table))
    return EngineSpec(name, (sys.executable, str(SCRIPTED), str(path)), str(SCRIPTED))


def inline(name: str, code: str) -> EngineSpec:
    return EngineSpec(name, (sys.executable, "-c", code), None)


def test_seed_figure_game_ends_with_reds_row(tmp_path: Path) -> None:
    # Figure 1: o drops 2, x rotates 1, o drops 2, x drops 1, o rotates 1 and wins.
    red = scripted(tmp_path, "red", {
        f"o {SEED_BOARD}": 2,
        "o ...o..x.ooooxxxxxo": 2,
        "o x..o..xoooooxxxxxo": -1,
    })
    blue = scripted(tmp_path, "blue", {
        "x ...x..o.oxooxxxoxo": -1,
        "x ...o..xoooooxxxxxo": 1,
    })
    start = Position.from_text("3", "o", SEED_BOARD)
    record = play_game(blue, red, GameSettings(time=5), start=start)
    assert [m.move for m in record.moves] == [2, -1, 2, 1, -1]
    assert [m.board for m in record.moves] == [
        "...x..o.oxooxxxoxo",
        "...o..x.ooooxxxxxo",
        "...o..xoooooxxxxxo",
        "x..o..xoooooxxxxxo",
        "x..x..oooxoooxxxxo",
    ]
    assert [m.player for m in record.moves] == ["o", "x", "o", "x", "o"]
    assert all(m.verdict == "ok" for m in record.moves)
    assert (record.result, record.winner, record.termination) == ("0-1", "o", "line")
    assert record.reason == "o wins: o (red) rotates column 1 and completes a line"
    assert record.plies == 5
    assert record.start_board == SEED_BOARD and record.start_player == "o"
    assert record.fault is None


def test_a_hanging_engine_forfeits_on_time_at_its_first_move() -> None:
    record = play_game(inline("sleeper", HANG), builtin_engine("random"), GameSettings(), "5")
    assert record.plies == 1
    assert record.moves[0].verdict == "time"
    assert record.moves[0].move is None and record.moves[0].board is None
    assert (record.result, record.termination) == ("0-1", Termination.FORFEIT.value)
    assert record.reason == (
        "o wins: x (sleeper) forfeits by time: no answer within 1 s (+ 0.5 s grace); killed"
    )
    assert record.fault is not None and record.fault.verdict == "time"


def test_an_illegal_move_forfeits_and_keeps_the_engines_output(tmp_path: Path) -> None:
    cheat = inline("cheat", "print('thinking'); print('9 ' + '.' * 18)")
    record = play_game(builtin_engine("random"), cheat, GameSettings(), start=Position.from_text("3", "o", SEED_BOARD))
    assert record.result == "1-0"
    assert record.moves[0].verdict == "illegal-move"
    assert record.fault is not None
    assert record.fault.stdout_tail == ("thinking", "9 " + "." * 18)
    assert record.fault.detail.startswith("move 9 is out of range: use 1..3 to drop or -1..-3 to rotate")


def test_third_occurrence_of_a_position_is_a_draw(tmp_path: Path) -> None:
    # Column 1 holds one pebble: rotating it leaves the board unchanged, so the game cycles.
    board = "." * 15 + "x.."
    rotate = {f"{p} {board}": -1 for p in "xo"}
    record = play_game(scripted(tmp_path, "a", rotate), scripted(tmp_path, "b", rotate), GameSettings(),
                       start=Position.from_text("3", "o", board))
    # o to move at the start (1), x (1), o (2), x (2), o (3): the fourth move makes the third.
    assert record.plies == 4
    assert (record.result, record.termination) == ("1/2-1/2", "repetition")
    assert record.reason == "draw: the same board with the same side to move occurred a third time"


def test_game_is_drawn_at_max_plies() -> None:
    # Seeded, so that no repetition can end the game first (two unseeded random movers sometimes
    # rotate one-pebble columns back and forth).
    record = play_game(builtin_engine("random", {"seed": 1}), builtin_engine("random", {"seed": 2}),
                       GameSettings(max_plies=6), "8")
    assert record.plies == 6
    assert (record.result, record.winner, record.termination) == ("1/2-1/2", None, "max-plies")
    assert record.reason == "draw: 6 plies without a line"


@pytest.mark.parametrize(("priority", "result"), [("mover", "0-1"), ("blue", "1-0")])
def test_double_line_is_decided_by_win_priority(tmp_path: Path, priority: str, result: str) -> None:
    board = "oxxxooxoxoxoooxxxo"  # o rotating column 1 completes x's top row and o's second row
    red = scripted(tmp_path, "red", {f"o {board}": -1})
    record = play_game(builtin_engine("random"), red, GameSettings(win_priority=priority),
                       start=Position.from_text("3", "o", board))
    assert record.result == result
    assert record.moves[0].board == "xxxoooxoxxxoooxoxo"
    expected = "o wins: o (red) rotates column 1 and completes a line" if priority == "mover" else \
        "x wins: o (red) rotates column 1 and completes a line for x"
    assert record.reason == expected


def test_record_json_has_result_reason_plies_and_verdicts() -> None:
    record = play_game(builtin_engine("greedy", {"seed": 1}), builtin_engine("random", {"seed": 2}),
                       GameSettings(max_plies=10), "4")
    data = json.loads(json.dumps(record.to_json()))
    assert data["plies"] == len(data["moves"]) == record.plies
    assert data["result"] in ("1-0", "0-1", "1/2-1/2")
    assert {m["verdict"] for m in data["moves"]} == {"ok"}
    assert data["x"] == "greedy" and data["o"] == "random" and data["n"] == 4
    # Every recorded board is the referee's replay of the moves from the start.
    position = Position(4)
    for move in data["moves"]:
        position.push(move["move"])
        assert position.board() == move["board"]


def test_game_settings_carry_one_clock_with_the_argv_seconds() -> None:
    settings = GameSettings(time=2.0, grace=1.5)
    assert (settings.clock.seconds, settings.clock.grace, settings.clock.seconds_text) == (2.0, 1.5, "2")
    assert settings.clock.allowed == 3.5
    fractional = GameSettings(time=0.25, allow_fractional_time=True)
    assert fractional.clock.seconds_text == "0.25"
    assert settings.model_copy(update={"max_plies": 7}).clock is settings.clock


def test_game_settings_refuse_a_fractional_time_with_the_config_words() -> None:
    with pytest.raises(ValueError, match=r"time: expected a whole number of seconds \(or set allow_fractional_time: "
                                         r"true\), got 0\.5"):
        GameSettings(time=0.5)
