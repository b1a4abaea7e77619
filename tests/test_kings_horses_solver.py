"""All The King's Horses solver: closed form, exact values against a plain minimax, best moves, the CLI."""

from __future__ import annotations

import random
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from engines import kings_horses_solver as khs

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "bestmove.py"
STEPS = ((-2, -1), (-1, -2), (-2, 1), (1, -2))
Sq = tuple[int, int]


@lru_cache(maxsize=None)
def lone_brute(row: int, col: int) -> int:
    return max((1 + lone_brute(row + dr, col + dc) for dr, dc in STEPS if row + dr >= 1 and col + dc >= 1), default=0)


_PLAIN: dict[tuple[tuple[Sq, Sq], tuple[Sq, Sq]], bool] = {}


def plain_wins(mine: tuple[Sq, Sq], theirs: tuple[Sq, Sq]) -> bool:
    """Plain exhaustive minimax: does the player with knights ``mine``, to move, win?"""
    key = (tuple(sorted(mine)), tuple(sorted(theirs)))
    if key in _PLAIN:
        return _PLAIN[key]
    taken = {*mine, *theirs}
    result = False
    for slot in (0, 1):
        row, col = mine[slot]
        for dr, dc in STEPS:
            q = (row + dr, col + dc)
            if q[0] >= 1 and q[1] >= 1 and q not in taken:
                after = (q, mine[1]) if slot == 0 else (mine[0], q)
                if not plain_wins(theirs, after):
                    result = True
                    break
        if result:
            break
    _PLAIN[key] = result
    return result


def plain_moves(mine: tuple[Sq, Sq], theirs: tuple[Sq, Sq]) -> set[tuple[Sq, Sq]]:
    taken = {*mine, *theirs}
    out = set()
    for slot in (0, 1):
        row, col = mine[slot]
        for dr, dc in STEPS:
            q = (row + dr, col + dc)
            if q[0] >= 1 and q[1] >= 1 and q not in taken:
                out.add((q, mine[1]) if slot == 0 else (mine[0], q))
    return out


def random_position(rng: random.Random, size: int) -> tuple[str, tuple[Sq, Sq], tuple[Sq, Sq]]:
    squares: list[Sq] = []
    while len(squares) < 4:
        sq = (rng.randint(1, size), rng.randint(1, size))
        if sq not in squares:
            squares.append(sq)
    return rng.choice(khs.PLAYERS), (squares[0], squares[1]), (squares[2], squares[3])


def own_and_other(mover: str, black: tuple[Sq, Sq], white: tuple[Sq, Sq]) -> tuple[tuple[Sq, Sq], tuple[Sq, Sq]]:
    return (black, white) if mover == "BLACK" else (white, black)


def test_lone_moves_closed_form_matches_brute_force() -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    for row in range(1, 41):
        for col in range(1, 41):
            assert khs.lone_moves(row, col) == lone_brute(row, col), (row, col)
    assert khs.lone_moves(1, 1) == 0 and khs.lone_moves(2, 2) == 0 and khs.lone_moves(1, 3) == 1
    assert khs.lone_moves(3, 3) == 2 and khs.lone_moves(5, 1) == 3


def test_seed_example() -> None:
    black, white = ((2, 2), (3, 3)), ((1, 2), (3, 1))
    assert khs.mover_wins("BLACK", black, white) is True
    assert khs.winner("BLACK", black, white) == "BLACK"
    assert plain_wins(black, white) is True


def test_mover_without_moves_loses() -> None:
    black, white = ((1, 1), (1, 2)), ((2, 1), (2, 2))
    for mover in khs.PLAYERS:
        assert khs.mover_wins(mover, black, white) is False
        assert khs.best_move(mover, black, white) is None
        assert khs.legal_moves(mover, black, white) == []
    # White's knights are stuck; Black's (3, 2) has (1, 3) and (1, 1) and nothing after: Black wins.
    black, white = ((3, 2), (1, 2)), ((2, 1), (2, 2))
    assert khs.winner("WHITE", black, white) == "BLACK"
    assert khs.winner("BLACK", black, white) == "BLACK"


def test_blocked_mover_with_positive_count_loses() -> None:
    # Black's (1, 3) could go to (2, 1) and (3, 1) to (1, 2), but White's knights stand there.
    black, white = ((1, 3), (3, 1)), ((2, 1), (1, 2))
    assert khs.lone_moves(1, 3) == 1 and khs.lone_moves(3, 1) == 1
    assert khs.legal_moves("BLACK", black, white) == []
    assert khs.mover_wins("BLACK", black, white) is False


def test_against_plain_minimax_on_random_small_positions() -> None:
    rng = random.Random(20240611)
    solver = khs.Solver()
    checked = 0
    for size, count in ((4, 600), (6, 1200), (7, 700)):
        for _ in range(count):
            mover, black, white = random_position(rng, size)
            mine, theirs = own_and_other(mover, black, white)
            assert solver.mover_wins(mover, black, white) == plain_wins(mine, theirs), (mover, black, white)
            checked += 1
    assert checked == 2500


def test_fresh_solver_agrees_on_random_positions_up_to_8() -> None:
    rng = random.Random(7)
    for _ in range(60):
        mover, black, white = random_position(rng, 8)
        mine, theirs = own_and_other(mover, black, white)
        assert khs.Solver().mover_wins(mover, black, white) == plain_wins(mine, theirs), (mover, black, white)


def test_every_position_in_a_corner_box() -> None:
    """All placements of the four knights on the 5 x 5 corner, exhaustively (the mover drawn at random)."""
    picks = [(r, c) for r in range(1, 6) for c in range(1, 6)]
    solver = khs.Solver()
    rng = random.Random(3)
    count = 0
    for i, b1 in enumerate(picks):
        for b2 in picks[i + 1:]:
            rest = [sq for sq in picks if sq not in (b1, b2)]
            for k, w1 in enumerate(rest):
                for w2 in rest[k + 1:]:
                    mover = rng.choice(khs.PLAYERS)
                    mine, theirs = own_and_other(mover, (b1, b2), (w1, w2))
                    assert solver.mover_wins(mover, (b1, b2), (w1, w2)) == plain_wins(mine, theirs)
                    count += 1
    assert count == 300 * 253


def test_forced_moves_settle_a_position_at_the_root() -> None:
    """White's knight on (7, 7) could stand on squares of Black's path, but White must move every turn
    and its other knight, on (1, 3), has one move: by the time Black's knight arrives, (7, 7) has made
    all but one of its moves. So Black's 11 moves are sure against White's 10 at most, with no search."""
    black, white = ((2, 1), (10, 13)), ((1, 3), (7, 7))
    assert plain_wins(black, white) is True
    solver = khs.Solver()
    assert solver.mover_wins("BLACK", black, white) is True
    assert solver.nodes == 1


def test_a_position_mirrored_in_the_diagonal_comes_from_the_table() -> None:
    black, white = ((5, 7), (6, 8)), ((4, 8), (7, 7))
    mirrored = (tuple((c, r) for r, c in black), tuple((c, r) for r, c in white))
    solver = khs.Solver()
    value = solver.mover_wins("BLACK", black, white)
    nodes = solver.nodes
    assert nodes > 1
    assert solver.mover_wins("BLACK", *mirrored) is value is plain_wins(black, white) is False
    assert solver.nodes == nodes


def test_legal_moves_and_best_move() -> None:
    rng = random.Random(11)
    solver = khs.Solver()
    wins = losses = 0
    for _ in range(300):
        mover, black, white = random_position(rng, 7)
        mine, theirs = own_and_other(mover, black, white)
        listed = khs.legal_moves(mover, black, white)
        expected = plain_moves(mine, theirs)
        got = {own_and_other(mover, *pos)[0] for pos in listed}
        assert got == expected and len(listed) == len(expected)
        for new_black, new_white in listed:
            assert (new_white if mover == "BLACK" else new_black) == theirs  # the opponent's knights stay
        moved = solver.best_move(mover, black, white)
        if not expected:
            assert moved is None
            continue
        assert moved is not None and moved in listed
        new_mine, new_theirs = own_and_other(mover, *moved)
        assert sum(a != b for a, b in zip(mine, new_mine)) == 1  # one knight moved, in its own slot
        if plain_wins(mine, theirs):
            wins += 1
            assert not plain_wins(new_theirs, new_mine)  # the move keeps the win
        else:
            losses += 1
    assert wins > 50 and losses > 50


def test_api_rejects_bad_positions() -> None:
    with pytest.raises(ValueError):
        khs.mover_wins("black", ((1, 1), (1, 2)), ((2, 1), (2, 2)))
    with pytest.raises(ValueError):
        khs.mover_wins("BLACK", ((1, 1), (1, 1)), ((2, 1), (2, 2)))
    with pytest.raises(ValueError):
        khs.mover_wins("BLACK", ((0, 1), (1, 2)), ((2, 1), (2, 2)))


def test_solver_memory_bound_and_clear() -> None:
    solver = khs.Solver(max_entries=10)
    assert solver.mover_wins("WHITE", ((6, 6), (7, 5)), ((5, 7), (7, 7))) == plain_wins(((5, 7), (7, 7)), ((6, 6), (7, 5)))
    assert len(solver) > 0
    solver.mover_wins("BLACK", ((2, 2), (3, 3)), ((1, 2), (3, 1)))  # starts by clearing the large table
    solver.clear()
    assert len(solver) == 0


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def test_cli_seed_example() -> None:
    done = run_cli("BLACK", "2", "2", "3", "3", "1", "2", "3", "1")
    assert (done.returncode, done.stdout, done.stderr) == (0, "BLACK WILL WIN\n", "")


def test_cli_main_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert khs.main(["WHITE", "2", "2", "3", "3", "1", "2", "3", "1"]) == 0
    black, white = ((2, 2), (3, 3)), ((1, 2), (3, 1))
    expected = khs.winner("WHITE", black, white)
    assert capsys.readouterr().out == f"{expected} WILL WIN\n"


def test_cli_move() -> None:
    done = run_cli("--move", "BLACK", "2", "2", "3", "3", "1", "2", "3", "1")
    assert done.returncode == 0 and done.stderr == ""
    first, second = done.stdout.splitlines()
    assert second == "BLACK WILL WIN"
    words = first.split()
    assert words[0] == "WHITE" and len(words) == 9
    nums = [int(w) for w in words[1:]]
    new_black = ((nums[0], nums[1]), (nums[2], nums[3]))
    new_white = ((nums[4], nums[5]), (nums[6], nums[7]))
    assert (new_black, new_white) in khs.legal_moves("BLACK", ((2, 2), (3, 3)), ((1, 2), (3, 1)))
    assert new_white == ((1, 2), (3, 1))
    assert not plain_wins(new_white, new_black)  # White, to move there, loses


def test_cli_move_when_mover_is_stuck_prints_only_the_verdict() -> None:
    done = run_cli("--move", "WHITE", "1", "1", "1", "2", "2", "1", "2", "2")
    assert (done.returncode, done.stdout, done.stderr) == (0, "BLACK WILL WIN\n", "")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("BLACK", "2", "2"), "expected PLAYER and 8 coordinates"),
        (("BLACK", "2", "2", "3", "3", "1", "2", "3", "1", "4"), "expected PLAYER and 8 coordinates"),
        ((), "expected PLAYER and 8 coordinates"),
        (("black", "2", "2", "3", "3", "1", "2", "3", "1"), "PLAYER must be WHITE or BLACK"),
        (("BLACK", "0", "2", "3", "3", "1", "2", "3", "1"), "b1r must be a positive integer"),
        (("BLACK", "2", "2", "3", "3", "1", "2", "3", "-1"), "w2c must be a positive integer"),
        (("BLACK", "2", "x", "3", "3", "1", "2", "3", "1"), "b1c must be a positive integer"),
        (("BLACK", "2", "2.5", "3", "3", "1", "2", "3", "1"), "b1c must be a positive integer"),
        (("BLACK", "2", "2", "2", "2", "1", "2", "3", "1"), "two knights stand on one square"),
        (("BLACK", "1", "2", "3", "3", "1", "2", "3", "1"), "two knights stand on one square"),
        (("--moves", "BLACK", "2", "2", "3", "3", "1", "2", "3", "1"), "unknown option '--moves'"),
        (("BLACK", "--move", "2", "2", "3", "3", "1", "2", "3", "1"), "unknown option '--move'"),
    ],
)
def test_cli_errors(args: tuple[str, ...], fragment: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bestmove: error: ") and fragment in lines[0]
    assert "Traceback" not in done.stderr


@lru_cache(maxsize=None)
def solo_brute(mine: tuple[Sq, Sq]) -> int:
    """The most moves two knights make with no opponent on the board, exhaustively."""
    best = 0
    for slot in (0, 1):
        row, col = mine[slot]
        for dr, dc in STEPS:
            q = (row + dr, col + dc)
            if q[0] >= 1 and q[1] >= 1 and q != mine[1 - slot]:
                best = max(best, 1 + solo_brute(tuple(sorted((q, mine[1 - slot])))))  # type: ignore[arg-type]
    return best


def test_solo_count_matches_brute_force() -> None:
    solver = khs.Solver()
    picks = [(r, c) for r in range(1, 9) for c in range(1, 9)]
    for i, p in enumerate(picks):
        for q in picks[i + 1:]:
            assert solver._solo(khs._enc(p), khs._enc(q)) == solo_brute((p, q)), (p, q)


def test_pure_race_rule_matches_brute_force_where_it_fires() -> None:
    """Positions where no knight can get in an opponent's way are decided by counting: check them all."""
    rng = random.Random(5)
    solver = khs.Solver()
    fired = {True: 0, False: 0}
    tried = 0
    while min(fired.values()) < 600:
        tried += 1
        assert tried < 200_000, fired
        size = rng.choice((5, 7, 9, 12))
        mover, black, white = random_position(rng, size)
        if rng.random() < 0.5:  # one player's knights in the first rows, the other's in the first columns
            black = tuple((min(r, c), max(r, c)) for r, c in black)  # type: ignore[assignment]
            white = tuple((max(r, c), min(r, c)) for r, c in white)  # type: ignore[assignment]
            if len({*black, *white}) < 4:
                continue
        mine, theirs = own_and_other(mover, black, white)
        a, b, x, y = khs._key(*(khs._enc(sq) for sq in (*mine, *theirs)))
        up, uo = khs._upper(a, b, x, y), khs._upper(x, y, a, b)
        race = solver._race(a, b, x, y, up, uo)
        if race is not None and sum(khs.lone_moves(*sq) for sq in (*mine, *theirs)) <= 44:
            assert race == plain_wins(mine, theirs), (mover, black, white)
            fired[race] += 1
