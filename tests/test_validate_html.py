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

from harness.referee.engine_specs import command_engine
from harness.match.settings import GameSettings
from harness.validate.validator import ValidationSettings, Status, validate
from harness.validate.render import render_html, render_text
from tests.conftest import ARENA, ROOT, run_program
from tests.test_report_html import OVERLAPS, Tab, browser, fits, sized_tab, tab  # noqa: F401  (the browser fixtures)

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


# --- one status, in every format ------------------------------------------------------------------

HTML_STATUS = {"pass": "pass", "warn": "pass", "fail": "fail", "weak": "weak", "info": "info", "unjudged": "not judged"}
"""The page's style class of a status (a passed check with a warning is a pass)."""


def statuses_in_html(page: str) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """The statuses a validation page shows: per category (its summary row, which must agree with its
    heading) and per check (the class of its line; every check is shown once)."""
    found = re.findall(r"<tr><td><a href='#([\w-]+)'>[\w-]+</a></td><td class='status ([\w-]+)'>([^<]*)</td>", page)
    assert all(HTML_STATUS[css] == shown for _, css, shown in found)
    rows = {name: shown for name, _, shown in found}
    heads = dict(re.findall(r"<h2 id='([\w-]+)' class='[\w-]+'>[\w-]+: ([^<]*)</h2>", page))
    assert heads == rows
    checks: dict[tuple[str, str], str] = {}
    for category, check, css in re.findall(r"<details id='check-([\w]+)-([^']+)' class='check'(?: open)?>"
                                           r"<summary class='([\w-]+)'>", page):
        assert (category, check) not in checks, check
        checks[(category, check)] = HTML_STATUS[css]
    return rows, checks


def statuses_in_text(text: str, categories: list[str]) -> tuple[dict[str, str], list[tuple[str, str]], int]:
    """The statuses a text report shows: per category (the column after its name), and the failed
    checks it names (the first of each group, with the others named beside it) and how many."""
    lines = text.splitlines()
    rows = {line[2:13].strip(): line[14:24].strip() for line in lines[3:3 + len(categories)]}
    named, count = [], 0
    for line in lines:
        found = re.match(r"- (\w+)/(\S+?)(?: \(and (.*?): the same way\))?: ", line)
        if found:
            category, first, others = found.groups()
            named.append((category, first))
            others_list = (others or "").split(" and ")[0].split(", ") if others else []
            more = re.search(r" and (\d+) more$", others or "")
            count += 1 + len(others_list) + (int(more.group(1)) if more else 0)
            named += [(category, other) for other in others_list if "/" not in other]
    return rows, named, count


def test_one_report_has_the_same_status_for_every_category_and_check_in_text_html_and_json() -> None:
    # slow_as_o.py answers at once as x and runs out of time as o: protocol and time fail, rules and
    # robustness pass with positions not judged, tactics are weak, strength is information.
    program = f"{sys.executable} {STUDENTS / 'slow_as_o.py'}"
    settings = ValidationSettings(GameSettings(time=1), sizes=("3",), games=1, quick=True, concurrency=2)
    report = validate(program, command_engine(program), settings)
    data = report.to_json()
    in_json = {name: category["status"] for name, category in data["categories"].items()}
    assert in_json == {"protocol": "fail", "rules": "pass", "time": "fail", "robustness": "pass",
                       "tactics": "weak", "strength": "info"}
    checks_json = {(name, check["id"]): check["status"] for name, category in data["categories"].items()
                   for check in category["checks"]}
    assert set(checks_json.values()) == {status.value for status in Status} - {"weak"}  # weak is a category's
    # passed: true for pass, null for information, false for the rest.
    assert {category["status"]: category["passed"] for category in data["categories"].values()} == {
        "pass": True, "fail": False, "weak": False, "info": None}
    assert {check["status"]: check["passed"] for category in data["categories"].values()
            for check in category["checks"]} == {"pass": True, "fail": False, "not judged": False, "info": None}

    rows, checks_html = statuses_in_html(render_html(report))
    assert rows == in_json
    assert checks_html == checks_json

    text_rows, named, count = statuses_in_text(render_text(report, verbose=True), list(in_json))
    assert text_rows == in_json
    failed = {key for key, status in checks_json.items() if status == "fail"}
    assert set(named) <= failed and count == len(failed)


def test_the_readme_documents_every_status() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Validate a program"):readme.index("## Prove a change")]
    listed = re.search(r"Each check, and each category, has one status of (.*?)\.", section.replace("\n", " "))
    assert listed is not None
    assert re.findall(r"`([a-z ]+)`", listed.group(1)) == [status.value for status in Status]


# --- the page at a phone's and a desktop's width -------------------------------------------------------


@pytest.fixture(scope="module")
def failing_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """The JSON report and page of a student that rotates the wrong way: failed checks with three boards."""
    page = tmp_path_factory.mktemp("failing") / "report.html"
    result = run_program([ARENA, "validate", f"{sys.executable} {STUDENTS / 'rotates_wrong_way.py'}", "--n", "3,8",
                          "--quick", "--games", "1", "--quiet", "--json", "--html", str(page)], timeout=300)
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout), page


def test_failed_checks_come_first_and_passed_ones_are_folded(failing_page: tuple[dict[str, Any], Path]) -> None:
    report, page = failing_page
    html = page.read_text()
    failed = [f"{name}/{check['id']}" for name, category in report["categories"].items()
              for check in category["checks"] if check["status"] == "fail"]
    first = html.index("<h2 id='failed' class='fail'>Failed checks")
    assert html.index("<h2 ", html.index("</table>")) == first  # right after the summary
    listed = re.findall(r"<details id='check-[^']+' class='check' open><summary class='fail'>✗ ([^:]+): ",
                        html[first:html.index("<h2 id='protocol'")])
    assert listed == failed
    passed = sum(check["status"] == "pass" for category in report["categories"].values() for check in category["checks"])
    folded = [int(n) for n in re.findall(r"<details class='group'><summary class='pass'>✓ (\d+) passed checks</summary>",
                                         html)]
    assert 0 < sum(folded) <= passed


def test_validation_pages_fit_a_phone_and_a_desktop_with_the_boards_of_a_check_side_by_side(
        validated: tuple[dict[str, Any], Path], failing_page: tuple[dict[str, Any], Path], sized_tab: Tab) -> None:  # noqa: F811
    width = sized_tab.page.viewport_size["width"] if sized_tab.page.viewport_size else 0
    for _, page in (validated, failing_page):
        sized_tab.open(page)
        fits(sized_tab)
        sized_tab.shot(f"{page.parent.name}-{width}.png")  # as it opens (all open, it is too tall to capture)
        sized_tab.page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")  # every check's evidence
        fits(sized_tab)
        assert sized_tab.page.evaluate(OVERLAPS) == []
    # The asked board, the program's and the right one: at 1400 px one row, their tops and cells aligned.
    tops = sized_tab.page.evaluate("""() => Array.from(document.querySelectorAll('#failed ~ details.check .boards'))
        .filter(b => b.querySelectorAll('svg.board').length === 3)
        .map(b => Array.from(b.querySelectorAll('svg.board')).map(t => Math.round(t.getBoundingClientRect().top)))""")
    assert tops
    if width >= 1400:
        assert all(len(set(row)) == 1 for row in tops), tops


def test_a_page_with_only_weak_categories_does_not_head_its_failures_as_a_fail(
        validated: tuple[dict[str, Any], Path], failing_page: tuple[dict[str, Any], Path]) -> None:
    report, page = validated
    assert {name: c["status"] for name, c in report["categories"].items() if c["status"] not in ("pass", "info")} == {
        "tactics": "weak"}
    assert "<h2 id='failed' class='weak'>Failed checks (" in page.read_text()
    assert "<h2 id='failed' class='fail'>Failed checks (" in failing_page[1].read_text()


def test_each_strength_game_is_analysed_after_play_and_its_losing_move_marked_on_the_page(
        validated: tuple[dict[str, Any], Path]) -> None:
    from harness.analysis.losing import Finding

    report, page = validated
    html = page.read_text()
    for number, entry in enumerate(report["strength"]["games"], 1):
        finding = Finding.from_json(entry["analysis"])
        # The n = 3 table proves, where this machine has built it; else the analysis says so and assesses.
        if finding.oracle:
            assert (finding.oracle, finding.method, finding.note, finding.reached_from) == (
                "the n = 3 tables", "the n = 3 tables", "", 1)
            assert finding.kind in ("proved", "none")
        else:
            assert finding.note.startswith("the n = 3 table (mover win priority) is not built on this machine; ")
            assert finding.method == "search at depth 4" and finding.kind in ("assessment", "none")
        details = html[html.index(f"<details id='game-{number}'>"):]
        details = details[:details.index("</details>")]
        frames = json.loads(re.search(r'<script type="application/json" class="frames">(.*?)</script>', details)[1])
        if finding.kind in ("proved", "assessment"):
            assert f'<tr data-step="{finding.ply}" data-replay="game-{number}-replay" class="losing">' in details
            assert [index for index, frame in enumerate(frames) if frame["m"]] == [finding.ply]
            assert f"<div class='analysis {finding.kind}'><p>losing move (" in details
        else:
            assert f'data-replay="game-{number}-replay" class="losing"' not in details
            assert not any(frame["m"] for frame in frames)
