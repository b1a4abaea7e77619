"""All The King's Horses end to end, through the `arena` command as a user runs it: a tournament, a
match, the report (text, JSON and HTML pages, opened in headless Chromium), replay, export and
import, and games played in a terminal (pexpect).

Every stored game is replayed through the rules (harness.match.verify.check_record), and every result that
perfect play decides is checked against the plain minimax of tests/test_kings_horses_solver.py, not
against the solver the harness and bestmove use: the won and lost starts of the report are counted
here again from the stored games.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

import pexpect
import pytest

from harness.games.kings_horses.rules import Position, describe
from harness.store.records import record_from_data
from harness.store.store import Store
from harness.match.verify import check_record
from tests.conftest import ARENA, ROOT, run_program
from tests.test_kings_horses_solver import lone_brute, plain_wins
from tests.test_report_html import Tab, browser, tab  # noqa: F401  (the browser fixtures)

STUDENTS = ROOT / "tests" / "fake_engines" / "students_kings_horses"
ENGINES = ["bestmove", "greedy", "random", "occupied-ok"]
CONFIG = f"""
name: kh-e2e
game: kings-horses
size: 8
time: 5
grace: 5
format: round-robin
rounds: 2
openings: {{seed: 5}}
concurrency: 2
engines:
  - {{name: bestmove, builtin: bestmove}}
  - {{name: greedy, builtin: greedy}}
  - {{name: random, builtin: random, options: {{seed: 3}}}}
  - {{name: occupied-ok, command: python3 {STUDENTS / 'occupied_ok' / 'bestmove.py'}}}
"""
"""Our three players and the sample student whose knights may land on occupied squares: 6 pairings x
2 starts x 2 colours = 24 games from random close races in 1..8."""


@dataclasses.dataclass(frozen=True)
class Played:
    """A finished tournament and what `arena report` made of it."""

    db: Path
    text: str
    report: dict[str, Any]
    pages: Path


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    folder = tmp_path_factory.mktemp("kh")
    (folder / "kh.yaml").write_text(CONFIG)
    db = folder / "kh.sqlite"
    done = run_program([ARENA, "tournament", str(folder / "kh.yaml"), "--db", str(db), "--no-progress"], timeout=300)
    assert done.returncode == 0, done.stderr
    text = run_program([ARENA, "report", str(db)])
    assert text.returncode == 0, text.stderr
    report = run_program([ARENA, "report", str(db), "--json"])
    pages = run_program([ARENA, "report", str(db), "--html", str(folder / "pages")])
    assert pages.returncode == 0, pages.stderr
    return Played(db, text.stdout, json.loads(report.stdout), folder / "pages")


def rows(db: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return connection.execute(query).fetchall()


def squares(position: Position) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """(black's squares, white's squares)."""
    return set(position.knights[:2]), set(position.knights[2:])


def perfect_winner(player: str, board: str) -> str:
    """x or o: who wins the position with perfect play, by the plain minimax."""
    position = Position.from_text(None, player, board)
    mine = (position.knights[2 * position.turn], position.knights[2 * position.turn + 1])
    theirs = (position.knights[2 - 2 * position.turn], position.knights[3 - 2 * position.turn])
    return player if plain_wins(mine, theirs) else "ox"["xo".index(player)]


def replayed(start: Position, moves: list[tuple[int | None, str | None, str]]) -> list[Position]:
    """The start and the position after each ok move (move, board, verdict), each board checked."""
    positions = [start.copy()]
    for move, board, verdict in moves:
        if verdict != "ok":
            break
        assert move is not None and positions[-1].is_legal(move)
        positions.append(positions[-1].after(move))
        assert positions[-1].board() == board
    return positions


def conversions_from_games(db: Path) -> dict[str, list[int]]:
    """Per engine [won starts, converted, lost starts, saved]: of the games it began as the side to
    move, how many starts the plain minimax says that side wins, how many of those it won, and the
    same for the lost ones."""
    found = {name: [0, 0, 0, 0] for name in ENGINES}
    for x, o, player, board, winner in rows(db, "SELECT x, o, start_player, start_board, winner FROM games"):
        row = found[x if player == "x" else o]
        offset = 0 if perfect_winner(player, board) == player else 2
        row[offset] += 1
        row[offset + 1] += winner == player
    return found


# --- the tournament ---------------------------------------------------------------------------------


def test_a_tournament_stores_every_game_and_each_replays_through_the_rules(played: Played) -> None:
    games = rows(played.db, "SELECT id, pair_key, x, o, start_player, start_board, winner, termination FROM games")
    assert len(games) == len({game[0] for game in games}) == 24
    by_pair: dict[str, list[tuple[Any, ...]]] = {}
    for game in games:
        by_pair.setdefault(game[1], []).append(game)
    assert len(by_pair) == 12 and all(len(pair) == 2 for pair in by_pair.values())
    for first, second in by_pair.values():
        # Each start is played twice, colours swapped: each program of a pairing starts once as the mover.
        assert (first[4], first[5]) == (second[4], second[5]) and (first[2], first[3]) == (second[3], second[2])
    with Store(played.db, read_only=True) as store:
        for row in store.game_rows():
            record = store.game_record(row.id)
            check_record(record)  # the result, winner, end and reason are what the moves give
            start = Position.from_text(None, record.start_player, record.start_board)
            # A close race in 1..8: the side to move leads the lone-move count by -1 to 2.
            assert all(1 <= v <= 8 for square in start.knights for v in square)
            counts = [sum(lone_brute(*square) for square in start.knights[i:i + 2]) for i in (0, 2)]
            assert -1 <= counts[start.turn] - counts[1 - start.turn] <= 2
            moves = [(m.move, m.board, m.verdict.value) for m in record.moves]
            positions = replayed(start, moves)
            if record.termination.value == "no-move":
                assert len(positions) == len(moves) + 1 and positions[-1].legal_moves() == []
                assert record.winner == "xo"[1 - positions[-1].turn]
            else:
                assert record.termination.value == "forfeit" and record.fault is not None
                assert record.winner != record.fault.player and len(positions) == len(moves)
    # The student's bug is caught where it shows: each of its forfeits prints a position in which a
    # knight it moved stands where another knight stood.
    forfeits = rows(played.db, "SELECT fault_json FROM games WHERE termination = 'forfeit'")
    assert forfeits
    for (fault_json,) in forfeits:
        fault = json.loads(fault_json)
        assert (fault["engine"], fault["verdict"]) == ("occupied-ok", "illegal-move")
        printed, before = re.fullmatch(r"no legal move gives the printed position (.*) \(position (.*)\)",
                                       fault["detail"]).groups()  # type: ignore[union-attr]
        was = Position.from_words(before.split())
        numbers = [int(word) for word in printed.split()[1:]]  # two knights on a square: no Position
        now = list(zip(numbers[::2], numbers[1::2]))
        mover = 2 * was.turn
        moved = set(now[mover:mover + 2]) - set(was.knights[mover:mover + 2])
        assert len(moved) == 1 and moved <= set(was.knights), fault["detail"]
    faults = {engine["name"]: engine["faults"]["illegal-move"] for engine in played.report["engines"]}
    assert faults == {name: len(forfeits) if name == "occupied-ok" else 0 for name in ENGINES}
    # The exact solver never lets a won start slip, as either colour.
    for _, _, x, o, player, board, winner, _ in games:
        if "bestmove" in (x, o):
            side = "x" if x == "bestmove" else "o"
            if perfect_winner(player, board) == side:
                assert winner == side, (x, o, player, board)


def test_the_report_counts_won_and_lost_starts_as_the_stored_games_say_in_text_json_and_html(played: Played) -> None:
    expected = conversions_from_games(played.db)
    assert sum(won + lost for won, _, lost, _ in expected.values()) == 24  # one mover per game
    assert all(won + lost == 6 for won, _, lost, _ in expected.values())  # 3 opponents x 2 starts
    assert expected["bestmove"][1] == expected["bestmove"][0]  # it converts every won start
    lines = played.text.splitlines()
    at = lines.index("engine       won starts  converted  lost starts  saved")
    assert lines[at - 2:at] == ["From won and lost starts (games each engine began as the side to move; the exact solver",
                                "says whether that side wins with perfect play): did it convert a won start, save a lost one?"]
    table = {}
    for line in lines[at + 1:]:
        if not line:
            break
        name, *counts = line.split()
        table[name] = [int(count) for count in counts]
    assert table == expected
    assert played.report["conversion"] == {
        name: dict(zip(("won_starts", "converted", "lost_starts", "saved"), counts)) for name, counts in expected.items()}
    index = (played.pages / "index.html").read_text()
    body = index[index.index('id="conversions-table"'):]
    body = body[:body.index("</table>")]
    cells = re.findall(r"<tr><td>([^<]*)</td>((?:<td class=\"num\">\d+</td>){4})</tr>", body)
    assert {name: [int(v) for v in re.findall(r">(\d+)<", counts)] for name, counts in cells} == expected
    assert '<a href="#conversions">Won and lost starts</a>' in index
    # The engines are listed by rank in every rendering.
    ranked = [engine["name"] for engine in played.report["engines"]]
    assert list(table) == ranked and [name for name, _ in cells] == ranked


def test_a_replay_page_draws_all_four_knights_after_every_ply(played: Played, tab: Tab) -> None:  # noqa: F811
    game_id, player, board = rows(played.db, "SELECT id, start_player, start_board FROM games "
                                             "ORDER BY plies DESC, id LIMIT 1")[0]
    moves = rows(played.db, f"SELECT move, board, verdict FROM moves WHERE game = {game_id} ORDER BY ply")
    positions = replayed(Position.from_text(None, player, board), moves)
    assert len(positions) > 8
    tab.open(played.pages / "games" / f"{game_id}.html")
    columns = len(tab.page.locator("#replay svg.board .colno").all_text_contents())
    for ply, position in enumerate(positions):
        drawn = tab.drawn("replay")
        shown = [{(i // columns + 1, i % columns + 1) for i, cell in enumerate(drawn) if cell == side} for side in "xo"]
        assert tuple(shown) == squares(position), ply
        tab.page.keyboard.press("ArrowRight")
    assert tab.page.inner_text("#replay .counter") == f"ply {len(moves)} / {len(moves)}"


# --- a match, replay, export and import ---------------------------------------------------------------


def test_a_match_alternates_colours_on_each_start_and_every_record_replays() -> None:
    done = run_program([ARENA, "match", "bestmove", "greedy", "--game", "kings-horses", "--size", "8", "--games", "4",
                        "--seed", "11", "--json"], timeout=300)
    assert done.returncode == 0, done.stderr
    records = [record_from_data(json.loads(line)) for line in done.stdout.splitlines()]
    assert [record.x for record in records] == ["bestmove", "greedy"] * 2
    for first, second in zip(records[::2], records[1::2]):
        assert (first.start_player, first.start_board) == (second.start_player, second.start_board)
    for record in records:
        check_record(record)
        assert (record.game, record.size, record.termination.value) == ("kings-horses", "8", "no-move")
        side = "x" if record.x == "bestmove" else "o"
        if perfect_winner(record.start_player, record.start_board) == side:
            assert record.winner == side


def test_replay_shows_every_position_of_a_game_as_the_rules_give_it(played: Played) -> None:
    game_id, x, o, player, board, plies, result = rows(
        played.db, "SELECT id, x, o, start_player, start_board, plies, result FROM games "
                   "ORDER BY fault_json IS NULL, plies DESC LIMIT 1")[0]
    moves = rows(played.db, f"SELECT move, board, verdict, engine, player, detail FROM moves WHERE game = {game_id} "
                            "ORDER BY ply")
    positions = replayed(Position.from_text(None, player, board), [m[:3] for m in moves])
    shown = run_program([ARENA, "replay", str(played.db), str(game_id), "--all"])
    assert shown.returncode == 0, shown.stderr
    blocks = shown.stdout.split("\n\n")
    assert blocks[0].startswith(f"game {game_id} (") and blocks[0].endswith(
        f"{x} (x) vs {o} (o), All The King's Horses coordinates 1..8, 5 s per move")
    assert blocks[1].splitlines()[0] == f"start ({player} to move)"
    for index, position in enumerate(positions):
        heading, *grid = blocks[1 + index].splitlines()
        if index:
            move, _, _, engine, mover, _ = moves[index - 1]
            assert heading.startswith(f"ply {index}/{plies}: {mover} ({engine}) {describe(move)} (")
        found: tuple[set[tuple[int, int]], set[tuple[int, int]]] = (set(), set())
        for line in grid[:-1]:  # rows, each after its number; then the column numbers
            row, *cells = line.split()
            for column, cell in enumerate(cells, 1):
                if cell in "xo":
                    found["xo".index(cell)].add((int(row), column))
        assert found == squares(position), index
    last = blocks[len(positions) + 1]
    if moves[-1][2] != "ok":  # a forfeit: the fault, then the result
        assert f"{moves[-1][4]} ({moves[-1][3]}) forfeits: {moves[-1][2]}: {moves[-1][5]}" in last
    assert shown.stdout.rstrip().splitlines()[-1].startswith(f"result: {result} (")


def test_export_and_import_keep_every_game_and_refuse_a_changed_one(played: Played, tmp_path: Path) -> None:
    exported = run_program([ARENA, "export", str(played.db)])
    assert exported.returncode == 0, exported.stderr
    lines = exported.stdout.splitlines()
    assert len(lines) == 24 and {json.loads(line)["game"] for line in lines} == {"kings-horses"}
    source = tmp_path / "games.jsonl"
    source.write_text(exported.stdout)
    copy = tmp_path / "copy.sqlite"
    imported = run_program([ARENA, "import", str(copy), str(source)])
    assert (imported.returncode, imported.stdout) == (0, f"{source}: 24 games added to {copy}, 0 already there\n")
    assert run_program([ARENA, "export", str(copy)]).stdout == exported.stdout
    assert run_program([ARENA, "report", str(copy), "--json"]).stdout == run_program(
        [ARENA, "report", str(played.db), "--json"]).stdout
    # A game whose result is turned around: the moves still end it as before, so it is refused.
    game = next(json.loads(line) for line in lines if json.loads(line)["termination"] == "no-move")
    flipped = {"1-0": "0-1", "0-1": "1-0"}[game["result"]]
    winner = {"1-0": "x", "0-1": "o"}[flipped]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**game, "result": flipped, "winner": winner}) + "\n")
    target = tmp_path / "target.sqlite"
    refused = run_program([ARENA, "import", str(target), str(bad)])
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (f"arena: error: {bad} line 1: the record says {flipped} (no-move: {game['reason']}), but "
                              f"its moves give {game['result']} (no-move: {game['reason']})\n")
    assert not target.exists() or rows(target, "SELECT count(*) FROM games") == [(0,)]


# --- a game in a terminal -----------------------------------------------------------------------------

PROMPT = r"your move \((x|o)\): "


def spawn(args: list[str]) -> pexpect.spawn:
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    env["TERM"] = "dumb"
    return pexpect.spawn(ARENA, args, cwd=str(ROOT), env=env, encoding="utf-8", timeout=60, dimensions=(24, 80))


def winning_move(position: Position) -> int | None:
    """A move after which the opponent, to move, loses (by the plain minimax); None if there is none."""
    for move in position.legal_moves():
        child = position.after(move)
        own = (child.knights[2 * child.turn], child.knights[2 * child.turn + 1])
        other = (child.knights[2 - 2 * child.turn], child.knights[3 - 2 * child.turn])
        if not plain_wins(own, other):
            return move
    return None


@pytest.mark.parametrize("human", ["x", "o"])
def test_a_game_against_bestmove_in_a_terminal_ends_as_perfect_play_says_and_is_stored(human: str,
                                                                                        tmp_path: Path) -> None:
    # The start (the band's far corners, x to move) is lost for x: as x the person loses whatever it
    # plays; as o, playing the plain minimax's winning moves, it wins.
    start = Position.from_words("BLACK 8 6 6 8 8 8 7 7".split())
    assert perfect_winner("x", start.board()) == "o"
    db = tmp_path / "play.sqlite"
    child = spawn(["play", "--game", "kings-horses", "--engine", "bestmove", "--human", human, "--db", str(db)])
    child.expect_exact(f"All The King's Horses coordinates 1..8: you play {human} ")
    position = start.copy()
    typed = []
    while True:
        index = child.expect([PROMPT, r"bestmove plays (\d+): ([^\r]*) \(\d+\.\d\d s\)", r"You win! \(",
                              r"bestmove wins\. \("])
        if index == 1:
            move = int(child.match.group(1))
            assert child.match.group(2) == describe(move)
            position.push(move)
            continue
        if index > 1:
            break
        if not typed:
            # Bad input first: a number that is no move, text, and nothing to take back yet.
            child.sendline("9")
            child.expect_exact("'9' is illegal: move 9 is out of range: moves are 1 to 8 (knight and direction); "
                               f"the legal moves are {' '.join(map(str, position.legal_moves()))} (1 to 4 move your "
                               "first knight, 5 to 8 your second; ? explains each)")
            child.expect(PROMPT)
            child.sendline("knight")
            child.expect_exact("'knight' is not a move; the legal moves are ")
            child.expect(PROMPT)
        move = winning_move(position) if human == "o" else position.legal_moves()[0]
        assert move is not None  # as o the person is always in a won position
        child.sendline(str(move))
        typed.append(move)
        position.push(move)
    ending = child.after
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert position.legal_moves() == [] and "xo"[1 - position.turn] == "o"
    assert ending == ("You win! (" if human == "o" else "bestmove wins. (")
    with Store(db, read_only=True) as store:
        (row,) = store.game_rows()
        record = store.game_record(row.id)
    check_record(record)
    assert (record.x, record.o) == (("human", "bestmove") if human == "x" else ("bestmove", "human"))
    assert (record.result, record.termination.value, record.start_board) == ("0-1", "no-move", start.board())
    assert [m.move for m in record.moves if m.engine == "human"] == typed
    assert replayed(start, [(m.move, m.board, m.verdict.value) for m in record.moves])[-1] == position
