"""Tournament reports people look at: `arena report DB --html DIR` (pages with charts and a replay
per game, opened in headless Chromium), the text report that fits 100 columns, and --csv DIR.

The tournaments are real (`arena tournament` on tiny configs, both games) and include an engine
that forfeits after printing HTML on stdout and stderr; a copy of one game under hostile engine and
tournament names checks the escaping. The browser tests drive Debian's chromium through playwright
and skip, with the reason, where either is missing (on CI they fail instead).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import re
import shutil
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.report.page import json_script
from harness.match.match import Standing
from harness.report.report import EngineRow, Report, render_text
from harness.store.store import Store
from tests.conftest import ARENA, ROOT, cannot_run_here, run_program

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

HOSTILE_ENGINE = """\
import sys
print("<script>window.pwned = 1</script>")
print('</pre><img src=x onerror="window.pwned = 2">', file=sys.stderr)
print("9 " + sys.argv[3])
"""
"""Prints HTML on stdout and stderr, then a move out of range: it forfeits every game."""
BETSY = f"""
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
  - {{name: greedy, builtin: greedy, options: {{seed: 5}}}}
  - {{name: hostile, command: {sys.executable} hostile.py}}
"""
CONNECT4 = f"""
name: pages4
game: connect4
size: [5x4]
time: 1
grace: 5
rounds: 1
openings: {{plies: 0}}
concurrency: 2
format: gauntlet
engines:
  - {{name: greedy, builtin: greedy, options: {{seed: 5}}}}
  - {{name: rnd, builtin: random, options: {{seed: 4}}}}
  - {{name: crash, command: {sys.executable} {ROOT / 'tests' / 'fake_engines' / 'answers_then_crashes.py'}}}
"""
KINGS_HORSES = """
name: horses
game: kings-horses
size: 10
time: 2
rounds: 2
openings: {seed: 21}
concurrency: 2
engines:
  - {name: bestmove, builtin: bestmove}
  - {name: rnd, builtin: random, options: {seed: 4}}
"""
EVIL_NAME = '<img src=x onerror="window.pwned = 3">'
EVIL_TOURNAMENT = "</script><script>window.pwned = 4</script>"


@dataclasses.dataclass(frozen=True)
class Played:
    """A finished tournament and its report folder."""

    db: Path
    pages: Path
    stdout: str


def play(folder: Path, config: str) -> Played:
    (folder / "hostile.py").write_text(HOSTILE_ENGINE)
    (folder / "t.yaml").write_text(config)
    db = folder / "t.sqlite"
    done = run_program([ARENA, "tournament", str(folder / "t.yaml"), "--db", str(db), "--no-progress"], timeout=300)
    assert done.returncode == 0, done.stderr
    pages = folder / "pages"
    report = run_program([ARENA, "report", str(db), "--html", str(pages)])
    assert report.returncode == 0, report.stderr
    return Played(db, pages, report.stdout)


@pytest.fixture(scope="module")
def betsy(tmp_path_factory: pytest.TempPathFactory) -> Played:
    return play(tmp_path_factory.mktemp("betsy"), BETSY)


@pytest.fixture(scope="module")
def connect4(tmp_path_factory: pytest.TempPathFactory) -> Played:
    return play(tmp_path_factory.mktemp("connect4"), CONNECT4)


@pytest.fixture(scope="module")
def kings_horses(tmp_path_factory: pytest.TempPathFactory) -> Played:
    return play(tmp_path_factory.mktemp("horses"), KINGS_HORSES)


@pytest.fixture(scope="module")
def hostile_names(betsy: Played, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """One forfeited game of ``betsy`` again, in a tournament and between engines with names made of
    HTML (names that 'arena import' would take, though configs refuse them)."""
    folder = tmp_path_factory.mktemp("names")
    db = folder / "names.sqlite"
    with Store(betsy.db, read_only=True) as source:
        row = next(r for r in source.game_rows() if r.o == "hostile")
        record = source.game_record(row.id)
        config = source.tournament_info(row.tournament)["config"]

    def rename(name: str) -> str:
        return EVIL_NAME if name == "hostile" else name

    assert record.fault is not None
    record = dataclasses.replace(
        record, o=EVIL_NAME, moves=[dataclasses.replace(move, engine=rename(move.engine)) for move in record.moves],
        fault=dataclasses.replace(record.fault, engine=EVIL_NAME))
    with Store(db) as store:
        tournament = store.ensure_tournament(EVIL_TOURNAMENT, config, [{"name": record.x}, {"name": EVIL_NAME}])
        store.save_record(tournament, f"n3:r1:{record.x}:{EVIL_NAME}:a", "p", 1, record)
    pages = folder / "pages"
    report = run_program([ARENA, "report", str(db), "--html", str(pages)])
    assert report.returncode == 0, report.stderr
    return Played(db, pages, report.stdout)


def rows(db: Path, query: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return connection.execute(query, args).fetchall()


def stored_boards(db: Path, game: int) -> list[str]:
    """The start board, then the board after each ply as stored (a forfeit keeps the board before it)."""
    boards = [rows(db, "SELECT start_board FROM games WHERE id = ?", game)[0][0]]
    for (board,) in rows(db, "SELECT board FROM moves WHERE game = ? ORDER BY ply", game):
        boards.append(board if board is not None else boards[-1])
    return boards


def section(html: str, element_id: str) -> str:
    """The markup from the element with this id to the end of its table."""
    start = html.index(f'id="{element_id}"')
    return html[start:html.index("</table>", start)]


# --- the folder of pages ---------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["betsy", "connect4"])
def test_html_report_writes_an_index_a_games_list_and_a_page_per_game(which: str, request: pytest.FixtureRequest) -> None:
    played: Played = request.getfixturevalue(which)
    ids = [game_id for (game_id,) in rows(played.db, "SELECT id FROM games ORDER BY id")]
    assert played.stdout.splitlines()[-1] == f"HTML report: {played.pages / 'index.html'} (and {len(ids)} game pages)"
    assert sorted(path.name for path in played.pages.iterdir()) == [
        "arena.css", "games", "games.html", "index.html", "replay.js"]
    assert sorted(path.name for path in (played.pages / "games").iterdir()) == sorted(f"{i}.html" for i in ids)
    listed = re.findall(r'<td class="num"><a href="games/(\d+)\.html">', (played.pages / "games.html").read_text())
    assert [int(i) for i in listed] == ids
    for page in [played.pages / "index.html", played.pages / "games.html", *(played.pages / "games").iterdir()]:
        text = page.read_text()
        assert text.startswith("<!doctype html>")
        assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:|//)""", text), page  # nothing from the network


def test_index_ranks_engines_as_the_json_report_and_charts_their_intervals(betsy: Played) -> None:
    data = json.loads(run_program([ARENA, "report", str(betsy.db), "--json"]).stdout)
    html = (betsy.pages / "index.html").read_text()
    ratings = section(html, "ratings-table")
    assert re.findall(r'<tr><td class="num">\d+</td><td>([^<]*)</td>', ratings) == [e["name"] for e in data["engines"]]
    chart = html[html.index('aria-label="Elo ratings with 95% intervals"'):]
    chart = chart[:chart.index("</svg>")]
    assert chart.count('<circle class="pt"') == len(data["engines"])
    for anchor in ("ratings", "crosstable", "pairs", "colours", "faults", "times"):
        assert f'<h2 id="{anchor}">' in html
    heat = section(html, "crosstable-table")
    assert heat.count("<tr><th") == 1 + 3  # the heads, then one row per engine
    assert heat.count('class="num self"') == 3


def test_gauntlet_crosstable_has_one_row_per_opponent_in_the_page_and_the_text(connect4: Played) -> None:
    heat = section((connect4.pages / "index.html").read_text(), "crosstable-table")
    opponents = re.findall(r"<tr><td>([^<]*)</td>", heat)
    assert sorted(opponents) == ["crash", "rnd"]
    text = run_program([ARENA, "report", str(connect4.db)]).stdout.splitlines()
    first = text.index("Crosstable (gauntlet: greedy's points / games, W-D-L and score against each opponent)")
    assert text[first + 1].split() == ["opponent", "points", "W-D-L", "score"]
    table = text[first + 2:text.index("", first)]
    assert sorted(line.split()[0] for line in table) == ["crash", "rnd"]
    for line in table:
        points, played = rows(connect4.db, "SELECT sum(CASE WHEN result = '1/2-1/2' THEN 0.5 "
                                           "WHEN (x = 'greedy') = (result = '1-0') THEN 1.0 ELSE 0 END), count(*) FROM games "
                                           "WHERE x = ? OR o = ?", line.split()[0], line.split()[0])[0]
        assert line.split()[1] == f"{points:g}/{played}"


def test_forfeit_page_shows_the_programs_last_output_as_text(betsy: Played) -> None:
    game_id, fault_json = rows(betsy.db, "SELECT id, fault_json FROM games WHERE o = 'hostile' LIMIT 1")[0]
    fault = json.loads(fault_json)
    assert fault["verdict"] == "illegal-move" and fault["stdout_tail"][0] == "<script>window.pwned = 1</script>"
    html = (betsy.pages / "games" / f"{game_id}.html").read_text()
    assert '<h2 id="forfeit">Forfeit: hostile (o) by illegal-move</h2>' in html
    assert ("<pre class='stdout'>&lt;script&gt;window.pwned = 1&lt;/script&gt;\n9 " in html)
    assert "<pre class='stderr'>&lt;/pre&gt;&lt;img src=x onerror=&quot;window.pwned = 2&quot;&gt;\n</pre>" in html
    assert "<img" not in html and "window.pwned = 1</script>" not in html


def test_hostile_engine_and_tournament_names_are_escaped_on_every_page(hostile_names: Played) -> None:
    pages = [hostile_names.pages / "index.html", hostile_names.pages / "games.html",
             *(hostile_names.pages / "games").iterdir()]
    assert len(pages) == 3
    for page in pages:
        text = page.read_text()
        assert "<img" not in text and "window.pwned = 4</script>" not in text, page
        assert "&lt;img src=x onerror=&quot;window.pwned = 3&quot;&gt;" in text, page


def test_frame_data_cannot_close_its_script_element() -> None:
    element = json_script({"t": "</script><script>alert(1)</script><!--", "b": "a&b"}, "frames")
    inner = element[len('<script type="application/json" class="frames">'):-len("</script>")]
    assert "<" not in inner and ">" not in inner and "&" not in inner
    assert json.loads(inner) == {"t": "</script><script>alert(1)</script><!--", "b": "a&b"}


def test_html_and_csv_folders_that_cannot_be_written_are_refused(betsy: Played, tmp_path: Path) -> None:
    taken = tmp_path / "file"
    taken.write_text("")
    refused = run_program([ARENA, "report", str(betsy.db), "--html", str(taken)])
    assert (refused.returncode, refused.stderr) == (
        2, f"arena: error: invalid --html {taken}: it is a file; give a folder (created if missing)\n")
    stray = run_program([ARENA, "report", str(betsy.db), str(tmp_path / "out")])
    assert (stray.returncode, stray.stderr) == (
        2, f"arena: error: unexpected argument '{tmp_path / 'out'}': a folder for the CSV tables goes after --csv "
           f"(arena report {betsy.db} --csv {tmp_path / 'out'})\n")
    assert not (tmp_path / "out").exists()
    two = run_program([ARENA, "report", str(betsy.db), "--csv", str(tmp_path / "a"), "b"])
    assert (two.returncode, two.stderr) == (2, "arena: error: unexpected argument 'b': --csv takes one folder\n")


# --- the text and CSV forms of the same report --------------------------------------------------------


def test_text_report_fits_100_columns_with_the_verdicts_abbreviated(betsy: Played, connect4: Played) -> None:
    for played in (betsy, connect4):
        text = run_program([ARENA, "report", str(played.db)]).stdout
        assert max(len(line) for line in text.splitlines()) <= 100, text
    lines = run_program([ARENA, "report", str(betsy.db)]).stdout.splitlines()
    first = lines.index("Faults (games lost by each verdict; no-ans = no-answer, out-lim = output-limit,")
    assert lines[first + 1:first + 3] == [
        "illegal = illegal-move, board = board-mismatch, no-start = failed-to-start)",
        "engine    lost      time    no-ans   out-lim   illegal     board  no-start",
    ]
    hostile = next(line for line in lines[first:] if line.startswith("hostile "))
    assert hostile.split() == ["hostile", "4", "0", "0", "0", "4", "0", "0"]  # 2 opponents x 2 colours


def test_by_colour_lists_each_pairing_once_in_the_text_and_the_page(betsy: Played) -> None:
    names = ["rnd", "greedy", "hostile"]  # as the config lists them
    text = run_program([ARENA, "report", str(betsy.db)]).stdout.splitlines()
    first = text.index("By colour (the first engine's points / games as x, which moves first, and as o; W-D-L)")
    table = text[first + 2:text.index("", first)]
    pairings = [line.split()[0:3] for line in table]
    assert [(a, b) for a, vs, b in pairings if vs == "vs"] == [
        (a, b) for i, a in enumerate(names) for b in names[i + 1:]]  # each pair once, in config order
    page = section((betsy.pages / "index.html").read_text(), "colours-table")
    shown = re.findall(r'<tr><td><span class="name">([^<]*)</span> vs <span class="name">([^<]*)</span></td>', page)
    assert shown == [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    for a, b in shown:  # a's games as x and as o are all their games
        games = rows(betsy.db, "SELECT count(*) FROM games WHERE (x = ? AND o = ?) OR (x = ? AND o = ?)", a, b, b, a)
        line = next(line for line in table if line.startswith(f"{a} vs {b} "))
        as_x, as_o = line.split()[3], line.split()[5]
        assert int(as_x.split("/")[1]) + int(as_o.split("/")[1]) == games[0][0]


def test_kings_horses_boards_keep_one_size_with_numbered_rows_in_the_text_and_the_page(kings_horses: Played) -> None:
    for (game_id,) in rows(kings_horses.db, "SELECT id FROM games ORDER BY id"):
        text = run_program([ARENA, "replay", str(kings_horses.db), str(game_id), "--all"]).stdout
        blocks = [block.splitlines() for block in text.split("\n\n")]
        boards = [block[1:] for block in blocks if len(block) > 2 and block[1].split()[0] == "1"]
        assert len(boards) == len(stored_boards(kings_horses.db, game_id))
        size = len(boards[0]) - 1
        assert size >= 10  # the band of the starts, 1..10, and every square a knight can reach from it
        for board in boards:
            assert [line.split()[0] for line in board[:-1]] == [str(row) for row in range(1, size + 1)]
            assert board[-1].split() == [str(column) for column in range(1, size + 1)]
            cells = "".join("".join(line.split()[1:]) for line in board[:-1])
            assert (len(cells), cells.count("x"), cells.count("o")) == (size * size, 2, 2)  # no knight off the board
        html = (kings_horses.pages / "games" / f"{game_id}.html").read_text()
        assert re.findall(r'<text class="rowno"[^>]*>(\d+)</text>', html) == [str(r) for r in range(1, size + 1)]
        frames = json.loads(re.search(r'<script type="application/json" class="frames">(.*?)</script>', html).group(1))
        assert {len(frame["b"]) for frame in frames} == {size * size}
        assert all(frame["b"].count("x") == 2 and frame["b"].count("o") == 2 for frame in frames)


def many_engines(count: int) -> Report:
    """A round-robin report of ``count`` engines named engine-01 ... with made-up points."""
    names = [f"engine-{i:02d}" for i in range(1, count + 1)]
    cross: dict[str, dict[str, tuple[float, int]]] = {a: {} for a in names}
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if a != b:
                cross[a][b] = (float((i * 7 + j * 3) % 21), 20)
    engines = [EngineRow(name, games=20 * (count - 1)) for name in names]
    by_colour = {(a, b): {"x": Standing(1, 0, 0), "o": Standing(0, 0, 1)} for a in names for b in names if a != b}
    return Report("many", 1, 0, engines, cross, {}, {}, {"n": [5], "time": 1, "format": "round-robin"}, by_colour,
                  names)


def test_crosstable_of_many_engines_goes_by_rank_in_blocks_that_fit(tmp_path: Path) -> None:
    report = many_engines(14)
    lines = render_text(report).splitlines()
    assert max(len(line) for line in lines) <= 100
    first = lines.index("Crosstable (row engine's points / games against the column engine; columns by rank)")
    blocks = [block.splitlines() for block in "\n".join(lines[first + 1:lines.index("Ratings (Bradley-Terry Elo, "
                                                                                    "draws as half points; mean 0; "
                                                                                    "95% interval)") - 1]).split("\n\n")]
    assert len(blocks) == 2
    columns = [int(rank) for block in blocks for rank in block[0].split()]
    assert columns == list(range(1, 15))
    for block in blocks:
        heads = [int(rank) for rank in block[0].split()]
        for row, line in zip(report.engines, block[1:], strict=True):
            cells = line.split()[2:]
            expected = ["-" if report.engines[rank - 1].name == row.name
                        else "{:g}/20".format(report.crosstable[row.name][report.engines[rank - 1].name][0])
                        for rank in heads]
            assert cells == expected


def test_small_round_robin_crosstable_keeps_names_as_column_heads(betsy: Played) -> None:
    lines = run_program([ARENA, "report", str(betsy.db)]).stdout.splitlines()
    first = lines.index("Crosstable (row engine's points / games against the column engine)")
    names = lines[first + 1].split()
    assert sorted(names) == ["greedy", "hostile", "rnd"]
    assert [line.split()[0] for line in lines[first + 2:first + 5]] == names


def test_csv_dir_writes_every_table_as_its_own_file(betsy: Played, tmp_path: Path) -> None:
    out = tmp_path / "tables"
    result = run_program([ARENA, "report", str(betsy.db), "--csv", str(out)])
    assert result.returncode == 0, result.stderr
    names = ["ratings", "crosstable", "pairs", "by_colour", "faults", "move_times"]
    assert result.stdout.splitlines()[-1] == "CSV tables: " + ", ".join(str(out / f"{n}.csv") for n in names)
    tables = {name: list(csv.DictReader((out / f"{name}.csv").open())) for name in names}
    data = json.loads(run_program([ARENA, "report", str(betsy.db), "--json"]).stdout)
    assert [row["name"] for row in tables["ratings"]] == [e["name"] for e in data["engines"]]
    assert {(row["engine"], row["opponent"]): (float(row["points"]), int(row["games"])) for row in tables["crosstable"]} == {
        (a, b): (cell["points"], cell["games"]) for a, cells in data["crosstable"].items() for b, cell in cells.items()}
    assert {f"{row['engine']} vs {row['opponent']}": [int(row[f"pairs_{p}"]) for p in ("0", "0.5", "1", "1.5", "2")]
            for row in tables["pairs"]} == data["pentanomial"]
    assert {(row["engine"], row["opponent"], row["colour"]): int(row["wins"]) for row in tables["by_colour"]} == {
        (*pair.split(" vs "), colour): counts["wins"] for pair, colours in data["by_colour"].items()
        for colour, counts in colours.items()}
    assert {row["engine"]: {k: int(v) for k, v in row.items() if k not in ("engine", "lost")}
            for row in tables["faults"]} == {e["name"]: e["faults"] for e in data["engines"]}
    moves = dict(rows(betsy.db, "SELECT engine, count(*) FROM moves GROUP BY engine"))
    for row in tables["move_times"]:
        assert int(row["moves"]) == moves[row["engine"]]
        quantiles = [float(row[f"{q}_seconds"]) for q in ("min", "p10", "p25", "median", "p75", "p90", "max")]
        assert quantiles == sorted(quantiles)
    assert run_program([ARENA, "report", str(betsy.db), "--csv"]).stdout == (out / "ratings.csv").read_text()


def test_json_report_keeps_its_keys(betsy: Played) -> None:
    data = json.loads(run_program([ARENA, "report", str(betsy.db), "--json"]).stdout)
    assert list(data) == ["name", "tournament", "kind", "title", "games", "engines", "crosstable", "los",
                          "pentanomial", "paired", "by_colour", "config"]
    assert list(data["engines"][0]) == ["name", "games", "score", "wins", "draws", "losses", "elo", "elo_ci",
                                        "faults", "moves", "mean_move_seconds", "max_move_seconds"]


# --- in a real browser ------------------------------------------------------------------------------


def browser_problem() -> str | None:
    """Why the browser tests cannot run here, in one line; None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if shutil.which("chromium") is None:
        return "no chromium on PATH (scripts/test installs Debian's chromium with apt-get when run as root)"
    return None


NO_RENDERING_TIMERS = ("--run-all-compositor-stages-before-draw", "--disable-new-content-rendering-timeout")
"""Chromium without the compositor's own clocks: each stage of a frame finishes before it is drawn, and a
page slow to commit its first frame after a navigation (a busy machine) is not blanked after a timeout,
which made a screenshot fail ("Unable to capture screenshot") beside two busy loops."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium for one test module (test_validate_html imports these fixtures; a module's browser
    closes before the next module's starts: two sync playwrights cannot run at once)."""
    problem = browser_problem()
    if problem is not None:
        cannot_run_here(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=list(NO_RENDERING_TIMERS))
        yield launched
        launched.close()


class Tab:
    """A browser page that records every console error, page error, failed or non-file request."""

    def __init__(self, page: Page, folder: Path) -> None:
        self.page = page
        self.folder = folder
        self.problems: list[str] = []
        page.on("console", lambda message: self.problems.append(f"console {message.type}: {message.text}")
                if message.type in ("error", "assert") else None)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("requestfailed", lambda request: self.problems.append(f"failed request: {request.url}"))
        page.on("request", lambda request: None if request.url.startswith(("file:", "data:"))
                else self.problems.append(f"network request: {request.url}"))

    def open(self, path: Path) -> None:
        self.page.goto(path.resolve().as_uri())

    def drawn(self, replay: str) -> str:
        """The board the replay shows, read off its SVG cells."""
        return str(self.page.evaluate(
            "id => Array.from(document.querySelectorAll('#' + id + ' svg.board .cell')).map(c => "
            "c.classList.contains('x') ? 'x' : c.classList.contains('o') ? 'o' : '.').join('')", replay))

    def shot(self, name: str) -> Path:
        path = self.folder / name
        self.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 1000
        return path


@pytest.fixture
def tab(browser: Browser, tmp_path: Path) -> Iterator[Tab]:
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    opened = Tab(context.new_page(), tmp_path)
    yield opened
    context.close()
    assert opened.problems == []


OVERFLOW = """() => {
  // Elements that stick out of the viewport, unless a box that scrolls (or clips) holds them.
  const width = window.innerWidth, found = [];
  for (const element of document.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || (box.right <= width + 0.5 && box.left >= -0.5)) continue;
    let holder = element.parentElement, held = false;
    for (; holder && holder !== document.body; holder = holder.parentElement) {
      const style = getComputedStyle(holder);
      if (["auto", "scroll", "hidden"].includes(style.overflowX) && holder.getBoundingClientRect().right <= width + 0.5) {
        held = true;
        break;
      }
    }
    if (!held) found.push(element.tagName.toLowerCase() + (element.id ? "#" + element.id : "") + " " +
                          Math.round(box.left) + ".." + Math.round(box.right));
  }
  return {page: document.documentElement.scrollWidth, width: width, found: found.slice(0, 10)};
}"""
OVERLAPS = """() => {
  // Pairs of texts in the page's charts whose boxes overlap.
  const found = [];
  for (const chart of document.querySelectorAll("svg.chart")) {
    const boxes = Array.from(chart.querySelectorAll("text")).filter(t => getComputedStyle(t).display !== "none")
      .map(t => [t.textContent, t.getBoundingClientRect()]);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [a, p] = boxes[i], [b, q] = boxes[j];
      if (p.left < q.right - 0.5 && q.left < p.right - 0.5 && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5)
        found.push(a + " / " + b);
    }
  }
  return found;
}"""


def fits(tab: Tab) -> None:
    """Nothing on the open page is wider than the viewport outside a box that scrolls."""
    measured = tab.page.evaluate(OVERFLOW)
    assert measured["page"] <= measured["width"] and measured["found"] == [], measured


@pytest.fixture(params=[360, 1400], ids=["phone", "desktop"])
def sized_tab(request: pytest.FixtureRequest, browser: Browser, tmp_path: Path) -> Iterator[Tab]:
    """A tab as wide as a phone (360 px) or a desktop (1400 px)."""
    context = browser.new_context(viewport={"width": request.param, "height": 800})
    opened = Tab(context.new_page(), tmp_path)
    yield opened
    context.close()
    assert opened.problems == []


def test_report_pages_fit_a_phone_and_a_desktop(betsy: Played, connect4: Played, kings_horses: Played,
                                                sized_tab: Tab) -> None:
    tab = sized_tab
    width = tab.page.viewport_size["width"] if tab.page.viewport_size else 0
    for played in (betsy, connect4, kings_horses):
        first = rows(played.db, "SELECT min(id) FROM games")[0][0]
        for page in (played.pages / "index.html", played.pages / "games.html", played.pages / "games" / f"{first}.html"):
            tab.open(page)
            fits(tab)
            assert tab.page.evaluate(OVERLAPS) == [], page
            tab.shot(f"{played.db.parent.name}-{page.stem}-{width}.png")
        tab.open(played.pages / "index.html")
        # W-D-L on one line, in every table.
        lines = tab.page.evaluate("Array.from(document.querySelectorAll('td.num')).filter(td => "
                                  "/^\\d+-\\d+-\\d+$/.test(td.textContent)).map(td => { const range = "
                                  "document.createRange(); range.selectNodeContents(td); "
                                  "return new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top))).size; })")
        assert lines and set(lines) == {1}, lines
        # Every column of the crosstable can be reached: its box scrolls to the last one.
        last = tab.page.evaluate("""() => {
            const table = document.getElementById('crosstable-table'), box = table.parentElement;
            box.scrollLeft = box.scrollWidth;
            const heads = table.querySelectorAll('thead th');
            return [heads[heads.length - 1].getBoundingClientRect().right, window.innerWidth];
        }""")
        assert last[0] <= last[1], last


def test_replay_buttons_and_keys_show_the_stored_board_after_each_ply(betsy: Played, tab: Tab) -> None:
    game_id = rows(betsy.db, "SELECT id FROM games WHERE fault_json IS NULL ORDER BY plies DESC, id LIMIT 1")[0][0]
    boards = stored_boards(betsy.db, game_id)
    assert len(boards) > 4
    tab.open(betsy.pages / "games" / f"{game_id}.html")
    page = tab.page
    assert tab.drawn("replay") == boards[0]
    for ply in range(1, len(boards)):
        page.click("#replay button[data-go=next]")
        assert tab.drawn("replay") == boards[ply], ply
        assert page.inner_text("#replay .counter") == f"ply {ply} / {len(boards) - 1}"
        assert page.get_attribute(f"tr[data-step='{ply}']", "class") == "current"
    page.click("#replay button[data-go=next]")  # stays on the last ply
    assert tab.drawn("replay") == boards[-1]
    tab.shot("betsy-last-ply.png")
    page.keyboard.press("ArrowLeft")
    assert tab.drawn("replay") == boards[-2]
    page.keyboard.press("Home")
    assert tab.drawn("replay") == boards[0]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert tab.drawn("replay") == boards[2]
    page.keyboard.press("End")
    assert tab.drawn("replay") == boards[-1]
    page.click("tr[data-step='3']")
    assert tab.drawn("replay") == boards[3]
    assert page.inner_text("#replay .caption").startswith(f"ply 3/{len(boards) - 1}: ")


def test_connect4_replay_of_a_forfeit_ends_on_the_board_before_it_with_the_evidence(connect4: Played, tab: Tab) -> None:
    game_id, fault_json = rows(connect4.db, "SELECT id, fault_json FROM games WHERE fault_json IS NOT NULL "
                                            "ORDER BY plies DESC, id LIMIT 1")[0]
    fault = json.loads(fault_json)
    boards = stored_boards(connect4.db, game_id)
    tab.open(connect4.pages / "games" / f"{game_id}.html")
    page = tab.page
    assert page.locator("#replay svg.board .colno").all_text_contents() == ["1", "2", "3", "4", "5"]
    for ply in range(len(boards)):
        assert tab.drawn("replay") == boards[ply], ply
        page.keyboard.press("ArrowRight")
    assert page.inner_text("#replay .caption").startswith(
        f"ply {len(boards) - 1}/{len(boards) - 1}: {fault['player']} (crash) forfeits: {fault['verdict']}: ")
    assert page.inner_text("pre.stdout") == "\n".join(fault["stdout_tail"])
    # The program lies outside the config's folder: the page names it by its file name alone.
    assert page.inner_text("pre.stderr").strip() == fault["stderr_tail"].strip().replace(
        f'"{ROOT / "tests" / "fake_engines"}/', '"')
    tab.shot("connect4-forfeit.png")


def test_report_pages_open_offline_and_link_to_each_game(betsy: Played, connect4: Played, tab: Tab) -> None:
    for played in (betsy, connect4):
        tab.open(played.pages / "index.html")
        names = [name for (name,) in rows(played.db, "SELECT name FROM engines")]
        assert sorted(tab.page.locator("#ratings-table tbody tr td:nth-child(2)").all_inner_texts()) == sorted(names)
        assert tab.page.locator("svg.chart").count() >= 2  # the Elo chart and the move times
        tab.shot(f"{played.db.parent.name}-index.png")
        with tab.page.expect_navigation():
            tab.page.click("a[href='games.html']")
        first = rows(played.db, "SELECT min(id) FROM games")[0][0]
        with tab.page.expect_navigation():
            tab.page.click(f"a[href='games/{first}.html']")
        assert tab.page.url.endswith(f"/games/{first}.html")
        assert tab.drawn("replay") == stored_boards(played.db, first)[0]


def test_hostile_output_and_names_stay_text_in_the_browser(betsy: Played, hostile_names: Played, tab: Tab) -> None:
    forfeit = rows(betsy.db, "SELECT id FROM games WHERE o = 'hostile' LIMIT 1")[0][0]
    game = next((hostile_names.pages / "games").iterdir())
    for page in (betsy.pages / "games" / f"{forfeit}.html", hostile_names.pages / "index.html", game):
        tab.open(page)
        assert tab.page.evaluate("typeof window.pwned") == "undefined"
        assert tab.page.locator("img").count() == 0
    assert tab.page.inner_text("h1").endswith(f"vs {EVIL_NAME} (o)")
    assert tab.page.title().endswith(f"vs {EVIL_NAME}")
