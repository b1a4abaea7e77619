"""Every value written into a page is escaped where it is written, whatever its source, and pages
show no absolute path.

Hostile text is written straight into the SQLite file of a real tournament, bypassing import:
into every column of every table (numbers' columns too, where SQLite keeps text), and into every
string inside its JSON columns. Each page is then parsed (html.parser) and its elements and
attributes compared with the same page drawn from the clean database: no tag or attribute may
appear that the clean page lacks. A database with every free-text field hostile at once is opened
in headless Chromium, where a script that ran would set ``window.pwned`` or the title. A value
that is not a game's (text where a number or a result belongs) is refused in one line instead.
"""

from __future__ import annotations

import copy
import html
import json
import re
import sqlite3
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from harness.validate.validator import Category, Check, Role, ValidationReport
from harness.validate.render import render_html
from tests.conftest import ARENA, ROOT, run_program
from tests.conftest import arena_here as arena
from tests.test_report_html import Tab, browser, tab  # noqa: F401  (the browser fixtures)

HOSTILE = ('<script>window.pwned=1;document.title="PWNED"</script>"><img src=x onerror="window.pwned=2">'
           "'><svg onload=window.pwned=3></style><script>window.pwned=4</script>javascript:window.pwned=5 ]]>"
           "</script><script>window.pwned=6</script><!-- ")
"""Closes every context a value can sit in (element, attribute in either quote, style, script, JSON
in a script, CDATA, comment) and runs a script there."""
HOSTILE_ENGINE = """\
import sys
print("<script>window.pwned = 8</script>")
print("9 " + sys.argv[3])
"""
CONFIG = f"""
name: pages
n: [3]
time: 1
grace: 5
rounds: 1
max_plies: 14
openings: {{plies: 0}}
concurrency: 2
engines:
  - {{name: rnd, builtin: random, options: {{seed: 4}}}}
  - {{name: hostile, command: python3 hostile.py}}
  - {{name: crash, command: {sys.executable} {ROOT / 'tests' / 'fake_engines' / 'answers_then_crashes.py'}}}
"""


class Shape(HTMLParser):
    """The (tag, attribute names) pairs of a page, and any attribute value that is a script URL."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.found: set[tuple[str, tuple[str, ...]]] = set()
        self.script_urls: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.add((tag, tuple(sorted(name for name, _ in attrs))))
        self.script_urls += [value for _, value in attrs if value and value.strip().lower().startswith("javascript:")]

    handle_startendtag = handle_starttag


def pages_of(folder: Path) -> dict[str, str]:
    return {str(path.relative_to(folder)): path.read_text() for path in sorted(folder.rglob("*.html"))}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A real tournament's database (a forfeit with HTML on stdout, a crash with a traceback) and
    its pages."""
    folder = tmp_path_factory.mktemp("clean")
    (folder / "hostile.py").write_text(HOSTILE_ENGINE)
    (folder / "pages.yaml").write_text(CONFIG)
    db = folder / "pages.sqlite"
    done = run_program([ARENA, "tournament", str(folder / "pages.yaml"), "--db", str(db), "--no-progress"], timeout=300)
    assert done.returncode == 0, done.stderr
    analysed = run_program([ARENA, "analyse", str(db), "--budget", "1", "--no-progress"], timeout=300)
    assert analysed.returncode == 0, analysed.stderr
    code, _, err = arena("report", db, "--html", folder / "html")
    assert code == 0, err
    return db, pages_of(folder / "html")


def edited(clean_db: Path, folder: Path, statements: list[tuple[str, tuple[Any, ...]]]) -> Path:
    db = folder / "edited.sqlite"
    db.write_bytes(clean_db.read_bytes())
    with sqlite3.connect(db) as connection:
        connection.execute("PRAGMA journal_mode=DELETE")
        for statement, args in statements:
            connection.execute(statement, args)
    return db


def columns(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return [(table, row[1]) for table in tables for row in connection.execute(f"PRAGMA table_info({table})")]


PLAIN = "plain text"
"""What the twin of each hostile edit writes: the page it gives is the one to compare with."""


def replaced_json(value: Any, text: str, keep: tuple[str, ...] = ()) -> Any:
    """Every string and number inside a JSON value replaced by ``text`` (keys, and the values of
    ``keep``, as they were)."""
    if isinstance(value, dict):
        return {key: item if key in keep else replaced_json(item, text, keep) for key, item in value.items()}
    if isinstance(value, list):
        return [replaced_json(item, text, keep) for item in value]
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return text
    return value


def shapes(folder: Path) -> dict[str, Shape]:
    return {name: Shape(text) for name, text in pages_of(folder).items()}


def same_shapes(plain: Path, hostile: Path) -> None:
    """The hostile pages have exactly the elements and attributes of their plain twins, and no script URL."""
    plain_shapes, hostile_shapes = shapes(plain), shapes(hostile)
    assert plain_shapes and set(hostile_shapes) == set(plain_shapes)
    for name, shape in hostile_shapes.items():
        assert shape.found == plain_shapes[name].found, (name, shape.found ^ plain_shapes[name].found)
        assert shape.script_urls == [], name


RENDERED = {
    "tournaments.name", "tournaments.config_hash", "tournaments.config_path", "tournaments.created_at",
    "tournaments.config_json inside", "engines.command", "engines.program", "engines.sha256",
    "games.game_id", "games.pair_key", "games.n", "games.reason", "games.finished_at", "games.fault_json inside",
    "games.tournament_id", "moves.engine", "moves.board", "moves.detail", "moves.warnings_json inside",
    "analyses.kind", "analyses.analysed_at", "analyses.finding_json note",
}
"""The fields whose hostile text a report shows (or leaves out) as text: a game whose tournament_id
is text belongs to no tournament and is left out. Every other field holds something a report
computes with, and text there is damage, refused in one line."""
NO_TEXT = {"tournaments.id", "games.id", "analyses.game"}
"""Integer primary keys: SQLite refuses text there."""


def cases(db: Path, text: str) -> Iterator[tuple[str, list[tuple[str, tuple[Any, ...]]]]]:
    """(field, the statements that write ``text`` into it in every row): each column, and each
    JSON column's inside."""
    for table, column in columns(db):
        yield f"{table}.{column}", [(f"UPDATE {table} SET {column} = ? || ' #' || rowid", (text,))]
    with sqlite3.connect(db) as connection:
        config = json.loads(connection.execute("SELECT config_json FROM tournaments").fetchone()[0])
        faults = connection.execute("SELECT id, fault_json FROM games WHERE fault_json IS NOT NULL").fetchall()
    yield "tournaments.config_json inside", [("UPDATE tournaments SET config_json = ?",
                                              (json.dumps(replaced_json(config, text)),))]
    yield "games.fault_json inside", [
        ("UPDATE games SET fault_json = ? WHERE id = ?",
         # The capsule, which no page shows, holds typed values (checked in tests/test_repro.py): kept.
         (json.dumps(replaced_json(json.loads(fault), text, ("engine", "player", "verdict", "exit_status", "capsule"))),
          game))
        for game, fault in faults]
    yield "moves.warnings_json inside", [("UPDATE moves SET warnings_json = ?",
                                          (json.dumps([{"kind": "lines-after-answer", "text": text}]),))]
    yield "analyses.finding_json note", [("UPDATE analyses SET finding_json = json_set(finding_json, '$.note', ?)",
                                          (text,))]


def report_of(db: Path, folder: Path, statements: list[tuple[str, tuple[Any, ...]]]) -> str:
    """Edit a copy of ``db`` in ``folder`` and write its pages into folder/html: 'rendered', or
    'refused' (checked to be one line naming the damage)."""
    folder.mkdir(parents=True)
    edited_db = edited(db, folder, statements)
    code, _, err = arena("report", edited_db, "--html", folder / "html")
    if code == 0:
        return "rendered"
    assert (code, err.count("\n")) == (2, 1), err
    assert re.fullmatch(rf"arena: error: {re.escape(str(edited_db))} is damaged \(.*\); restore it from a copy, "
                        r"or give another database\n", err), err
    return "refused"


def test_hostile_text_in_any_stored_field_never_becomes_a_tag(clean: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    db, _ = clean
    seen = {}
    for (field, hostile), (_, plain) in zip(cases(db, HOSTILE), cases(db, PLAIN), strict=True):
        folder = tmp_path / field.replace(" ", "-")
        try:
            outcome = report_of(db, folder / "hostile", hostile)
        except sqlite3.IntegrityError:
            seen[field] = "no text"
            continue
        assert report_of(db, folder / "plain", plain) == outcome, field
        if outcome == "rendered":
            same_shapes(folder / "plain" / "html", folder / "hostile" / "html")
        seen[field] = outcome
    assert {field for field, outcome in seen.items() if outcome == "rendered"} == RENDERED
    assert {field for field, outcome in seen.items() if outcome == "no text"} == NO_TEXT
    assert len(seen) == len(columns(db)) + 4


ENGINE_NAME = HOSTILE.replace("<!-- ", "")


def all_free_text(db: Path, text: str, name: str) -> list[tuple[str, tuple[Any, ...]]]:
    """Every field of RENDERED set to ``text`` at once (but the games' tournament, which would hide
    them), and the engine 'hostile' renamed ``name`` everywhere."""
    shown = RENDERED - {"games.tournament_id"}
    statements = [statement for field, found in cases(db, text) if field in shown for statement in found]
    return statements + [
        ("UPDATE moves SET engine = ? WHERE (player = 'x' AND (SELECT x FROM games WHERE id = moves.game) = 'hostile') "
         "OR (player = 'o' AND (SELECT o FROM games WHERE id = moves.game) = 'hostile')", (name,)),
        ("UPDATE engines SET name = ? WHERE name = 'hostile'", (name,)),
        ("UPDATE games SET x = ? WHERE x = 'hostile'", (name,)),
        ("UPDATE games SET o = ? WHERE o = 'hostile'", (name,)),
        ("UPDATE games SET fault_json = json_set(fault_json, '$.engine', ?) "
         "WHERE json_extract(fault_json, '$.engine') = 'hostile'", (name,)),
    ]


@pytest.fixture(scope="module")
def hostile_pages(clean: tuple[Path, dict[str, str]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pages of the tournament with every free-text field hostile at once (checked against their
    plain twins)."""
    db, _ = clean
    folder = tmp_path_factory.mktemp("all")
    assert report_of(db, folder / "plain", all_free_text(db, PLAIN, "plain-engine")) == "rendered"
    assert report_of(db, folder / "hostile", all_free_text(db, HOSTILE, ENGINE_NAME)) == "rendered"
    same_shapes(folder / "plain" / "html", folder / "hostile" / "html")
    return folder / "hostile" / "html"


def test_every_free_text_field_hostile_at_once_stays_text(hostile_pages: Path) -> None:
    index = (hostile_pages / "index.html").read_text()
    assert html.escape(ENGINE_NAME, quote=True) in index  # the engine's name, as text
    assert ENGINE_NAME not in index


def test_no_script_runs_from_hostile_fields_in_the_browser(hostile_pages: Path, tab: Tab) -> None:  # noqa: F811
    pages = sorted(hostile_pages.rglob("*.html"))
    assert len(pages) == 2 + 6
    for page in pages:
        tab.open(page)
        assert tab.page.evaluate("typeof window.pwned") == "undefined", page
        assert tab.page.title() != "PWNED", page
        assert tab.page.locator("img").count() == 0, page


# --- the validation page -------------------------------------------------------------------------------


def report_from_json(data: dict[str, Any]) -> ValidationReport:
    """A ValidationReport back from ``arena validate --json``."""
    fields = {name for name in Check.__dataclass_fields__}
    categories = {name: Category(name, [Check(**{k: v for k, v in check.items() if k in fields})
                                        for check in category["checks"]], category["summary"], Role(category["role"]))
                  for name, category in data["categories"].items()}
    return ValidationReport(data["program"], data["verdict"], data["passed"], categories, data["strength"], data["game"])


def rewritten(report: ValidationReport, text: str) -> ValidationReport:
    """Every text of a validation report set to ``text``, except what its drawing computes with
    (boards, sizes, players, verdicts, moves)."""
    copied = copy.deepcopy(report)
    copied.program = copied.verdict = text
    for category in copied.categories.values():
        category.summary = text
        for check in category.checks:
            check.id = check.detail = check.command = check.stderr = check.expected = text
            check.printed = [text, text]
            for call in check.slowest:
                call["id"] = text
    for entry in copied.strength.get("games", []):
        entry.update(opponent=text, reason=text)
        if entry.get("adjudication"):
            entry["adjudication"]["why"] = text
    return copied


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """A quick validation of a correct program in a folder named like an HTML tag: its JSON and page."""
    folder = tmp_path_factory.mktemp("validate") / '"><img src=x onerror=window.pwned=7>'
    folder.mkdir()
    for name in ("random_legal.py", "_common.py"):
        (folder / name).write_text((ROOT / "tests" / "fake_engines" / "students" / name).read_text())
    page = folder.parent / "report.html"
    done = run_program([ARENA, "validate", f"{sys.executable} '{folder / 'random_legal.py'}'", "--n", "3", "--quick",
                        "--games", "1", "--quiet", "--json", "--html", str(page)], timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), page


def test_validation_page_keeps_hostile_text_as_text(validated: tuple[dict[str, Any], Path], tab: Tab) -> None:  # noqa: F811
    data, page = validated
    plain_page = render_html(rewritten(report_from_json(data), PLAIN))
    hostile_page = render_html(rewritten(report_from_json(data), HOSTILE))
    assert HOSTILE not in hostile_page and html.escape(HOSTILE, quote=True) in hostile_page
    shape = Shape(hostile_page)
    assert shape.found == Shape(plain_page).found and shape.script_urls == []
    (page.parent / "hostile.html").write_text(hostile_page)
    for path in (page, page.parent / "hostile.html"):
        tab.open(path)
        assert tab.page.evaluate("typeof window.pwned") == "undefined"
        assert tab.page.title() != "PWNED" and tab.page.locator("img").count() == 0


# --- no absolute path on a page ---------------------------------------------------------------------------


def absolute_paths(text: str, roots: list[Path]) -> list[str]:
    plain = html.unescape(text)
    return [str(root) for root in roots if str(root) in plain]


def test_report_pages_show_programs_relative_to_the_config_or_by_file_name(clean: tuple[Path, dict[str, str]]) -> None:
    db, pages = clean
    roots = [db.parent, ROOT, Path(sys.prefix), Path(sys.executable).parent, Path("/usr/bin"), Path("/tmp")]
    for name, text in pages.items():
        assert absolute_paths(text, roots) == [], name
    with sqlite3.connect(db) as connection:
        forfeit, argv = next((game, json.loads(fault)["argv"]) for game, fault in connection.execute(
            "SELECT id, fault_json FROM games WHERE o = 'hostile' AND fault_json IS NOT NULL"))
        crashed, stderr = next((game, json.loads(fault)["stderr_tail"]) for game, fault in connection.execute(
            "SELECT id, fault_json FROM games WHERE fault_json LIKE '%Traceback%'"))
    assert argv[1] == str(db.parent / "hostile.py") and str(ROOT) in stderr  # the database keeps the full paths
    shown = f"{Path(argv[0]).name} hostile.py {' '.join(argv[2:])}"  # under the config's folder: relative to it
    assert f"<tr><th>command</th><td><code>{html.escape(shown)}</code></td></tr>" in pages[f"games/{forfeit}.html"]
    assert html.escape('File "answers_then_crashes.py", line 4') in pages[f"games/{crashed}.html"]  # elsewhere: its name


def test_validation_page_shows_the_program_by_its_file_name(validated: tuple[dict[str, Any], Path]) -> None:
    data, page = validated
    text = page.read_text()
    folder = page.parent / '"><img src=x onerror=window.pwned=7>'
    assert str(folder) in data["program"]  # the JSON report keeps what was given
    assert absolute_paths(text, [folder, page.parent, ROOT, Path(sys.prefix), Path("/usr/bin"), Path("/tmp")]) == []
    assert f"<p><b>Program:</b> <code>{Path(sys.executable).name} random_legal.py</code></p>" in text
    assert re.search(r"<p>Command:</p><pre>\S+ random_legal.py 3 [xo] [.xo]+ 1</pre>", text)


def test_public_text_keeps_what_is_not_a_path_and_shortens_what_is() -> None:
    from harness.report.page import esc, paths_relative_to, public, public_word

    text = ('File "/home/op/course/subs/eve/betsy.py", line 3 (/usr/bin/python3); result 1/2-1/2 at ply 3/12; '
            "see https://example.org/a/b; PATH=/usr/bin:/bin")
    assert public(text) == ('File "betsy.py", line 3 (python3); result 1/2-1/2 at ply 3/12; '
                            "see https://example.org/a/b; PATH=bin:bin")
    with paths_relative_to(Path("/home/op/course")):
        assert public(text).startswith('File "subs/eve/betsy.py", line 3 (python3);')
        assert [public_word(word) for word in ("/home/op/course", "/home/op/course/../x.py", "/a b/c.py", "-v")] == [
            ".", "x.py", "c.py", "-v"]
        assert esc('<"/home/op/course/a.py">') == "&lt;&quot;a.py&quot;&gt;"
    assert public("/") == "/" and public("no path here") == "no path here"
