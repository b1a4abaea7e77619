"""The class page (harness.course.page), from a gradebook built by hand: three students (ranked,
failed, missing), a real Betsy game at n = 3 between built-ins and one similar pair; checked as
files and in headless Chromium (leaderboard order, sorting, a student's verdict and replay, the
side-by-side source, a phone's width), and for what it must not show (machine paths, roster data)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.course.page import _run_games, _run_sources, class_page_files
from harness.match.match import GameRecord, play_game
from harness.match.settings import GameSettings
from harness.referee.engine_specs import builtin_engine
from harness.validate.validator import Category, Check, Role, ValidationReport
from tests.test_report_html import Tab, browser, fits, sized_tab, tab  # noqa: F401  (the browser fixtures)

SOURCE_A = "import sys\n\n\ndef best(board):\n    return 1\n\n\nprint(best(sys.argv[3]))\n"
SOURCE_B = "# my own work\nimport sys\n\ndef pick(b):\n    return 1\n\nprint(pick(sys.argv[3]))\n"


def report(program: str, passed: bool) -> dict[str, Any]:
    """A validator's report (its JSON form): protocol passed or failed, rules passed."""
    protocol = Category("protocol", [Check("starts", True, "started and answered in 0.05 s"),
                                     Check("answers", passed, "answered a legal move" if passed else
                                           "no-answer: printed nothing in 1 s", command=f"python3 {program} 3 x ... 1")],
                        "2 of 2 passed" if passed else "1 of 2 failed", Role.REQUIRED)
    rules = Category("rules", [Check("n3-x-empty", True, "a legal move and its board")], "1 of 1 passed", Role.REQUIRED)
    verdict = "PASS: every required category passed" if passed else "FAIL: protocol failed"
    return ValidationReport(program, verdict, passed, {"protocol": protocol, "rules": rules}).to_json()


@pytest.fixture(scope="module")
def game() -> GameRecord:
    settings = GameSettings(game="betsy", time=2, grace=5)
    record = play_game(builtin_engine("random", {"seed": 5}, name="alice.0123abcd"), builtin_engine("greedy"),
                       settings, "3")
    assert len(record.moves) >= 3 and record.fault is None
    return record


def game_dict(record: GameRecord, game_id: str, row: int, side: str) -> dict[str, Any]:
    return {"id": game_id, "row": row, "x": "student-one", "o": "greedy", "side": side, "result": record.result,
            "termination": record.termination, "reason": "x (student-one) wins", "plies": len(record.moves),
            "size": record.size, "start_board": record.start_board, "start_player": record.start_player,
            "moves": [[m.player, m.move, m.board, m.verdict.value, m.seconds] for m in record.moves]}


def student(folder: str, published: str, status: str, **figures: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "student": folder, "published": published, "id": f"id-{folder}", "name": f"Name Of {folder}", "on_roster": True,
        "status": status, "reason": "", "note": "", "hash": None, "validation": {}, "verdict": None, "elo": None,
        "elo_low": None, "elo_high": None, "rated_games": None, "band": None, "band_state": None, "band_text": None,
        "rank": None, "league_score": None, "league_games": None, "points": 0.0, "similar": []}
    return {**base, **figures}


def gradebook() -> dict[str, Any]:
    return {
        "class": "cs101", "game": "betsy", "size": "3", "time": 1.0, "format": "round-robin", "rounds": 1,
        "references": {"random": 0.0, "greedy": 400.0}, "error": 0.05,
        "bands": [{"name": "beats random", "floor": 100.0, "points": 5.0}],
        "students": [
            student("zed", "zed", "failed", reason="validation: protocol not passed (FAIL: protocol failed)",
                    hash="f" * 64, verdict="FAIL: protocol failed", points=1.0,
                    similar=[{"with": "alice", "kind": "source", "score": 0.9}]),
            student("alice", "student-one", "ranked", hash="a" * 64, verdict="PASS", elo=212.4, elo_low=-35.0,
                    elo_high=460.2, rated_games=2, band="beats random", band_state="decided",
                    band_text="beats random at 5% error", rank=1, league_score=0.0, league_games=0, points=5.0,
                    similar=[{"with": "zed", "kind": "source", "score": 0.9}]),
            student("bob", "bob", "missing", reason="no betsy.py in the folder"),
        ],
        "similar_sources": [{"a": "alice", "b": "zed", "score": 0.9, "a_share": 0.8, "b_share": 0.75}],
        "similar_moves": [], "validated_now": 2, "played_now": 2, "games": 2,
    }


@pytest.fixture(scope="module")
def written(game: GameRecord, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("class") / "html"
    files = class_page_files(
        gradebook(),
        {"alice": report("alice/betsy.py", True), "zed": report("zed/betsy.py", False)},
        {"alice": [game_dict(game, "anchor:3:aaaaaaaaaaaa:random-0000:1:a", 7, "x")]},
        {"alice|zed": {"a": SOURCE_A, "b": SOURCE_B, "a_lines": [[4, 5]], "b_lines": [[4, 5], [7, 7]]}})
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_the_class_page_writes_an_index_a_page_per_student_the_pairs_and_the_assets(written: Path) -> None:
    assert sorted(str(p.relative_to(written)) for p in written.rglob("*") if p.is_file()) == [
        "arena.css", "index.html", "pairs/1.html", "replay.js", "students/1-validation.html", "students/1.html",
        "students/2-validation.html", "students/2.html", "students/3.html"]


def test_no_page_shows_a_machine_path_or_roster_data_beyond_the_published_name(written: Path) -> None:
    for path in written.rglob("*.html"):
        text = path.read_text()
        for private in ("/tmp", "/work", "/home", "id-alice", "Name Of", "id-zed", "id-bob"):
            assert private not in text, (path, private)
    # alice is published as student-one: her folder name shows nowhere, not in her report's program.
    for path in written.rglob("*.html"):
        assert not re.search(r"\balice\b", path.read_text()), path
    assert "student-one/betsy.py" in (written / "students" / "2-validation.html").read_text()


def test_leaderboard_lists_the_ranked_first_then_the_others_with_why(written: Path, tab: Tab) -> None:  # noqa: F811
    tab.open(written / "index.html")
    rows = tab.page.locator("#leaderboard tbody tr")
    assert rows.locator("td:nth-child(2)").all_inner_texts() == ["student-one", "zed", "bob"]
    first = rows.nth(0).locator("td").all_inner_texts()
    assert first == ["1", "student-one", "+212", "[-35, +460]", "beats random", "", "5", "ranked", "1"]
    assert rows.nth(1).locator("td").nth(7).inner_text() == (
        "failed validation: validation: protocol not passed (FAIL: protocol failed)")
    assert rows.nth(2).locator("td").nth(7).inner_text() == "missing: no betsy.py in the folder"


def names_in_order(tab: Tab) -> list[str]:  # noqa: F811
    return tab.page.locator("#leaderboard tbody tr td:nth-child(2)").all_inner_texts()


def test_a_click_on_a_head_sorts_the_leaderboard_and_a_second_click_reverses_it(written: Path, tab: Tab) -> None:  # noqa: F811
    tab.open(written / "index.html")
    tab.page.click("#leaderboard thead th:nth-child(2) button")
    assert names_in_order(tab) == ["bob", "student-one", "zed"]
    assert tab.page.get_attribute("#leaderboard thead th:nth-child(2)", "aria-sort") == "ascending"
    tab.page.click("#leaderboard thead th:nth-child(2) button")
    assert names_in_order(tab) == ["zed", "student-one", "bob"]
    tab.page.click("#leaderboard thead th:nth-child(7) button")  # points: most first
    assert names_in_order(tab) == ["student-one", "zed", "bob"]
    tab.page.click("#leaderboard thead th:nth-child(7) button")
    assert names_in_order(tab) == ["bob", "zed", "student-one"]
    tab.page.click("#leaderboard thead th:nth-child(3) button")  # Elo: the unrated last, either way
    assert names_in_order(tab) == ["student-one", "zed", "bob"]
    tab.page.click("#leaderboard thead th:nth-child(3) button")
    assert names_in_order(tab) == ["student-one", "zed", "bob"]


def test_a_students_page_shows_the_verdict_and_replays_their_game(written: Path, game: GameRecord, tab: Tab) -> None:  # noqa: F811
    tab.open(written / "index.html")
    with tab.page.expect_navigation():
        tab.page.click("#leaderboard a:text('student-one')")
    assert tab.page.url.endswith("/students/2.html")
    assert tab.page.inner_text("h1") == "student-one"
    assert tab.page.inner_text("#verdict") == "PASS: every required category passed"
    assert tab.page.locator("#validation tbody tr td:nth-child(2)").all_inner_texts() == ["✓ pass", "✓ pass"]
    boards = [game.start_board] + [m.board for m in game.moves]
    assert tab.drawn("game-1-replay") == boards[0]
    for ply in range(1, len(boards)):
        tab.page.click("#game-1-replay button[data-go=next]")
        assert tab.drawn("game-1-replay") == boards[ply], ply
    assert tab.page.inner_text("#game-1-replay .caption").endswith(f"Result {game.result}: x (student-one) wins")
    assert tab.drawn("game-1-replay") != boards[0]
    tab.open(written / "students" / "1.html")
    assert tab.page.inner_text("#verdict") == "FAIL: protocol failed"
    assert tab.page.locator("#validation tbody tr td:nth-child(2)").all_inner_texts() == ["✗ fail", "✓ pass"]
    tab.open(written / "students" / "1-validation.html")
    assert "FAIL: protocol failed" in tab.page.inner_text("p.verdict")


def test_the_pair_page_shows_both_sources_with_the_matched_lines_marked(written: Path, tab: Tab) -> None:  # noqa: F811
    tab.open(written / "students" / "1.html")
    with tab.page.expect_navigation():
        tab.page.click("#pairs-table a:text('pair 1')")
    marked = {side: tab.page.locator(f"#source-{side} .line.match").all_inner_texts() for side in ("a", "b")}
    assert marked == {"a": ["4  def best(board):", "5      return 1"],
                      "b": ["4  def pick(b):", "5      return 1", "7  print(pick(sys.argv[3]))"]}
    assert tab.page.locator("#source-a .line").count() == 8
    assert tab.page.locator("#source-b .line").count() == 7
    assert tab.page.locator("h2").all_inner_texts() == ["student-one", "zed"]


def test_every_page_fits_a_phone_without_scrolling_sideways(written: Path, sized_tab: Tab) -> None:  # noqa: F811
    for path in sorted(written.rglob("*.html")):
        sized_tab.open(path)
        fits(sized_tab)


# --- gathering the inputs from a run: a real database and real snapshot folders ---------------------------


def entry(folder: str, key: str, snapshot: Path | None) -> SimpleNamespace:
    return SimpleNamespace(student=SimpleNamespace(folder=folder), key=key, folder=snapshot)


def test_games_come_from_the_database_each_player_by_the_published_name(game: GameRecord, tmp_path: Path) -> None:
    from harness.report.ratings import GameResult
    from harness.store.store import Store

    db = tmp_path / "class.sqlite"
    store = Store(db, role="arena class")
    tournament = store.ensure_tournament("class-cs101", {"class": "cs101"}, [
        {"name": "alice.0123abcd", "command": "python3 betsy.py", "program": None, "sha256": None},
        {"name": "greedy", "command": "greedy", "program": None, "sha256": None}])
    game_id = "anchor:3:aaaaaaaaaaaa:greedy-builtin:1:a"
    row = store.save_record(tournament, game_id, "anchor:3:aaaaaaaaaaaa:greedy-builtin:1", 1, game)
    store.close()
    assert row is not None
    run = SimpleNamespace(entries=[entry("alice", "aaaaaaaaaaaa", None), entry("bob", "", None)], db=db,
                          games={game_id: GameResult("aaaaaaaaaaaa", "greedy-builtin", 1.0)}, game_rows={game_id: row})
    data = {"students": [{"student": "alice", "published": "student 1"}, {"student": "bob", "published": "student 2"}]}
    found = _run_games(run, data)  # type: ignore[arg-type]
    assert list(found) == ["alice"]
    [shown] = found["alice"]
    assert {k: shown[k] for k in ("id", "row", "x", "o", "side", "result", "plies", "size", "start_board")} == {
        "id": game_id, "row": row, "x": "student 1", "o": game.o, "side": "x", "result": game.result,
        "plies": len(game.moves), "size": "3", "start_board": game.start_board}
    assert shown["moves"] == [[m.player, m.move, m.board, m.verdict.value, m.seconds] for m in game.moves]
    assert "alice" not in shown["reason"] and shown["reason"] == game.reason.replace("alice.0123abcd", "student 1")


def test_a_pair_shows_the_program_and_each_file_with_matched_lines_at_their_place(tmp_path: Path) -> None:
    for name, text in (("a", SOURCE_A), ("b", SOURCE_B)):
        (tmp_path / name / "lib").mkdir(parents=True)
        (tmp_path / name / "betsy.py").write_text(text)
        (tmp_path / name / "lib" / "util.py").write_text("x = 1\ny = 2\n")
    (tmp_path / "secret.py").write_text("outside\n")
    pair = SimpleNamespace(a="ann", b="ben", a_lines=[("lib/util.py", 2, 2), ("betsy.py", 4, 5)],
                           b_lines=[("../secret.py", 1, 1), ("betsy.py", 7, 7)])
    no_lines = SimpleNamespace(a="ann", b="cy")  # a pair of moves: no matched lines
    run = SimpleNamespace(entries=[entry("ann", "k1", tmp_path / "a"), entry("ben", "k2", tmp_path / "b"),
                                   entry("cy", "k3", tmp_path / "b")],
                          source_pairs=[pair], move_pairs=[no_lines], config=SimpleNamespace(program="betsy.py"))
    found = _run_sources(run)  # type: ignore[arg-type]
    assert found["ann|ben"] == {
        "a": SOURCE_A + "x = 1\ny = 2\n", "a_lines": [[10, 10], [4, 5]], "a_files": [["betsy.py", 1, 8], ["lib/util.py", 9, 10]],
        "b": SOURCE_B, "b_lines": [[7, 7]], "b_files": [["betsy.py", 1, 7]]}
    assert found["ann|cy"]["a_lines"] == [] and found["ann|cy"]["b"] == SOURCE_B
    assert "outside" not in str(found)


def test_hostile_names_and_reasons_stay_text_in_the_browser(game: GameRecord, tmp_path: Path, tab: Tab) -> None:  # noqa: F811
    evil = '<script>window.pwned=1</script>"><img src=x onerror="window.pwned=2">'
    data = gradebook()
    for record in data["students"]:
        record["published"] = record["published"] + evil
        record["reason"] = evil + " /home/someone/x.py"
    data["class"] = evil
    files = class_page_files(data, {"alice": report("alice/betsy.py" + evil, True)},
                             {"alice": [{**game_dict(game, evil, 1, "x"), "reason": evil, "x": evil}]},
                             {"alice|zed": {"a": evil, "b": evil, "a_lines": [[1, 1]], "b_lines": []}})
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
        assert "/home" not in text
    for path in sorted(tmp_path.rglob("*.html")):
        tab.open(path)
        assert tab.page.evaluate("typeof window.pwned") == "undefined", path
        assert tab.page.locator("img").count() == 0, path
    tab.open(tmp_path / "index.html")
    assert tab.page.locator("#leaderboard tbody tr td:nth-child(2)").all_inner_texts()[0] == "student-one" + evil


def test_a_reason_that_names_the_folder_shows_the_published_name_instead() -> None:
    data = gradebook()
    data["students"].append(student("carol.b", "student 4", "refused", reason="carol.b/betsy.py is a link; submit the "
                                    "file itself", note="carol.b changed after the deadline; carol.bx is another"))
    files = class_page_files(data, {}, {}, {})
    assert not any("carol.b/" in text or "carol.b " in text for text in files.values())
    assert "refused: student 4/betsy.py is a link; submit the file itself" in files["index.html"]
    assert "student 4 changed after the deadline; carol.bx is another" in files["students/4.html"]


@pytest.mark.parametrize(("game_name", "size"), [("connect4", "5x4"), ("kings-horses", "8"), ("betsy", "4")])
def test_a_games_replay_shows_the_boards_and_columns_of_the_tournament_reports_replay(game_name: str, size: str) -> None:
    from harness.course.page import _game_steps
    from harness.games.registry import get_game
    from harness.report.html import game_steps

    record = play_game(builtin_engine("random", {"seed": 2}), builtin_engine("greedy"),
                       GameSettings(game=game_name, time=2, grace=5), size)
    shown = _game_steps(get_game(game_name), {**game_dict(record, "league:x", 1, "x"), "x": record.x, "o": record.o})
    assert shown is not None
    steps, columns = shown
    expected, expected_columns = game_steps(record)
    assert columns == expected_columns
    assert [(s.board, s.column) for s in steps] == [(s.board, s.column) for s in expected]
    assert len(steps) == len(record.moves) + 1
