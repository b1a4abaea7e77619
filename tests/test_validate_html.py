"""`arena validate --html FILE`: one self-contained page in the reports' style, with a replay of
each strength game (the boards of the validator's JSON report), linked from the summary, and the
program's output shown as text; opened in headless Chromium (skipped, with the reason, without it; on CI, failed)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ARENA, ROOT, run_program
from tests.test_report_html import Tab, browser, tab  # noqa: F401  (the browser fixtures)

STUDENTS = ROOT / "tests" / "fake_engines" / "students"
WRAPPER = """\
import os, runpy, sys
sys.stderr.write("</pre><script>window.pwned = 1</script><img src=x>\\n")
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.argv[0] = os.path.join(here, "random_legal.py")
runpy.run_path(sys.argv[0], run_name="__main__")
"""
"""A correct random mover that also prints HTML on stderr."""


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """The JSON report and the HTML page of a quick validation at n = 3, one game per engine."""
    folder = tmp_path_factory.mktemp("validate")
    (folder / "student.py").write_text(WRAPPER)
    for name in ("random_legal.py", "_common.py"):  # beside it: the sandbox shows the program's folder only
        (folder / name).write_text((STUDENTS / name).read_text())
    page = folder / "report.html"
    result = run_program([ARENA, "validate", f"{sys.executable} {folder / 'student.py'}", "--n", "3", "--quick",
                          "--games", "1", "--quiet", "--json", "--html", str(page)], timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), page


def expected_boards(entry: dict[str, Any]) -> list[str]:
    """The start board, then the referee's board after each ply of a strength game."""
    boards = [entry["start_board"]]
    for _player, _move, board, verdict, _seconds in entry["moves"]:
        boards.append(board if verdict == "ok" and board else boards[-1])
    return boards


def test_page_links_each_strength_game_to_a_replay_of_its_boards(validated: tuple[dict[str, Any], Path]) -> None:
    report, page = validated
    html = page.read_text()
    games = report["strength"]["games"]
    assert [entry["opponent"] for entry in games] == ["random", "greedy"]
    summary = html[:html.index("<h2 ")]
    for number, entry in enumerate(games, 1):
        assert f"<a href='#game-{number}'>game {number}</a> (as {entry['student_plays']} against {entry['opponent']}, " \
               f"{entry['score']:g})" in summary
        details = html[html.index(f"<details id='game-{number}'>"):]
        frames = re.search(r'<script type="application/json" class="frames">(.*?)</script>', details)
        assert frames is not None
        assert [frame["b"] for frame in json.loads(frames.group(1))] == expected_boards(entry)
    assert "svg.board .cell.x" in html and "<link" not in html.replace("<link rel='icon' href='data:,'>", "")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:|//)""", html)


def test_page_shows_the_programs_stderr_as_text(validated: tuple[dict[str, Any], Path]) -> None:
    html = validated[1].read_text()
    assert "&lt;/pre&gt;&lt;script&gt;window.pwned = 1&lt;/script&gt;&lt;img src=x&gt;" in html
    assert "window.pwned = 1</script>" not in html and "<img" not in html


def test_strength_game_replay_steps_in_the_browser(validated: tuple[dict[str, Any], Path], tab: Tab) -> None:  # noqa: F811
    report, page = validated
    boards = expected_boards(report["strength"]["games"][1])
    tab.open(page)
    assert tab.page.evaluate("document.getElementById('game-2').open") is False
    tab.page.click("a[href='#game-2']")
    # The page opens the game on the hashchange event, which fires after the click returns.
    tab.page.wait_for_function("document.getElementById('game-2').open", timeout=30_000)
    assert tab.page.evaluate("document.getElementById('game-2').open") is True
    assert tab.drawn("game-2-replay") == boards[0]
    tab.page.keyboard.press("End")
    assert tab.drawn("game-2-replay") == boards[-1]
    tab.page.keyboard.press("Home")
    tab.page.keyboard.press("ArrowRight")
    assert tab.drawn("game-2-replay") == boards[1]
    tab.page.click("#game-2-replay button[data-go=next]")
    assert tab.drawn("game-2-replay") == boards[2]
    assert tab.page.inner_text("#game-2-replay .counter") == f"ply 2 / {len(boards) - 1}"
    assert tab.drawn("game-1-replay") == expected_boards(report["strength"]["games"][0])[0]  # the other one stays
    assert tab.page.evaluate("typeof window.pwned") == "undefined" and tab.page.locator("img").count() == 0
    tab.page.locator("#game-2").screenshot(path=str(tab.folder / "strength-game-2.png"))
    tab.shot("validation.png")
