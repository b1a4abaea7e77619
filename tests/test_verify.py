"""harness.match.verify: a record is believed only when its moves, replayed through the rules, give its end."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from harness.referee.engine_specs import builtin_engine, command_engine
from harness.games.registry import get_game
from harness.match.match import Fault, GameRecord, MoveRecord, Termination, play_game
from harness.referee.protocol import CallWarning, Verdict, WarningKind
from harness.tournament.schedule import ScheduledGame
from harness.match.settings import GameSettings
from harness.store.records import record_from_data
from harness.match.verify import RecordRefused, check_record, check_scheduled, derived_end

FAKES = Path(__file__).parent / "fake_engines"


def built(game: str, size: str, moves: list[int], *, player: str = "x", board: str | None = None,
          max_plies: int = 200) -> GameRecord:
    """A record of ``moves`` (all by ``a`` as x and ``b`` as o) with boards from the rules; no end set."""
    rules = get_game(game)
    position = rules.initial(size) if board is None else rules.position(size, player, board)
    record = GameRecord("a", "b", game, size, 1.0, position.board(), position.player, max_plies, "mover")
    for ply, move in enumerate(moves, 1):
        mover = position.player
        position.push(move)
        record.moves.append(MoveRecord(ply, mover, {"x": "a", "o": "b"}[mover], move, position.board(), Verdict.OK, 0.25))
    return record


def ended(record: GameRecord, result: str, winner: str | None, termination: Termination, reason: str) -> GameRecord:
    return dataclasses.replace(record, result=result, winner=winner, termination=termination, reason=reason)


def refused(record: GameRecord) -> str:
    with pytest.raises(RecordRefused) as caught:
        check_record(record)
    return str(caught.value)


# Connect Four 7x6: x plays column 1 four times, o column 2 three times: x's vertical four at ply 7.
C4_MOVES = [1, 2, 1, 2, 1, 2, 1]
C4_REASON = "x wins: x (a) drops into column 1 and completes a line"


def c4_win() -> GameRecord:
    return ended(built("connect4", "7x6", C4_MOVES), "1-0", "x", Termination.LINE, C4_REASON)


def test_a_true_record_is_believed_and_its_end_derived_from_the_moves() -> None:
    record = c4_win()
    assert derived_end(record) == ("x", Termination.LINE, C4_REASON)
    check_record(record)


def test_a_game_played_by_real_engines_passes_and_matches_its_schedule() -> None:
    settings = GameSettings(game="connect4", time=1)
    game = ScheduledGame("7x6:r1:rnd:grd:a", "7x6:r1:rnd:grd", "7x6", 1, "rnd", "grd", "." * 42, "x")
    record = play_game(builtin_engine("random", {"seed": 4}, "rnd"), builtin_engine("greedy", {"seed": 5}, "grd"),
                       settings, "7x6")
    check_scheduled(record, game, settings)
    other = dataclasses.replace(game, x="grd", o="rnd")
    with pytest.raises(RecordRefused, match=r"^x is 'rnd', but game 7x6:r1:rnd:grd:a has 'grd'$"):
        check_scheduled(record, other, settings)
    with pytest.raises(RecordRefused, match=r"^max_plies is 200, but game 7x6:r1:rnd:grd:a has 50$"):
        check_scheduled(record, game, GameSettings(game="connect4", time=1, max_plies=50))


def test_a_flipped_result_is_refused_naming_both() -> None:
    record = dataclasses.replace(c4_win(), result="0-1", winner="o")
    assert refused(record) == f"the record says 0-1 (line: {C4_REASON}), but its moves give 1-0 (line: {C4_REASON})"


def test_a_game_without_moves_cannot_claim_a_win() -> None:
    record = ended(built("betsy", "5", []), "1-0", "x", Termination.LINE, "x wins")
    assert refused(record) == "no moves: a game ends only by a move or a forfeit"


def test_moves_cut_short_or_going_on_after_the_end_are_refused() -> None:
    short = ended(built("connect4", "7x6", C4_MOVES[:-1]), "1-0", "x", Termination.LINE, C4_REASON)
    assert refused(short) == "the moves stop at ply 6, but the game is not over there"
    check_record(ended(built("connect4", "7x6", [*C4_MOVES[:-1], 3, 2]), "0-1", "o", Termination.LINE,
                       "o wins: o (b) drops into column 2 and completes a line"))
    after = dataclasses.replace(c4_win())
    after.moves = [*after.moves, MoveRecord(8, "o", "b", 3, "." * 42, Verdict.OK, 0.1)]
    assert refused(after) == f"ply 8: a move after the game ended ({C4_REASON})"


def test_wrong_strings_and_types_are_refused_in_one_line() -> None:
    assert refused(dataclasses.replace(c4_win(), result="banana")).startswith("the record says banana (line: ")
    assert refused(dataclasses.replace(c4_win(), winner="banana")) == "winner: expected x, o or none, got 'banana'"
    assert refused(dataclasses.replace(c4_win(), termination="line")) == (  # type: ignore[arg-type]
        "termination: expected one of line, full-board, no-move, forfeit, repetition, max-plies, got 'line'")
    record = c4_win()
    record.moves[2] = dataclasses.replace(record.moves[2], seconds="0.2")  # type: ignore[arg-type]
    assert refused(record) == "ply 3: seconds '0.2'; expected a time of 0 or more"
    record = c4_win()
    record.moves[3] = dataclasses.replace(record.moves[3], ply=7)
    assert refused(record) == "move 4: numbered 7; plies count 1, 2, 3, ..."
    assert refused(dataclasses.replace(c4_win(), game="chess")) == "unknown game 'chess'"
    assert refused(dataclasses.replace(c4_win(), max_plies=0)) == "max_plies: expected a whole number from 1, got 0"
    assert refused(dataclasses.replace(c4_win(), o="a")) == "engines 'a' and 'a': expected two different names"


def test_a_forged_board_or_move_or_mover_is_refused() -> None:
    record = c4_win()
    record.moves[1] = dataclasses.replace(record.moves[1], board="x" + "." * 41)
    assert refused(record) == "ply 2: the board after move 2 is not the rules' board"
    record = c4_win()
    record.moves[1] = dataclasses.replace(record.moves[1], move=9)
    assert refused(record) == "ply 2: move 9 is not legal"
    record = c4_win()
    record.moves[1] = dataclasses.replace(record.moves[1], engine="a")
    assert refused(record) == "ply 2: engine 'a' moved for o, which 'b' plays"
    record = c4_win()
    record.moves[1] = dataclasses.replace(record.moves[1], player="x")
    assert refused(record) == "ply 2: 'x' moved, but o was to move"


def test_a_forfeit_must_carry_the_fault_of_its_last_move() -> None:
    settings = GameSettings(game="connect4", time=1)
    crasher = command_engine(f"python3 {FAKES / 'crashes_without_answer.py'}", name="crash")
    record = play_game(builtin_engine("random", {"seed": 1}, "rnd"), crasher, settings, "7x6")
    assert record.termination is Termination.FORFEIT and record.fault is not None
    check_record(record)
    assert record.fault is not None
    other = dataclasses.replace(record, fault=dataclasses.replace(record.fault, verdict=Verdict.TIME))
    assert refused(other) == "fault: 'crash' (o) time is not the last move's ('crash' (o) no-answer)"
    assert refused(dataclasses.replace(record, fault=None)) == "ply 2: a forfeit without its fault"
    no_forfeit = c4_win()
    no_forfeit.fault = Fault("a", "x", Verdict.TIME, "", None, (), "", ())
    assert refused(no_forfeit) == "a fault recorded, but the game ended by line"
    middle = dataclasses.replace(record)
    middle.moves = [dataclasses.replace(record.moves[0], verdict=Verdict.TIME, move=None, board=None), *record.moves[1:]]
    assert refused(middle) == "ply 1: a forfeit (time) that is not the last move"


def test_draws_by_repetition_and_by_the_ply_limit_are_derived() -> None:
    # Betsy n = 3: x drops 1, o drops 2, then both rotate their one-pebble column (the board is unchanged):
    # the board after ply 2 with x to move comes back after plies 4 and 6.
    repeated = built("betsy", "3", [1, 2, -1, -2, -1, -2])
    reason = "draw: the same board with the same side to move occurred a third time"
    check_record(ended(repeated, "1/2-1/2", None, Termination.REPETITION, reason))
    assert refused(ended(built("betsy", "3", [1, 2, -1, -2, -1]), "1/2-1/2", None, Termination.REPETITION, reason)) == (
        "the moves stop at ply 5, but the game is not over there")
    capped = built("betsy", "3", [1, 2, -1], max_plies=3)
    check_record(ended(capped, "1/2-1/2", None, Termination.MAX_PLIES, "draw: 3 plies without a line"))


def test_a_start_position_that_is_not_a_position_is_refused() -> None:
    record = dataclasses.replace(c4_win(), start_board="x" * 42)
    assert refused(record).startswith("bad start position: ")
    assert refused(dataclasses.replace(c4_win(), size="07x6")) == "size '07x6' is not written as Connect Four writes it"


def test_a_mover_that_is_neither_x_nor_o_is_refused() -> None:
    for player in ("", "xo"):
        record = c4_win()
        record.moves[0] = dataclasses.replace(record.moves[0], player=player)
        assert refused(record) == f"ply 1: player {player!r}; expected x or o"


def test_a_value_shown_in_a_message_is_short_whatever_its_size() -> None:
    from harness.match.verify import shown

    assert shown(10**400) == "10000000000000000000...(401 characters)"
    assert shown("a" * 100) == repr("a" * 40) + "..."
    assert shown(12) == "12" and shown(True) == "true" and shown([1]) == "a list"


def data_refused(data: object) -> str:
    with pytest.raises(RecordRefused) as caught:
        record_from_data(data)
    return str(caught.value)


def test_a_record_rebuilt_from_its_json_is_the_same_record() -> None:
    settings = GameSettings(game="connect4", time=1)
    crasher = command_engine(f"python3 {FAKES / 'crashes_without_answer.py'}", name="crash")
    forfeit = play_game(builtin_engine("random", {"seed": 1}, "rnd"), crasher, settings, "7x6")
    warned = c4_win()
    warned.moves[0] = dataclasses.replace(warned.moves[0], warnings=(
        CallWarning(WarningKind.LINES_AFTER_ANSWER, "1 line after the answer"),))
    for record in (c4_win(), forfeit, warned):
        rebuilt = record_from_data(json.loads(json.dumps(record.to_json())))
        assert rebuilt == record
        assert [type(move.verdict) for move in rebuilt.moves] == [Verdict] * len(record.moves)
    assert forfeit.fault is not None and record_from_data(json.loads(json.dumps(forfeit.to_json()))).fault == forfeit.fault


def test_a_record_whose_json_has_wrong_types_is_refused_naming_the_field() -> None:
    good = c4_win().to_json()
    assert data_refused([good]) == "the line: expected an object, got a list"
    assert data_refused({**good, "moves": "1234"}) == "moves: expected a list, got '1234'"
    assert data_refused({**good, "x": 7}) == "x: expected a name (text), got 7"
    assert data_refused({**good, "time": "1"}) == "time: expected a number above 0 to 3600, got '1'"
    assert data_refused({**good, "max_plies": True}) == "max_plies: expected a whole number from 1 to 10000, got true"
    assert data_refused({**good, "termination": "won"}) == (
        "termination: expected one of line, full-board, no-move, forfeit, repetition, max-plies, null, got 'won'")
    moves = [dict(move) for move in good["moves"]]
    moves[1]["verdict"] = "okay"
    assert data_refused({**good, "moves": moves}).startswith("moves[1].verdict: expected one of ok, time, ")
    moves[1] = {**good["moves"][1], "move": "2"}
    assert data_refused({**good, "moves": moves}) == "moves[1].move: expected a whole number, got '2'"
    moves[1] = {**good["moves"][1], "warnings": [{"kind": "gossip", "text": "x"}]}
    assert data_refused({**good, "moves": moves}).startswith("moves[1].warnings[0].kind: expected one of ")
    fault = {"engine": "a", "player": "x", "verdict": "time", "detail": "", "exit_status": None,
             "stdout_tail": [], "stderr_tail": "", "argv": "python3 a.py"}
    assert data_refused({**good, "fault": fault}) == "fault.argv: expected a list, got 'python3 a.py'"
    assert data_refused({**good, "fault": {**fault, "argv": [], "exit_status": 1.5}}) == (
        "fault.exit_status: expected a whole number, got 1.5")
