"""The class page (``arena class --html DIR``): a folder of pages that works offline from ``file://``.

- ``index.html``: the leaderboard (every student: the ranked first, by rank, then the others with why),
  with Elo and its 95% interval, the band, the league score and the points; sortable by a click on a
  column's head (a small script in the page). Then the similar pairs, each linked to its pair page.
- ``students/N.html``: one student: the figures, the validation verdict by category (the whole report
  in ``students/N-validation.html``, drawn by the validator's own renderer), their games (anchor and
  league), each replayable, and their similar pairs.
- ``pairs/N.html``: one similar pair: the figures and the two sources side by side, the matched lines
  marked.

Nothing absolute or private: a student is shown only by the ``published`` name of their gradebook
record (what the config's ``publish:`` allows), never by roster id or name, and file names are relative
to the student's folder. Every value goes through ``esc`` or ``json_script`` where it is written.
"""

from __future__ import annotations

import math
import re
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from harness.course.gradebook import STATUS_WORDS
from harness.games.registry import get_game
from harness.report.page import ASSETS, Step, asset, esc, moves_table, page, paths_relative_to, replay_html

if TYPE_CHECKING:
    from harness.course.run import ClassRun

SOURCE_BYTES = 256 * 1024
"""The most of one file a pair page shows (a longer file is cut, and says so)."""
SOURCE_FILES = 20
"""The most files of one submission a pair page shows."""

STYLE = """<style>
th button.sort { font: inherit; font-weight: 600; color: inherit; background: none; border: 0; padding: 0;
  cursor: pointer; text-align: inherit; white-space: nowrap; }
th[aria-sort=ascending] button.sort::after { content: " \\25b2"; }
th[aria-sort=descending] button.sort::after { content: " \\25bc"; }
td.why { overflow-wrap: anywhere; min-width: 10em; }
.sides { display: flex; flex-wrap: wrap; gap: 1em; }
.side { flex: 1 1 24em; min-width: 0; max-width: 100%; }
pre.source { max-height: 48em; padding: .3em 0; }
pre.source .line { display: block; padding: 0 .4em; }
pre.source .line.match { background: #fde68a; }
pre.source .ln { color: #6b7280; user-select: none; }
pre.source .file { display: block; padding: .2em .4em; font-weight: 600; background: #e5e7eb; }
details.game > summary { overflow-wrap: anywhere; }
</style>"""
"""The class page's own few rules (the rest is the project's style sheet)."""

SORT_SCRIPT = """<script>
"use strict";
// Sort a table.sortable by the column whose head was clicked; a second click reverses. Each cell's
// data-sort is its key (numbers compare as numbers); an empty key goes last either way.
(function () {
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var body = table.tBodies[0];
    var heads = table.querySelectorAll("thead th");
    Array.prototype.forEach.call(body.rows, function (row, index) { row.setAttribute("data-order", String(index)); });
    heads.forEach(function (head, column) {
      var button = head.querySelector("button.sort");
      if (!button) { return; }
      button.addEventListener("click", function () {
        var numeric = head.getAttribute("data-type") === "number";
        var current = head.getAttribute("aria-sort");
        var up = current ? current !== "ascending" : head.getAttribute("data-first") !== "descending";
        heads.forEach(function (other) { other.removeAttribute("aria-sort"); });
        head.setAttribute("aria-sort", up ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        function key(row) {
          var cell = row.cells[column];
          var text = cell ? (cell.getAttribute("data-sort") || "") : "";
          return numeric ? (text === "" ? null : Number(text)) : (text === "" ? null : text.toLowerCase());
        }
        rows.sort(function (a, b) {
          var p = key(a), q = key(b);
          var order = Number(a.getAttribute("data-order")) - Number(b.getAttribute("data-order"));
          if (p === null || q === null) { return p === q ? order : (p === null ? 1 : -1); }
          var by = numeric ? p - q : (p < q ? -1 : p > q ? 1 : 0);
          return (up ? by : -by) || order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
</script>"""


# --- small formats -------------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _elo(value: Any) -> str:
    number = _number(value)
    if number is None:
        return ""
    if math.isinf(number):
        return "+&#x221e;" if number > 0 else "&#x2212;&#x221e;"
    return esc(f"{number:+.0f}")


def _key(value: Any) -> str:
    """A cell's sort key: a number as its repr (finite) or the text."""
    number = _number(value)
    if number is not None:
        return "" if math.isnan(number) else esc(repr(max(-1e300, min(1e300, number))))
    return esc("" if value is None else value)


def _g(value: Any) -> str:
    number = _number(value)
    return esc(f"{number:g}") if number is not None else ""


def _sortable_head(label: str, kind: str = "text", first: str = "ascending", css: str = "") -> str:
    return (f'<th{f" class={chr(34)}{css}{chr(34)}" if css else ""} data-type="{kind}" data-first="{first}">'
            f'<button type="button" class="sort">{esc(label)}</button></th>')


def _band(record: dict[str, Any]) -> str:
    if record.get("band"):
        return str(record["band"])
    if record.get("band_state"):
        return "undecided"
    return ""


def _status(record: dict[str, Any]) -> str:
    status = str(record.get("status") or "")
    return STATUS_WORDS.get(status, status)


def _why(record: dict[str, Any]) -> str:
    return str(record.get("reason") or record.get("note") or "")


# --- the inputs, made public -------------------------------------------------------------------------


class _Names:
    """Each student's folder -> their published name and page number; references by their name. A
    record's reason and note (intake names the folder in them) show the published name instead."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.records: list[dict[str, Any]] = [_hidden(r) for r in data.get("students", [])
                                              if isinstance(r, dict) and "student" in r]
        self.published = {str(r["student"]): str(r.get("published") or f"student {n}")
                          for n, r in enumerate(self.records, 1)}
        self.number = {str(r["student"]): n for n, r in enumerate(self.records, 1)}

    def show(self, folder: str) -> str:
        return self.published.get(folder, folder)

    def link(self, folder: str, root: str) -> str:
        number = self.number.get(folder)
        if number is None:
            return esc(self.show(folder))
        return f'<a href="{root}students/{number}.html">{esc(self.show(folder))}</a>'


def _hidden(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its folder's name, as a whole word in its reason and note, made the published name."""
    folder, published = str(record["student"]), record.get("published")
    if not published or published == folder or not folder:
        return record
    word = re.compile(rf"(?<![\w.+-]){re.escape(folder)}(?![\w+-]|\.\w)")
    return {**record, **{key: word.sub(lambda _: str(published), str(record[key]))
                         for key in ("reason", "note") if record.get(key)}}


def _renamed(value: Any, old: str, new: str) -> Any:
    """Every string inside ``value`` with ``old/`` (the folder as a path's start) made ``new/``."""
    if isinstance(value, str):
        return value.replace(old + "/", new + "/") if old != new else value
    if isinstance(value, dict):
        return {key: _renamed(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, old, new) for item in value]
    return value


# --- the leaderboard -------------------------------------------------------------------------------


def _ordered(names: _Names) -> list[dict[str, Any]]:
    """The ranked students by rank, then every other student in gradebook order."""
    ranked = sorted((r for r in names.records if isinstance(r.get("rank"), int)), key=lambda r: r["rank"])
    return ranked + [r for r in names.records if not isinstance(r.get("rank"), int)]


def _leaderboard(names: _Names) -> str:
    rows = []
    for record in _ordered(names):
        folder = str(record["student"])
        league = (f"{_g(record.get('league_score'))}/{_g(record.get('league_games'))}"
                  if record.get("league_games") else "")
        low, high = record.get("elo_low"), record.get("elo_high")
        interval = f"[{_elo(low)}, {_elo(high)}]" if _number(low) is not None and _number(high) is not None else ""
        status = _status(record)
        why = _why(record)
        similar = record.get("similar") or []
        rows.append(
            f'<tr data-student="{esc(names.number.get(folder, 0))}">'
            f'<td class="num" data-sort="{_key(record.get("rank"))}">{esc(record.get("rank") or "")}</td>'
            f'<td data-sort="{_key(names.show(folder))}">{names.link(folder, "")}</td>'
            f'<td class="num" data-sort="{_key(record.get("elo"))}">{_elo(record.get("elo"))}</td>'
            f'<td class="num nowrap" data-sort="{_key(low)}">{interval}</td>'
            f'<td data-sort="{_key(_band(record))}" title="{esc(record.get("band_text") or "")}">'
            f'{esc(_band(record))}</td>'
            f'<td class="num" data-sort="{_key(record.get("league_score"))}">{league}</td>'
            f'<td class="num" data-sort="{_key(record.get("points"))}">{_g(record.get("points"))}</td>'
            f'<td class="why" data-sort="{_key(status)}">{esc(status)}{": " + esc(why) if why else ""}</td>'
            f'<td class="num" data-sort="{_key(len(similar) or None)}">{esc(len(similar) or "")}</td></tr>')
    heads = "".join([
        _sortable_head("rank", "number", css="num"), _sortable_head("student"),
        _sortable_head("Elo", "number", "descending", "num"), _sortable_head("95% interval", "number", "descending", "num"),
        _sortable_head("band"), _sortable_head("league", "number", "descending", "num"),
        _sortable_head("points", "number", "descending", "num"), _sortable_head("status"),
        _sortable_head("similar", "number", "descending", "num"),
    ])
    return ('<div class="scroll"><table class="data sortable" id="leaderboard"><thead><tr>' + heads
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")


def _pairs_list(pairs: list[dict[str, Any]], names: _Names, root: str) -> str:
    if not pairs:
        return "<p>None found.</p>"
    rows = "".join(
        f'<tr><td><a href="{root}pairs/{esc(pair["number"])}.html">pair {esc(pair["number"])}</a></td>'
        f"<td>{names.link(pair['a'], root)} and {names.link(pair['b'], root)}</td>"
        f"<td>{esc('; '.join(pair['figures']))}</td></tr>" for pair in pairs)
    return ('<div class="scroll"><table class="data" id="pairs-table"><thead><tr><th>pair</th><th>students</th>'
            f"<th>figures</th></tr></thead><tbody>{rows}</tbody></table></div>")


def _pairs(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The similar pairs (source and moves merged by pair), each numbered, with its figures."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for kind in ("similar_sources", "similar_moves"):
        for item in data.get(kind) or []:
            if not isinstance(item, dict) or "a" not in item or "b" not in item:
                continue
            a, b = str(item["a"]), str(item["b"])
            pair = found.setdefault((a, b), {"a": a, "b": b, "figures": [], "source": None, "moves": None})
            if kind == "similar_sources":
                pair["source"] = item
                share = (f" (matched: {_percent(item.get('a_share'))} of the first's, "
                         f"{_percent(item.get('b_share'))} of the second's)"
                         if _number(item.get("a_share")) is not None and _number(item.get("b_share")) is not None else "")
                pair["figures"].append(f"source {_percent(item.get('score'))} alike{share}")
            else:
                pair["moves"] = item
                expected = (f", {_percent(item.get('expected'))} expected"
                            if _number(item.get("expected")) is not None else "")
                pair["figures"].append(f"same move in {item.get('same')} of {item.get('compared')} positions"
                                       f" ({_percent(item.get('share'))}{expected})")
    return [{**pair, "number": number} for number, pair in enumerate(found.values(), 1)]


def _percent(value: Any) -> str:
    number = _number(value)
    return f"{number:.0%}" if number is not None else "?"


def _index(data: dict[str, Any], names: _Names, pairs: list[dict[str, Any]]) -> str:
    rules = get_game(str(data.get("game") or "betsy"))
    size = str(data.get("size") or "")
    references = data.get("references") or {}
    anchors = ", ".join(f"{name} {_elo(elo)}" for name, elo in references.items()) if isinstance(references, dict) else ""
    bands = "; ".join(f"{esc(b.get('name'))} from {_elo(b.get('floor'))} ({_g(b.get('points'))} points)"
                      for b in data.get("bands") or [] if isinstance(b, dict))
    fmt = str(data.get("format") or "")
    rounds = data.get("rounds")
    league = esc(fmt) + (f", {esc(rounds)} round{'s' if rounds != 1 else ''}" if fmt and fmt != "gauntlet" and rounds else "")
    ranked = sum(isinstance(r.get("rank"), int) for r in names.records)
    error = _number(data.get("error"))
    body = [
        f"<h1>Class {esc(data.get('class') or '')}</h1>",
        f'<p class="meta">{esc(rules.title)}, {esc(rules.size_phrase(size))}, {_g(data.get("time"))} s per move'
        f'{_scale(data.get("time_scale"))}; '
        f"league: {league or 'none'}; {esc(len(names.records))} students, {esc(ranked)} ranked; "
        f"{esc(data.get('games') or 0)} games</p>",
        STYLE,
        '<h2 id="leaderboard-head">Leaderboard</h2>',
        f'<p class="muted">Elo anchored on the reference engines ({anchors}), with its 95% interval. Bands'
        + (f" (decided at {esc(f'{error:.0%}')} error; undecided when the game budget ended first)" if error else "")
        + f": {bands or 'none'}. Click a column's head to sort by it, again to reverse.</p>",
        _leaderboard(names),
        '<h2 id="similar">Similar submissions</h2>',
        '<p class="muted">For staff to look at: no penalty is applied.</p>',
        _pairs_list(pairs, names, ""),
        SORT_SCRIPT,
    ]
    return page(f"Class {data.get('class') or ''}", "\n".join(body))


# --- a student's page -----------------------------------------------------------------------------------


def _validation_summary(report: dict[str, Any] | None, number: int, full: bool) -> str:
    if not isinstance(report, dict):
        return "<p>Not validated.</p>"
    from harness.validate.render import MARKS

    passed = report.get("passed") is True
    rows = []
    categories = report.get("categories") if isinstance(report.get("categories"), dict) else {}
    for name, category in (categories or {}).items():
        if not isinstance(category, dict):
            continue
        status = str(category.get("status") or "")
        css = {"not judged": "unjudged"}.get(status, status)
        mark = MARKS.get(css, "")
        rows.append(f'<tr><td>{esc(name)}</td><td class="status {esc(css)}">{esc(mark)} {esc(status)}</td>'
                    f"<td>{esc(category.get('summary') or '')}</td></tr>")
    link = (f'<p><a href="{number}-validation.html">The whole validation report</a> (every check, its evidence, '
            "and the strength games).</p>") if full else ""
    return (f"<p class='verdict {'pass' if passed else 'fail'}' id='verdict'><b>{esc(report.get('verdict') or '')}</b></p>"
            "<div class='scroll'><table class='data summary' id='validation'><thead><tr><th>category</th><th>status</th>"
            f"<th>summary</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>{link}")


def _report_object(report: dict[str, Any]) -> Any:
    """The validator's report from its JSON form; None when the JSON is not one."""
    from dataclasses import fields

    from harness.validate.validator import Category, Check, Role, ValidationReport

    known = {f.name for f in fields(Check)}
    try:
        categories = {
            str(name): Category(str(name), [Check(**{k: v for k, v in check.items() if k in known})
                                            for check in category["checks"]],
                                str(category.get("summary") or ""), Role(category["role"]))
            for name, category in report["categories"].items()}
        return ValidationReport(str(report["program"]), str(report["verdict"]), bool(report["passed"]), categories,
                                dict(report.get("strength") or {}), str(report.get("game") or "betsy"))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _full_report(report: dict[str, Any], number: int) -> str | None:
    from harness.validate.render import render_html

    found = _report_object(report)
    if found is None:
        return None
    try:
        text = render_html(found)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None
    back = f'<nav class="top"><a href="../index.html">class</a> <a href="{number}.html">student</a></nav>\n'
    return text.replace("<body>\n", "<body>\n" + back, 1)


def _game_steps(rules: Any, game: dict[str, Any]) -> tuple[list[Step], int] | None:
    """A game's replay steps from its start and moves (each legal move played on the start); None when
    its start is not a position of the game."""
    from harness.games.errors import PositionError

    names = {"x": str(game.get("x") or "x"), "o": str(game.get("o") or "o")}
    try:
        start = rules.position(str(game.get("size") or ""), str(game.get("start_player") or "x"),
                               str(game.get("start_board") or ""))
        position = start.copy()
        columns = rules.columns(start)
    except (ValueError, PositionError, TypeError):
        return None
    moves = [m for m in game.get("moves") or [] if isinstance(m, (list, tuple)) and len(m) >= 5]
    total = len(moves)
    steps = [Step(rules.picture(start, start), 0,
                  f"start: {start.player} to move (x = {names['x']}, o = {names['o']})")]
    for ply, (player, move, _board, verdict, seconds, *_) in enumerate(moves, 1):
        took = f" ({seconds:.2f} s)" if _number(seconds) is not None else ""
        who = f"{player} ({names.get(str(player), player)})"
        if verdict == "ok" and isinstance(move, int) and not isinstance(move, bool):
            try:
                position.push(move)
            except (ValueError, PositionError, IndexError):
                steps.append(Step(steps[-1].board, 0, f"ply {ply}/{total}: {who} plays {move}: not a legal move here"))
                break
            steps.append(Step(rules.picture(position, start), rules.move_column(move),
                              f"ply {ply}/{total}: {who} {rules.describe_move(move)}{took}"))
        else:
            steps.append(Step(steps[-1].board, 0, f"ply {ply}/{total}: {who} forfeits: {verdict}{took}"))
            break
    last = steps[-1]
    steps[-1] = Step(last.board, last.column, f"{last.caption}. Result {game.get('result')}: {game.get('reason') or ''}")
    return steps, columns


def _moves_table(rules: Any, game: dict[str, Any], replay_id: str) -> str:
    names = {"x": str(game.get("x") or ""), "o": str(game.get("o") or "")}
    return moves_table(rules, (m for m in game.get("moves") or [] if isinstance(m, (list, tuple)) and len(m) >= 5),
                       names, replay_id)


def _outcome(game: dict[str, Any], published: str) -> str:
    """The game's result for the student: won, lost or drawn (empty when their side is not known)."""
    side = game.get("side") or ("x" if game.get("x") == published else "o" if game.get("o") == published else None)
    result = game.get("result")
    if side not in ("x", "o") or result not in ("1-0", "0-1", "1/2-1/2"):
        return ""
    if result == "1/2-1/2":
        return "drew"
    return "won" if (result == "1-0") == (side == "x") else "lost"


def _games(rules: Any, games: list[dict[str, Any]], published: str) -> str:
    if not games:
        return "<p>No games.</p>"
    rows, replays = [], []
    for number, game in enumerate(games, 1):
        stage = str(game.get("id") or "").split(":")[0]
        rows.append(f'<tr><td class="num"><a href="#game-{number}">{number}</a></td><td>{esc(stage)}</td>'
                    f"<td>{esc(game.get('x') or '')}</td><td>{esc(game.get('o') or '')}</td>"
                    f"<td>{esc(game.get('result') or '')}</td><td>{esc(_outcome(game, published))}</td>"
                    f'<td class="num">{esc(game.get("plies") if game.get("plies") is not None else "")}</td>'
                    f"<td>{esc(game.get('termination') or '')}</td>"
                    f'<td class="num">{esc(game.get("row") if game.get("row") is not None else "")}</td></tr>')
        replay_id = f"game-{number}-replay"
        found = _game_steps(rules, game)
        summary = (f"game {number} ({esc(stage)}): {esc(game.get('x') or '')} (x) vs {esc(game.get('o') or '')} (o), "
                   f"{esc(game.get('result') or '')}; {esc(game.get('reason') or '')}")
        inner = ""
        if found is not None:
            steps, columns = found
            inner = replay_html(replay_id, steps, columns, rules.shaded_rows(columns), 0,
                                _moves_table(rules, game, replay_id), rules.numbered_rows)
        else:
            inner = "<p>This game's start is not a position of the game: it cannot be replayed.</p>"
        row = game.get("row")
        where = (f'<p class="muted">Game {esc(game.get("id") or "")}; <code>arena replay DB {esc(row)}</code> '
                 "shows it from the class database.</p>") if row is not None else ""
        replays.append(f'<details class="game" id="game-{number}"{" open" if number == 1 else ""}>'
                       f"<summary>{summary}</summary>{where}{inner}</details>")
    table = ('<div class="scroll"><table class="data" id="games-table"><thead><tr><th class="num">game</th>'
             '<th>stage</th><th>x</th><th>o</th><th>result</th><th>for them</th><th class="num">plies</th>'
             f'<th>end</th><th class="num">row</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    return table + "\n" + "\n".join(replays)


def _student(data: dict[str, Any], record: dict[str, Any], names: _Names, report: dict[str, Any] | None,
             games: list[dict[str, Any]], pairs: list[dict[str, Any]], full_report: bool) -> str:
    folder = str(record["student"])
    number = names.number[folder]
    published = names.show(folder)
    rules = get_game(str(data.get("game") or "betsy"))
    facts = [("status", esc(_status(record) + (f": {_why(record)}" if _why(record) else "")))]
    if record.get("note") and record.get("reason"):
        facts.append(("note", esc(record["note"])))
    if record.get("hash"):
        facts.append(("submission", f"<code>{esc(str(record['hash'])[:12])}</code>"))
    if isinstance(record.get("rank"), int):
        facts.append(("rank", esc(record["rank"])))
    if _number(record.get("elo")) is not None:
        facts.append(("Elo", f"{_elo(record.get('elo'))} (95% interval {_elo(record.get('elo_low'))} to "
                             f"{_elo(record.get('elo_high'))}; {_g(record.get('rated_games') or 0)} games rated)"))
    if record.get("band_state"):
        facts.append(("band", esc(record.get("band_text") or _band(record))))
    if record.get("league_games"):
        facts.append(("league", f"{_g(record.get('league_score'))} points in {_g(record.get('league_games'))} games"))
    if _number(record.get("points")) is not None:
        facts.append(("points", _g(record["points"])))
    mine = [pair for pair in pairs if folder in (pair["a"], pair["b"])]
    body = [
        '<nav class="top"><a href="../index.html">class leaderboard</a></nav>',
        STYLE,
        f"<h1>{esc(published)}</h1>",
        '<div class="scroll"><table class="data" id="facts">'
        + "".join(f"<tr><th>{esc(name)}</th><td>{value}</td></tr>" for name, value in facts) + "</table></div>",
        '<h2 id="validation-head">Validation</h2>',
        _validation_summary(report, number, full_report),
        '<h2 id="games">Games</h2>',
        '<p class="muted">Anchor games against the reference engines, then league games; click a game to '
        "replay it.</p>",
        _games(rules, games, published),
        '<h2 id="similar">Similar submissions</h2>',
        '<p class="muted">For staff to look at: no penalty is applied.</p>',
        _pairs_list(mine, names, "../") if mine else "<p>None found.</p>",
    ]
    return page(f"{published}: class {data.get('class') or ''}", "\n".join(body), "../", scripts=bool(games))


# --- a pair's page ------------------------------------------------------------------------------------


def _spans(value: Any) -> list[tuple[int, int]]:
    found = []
    for item in value or []:
        if isinstance(item, (list, tuple)) and len(item) >= 2 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in item[-2:]):
            found.append((int(item[-2]), int(item[-1])))
    return found


def _files(value: Any, lines: int) -> list[tuple[str, int, int]]:
    """Which lines of a side's text are which file: ``[(name, first, last)]``; one unnamed file if not said."""
    found = []
    for item in value or []:
        if (isinstance(item, (list, tuple)) and len(item) == 3 and isinstance(item[0], str)
                and all(isinstance(v, int) and not isinstance(v, bool) for v in item[1:])):
            found.append((str(item[0]), int(item[1]), int(item[2])))
    return found or [("", 1, lines)]


def _source(text: str, spans: list[tuple[int, int]], files: list[tuple[str, int, int]], side: str) -> str:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    marked: set[int] = set()
    for first, last in spans:
        marked.update(range(max(1, first), min(len(lines), last) + 1))
    starts = {first: (name, first) for name, first, _ in files}
    width = len(str(len(lines)))
    parts: list[str] = []
    current = 1
    for number, line in enumerate(lines, 1):
        if number in starts:
            name, current = starts[number]
            if name:
                parts.append(f'<span class="file">{esc(name)}</span>')
        shown = number - current + 1
        css = "line match" if number in marked else "line"
        parts.append(f'<span class="{css}" data-line="{number}"><span class="ln">{esc(str(shown).rjust(width))}'
                     f"</span>  {esc(line)}</span>")
    return f'<pre class="source" id="source-{side}">{"".join(parts)}</pre>'


def _pair(data: dict[str, Any], pair: dict[str, Any], names: _Names, source: dict[str, Any] | None) -> str:
    a, b = pair["a"], pair["b"]
    body = [
        '<nav class="top"><a href="../index.html">class leaderboard</a></nav>',
        STYLE,
        f"<h1>Pair {esc(pair['number'])}: {esc(names.show(a))} and {esc(names.show(b))}</h1>",
        f"<p>{esc('; '.join(pair['figures']))}.</p>",
        '<p class="muted">For staff to look at: no penalty is applied. The lines marked are the stretches '
        "the source comparison matched.</p>",
    ]
    if isinstance(source, dict) and isinstance(source.get("a"), str) and isinstance(source.get("b"), str):
        sides = []
        for side, folder in (("a", a), ("b", b)):
            text = str(source[side])
            spans = _spans(source.get(f"{side}_lines"))
            files = _files(source.get(f"{side}_files"), text.count("\n") + 1)
            sides.append(f'<div class="side"><h2>{names.link(folder, "../")}</h2>'
                         f'<p class="muted">{esc(len(spans))} matched stretch{"es" if len(spans) != 1 else ""}</p>'
                         f"{_source(text, spans, files, side)}</div>")
        body.append(f'<div class="sides">{"".join(sides)}</div>')
    else:
        body.append("<p>The sources are not available.</p>")
    return page(f"Pair {pair['number']}: class {data.get('class') or ''}", "\n".join(body), "../")


# --- the folder ---------------------------------------------------------------------------------------


def class_page_files(data: dict[str, Any], reports: dict[str, dict[str, Any]],
                     games: dict[str, list[dict[str, Any]]], sources: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The class page's files (relative path -> text): index.html and one page per student, plus assets.

    ``data``: the gradebook (harness.course.gradebook.to_json); ``reports``: each student folder's
    validation report (JSON); ``games``: each student folder's games (``id``, ``row``, ``x``, ``o`` as
    published, ``result``, ``termination``, ``reason``, ``plies``, ``size``, ``start_board``,
    ``start_player``, ``moves`` as ``[player, move, board, verdict, seconds]``, and optionally ``side``,
    the student's colour); ``sources``: each similar pair ``"a|b"``'s two texts ``a`` and ``b`` with the
    matched line ranges ``a_lines``, ``b_lines`` (``[[first, last], ...]``, counted in the text) and
    optionally ``a_files``, ``b_files`` (``[[file, first, last], ...]``: which lines are which file)."""
    names = _Names(data)
    pairs = _pairs(data)
    files: dict[str, str] = {name: asset(name) for name in ASSETS}
    with paths_relative_to(None):
        files["index.html"] = _index(data, names, pairs)
        for record in names.records:
            folder = str(record["student"])
            number = names.number[folder]
            published = names.show(folder)
            report = reports.get(folder)
            if isinstance(report, dict):
                report = _renamed(report, folder, published)
            full = _full_report(report, number) if isinstance(report, dict) else None
            if full is not None:
                files[f"students/{number}-validation.html"] = full
            files[f"students/{number}.html"] = _student(data, record, names, report, games.get(folder) or [], pairs,
                                                        full is not None)
        for pair in pairs:
            source: dict[str, Any] | None = sources.get(f"{pair['a']}|{pair['b']}")
            if source is None:  # the same pair named the other way round
                other = sources.get(f"{pair['b']}|{pair['a']}")
                source = None if other is None else {
                    "a": other.get("b"), "b": other.get("a"), "a_lines": other.get("b_lines"),
                    "b_lines": other.get("a_lines"), "a_files": other.get("b_files"), "b_files": other.get("a_files")}
            files[f"pairs/{pair['number']}.html"] = _pair(data, pair, names, source)
    return files


def write_class_page(run: ClassRun, folder: Path) -> None:
    """Write the class page of ``run`` into ``folder`` (created if missing)."""
    from harness.course.gradebook import to_json
    from harness.errors import UsageError
    from harness.report.page import output_folder

    data = to_json(run)
    reports = {entry.student.folder: entry.validation for entry in run.entries if entry.validation is not None}
    files = class_page_files(data, reports, _run_games(run, data), _run_sources(run))
    output_folder(folder, "--html")
    try:
        for name, text in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {error.filename or folder}: {error.strerror or error}") from None


def _run_games(run: ClassRun, data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Each student's games from the database (read only), each player by their published name: the
    stored record names a student's engine by folder and hash, so its name is replaced in the reason too."""
    from harness.store.store import Store

    published = {str(r["student"]): str(r["published"]) for r in data["students"]}
    by_key = {e.key: e for e in run.entries if e.key and e.student.folder in published}
    found: dict[str, list[dict[str, Any]]] = {}
    if not run.games or not run.db.exists():
        return found
    store = Store(run.db, read_only=True)
    try:
        for game_id, result in run.games.items():
            row = run.game_rows.get(game_id)
            if row is None:
                continue
            stored = store.game_data(row)
            names, reason = {}, str(stored.get("reason") or "")
            for side, key in (("x", result.x), ("o", result.o)):
                entry = by_key.get(key)
                names[side] = published[entry.student.folder] if entry is not None else str(stored[side])
                if entry is not None and str(stored[side]):
                    reason = reason.replace(str(stored[side]), names[side])
            game = {"id": game_id, "row": row, "x": names["x"], "o": names["o"], "result": stored["result"],
                    "termination": stored["termination"], "reason": reason, "plies": stored["plies"],
                    "size": stored["size"], "start_board": stored["start_board"],
                    "start_player": stored["start_player"],
                    "moves": [[m["player"], m["move"], m["board"], m["verdict"], m["seconds"]] for m in stored["moves"]]}
            for side, key in (("x", result.x), ("o", result.o)):
                entry = by_key.get(key)
                if entry is not None:
                    found.setdefault(entry.student.folder, []).append({**game, "side": side})
    finally:
        store.close()
    for listed in found.values():
        listed.sort(key=lambda g: (not str(g["id"]).startswith("anchor"), g["row"]))
    return found


def _run_sources(run: ClassRun) -> dict[str, dict[str, Any]]:
    """Each similar pair's two sources, the matched lines (where the similarity module gives them)."""
    folders = {e.student.folder: e.folder for e in run.entries if e.folder is not None}
    found: dict[str, dict[str, Any]] = {}
    for pair in [*run.source_pairs, *run.move_pairs]:
        a, b = str(pair.a), str(pair.b)
        if f"{a}|{b}" in found or a not in folders or b not in folders:
            continue
        side: dict[str, Any] = {}
        for name, folder in (("a", folders[a]), ("b", folders[b])):
            assert folder is not None
            text, lines, files = _side(folder, getattr(pair, f"{name}_lines", None) or [], run.config.program)
            side[name], side[f"{name}_lines"], side[f"{name}_files"] = text, lines, files
        found[f"{a}|{b}"] = side
    return found


def _side(folder: Path, matched: list[Any], program: str) -> tuple[str, list[list[int]], list[list[Any]]]:
    """One side of a pair: its files' text one after another (the program first, then the files with
    matched lines), the matched ranges in that text's lines, and which lines are which file."""
    names = [program]
    for item in matched:
        if isinstance(item, (list, tuple)) and len(item) == 3 and isinstance(item[0], str) and item[0] not in names:
            names.append(str(item[0]))
    root = folder.resolve()
    text: list[str] = []
    files: list[list[Any]] = []
    offsets: dict[str, int] = {}
    for name in names[:SOURCE_FILES]:
        path = (folder / name)
        try:
            if path.is_symlink() or not path.resolve().is_relative_to(root) or not path.is_file():
                continue
            with path.open("rb") as handle:
                raw = handle.read(SOURCE_BYTES + 1)
        except OSError:
            continue
        lines = raw[:SOURCE_BYTES].decode("utf-8", errors="replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(raw) > SOURCE_BYTES:
            lines.append(f"... (cut at {SOURCE_BYTES // 1024} KiB)")
        offsets[name] = len(text)
        files.append([str(PurePosixPath(name)), len(text) + 1, len(text) + len(lines)])
        text += lines
    spans = []
    for item in matched:
        if (isinstance(item, (list, tuple)) and len(item) == 3 and item[0] in offsets
                and all(isinstance(v, int) for v in item[1:])):
            spans.append([offsets[item[0]] + int(item[1]), offsets[item[0]] + int(item[2])])
    return "\n".join(text) + ("\n" if text else ""), spans, files


def _scale(value: object) -> str:
    """The clock's time scale beside the time per move, when it is not 1 (harness.referee.calibrate)."""
    scale = _number(value)
    return f" x {esc(_g(scale))} (time scale)" if scale is not None and scale != 1 else ""
