"""The losing move of finished games (harness/analysis): real games played by scripted programs through
the referee, stored in real SQLite files, analysed by ``arena analyse`` and shown by ``arena replay``.

Each game is built from the game's exact values (the n = 3 table, the Connect Four solver, the King's
Horses solver) so that the move that loses is known before the analysis looks.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.analysis.losing import BUDGET, Finding, analyse
from harness.analysis.run import analyse_stored, describe
from harness.games.registry import Position, get_game
from harness.match.match import GameRecord, play_game
from harness.match.settings import GameSettings
from harness.referee.engine_specs import EngineSpec
from harness.store.store import Store
from tests.conftest import ROOT, arena
from tests.test_report_html import Tab, browser, tab  # noqa: F401 - fixtures

SCRIPTED = ROOT / "tests" / "fake_engines" / "scripted_any.py"


def scripted_game(tmp_path: Path, game: str, start: Position, moves: list[int]) -> GameRecord:
    """A real game from ``start`` in which both sides are a program playing ``moves`` in turn."""
    script: dict[str, int] = {}
    position = start.copy()
    for move in moves:
        key = f"{position.player} {position.board()}"
        assert key not in script, "a scripted game must not repeat a position"
        script[key] = move
        position.push(move)
    path = tmp_path / f"{game}-script.json"
    path.write_text(json.dumps(script))
    spec = EngineSpec("scripted", (sys.executable, str(SCRIPTED), str(path), game), str(SCRIPTED))
    settings = GameSettings(game=game, time=10, max_plies=len(moves))
    record = play_game(spec, spec, settings, start=start)
    assert [m.move for m in record.moves][:len(moves)] == moves, record.reason
    return record


def stored(tmp_path: Path, *records: GameRecord) -> Path:
    db = tmp_path / "games.sqlite"
    with Store(db, role="arena play") as store:
        tournament = store.ensure_tournament("analysed", {"name": "analysed"}, [{"name": "scripted"}])
        for number, record in enumerate(records, 1):
            store.save_record(tournament, f"g{number}", f"g{number}", 1, record)
    return db


# --- Betsy n = 3: the solved table ------------------------------------------------------------------


@pytest.fixture
def tables(n3_tables: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("BETSY_TABLES", n3_tables)
    return n3_tables


def betsy_won_position() -> Any:
    """x to move and winning, with some moves that do not keep the win (found by the table)."""
    from harness.games.betsy.exact import keeping_moves, open_table
    from harness.games.betsy.rules import Position as BetsyPosition

    table = open_table()
    assert table is not None
    position = BetsyPosition.from_text(3, "x", "..........ooxoxoxx")
    value, keeping, legal = keeping_moves(table, position)
    table.close()
    assert (value, sorted(keeping), legal) == (1, [1, 2, 3], 6)
    return position


def table_line(start: Any, first: int, plies: int) -> list[int]:
    """``first``, then the table's value-keeping move for each side, ``plies`` moves in all (or to the end)."""
    from harness.games.betsy.exact import open_table

    table = open_table()
    assert table is not None
    position = start.copy()
    moves = [first]
    position.push(first)
    while len(moves) < plies and position.winner() is None:
        move = table.best_move(position)[0]
        moves.append(move)
        position.push(move)
    table.close()
    return moves


def test_betsy_n3_a_rotation_that_throws_away_the_win_is_proved_the_losing_move(tables: str, tmp_path: Path) -> None:
    start = betsy_won_position()
    # -1 rotates column 1: not one of the winning moves 1, 2, 3; from there both sides keep their values.
    moves = table_line(start, -1, 4)
    record = scripted_game(tmp_path, "betsy", start, moves)
    finding = analyse(record)
    assert finding == Finding("proved", "the n = 3 tables", ply=1, player="x", move=-1, before="won", after="drawn",
                              keeping=(1, 2, 3), reply=finding.reply, reached_from=1, oracle="the n = 3 tables",
                              plies=4)
    # The reply keeps o's draw: after it, x's position is not won.
    from harness.games.betsy.exact import open_table

    table = open_table()
    assert table is not None
    after = start.after(-1)
    assert finding.reply in after.legal_moves()
    assert table.lookup(after.after(finding.reply))[0] == 0
    table.close()


def test_betsy_n3_without_the_table_says_so_and_assesses_instead(tmp_path: Path) -> None:
    from harness.games.betsy.rules import Position as BetsyPosition

    start = BetsyPosition.from_text(3, "x", "..........ooxoxoxx")
    record = scripted_game(tmp_path, "betsy", start, [-1, 3])
    finding = analyse(record)
    assert finding.kind != "proved" and finding.depth == 4 and finding.oracle == ""
    assert finding.note == ("the n = 3 table (mover win priority) is not built on this machine; "
                            "scripts/build_tablebase.py builds it (into $BETSY_TABLES or ~/.cache/betsy-arena)")


# --- Betsy n = 5: an assessment ------------------------------------------------------------------------


def test_betsy_n5_a_missed_block_is_an_assessment_labelled_as_such(tmp_path: Path) -> None:
    from harness.games.betsy.suites import tactics_suite
    from harness.games.suites import winning_moves

    case = next(c for c in tactics_suite((5,), 2) if c.id == "n5-x-block-1")
    assert case.expected == frozenset({5})
    start = case.position
    # The first move that is not the block and lets o complete its line.
    wrong = next(move for move in start.legal_moves() if move not in case.expected and winning_moves(start.after(move)))
    after = start.after(wrong)
    win = sorted(winning_moves(after))[0]
    record = scripted_game(tmp_path, "betsy", start, [wrong, win])
    assert record.winner == "o"
    finding = analyse(record)
    assert (finding.kind, finding.method, finding.ply, finding.player, finding.move) == (
        "assessment", "search at depth 4", 1, "x", wrong)
    assert finding.after == "lost (search: a loss in 2 plies)"
    assert finding.keeping == (5,)
    assert finding.reply in winning_moves(after)
    assert (finding.depth, finding.margin, finding.reached_from, finding.oracle) == (4, 200, None, "")
    lines = describe(finding, get_game("betsy"), {"x": "ann", "o": "bob"})
    assert lines[0].startswith(f"losing move (assessment by search at depth 4): ply 1, x (ann) "
                               f"{get_game('betsy').describe_move(wrong)}: ")
    assert lines[1] == ("  an assessment, not a proof: the move scored more than 200 points below the best in a "
                        "4-ply search")
    assert lines[2] == "  better: 5 (drops into column 5) (the moves within the margin)"


# --- Connect Four on a small board: the solver ---------------------------------------------------------


def connect4_scores(columns: list[int], width: int, height: int) -> dict[int, int]:
    """The solver's score of each legal move after ``columns``, for the side that plays it."""
    from engines.connect4_solver import Solver, _has_four, from_columns

    solver = Solver(width, height)
    scores = {}
    for move in range(1, width + 1):
        line = [*columns, move]
        if line.count(move) > height:
            continue
        state_before = from_columns(columns, width, height)
        mover_after = from_columns(line[:-1], width, height)
        h1 = height + 1
        placed = mover_after.current | ((mover_after.mask + (1 << ((move - 1) * h1))) & ~mover_after.mask)
        if _has_four(placed, height):
            scores[move] = (width * height + 1 - len(columns)) // 2
        elif len(line) == width * height:
            scores[move] = 0
        else:
            scores[move] = -solver.solve(from_columns(line, width, height))
        assert state_before.moves == len(columns)
    return scores


def test_connect4_5x4_a_move_that_turns_the_draw_into_a_loss_is_proved_with_the_better_moves(tmp_path: Path) -> None:
    width, height = 5, 4
    columns: list[int] = []
    # Both sides keep the draw (the best-scoring move, lowest column first) until the mover has a move
    # that loses beside moves that keep the draw; the mover plays the losing one.
    while True:
        scores = connect4_scores(columns, width, height)
        assert max(scores.values()) == 0
        if len(columns) >= 2 and min(scores.values()) < 0:
            break
        columns.append(max(scores, key=lambda move: (scores[move], -move)))
    keeping = sorted(move for move, score in scores.items() if score >= 0)
    losing = min(move for move, score in scores.items() if score < 0)
    ply, mover = len(columns) + 1, "xo"[len(columns) % 2]
    columns.append(losing)
    after = connect4_scores(columns, width, height)
    fastest = max(after.values())
    while True:  # the opponent converts, both sides best
        scores = connect4_scores(columns, width, height)
        move = max(scores, key=lambda m: (scores[m], -m))
        columns.append(move)
        if scores[move] == (width * height + 1 - len(columns) + 1) // 2:
            break
    start = get_game("connect4").initial("5x4")
    record = scripted_game(tmp_path, "connect4", start, columns)
    assert record.winner == "xo"[len(columns) % 2 ^ 1] != mover
    finding = analyse(record)
    assert (finding.kind, finding.method, finding.ply, finding.player, finding.move) == (
        "proved", "the Connect Four solver", ply, mover, losing)
    assert (finding.before, finding.after) == ("drawn", "lost")
    assert sorted(finding.keeping) == [move for move in keeping if move != losing]
    assert finding.unsettled == ()
    assert finding.reply is not None and after[finding.reply] == fastest
    assert finding.reached_from == 1


def test_connect4_7x6_from_the_opening_with_a_tiny_budget_is_not_reached(tmp_path: Path) -> None:
    import time

    start = get_game("connect4").initial("7x6")
    record = scripted_game(tmp_path, "connect4", start, [4, 4, 3, 5])
    nothing = analyse(record, budget=0.0)  # no time at all: neither the solver nor the search looks
    assert (nothing.kind, nothing.ply, nothing.reached_from) == ("not reached", None, None)
    assert nothing.method == "the Connect Four solver; search at depth 4"
    assert describe(nothing, get_game("connect4"))[0] == (
        "losing move not found: the budget ran out (the Connect Four solver: no ply; search at depth 4: no ply)")
    started = time.monotonic()
    finding = analyse(record, budget=0.001)  # the solver cannot reach the opening in it; how far the search
    assert time.monotonic() - started < 5  # gets depends on the machine's load. The budget holds, with margin
    assert (finding.kind, finding.ply, finding.reached_from) == ("not reached", None, None)
    assert describe(finding, get_game("connect4"))[0].startswith(
        "losing move not found: the budget ran out (the Connect Four solver: no ply; search at depth 4: ")


# --- All The King's Horses: the solver -----------------------------------------------------------------


def test_kings_horses_a_move_that_gives_away_the_win_is_proved(tmp_path: Path) -> None:
    from harness.games.kings_horses.oracle import Oracle
    from harness.rng import Rng

    rules = get_game("kings-horses")
    oracle = Oracle()
    rng = Rng(7)
    for _ in range(200):
        start = rules.random_start("8", rng)
        if oracle.winner(start, 5) != start.word:
            continue
        verdicts = {move: oracle.winner(start.after(move), 5) for move in start.legal_moves()}
        winning = sorted(move for move, word in verdicts.items() if word == start.word)
        losing = sorted(move for move, word in verdicts.items() if word != start.word)
        if winning and losing:
            break
    else:
        pytest.fail("no won start with a losing move in 200 tries")
    moves = [losing[0]]
    position = start.after(losing[0])
    while position.legal_moves():
        best = next((move for move in position.legal_moves() if position.after(move).winner() is not None
                     or oracle.winner(position.after(move), 5) == position.word), position.legal_moves()[0])
        moves.append(best)
        position.push(best)
    record = scripted_game(tmp_path, "kings-horses", start, moves)
    finding = analyse(record)
    assert (finding.kind, finding.method, finding.ply, finding.move) == (
        "proved", "the King's Horses solver", 1, losing[0])
    assert (finding.before, finding.after, finding.keeping) == ("won", "lost", tuple(winning))
    assert finding.reply is not None and oracle.winner(position_after(start, losing[0], finding.reply), 5) != start.word


def position_after(start: Any, *moves: int) -> Any:
    position = start.copy()
    for move in moves:
        position.push(move)
    return position


# --- stored, resumable, shown --------------------------------------------------------------------------


def test_arena_analyse_stores_each_finding_and_a_second_run_analyses_none(tables: str, tmp_path: Path) -> None:
    start = betsy_won_position()
    record = scripted_game(tmp_path, "betsy", start, table_line(start, -1, 4))
    db = stored(tmp_path, record, record)
    first = arena("analyse", str(db), "--budget", "5")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(
        "2 games analysed (2 proved, 0 assessment, 0 none, 0 not reached), ")
    assert first.stdout.endswith(" s per game; 0 already analysed\n")
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT game, kind, budget, finding_json FROM analyses ORDER BY game").fetchall()
    assert [(game, kind, budget) for game, kind, budget, _ in rows] == [(1, "proved", 5.0), (2, "proved", 5.0)]
    assert json.loads(rows[0][3])["keeping"] == [1, 2, 3]
    second = arena("analyse", str(db))
    assert second.returncode == 0, second.stderr
    assert second.stdout == "0 games analysed (0 proved, 0 assessment, 0 none, 0 not reached); 2 already analysed\n"
    replay = arena("replay", str(db), "1", "--all")
    assert replay.returncode == 0, replay.stderr
    assert "ply 1/4: x (scripted) rotates column 1 (" in replay.stdout
    assert "s)  <<< the losing move (proved)\n" in replay.stdout
    assert ("losing move (proved by the n = 3 tables): ply 1, x (scripted) rotates column 1: won before, drawn after\n"
            "  better: 1 (drops into column 1), 2 (drops into column 2), 3 (drops into column 3) (kept the won value)\n"
            ) in replay.stdout
    assert "\nanalysis (" in replay.stdout
    assert replay.stdout.splitlines()[-1] == f"result: {record.result} ({record.reason})"


def test_replay_of_a_game_not_analysed_says_how_to_analyse_it(tmp_path: Path) -> None:
    from harness.games.betsy.rules import Position as BetsyPosition

    record = scripted_game(tmp_path, "betsy", BetsyPosition.from_text(3, "x", "..........ooxoxoxx"), [1])
    db = stored(tmp_path, record)
    replay = arena("replay", str(db), "1", "--all")
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.splitlines()[-2:] == [f"not analysed: 'arena analyse {db}' finds the losing move",
                                               f"result: {record.result} ({record.reason})"]


def test_analyse_budget_default_is_the_analysis_default() -> None:
    import inspect

    from harness.cli.results import analyse_command

    default = inspect.signature(analyse_command).parameters["budget"].default
    assert default == BUDGET == 10.0


def test_a_damaged_stored_finding_is_one_line_naming_the_game(tmp_path: Path) -> None:
    from harness.games.betsy.rules import Position as BetsyPosition

    record = scripted_game(tmp_path, "betsy", BetsyPosition.from_text(3, "x", "..........ooxoxoxx"), [1])
    db = stored(tmp_path, record)
    with Store(db, role="arena analyse") as store:
        summary = analyse_stored(store, budget=1)
    assert summary.analysed == 1
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE analyses SET finding_json = '{\"kind\": \"maybe\"}'")
    replay = arena("replay", str(db), "1", "--all")
    assert replay.returncode == 2
    assert replay.stderr == (f"arena: error: {db} is damaged (game 1: analysis: kind: expected one of proved, "
                             f"assessment, none, not reached); restore it from a copy, or give another database\n")


# --- on the game pages, in a browser ---------------------------------------------------------------------


def test_game_page_marks_the_losing_move_on_its_row_and_on_the_board_at_that_ply(
        tables: str, tmp_path: Path, tab: Tab) -> None:  # noqa: F811 - the fixture imported above
    start = betsy_won_position()
    record = scripted_game(tmp_path, "betsy", start, table_line(start, -1, 4))
    db = stored(tmp_path, record)
    assert arena("analyse", str(db)).returncode == 0
    written = arena("report", str(db), "--html", str(tmp_path / "pages"))
    assert written.returncode == 0, written.stderr
    tab.open(tmp_path / "pages" / "games" / "1.html")
    page = tab.page
    assert page.get_attribute("tr[data-step='1']", "class") == "losing"
    assert page.inner_text("tr[data-step='1'] .losing-note") == "losing move (proved)"
    assert page.get_attribute("#replay svg.board rect.losing", "visibility") == "hidden"  # the start
    page.click("tr[data-step='1']")
    assert page.get_attribute("#replay svg.board rect.losing", "visibility") == "visible"
    assert page.text_content("#replay svg.board text.losing") == "losing move"
    assert page.inner_text("#replay .caption").endswith(": the losing move (proved)")
    tab.shot("losing-move.png")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#replay svg.board rect.losing", "visibility") == "hidden"
    assert page.inner_text(".analysis p").startswith(
        "losing move (proved by the n = 3 tables): ply 1, x (scripted) rotates column 1: won before, drawn after")


def test_validation_text_names_only_the_programs_own_losing_moves(tables: str, tmp_path: Path) -> None:
    from harness.validate.render import strength_losing_lines

    start = betsy_won_position()
    record = scripted_game(tmp_path, "betsy", start, table_line(start, -1, 4))
    finding = analyse(record).to_json()
    rules = get_game("betsy")
    as_x = {"opponent": "greedy", "student_plays": "x", "score": 0.5, "analysis": finding}
    as_o = {"opponent": "greedy", "student_plays": "o", "score": 0.5, "analysis": finding}
    assert strength_losing_lines(rules, [as_o, as_x]) == [
        "The program's losing moves in the strength games:",
        "  game 2 (the program as x against greedy, score 0.5):",
        "    losing move (proved by the n = 3 tables): ply 1, x (the program) rotates column 1: won before, drawn after",
        "    better: 1 (drops into column 1), 2 (drops into column 2), 3 (drops into column 3) (kept the won value)",
        f"    the opponent's best reply: {finding['reply']} ({rules.describe_move(finding['reply'])})",
        "",
    ]
    assert strength_losing_lines(rules, [as_o, {**as_x, "analysis": None}]) == []


def test_replay_pages_show_stored_text_of_a_finding_safely() -> None:
    from harness.analysis.run import mark_pages

    finding = Finding("proved", "the n = 3 tables", ply=1, player="x", move=2, before="won", after="lost",
                      note="\x1b]0;pwned\x07\x1b[2J")
    pages = mark_pages(["start\nboard", "ply 1/1: x drops\nboard"], [None, 1], finding, get_game("betsy"), {})
    assert pages[0] == "start\nboard"
    assert pages[1].startswith("ply 1/1: x drops  <<< the losing move (proved)\nboard\n")
    assert "\x1b" not in pages[1] and "\x07" not in pages[1]


def test_bench_analysis_reads_a_copy_of_a_database_and_prints_the_share_of_each_kind(
        tables: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import load_script

    start = betsy_won_position()
    record = scripted_game(tmp_path, "betsy", start, table_line(start, -1, 4))
    db = stored(tmp_path, record)
    before = db.read_bytes()
    bench = load_script("bench_analysis")
    monkeypatch.setattr(sys, "argv", ["bench_analysis.py", "--db", str(db), "--budget", "2"])
    assert bench.main() == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("budget 2 s per game; ")
    assert lines[1].split() == ["game", "games", "proved", "assessment", "none", "not", "reached", "mean", "s",
                                "median", "s", "max", "s"]
    assert lines[2].split()[:11] == ["betsy", "3", "1", "1", "100.0%", "0", "0.0%", "0", "0.0%", "0", "0.0%"]
    assert db.read_bytes() == before  # a copy was analysed


def test_arena_tournament_with_analyse_stores_each_games_finding_once(tmp_path: Path) -> None:
    config = tmp_path / "c4.yaml"
    config.write_text("name: analysed\ngame: connect4\nsize: [4x4]\ntime: 1\nrounds: 1\nconcurrency: 2\n"
                      "openings: {plies: 2, seed: 3}\nengines:\n  - {name: random, builtin: random, options: {seed: 1}}\n"
                      "  - {name: greedy, builtin: greedy, options: {seed: 2}}\n")
    db = tmp_path / "c4.sqlite"
    first = arena("tournament", str(config), "--db", str(db), "--analyse", "5", "--no-progress")
    assert first.returncode == 0, first.stderr
    with sqlite3.connect(db) as connection:
        kinds = [kind for (kind,) in connection.execute("SELECT kind FROM analyses ORDER BY game")]
        games = connection.execute("SELECT count(*) FROM games").fetchone()[0]
    assert games == 2 and len(kinds) == 2
    assert set(kinds) <= {"proved", "none"}  # the solver reaches every 4x4 position: nothing is only assessed
    line = next(text for text in first.stdout.splitlines() if " analysed (" in text)
    assert line.startswith(f"2 games analysed ({kinds.count('proved')} proved, 0 assessment, {kinds.count('none')} "
                           "none, 0 not reached), ")
    assert line.endswith(" s per game; 0 already analysed")
    again = arena("tournament", str(config), "--db", str(db), "--analyse", "5", "--no-progress")
    assert again.returncode == 0, again.stderr
    assert "0 games analysed (0 proved, 0 assessment, 0 none, 0 not reached); 2 already analysed\n" in again.stdout
