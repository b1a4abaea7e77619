"""Validation positions: every tactics and last-pebble case is re-proven here by a separate, plain
brute-force search (and, at n = 3, a separate exact solver), so a program is never marked down for a
move that keeps the win."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from harness.games.betsy.rules import PLAYERS, Position
from harness.games.connect4.rules import Position as C4Position
from harness.games.betsy.suites import forced_wins, last_pebble_suite, tactics_suite
from harness.games.connect4.suites import CONNECT4_TACTIC_KINDS, connect4_tactics_suite
from harness.games.registry import get_game
from harness.games.suites import TACTIC_KINDS, Case
from tests.conftest import ROOT

DEFAULT = tactics_suite((3, 5, 8), 4)
"""The validator's full tactics suite for its default sizes."""
QUICK = tactics_suite((3, 5, 8), 2)
"""... and its --quick one."""
OTHER_SEED = tactics_suite((3, 4, 5), 3, seed=7)
LAST_PEBBLE = last_pebble_suite((3, 4, 5, 8, 12))
LAST_PEBBLE_MORE = last_pebble_suite((3, 5, 6), per_colour=2, seed=3)
TWINNED = last_pebble_suite(tuple(range(3, 13)))
"""A last-pebble case of each colour at every size 3..12 (each with its twin)."""
ALL_CASES = {f"{case.id}@seed{seed}": case for seed, suite in (
    (1, DEFAULT), (1, QUICK), (7, OTHER_SEED), (1, LAST_PEBBLE), (3, LAST_PEBBLE_MORE), (1, TWINNED))
    for case in suite}
"""Every case once (with one seed, an id names one case whatever the suite: checked below)."""

ISSUE_BOARD = "..x..o.ox.oo.xxoxx"
"""n = 3, x to move: once a win-in-three case accepting only -3, though every legal move wins."""


# --- an independent, deliberately plain search: Position.after and the full winner() check only ----


def force_line(position: Position, plies: int) -> bool:
    """The side to move completes a line within ``plies`` plies (1 or 3), whatever the opponent does."""
    me = position.turn
    children = [position.after(move) for move in position.legal_moves()]
    if any(child.winner() == me for child in children):
        return True
    if plies < 3:
        return False
    return any(child.winner() is None and every_reply_loses(child, me) for child in children)


def every_reply_loses(position: Position, winner: int) -> bool:
    """Every move of the side to move lets ``winner`` complete a line at once (or completes it)."""
    for reply in position.legal_moves():
        after = position.after(reply)
        result = after.winner()
        if result is None:
            if not force_line(after, 1):
                return False
        elif result != winner:
            return False
    return True


def wins_with(position: Position, move: int, plies: int) -> bool:
    child = position.after(move)
    result = child.winner()
    if result is not None:
        return result == position.turn
    return plies >= 3 and every_reply_loses(child, position.turn)


def loses_with(position: Position, move: int, plies: int) -> bool:
    """The opponent completes a line by force within ``plies`` plies after ``move`` (or at once)."""
    child = position.after(move)
    result = child.winner()
    if result is not None:
        return result != position.turn
    return force_line(child, plies)


def exact_results(position: Position, limit: int = 20_000) -> dict[int, int]:
    """Exact result of each legal move for the side to move (1 win, 0 draw, -1 loss): every reachable
    position, then values by plain fixpoint iteration until nothing changes."""
    edges: dict[int, list[tuple[str, int]]] = {}
    seen = {position.key(): position}
    todo = [position]
    while todo:
        node = todo.pop()
        outs = []
        for move in node.legal_moves():
            child = node.after(move)
            result = child.winner()
            if result is not None:
                outs.append(("end", 1 if result == node.turn else -1))
            else:
                outs.append(("node", child.key()))
                if child.key() not in seen:
                    seen[child.key()] = child
                    todo.append(child)
        edges[node.key()] = outs
        assert len(seen) <= limit, "too many positions for the plain solver"
    value = dict.fromkeys(edges, 0)

    def mine(out: tuple[str, int]) -> int:  # an outcome for the side to move
        return out[1] if out[0] == "end" else -value[out[1]]

    changed = True
    while changed:
        changed = False
        for key, outs in edges.items():
            if value[key]:
                continue
            results = [mine(out) for out in outs]
            new = 1 if 1 in results else -1 if all(r == -1 for r in results) else 0
            if new:
                value[key] = new
                changed = True
    return {move: mine(out) for move, out in zip(position.legal_moves(), edges[position.key()])}


def kind_of(case: Case) -> str:
    return case.id.split("-", 2)[2].rsplit("-", 1)[0]


def claims_wins(case: Case) -> bool:
    """Whether ``expected`` are claimed to win (else: to be the only moves that do not lose)."""
    return "the only winning moves are" in case.description


# --- the "no false alarm" guarantee -------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(ALL_CASES))
def test_expected_moves_are_right_and_every_other_move_loses(key: str) -> None:
    case = ALL_CASES[key]
    position = case.position
    moves = position.legal_moves()
    assert position.winner() is None
    assert case.expected and case.expected < set(moves)
    last_pebble = kind_of(case) == "last-pebble"
    # Last-pebble cases claim that every other move lets the opponent win at once; tactics, within 3.
    horizon = 1 if last_pebble else 3
    for move in sorted(set(moves) - case.expected):
        assert loses_with(position, move, horizon), f"{case.id}: {move} is not proven to lose"
    if claims_wins(case):
        plies = 3 if kind_of(case) == "win-in-three" else 1
        for move in case.expected:
            assert wins_with(position, move, plies), f"{case.id}: {move} does not win in {plies}"
        if kind_of(case) == "win-in-three":
            assert not force_line(position, 1), "a win in 3 has no win at once"
    else:
        assert not force_line(position, 1)
        assert any(loses_with(position, m, 1) for m in moves), "something must need stopping"
        for move in case.expected:
            assert not loses_with(position, move, 3), f"{case.id}: {move} loses within 3 plies"
        if position.n == 3:  # exact: the expected moves are exactly those that do not lose
            results = exact_results(position)
            assert {m for m, r in results.items() if r >= 0} == case.expected


def test_n3_cases_agree_with_the_exact_tables(n3_tables: str) -> None:
    from engines.tablebase import Tablebase, table_name

    table = Tablebase(os.path.join(n3_tables, table_name(3)))
    try:
        checked = 0
        for case in ALL_CASES.values():
            if case.position.n != 3:
                continue
            for position in (case.position, case.twin) if case.twin is not None else (case.position,):
                results = {}
                for move in position.legal_moves():
                    child = position.after(move)
                    result = child.winner()
                    results[move] = (-table.lookup(child)[0] if result is None
                                     else 1 if result == position.turn else -1)
                keeping = {m for m, r in results.items() if r >= (1 if claims_wins(case) else 0)}
                assert keeping == case.expected, case.id
                checked += 1
        assert checked >= 8
    finally:
        table.close()


def test_the_reported_false_alarm_is_gone() -> None:
    position = Position.from_text("3", "x", ISSUE_BOARD)
    # Every legal move wins (the exact tables: -3 in 3 plies, 2 and -2 in 5, 1 and -1 in 7); within
    # 3 plies none loses, so no case may single out any of them.
    assert not any(loses_with(position, move, 3) for move in position.legal_moves())
    from harness.games.suites import tactic

    assert all(tactic(position.copy(), kind, exact=True) is None for kind in TACTIC_KINDS)
    for case in ALL_CASES.values():
        assert (case.position.n, case.position.board()) != (3, ISSUE_BOARD)


# --- what the suites hold -------------------------------------------------------------------------------


def test_tactics_suite_spreads_kinds_sizes_and_colours() -> None:
    for suite, per_kind in ((DEFAULT, 4), (QUICK, 2)):
        assert [kind_of(case) for case in suite] == [k for k in TACTIC_KINDS for _ in range(per_kind)]
        assert {case.position.n for case in suite} == {3, 5}  # n = 8 is past TACTICS_MAX_N
        for kind in TACTIC_KINDS:
            of_kind = [case for case in suite if kind_of(case) == kind]
            assert {case.position.player for case in of_kind} == {"x", "o"}
            assert {case.position.n for case in of_kind} == {3, 5}
    assert {case.position.n for case in OTHER_SEED} == {3, 4, 5}
    assert tactics_suite((8, 12), 4) == []


def test_ids_are_descriptive_and_unique() -> None:
    pattern = re.compile(r"n(\d+)-([xo])-(win-in-one|block|win-in-three|last-pebble)-(\d+)")
    for suite in (DEFAULT, QUICK, OTHER_SEED, LAST_PEBBLE, LAST_PEBBLE_MORE, TWINNED):
        assert len({case.id for case in suite}) == len(suite)
        for case in suite:
            match = pattern.fullmatch(case.id)
            assert match, case.id
            assert int(match[1]) == case.position.n and match[2] == case.position.player


def test_descriptions_say_what_is_asked() -> None:
    for case in ALL_CASES.values():
        text = case.description
        me, other = case.position.player, PLAYERS[case.position.turn ^ 1]
        assert str(sorted(case.expected)) in text
        assert text.startswith(f"{me} ")
        kind = kind_of(case)
        if kind == "win-in-one":
            assert text.startswith(f"{me} to move wins at once; the only winning moves are [")
        elif kind == "win-in-three":
            assert text.startswith(f"{me} to move wins by force in 3 plies; the only winning moves are [")
        elif kind == "block":
            assert text.startswith(f"{me} must stop {other}'s line; ")
            if case.position.n == 3:
                assert "the only moves that do not lose are [" in text
            else:
                assert f"loses by force ({other} wins within 3 plies)" in text
        else:
            assert kind == "last-pebble"
            assert text.startswith(f"{me} has one pebble in hand; the only ")
            assert f"are drops {sorted(case.expected)}" in text


def test_a_case_is_the_same_whatever_else_is_asked() -> None:
    by_id = {case.id: case for case in DEFAULT}
    for case in QUICK + tactics_suite((5,), 2) + tactics_suite((3,), 2):
        same = by_id[case.id]
        assert (same.position.board(), same.position.player, same.expected, same.description) == (
            case.position.board(), case.position.player, case.expected, case.description)
    small = {case.id: case.position.board() for case in last_pebble_suite((3, 8))}
    assert small == {case.id: case.position.board() for case in LAST_PEBBLE if case.id in small}


def summary(cases: list[Case]) -> list[tuple[str, int, str, str, list[int], str, str]]:
    return [(c.id, c.position.n, c.position.player, c.position.board(), sorted(c.expected or ()),
             c.description, c.twin.board() if c.twin is not None else "") for c in cases]


def test_suites_are_deterministic_across_calls_and_processes() -> None:
    assert summary(tactics_suite((3, 5, 8), 4)) == summary(DEFAULT)
    assert summary(last_pebble_suite((3, 4, 5, 8, 12))) == summary(LAST_PEBBLE)
    assert summary(tactics_suite((3, 5, 8), 4, seed=2)) != summary(DEFAULT)
    script = (
        "import json\n"
        "from harness.games.betsy.suites import tactics_suite, last_pebble_suite\n"
        "cases = tactics_suite((3, 5, 8), 4) + last_pebble_suite((3, 4, 5, 8, 12))\n"
        "print(json.dumps([(c.id, c.position.n, c.position.player, c.position.board(),"
        " sorted(c.expected), c.description, c.twin.board() if c.twin else '') for c in cases]))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120, cwd=ROOT, check=True)
    assert [tuple(row) for row in json.loads(result.stdout)] == summary(DEFAULT + LAST_PEBBLE)


def test_returned_positions_are_copies() -> None:
    first = tactics_suite((3,), 1)[0]
    board = first.position.board()
    first.position.push(sorted(first.position.legal_moves())[0])
    assert tactics_suite((3,), 1)[0].position.board() == board


# --- the last pebble --------------------------------------------------------------------------------------


def test_last_pebble_suite_covers_both_colours_at_every_size() -> None:
    assert [(c.position.n, c.position.player) for c in LAST_PEBBLE] == [
        (n, p) for n in (3, 4, 5, 8, 12) for p in "xo"]
    assert len(LAST_PEBBLE_MORE) == 3 * 2 * 2


@pytest.mark.parametrize("case", LAST_PEBBLE + LAST_PEBBLE_MORE, ids=lambda c: c.id)
def test_last_pebble_cases_need_the_last_pebble(case: Case) -> None:
    position = case.position
    assert position.pebbles_in_hand(position.turn) == 1
    assert case.expected and all(move > 0 for move in case.expected)
    assert all(position.is_legal(move) for move in case.expected)
    # A program that believes it has no pebble left plays a rotation: never a right answer.
    rotations = [move for move in position.legal_moves() if move < 0]
    assert rotations and not set(rotations) & case.expected


def test_every_last_pebble_case_has_a_twin_at_every_size_and_colour() -> None:
    assert [(c.position.n, c.position.player) for c in TWINNED] == [(n, p) for n in range(3, 13) for p in "xo"]
    assert all(case.twin is not None for case in TWINNED + LAST_PEBBLE + LAST_PEBBLE_MORE)
    # The cases of a slot are the same whichever sizes are asked, twins included.
    assert summary(LAST_PEBBLE) == summary([case for case in TWINNED if case.position.n in (3, 4, 5, 8, 12)])


@pytest.mark.parametrize("case", TWINNED + LAST_PEBBLE_MORE, ids=lambda c: c.id)
def test_a_twin_is_its_board_with_one_pebble_of_the_mover_off_the_top_of_a_column(case: Case) -> None:
    position, twin = case.position, case.twin
    assert twin is not None
    board = twin.board()
    assert Position.from_text(str(position.n), position.player, board).board() == board  # valid: nothing floats
    changed = [i for i, (a, b) in enumerate(zip(position.board(), board)) if a != b]
    assert len(changed) == 1 and len(board) == len(position.board())
    assert (position.board()[changed[0]], board[changed[0]]) == (position.player, ".")
    assert twin.turn == position.turn
    assert (position.pebbles_in_hand(position.turn), twin.pebbles_in_hand(twin.turn)) == (1, 2)
    assert twin.pebbles_in_hand(twin.turn ^ 1) == position.pebbles_in_hand(position.turn ^ 1)


@pytest.mark.parametrize("case", TWINNED + LAST_PEBBLE_MORE, ids=lambda c: c.id)
def test_a_twin_has_exactly_the_solving_moves_of_its_case_and_of_the_same_kind(case: Case) -> None:
    twin = case.twin
    assert twin is not None and twin.winner() is None
    moves = twin.legal_moves()
    assert any(move < 0 for move in moves)  # a rotation is there to be played, and loses
    for move in sorted(set(moves) - case.expected):
        assert loses_with(twin, move, 1), f"{case.id}: {move} is not proven to lose in the twin"
    if claims_wins(case):
        assert {move for move in moves if twin.after(move).winner() == twin.turn} == case.expected
        assert forced_wins(twin, 1) == forced_wins(case.position, 1) == case.expected
    else:
        assert not force_line(twin, 1) and not forced_wins(twin, 1)
        for move in case.expected:
            assert not loses_with(twin, move, 3), f"{case.id}: {move} loses within 3 plies in the twin"
    if twin.n == 3:  # exact, by the plain solver: the moves that keep the value are exactly the same
        keep = 1 if claims_wins(case) else 0
        for position in (case.position, twin):
            assert {move for move, result in exact_results(position).items() if result >= keep} == case.expected


# --- Connect Four ---------------------------------------------------------------------------------------

C4_DEFAULT = connect4_tactics_suite(("7x6", "8x8"), 6)
"""The validator's Connect Four tactics for its default sizes."""
C4_QUICK = connect4_tactics_suite(("7x6", "8x8"), 3)
C4_OTHER = connect4_tactics_suite(("4x4", "9x7", "12x12"), 4, seed=5)
C4_CASES = {f"{case.id}@seed{seed}": case for seed, suite in ((1, C4_DEFAULT), (1, C4_QUICK), (5, C4_OTHER))
            for case in suite}


def c4_force_four(position: C4Position, plies: int) -> bool:
    """The side to move makes four within ``plies`` plies (1 or 3), whatever the opponent does."""
    me = position.turn
    children = [position.after(move) for move in position.legal_moves()]
    if any(child.winner() == me for child in children):
        return True
    return plies >= 3 and any(child.winner() is None and c4_every_reply_loses(child, me) for child in children)


def c4_every_reply_loses(position: C4Position, winner: int) -> bool:
    """Every move of the side to move lets ``winner`` make four at once; a full board is a draw."""
    replies = position.legal_moves()
    if not replies:
        return False
    for reply in replies:
        after = position.after(reply)
        result = after.winner()
        if result is None and not c4_force_four(after, 1) or result is not None and result != winner:
            return False
    return True


def c4_loses_with(position: C4Position, move: int, plies: int) -> bool:
    child = position.after(move)
    return child.winner() is None and c4_force_four(child, plies)


@pytest.mark.parametrize("key", sorted(C4_CASES))
def test_connect4_expected_moves_are_right_and_every_other_move_loses(key: str) -> None:
    case = C4_CASES[key]
    position = case.position
    moves = position.legal_moves()
    assert position.winner() is None and case.expected and case.expected < set(moves)
    for move in sorted(set(moves) - case.expected):
        assert c4_loses_with(position, move, 3), f"{case.id}: {move} is not proven to lose"
    wins_now = {move for move in moves if position.after(move).winner() == position.turn}
    if kind_of(case) == "win-in-one":
        assert case.expected == wins_now
    else:
        assert not wins_now
        assert any(c4_loses_with(position, move, 1) for move in moves), "something must need stopping"
        for move in case.expected:
            assert not c4_loses_with(position, move, 3), f"{case.id}: {move} loses within 3 plies"


def test_connect4_tactics_spread_kinds_sizes_and_colours() -> None:
    for suite, per_kind in ((C4_DEFAULT, 6), (C4_QUICK, 3)):
        assert [kind_of(case) for case in suite] == [k for k in CONNECT4_TACTIC_KINDS for _ in range(per_kind)]
        for kind in CONNECT4_TACTIC_KINDS:
            of_kind = [case for case in suite if kind_of(case) == kind]
            assert {case.position.player for case in of_kind} == {"x", "o"}
            assert {case.position.size_text for case in of_kind} == {"7x6", "8x8"}
    pattern = re.compile(r"(\d+x\d+)-([xo])-(win-in-one|block)-(\d+)")
    for suite in (C4_DEFAULT, C4_QUICK, C4_OTHER):
        assert len({case.id for case in suite}) == len(suite)
        for case in suite:
            match = pattern.fullmatch(case.id)
            assert match and match[1] == case.position.size_text and match[2] == case.position.player, case.id
    assert {case.position.size_text for case in C4_OTHER} >= {"9x7", "12x12"}


def test_connect4_descriptions_say_what_is_asked() -> None:
    for case in C4_CASES.values():
        me, other = case.position.player, PLAYERS[case.position.turn ^ 1]
        if kind_of(case) == "win-in-one":
            assert case.description == (f"{me} to move wins at once; the only winning moves are "
                                        f"{sorted(case.expected or ())} (every other move loses by force)")
        else:
            assert case.description == (f"{me} must stop {other}'s line; every move but {sorted(case.expected or ())} "
                                        f"loses by force ({other} wins within 3 plies)")


def test_connect4_suites_are_the_same_in_another_process() -> None:
    script = (
        "import json\n"
        "from harness.games.connect4.suites import connect4_tactics_suite\n"
        "from harness.games.registry import get_game\n"
        "s = get_game('connect4').suites()\n"
        "cases = connect4_tactics_suite(('7x6', '8x8'), 6) + list(s.rules(('7x6', '8x8'), False))"
        " + list(s.robustness(False))\n"
        "print(json.dumps([(c.id, c.position.board(), sorted(c.expected or ())) for c in cases]))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120, cwd=ROOT, check=True)
    here = C4_DEFAULT + list(C4_SUITES.rules(("7x6", "8x8"), False)) + list(C4_SUITES.robustness(False))
    assert [tuple(row) for row in json.loads(result.stdout)] == [
        (c.id, c.position.board(), sorted(c.expected or ())) for c in here]


C4_SUITES = get_game("connect4").suites()


def full_columns(position: C4Position) -> list[int]:
    """Columns whose top cell holds a disc, read from the board string."""
    return [c + 1 for c in range(position.width) if position.board()[c] != "."]


def test_connect4_rules_positions_cover_each_size_both_sides_and_full_columns() -> None:
    for quick, names in ((True, ["midgame", "full-column", "near-full"]),
                         (False, ["midgame", "full-column", "near-full", "opening", "full-columns"])):
        cases = list(C4_SUITES.rules(("7x6", "8x8"), quick))
        assert [case.id for case in cases] == [
            f"{size}-{player}-{name}" for size in ("7x6", "8x8") for name in names for player in "xo"]
        for case in cases:
            size, player, name = case.id.split("-", 2)
            position = C4Position.from_text(size, player, case.position.board())  # valid, and player's turn
            assert position.winner() is None and position.legal_moves(), case.id
            full = full_columns(position)
            empty = position.board().count(".")
            if name == "full-column":
                assert full and case.description == "a disc into a column with room; never into a full column"
            if name == "full-columns":
                assert len(full) >= position.width // 2
            if name == "near-full":
                assert 1 <= empty <= 3 and len(full) >= position.width - empty
            if name == "opening":
                assert empty >= position.width * position.height - 3


def test_connect4_robustness_takes_the_extremes() -> None:
    cases = {case.id: case.position for case in C4_SUITES.robustness(False)}
    assert list(cases) == ["12x12-empty", "12x12-midgame", "4x4-near-full", "7x6-all-moves-lose",
                           "12x4-near-full", "4x12-midgame", "8x8-all-moves-lose"]
    assert [case.id for case in C4_SUITES.robustness(True)] == list(cases)[:4]
    assert cases["12x12-empty"].board() == "." * 144
    for name in ("7x6-all-moves-lose", "8x8-all-moves-lose"):
        position = cases[name]
        assert not any(position.after(move).winner() is not None for move in position.legal_moves())
        assert all(c4_force_four(position.after(move), 1) for move in position.legal_moves()), name
    for name, position in cases.items():
        assert position.winner() is None and position.legal_moves(), name


def test_each_game_has_its_suites() -> None:
    assert get_game("connect4").answer_form == "COLUMN NEWBOARD" and get_game("betsy").answer_form == "MOVE NEWBOARD"
    seed = C4_SUITES.protocol_position()
    assert (seed.size_text, seed.player, seed.board()) == ("7x6", "o", "." * 31 + "o" + "." * 5 + "oxxx.")
    assert C4_SUITES.first_move()[0] == "first-move-8x8"
    assert C4_SUITES.game_plies("8x8", True) == 64 and get_game("betsy").suites().game_plies("5", True) == 16
    assert C4_SUITES.last_pebble(("7x6",)) == []
    with pytest.raises(NotImplementedError, match="All The King's Horses has its own validation"):
        get_game("kings-horses").suites()


def test_betsy_rules_positions_keep_their_ids() -> None:
    assert [case.id for case in get_game("betsy").suites().rules(("3",), True)] == [
        "n3-x-no-pebbles-in-hand-1", "n3-o-no-pebbles-in-hand-1", "n3-x-full-columns", "n3-x-empty-columns",
        "n3-x-midgame", "n3-o-midgame"]
