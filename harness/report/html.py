"""A tournament's report as a folder of pages (``arena report DB --html DIR``): index.html with the
ratings, an Elo chart, the crosstable as a heat map, pairs, colours, (All The King's Horses) won and
lost starts, faults and move times;
games.html listing every game; and games/ID.html, a replay of each game with its moves, times,
verdicts and, for a forfeit, the program's last output. The folder works offline from ``file://``."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.analysis.losing import Finding
from harness.analysis.run import describe, stored_finding
from harness.errors import UsageError
from harness.store.gamelog import frames
from harness.games.registry import Game, get_game
from harness.report.charts import box_plot, elo_chart, heat_colour, spark_bars, stacked_bars
from harness.report.page import (
    Step, esc, losing_row, page, paths_relative_to, public_word, replay_html, write_assets,
)
from harness.match.match import GameRecord
from harness.referee.protocol import Verdict
from harness.report.report import FAULT_VERDICTS, QUANTILES, Report, config_seconds, format_points, heading, title_line
from harness.store.store import GameRow, Store

MAX_FORFEITS_LISTED = 50
"""Forfeits listed on the index page (games.html lists every game)."""
NAV = [("ratings", "Ratings"), ("crosstable", "Crosstable"), ("pairs", "Pairs"), ("colours", "By colour"),
       ("faults", "Faults"), ("times", "Move times")]


@dataclass(frozen=True)
class HtmlReport:
    """What ``write_html_report`` wrote."""

    index: Path
    game_pages: int


@dataclass(frozen=True)
class _Listed:
    """A game as the index and the games list show it."""

    row: GameRow
    fault_engine: str | None
    verdict: str
    detail: str


def shaded_rows(game: str, columns: int) -> int:
    """The top rows where lines count (Betsy's n), shaded on its boards; 0 for other games."""
    return get_game(game).shaded_rows(columns)


BOARD_MARK = "losing move"
"""The mark drawn on the board at the losing move's step."""


def losing_mark(finding: Finding | None) -> tuple[int, str] | None:
    """(the losing move's ply, its mark in a moves table) of a finding that has one; else None."""
    if finding is None or finding.kind not in ("proved", "assessment") or finding.ply is None:
        return None
    return finding.ply, "losing move (proved)" if finding.kind == "proved" else "losing move (assessed)"


def analysis_html(finding: Finding | None, rules: Game, names: dict[str, str]) -> str:
    """A game's analysis on a page: the finding's lines, or how to get one."""
    if finding is None:
        return "<p class='analysis'>Not analysed: <code>arena analyse DB</code> finds the losing move.</p>"
    lines = describe(finding, rules, names)
    return (f"<div class='analysis {esc(finding.kind.replace(' ', '-'))}'><p>{esc(lines[0])}</p>"
            + "".join(f"<p>{esc(line.strip())}</p>" for line in lines[1:]) + "</div>")


def game_steps(record: GameRecord, losing: tuple[int, str] | None = None) -> tuple[list[Step], int]:
    """A game's replay steps (the start, then each ply's position and caption, the losing move's step
    marked), and its board's width."""
    rules = get_game(record.game)
    steps = frames(record)
    columns = rules.columns(steps[0].position)
    names = {"x": record.x, "o": record.o}
    total = len(record.moves)
    start = steps[0].position
    found = [Step(rules.picture(start, start), 0,
                  f"start: {start.player} to move (x = {record.x}, o = {record.o})")]
    for frame in steps[1:]:
        move = frame.move
        assert move is not None
        if move.verdict is Verdict.OK and move.move is not None:
            what, column = rules.describe_move(move.move), rules.move_column(move.move)
        else:
            what = f"forfeits: {move.verdict.value}{': ' + move.detail if move.detail else ''}"
            column = 0
        caption = f"ply {move.ply}/{total}: {move.player} ({names[move.player]}) {what} ({move.seconds:.2f} s)"
        mark = ""
        if losing is not None and move.ply == losing[0]:
            caption, mark = f"{caption}: the {losing[1]}", BOARD_MARK
        found.append(Step(rules.picture(frame.position, start), column, caption, mark))
    last = found[-1]
    found[-1] = Step(last.board, last.column, f"{last.caption}. Result {record.result}: {record.reason}", last.losing)
    return found, columns


def _moves_table(record: GameRecord, replay_id: str, losing: tuple[int, str] | None = None) -> str:
    rules = get_game(record.game)
    rows = [f'<tr data-step="0" data-replay="{esc(replay_id)}"><td class="num">0</td><td colspan="5">start, '
            f'{esc(record.start_player)} to move</td></tr>']
    for move in record.moves:
        ok = move.verdict is Verdict.OK and move.move is not None
        what = rules.describe_move(move.move) if ok and move.move is not None else "forfeits"
        notes = [move.detail] if move.detail else []
        notes += [str(warning) for warning in move.warnings]
        marked, note = losing_row(move.ply, losing)
        rows.append(
            f'<tr data-step="{esc(move.ply)}" data-replay="{esc(replay_id)}"{marked}><td class="num">{esc(move.ply)}</td>'
            f"<td>{esc(move.player)} {esc(move.engine)}</td><td>{esc(what)} {note}</td>"
            f'<td class="num">{esc(f"{move.seconds:.3f}")}</td>'
            f'<td class="{"verdict-ok" if ok else "verdict-fault"}">{esc(move.verdict.value)}</td>'
            f"<td>{'<br>'.join(esc(note) for note in notes)}</td></tr>")
    return ('<table class="data moves"><thead><tr><th class="num">ply</th><th>player</th><th>move</th>'
            '<th class="num">seconds</th><th>verdict</th><th>notes</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def game_page(row: GameRow, record: GameRecord, previous: int | None, following: int | None,
              finding: Finding | None = None) -> str:
    """One game: who played, the replay beside its moves (the losing move marked on both), the result,
    the analysis, and a forfeit's evidence."""
    rules = get_game(record.game)
    losing = losing_mark(finding)
    steps, columns = game_steps(record, losing)
    links = ['<a href="../index.html">tournament</a>', '<a href="../games.html">all games</a>']
    if previous is not None:
        links.append(f'<a href="{esc(previous)}.html" rel="prev">previous game ({esc(previous)})</a>')
    if following is not None:
        links.append(f'<a href="{esc(following)}.html" rel="next">next game ({esc(following)})</a>')
    body = [
        f'<nav class="top">{" ".join(links)}</nav>',
        f"<h1>Game {esc(row.id)}: {esc(record.x)} (x) vs {esc(record.o)} (o)</h1>",
        f'<p class="meta">{esc(rules.title)} {esc(rules.size_phrase(record.size))}, {esc(f"{record.time:g}")} s per '
        f"move; tournament {esc(row.tournament_name)}, round {esc(row.round)}, key <code>{esc(row.key)}</code>; "
        f"finished {esc(row.finished_at)}</p>",
        f'<p class="result"><b>Result {esc(record.result)}</b>: {esc(record.reason)}</p>',
        replay_html("replay", steps, columns, shaded_rows(record.game, columns), 0,
                    _moves_table(record, "replay", losing), rules.numbered_rows),
        "<h2 id='analysis'>The losing move</h2>",
        analysis_html(finding, rules, {"x": record.x, "o": record.o}),
    ]
    fault = record.fault
    if fault is not None:
        body += [
            f'<h2 id="forfeit">Forfeit: {esc(fault.engine)} ({esc(fault.player)}) by {esc(fault.verdict.value)}</h2>',
            f"<p>{esc(fault.detail)}</p>",
            '<table class="data"><tr><th>exit status</th>'
            f"<td>{esc(fault.exit_status) if fault.exit_status is not None else 'none (killed or still running)'}"
            f"</td></tr><tr><th>command</th><td><code>{esc(shlex.join(public_word(word) for word in fault.argv))}"
            "</code></td></tr></table>",
            "<h3>stdout, last lines</h3>",
            f"<pre class='stdout'>{esc(chr(10).join(fault.stdout_tail)) or '(nothing)'}</pre>",
            "<h3>stderr, the end</h3>",
            f"<pre class='stderr'>{esc(fault.stderr_tail) or '(nothing)'}</pre>",
        ]
    return page(f"Game {row.id}: {record.x} vs {record.o}", "\n".join(body), "../", scripts=True)


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def _elo(value: float) -> str:
    return esc(f"{value:+.0f}") if abs(value) != float("inf") else ("+&#x221e;" if value > 0 else "&#x2212;&#x221e;")


def _ratings(report: Report) -> list[str]:
    rows = []
    for rank, row in enumerate(report.engines, 1):
        nxt = report.engines[rank].name if rank < len(report.engines) else None
        los = report.los.get(row.name, {}).get(nxt) if nxt else None
        rows.append(
            f'<tr><td class="num">{esc(rank)}</td><td>{esc(row.name)}</td><td class="num">{esc(row.games)}</td>'
            f'<td class="num">{esc(format_points(row.score))}</td>'
            f'<td class="num">{esc(f"{row.wins}-{row.draws}-{row.losses}")}</td>'
            f'<td class="num">{esc(f"{row.elo:+.0f}")}</td>'
            f'<td class="num">{esc(f"[{row.elo_ci[0]:+.0f}, {row.elo_ci[1]:+.0f}]")}</td>'
            f'<td class="num">{esc(_pct(los)) if los is not None else ""}</td></tr>')
    chart = elo_chart([(row.name, row.elo, row.elo_ci[0], row.elo_ci[1]) for row in report.engines])
    return [
        '<h2 id="ratings">Ratings</h2>',
        '<p class="muted">Bradley-Terry Elo, draws as half points, mean 0, with 95% intervals; LOS: the '
        "likelihood that an engine is stronger than the next one down.</p>",
        '<div class="scroll"><table class="data" id="ratings-table"><thead><tr><th class="num">rank</th><th>engine</th>'
        '<th class="num">games</th><th class="num">score</th><th class="num">W-D-L</th><th class="num">Elo</th>'
        '<th class="num">95% interval</th><th class="num">LOS &gt; next</th></tr></thead><tbody>'
        + "".join(rows) + "</tbody></table></div>",
        chart,
    ]


def _heat_cell(got: float, played: int, extra: str = "") -> str:
    if not played:
        return '<td class="num"></td>'
    return (f'<td class="num" style="background:{esc(heat_colour(got / played))}" title="{esc(_pct(got / played))}">'
            f"{esc(format_points(got))}/{esc(played)}{extra}</td>")


def _crosstable(report: Report) -> list[str]:
    names = [row.name for row in report.engines]
    first = report.gauntlet
    head = ['<h2 id="crosstable">Crosstable</h2>']
    if first is not None:
        rows = []
        for other in (name for name in names if name != first):
            got, played = report.crosstable.get(first, {}).get(other, (0.0, 0))
            standing = report.standing(first, other)
            rows.append(f"<tr><td>{esc(other)}</td>{_heat_cell(got, played)}"
                        f'<td class="num">{esc(f"{standing.wins}-{standing.draws}-{standing.losses}")}</td>'
                        f'<td class="num">{esc(_pct(got / played)) if played else ""}</td></tr>')
        return head + [
            f'<p class="muted">Gauntlet: {esc(first)}\'s points / games against each opponent (green: '
            f"{esc(first)} scored more, red: less).</p>",
            '<div class="scroll"><table class="data heat" id="crosstable-table"><thead><tr><th>opponent</th>'
            f'<th class="num">{esc(first)}\'s points</th><th class="num">W-D-L</th><th class="num">score</th></tr>'
            "</thead><tbody>" + "".join(rows) + "</tbody></table></div>"]
    numbered = len(names) > 8
    heads = "".join(f'<th class="num" title="{esc(name)}">{esc(rank)}</th>' if numbered else
                    f'<th class="num" title="{esc(name)}"><span class="wide">{esc(name)}</span>'
                    f'<span class="narrow">{esc(rank)}</span></th>'
                    for rank, name in enumerate(names, 1))
    rows = []
    for rank, a in enumerate(names, 1):
        cells = []
        for b in names:
            if a == b:
                cells.append('<td class="num self">&#x2013;</td>')
            else:
                got, played = report.crosstable.get(a, {}).get(b, (0.0, 0))
                cells.append(_heat_cell(got, played))
        rows.append(f'<tr><th class="num">{esc(rank)}</th><th>{esc(a)}</th>{"".join(cells)}</tr>')
    return head + [
        "<p class=\"muted\">The row engine's points / games against the column engine (green: the row "
        f"engine scored more, red: less){'; columns by rank' if numbered else '; on a narrow screen, columns by rank'}."
        "</p>",
        '<div class="scroll"><table class="data heat" id="crosstable-table"><thead><tr><th class="num">rank</th>'
        f"<th>engine</th>{heads}</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"]


def _pairing(a: str, b: str) -> str:
    """``a vs b``, each name kept whole when the cell wraps."""
    return f'<span class="name">{esc(a)}</span> vs <span class="name">{esc(b)}</span>'


def _pairs(report: Report) -> list[str]:
    if not report.paired:
        return []
    rows = []
    for (a, b), estimate in report.paired.items():
        counts = report.pentanomial[(a, b)]
        low, high = estimate.elo_ci
        rows.append(
            f"<tr><td>{_pairing(a, b)}</td><td class=\"num\">{esc(estimate.pairs)}</td>"
            f"<td class=\"nowrap\">{spark_bars(counts, f'pentanomial {counts}')} <code>{esc(counts)}</code></td>"
            f'<td class="num">{_elo(estimate.elo)}</td><td class="num">[{_elo(low)}, {_elo(high)}]</td>'
            f'<td class="num">{esc(_pct(estimate.los))}</td></tr>')
    return [
        '<h2 id="pairs">Colour-swapped pairs</h2>',
        '<p class="muted">Pentanomial: how many pairs (one opening played twice, colours swapped) the first '
        "engine scored 0, 1/2, 1, 3/2 and 2 points in; Elo of the first engine over the second with its 95% "
        "interval and LOS, the pair as the unit.</p>",
        '<div class="scroll"><table class="data" id="pairs-table"><thead><tr><th>pairing</th><th class="num">pairs</th>'
        '<th>pentanomial</th><th class="num">Elo</th><th class="num">95% interval</th><th class="num">LOS</th>'
        "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>",
    ]


def _colours(report: Report) -> list[str]:
    if not report.colour_pairings:
        return []
    rows = []
    for (a, b), colours in report.colour_pairings.items():
        cells = []
        for colour in ("x", "o"):
            standing = colours[colour]
            games = standing.wins + standing.draws + standing.losses
            cells.append(_heat_cell(standing.points, games)
                         + f'<td class="num">{esc(f"{standing.wins}-{standing.draws}-{standing.losses}")}</td>')
        rows.append(f"<tr><td>{_pairing(a, b)}</td>{''.join(cells)}</tr>")
    return [
        '<h2 id="colours">Results by colour</h2>',
        '<p class="muted">The first engine\'s points / games when it played x (moved first) and o.</p>',
        '<div class="scroll"><table class="data heat" id="colours-table"><thead><tr><th>pairing</th>'
        '<th class="num">as x</th><th class="num">W-D-L</th><th class="num">as o</th><th class="num">W-D-L</th></tr>'
        "</thead><tbody>" + "".join(rows) + "</tbody></table></div>",
    ]


def _conversions(report: Report) -> list[str]:
    """All The King's Horses: the won and lost starts of each engine (Report.conversion)."""
    if not report.conversion:
        return []
    rows = "".join(
        f"<tr><td>{esc(row.name)}</td>"
        + "".join(f'<td class="num">{esc(count)}</td>' for count in report.conversion.get(row.name, [0, 0, 0, 0]))
        + "</tr>" for row in report.engines)
    return [
        '<h2 id="conversions">Won and lost starts</h2>',
        '<p class="muted">Games each engine began as the side to move; the exact solver says whether that side '
        "wins with perfect play: did the engine convert a won start, save a lost one?</p>",
        '<div class="scroll"><table class="data" id="conversions-table"><thead><tr><th>engine</th>'
        '<th class="num">won starts</th><th class="num">converted</th><th class="num">lost starts</th>'
        f'<th class="num">saved</th></tr></thead><tbody>{rows}</tbody></table></div>',
    ]


def _faults(report: Report, listed: list[_Listed]) -> list[str]:
    legend = "".join(f'<span><i class="v-{esc(v)}"></i>{esc(v)}</span>' for v in FAULT_VERDICTS)
    heads = "".join(f'<th class="num">{esc(v)}</th>' for v in FAULT_VERDICTS)
    rows = "".join(
        f'<tr><td>{esc(row.name)}</td><td class="num">{esc(row.lost_by_fault)}</td>'
        + "".join(f'<td class="num">{esc(row.faults.get(v, 0))}</td>' for v in FAULT_VERDICTS) + "</tr>"
        for row in report.engines)
    parts = [
        '<h2 id="faults">Faults</h2>',
        '<p class="muted">Games each engine lost by a fault of its own, by verdict.</p>',
        '<div class="scroll"><table class="data" id="faults-table"><thead><tr><th>engine</th><th class="num">lost</th>'
        f"{heads}</tr></thead><tbody>{rows}</tbody></table></div>",
    ]
    if any(row.lost_by_fault for row in report.engines):
        parts.append(f'<p class="legend">{legend}</p>')
        parts.append(stacked_bars([(row.name, [(v, row.faults.get(v, 0)) for v in FAULT_VERDICTS])
                                   for row in report.engines], "Games lost by fault, by verdict"))
    forfeits = [item for item in listed if item.fault_engine is not None]
    if forfeits:
        shown = forfeits[:MAX_FORFEITS_LISTED]
        parts.append("<h3>Forfeited games</h3>")
        parts.append(
            '<div class="scroll"><table class="data" id="forfeits-table"><thead><tr><th class="num">game</th><th>engine</th>'
            "<th>verdict</th><th>detail</th></tr></thead><tbody>"
            + "".join(f'<tr><td class="num"><a href="games/{esc(item.row.id)}.html#forfeit">{esc(item.row.id)}</a></td>'
                      f"<td>{esc(item.fault_engine)}</td><td>{esc(item.verdict)}</td>"
                      f"<td class=\"detail\">{esc(item.detail[:160])}{'&#x2026;' if len(item.detail) > 160 else ''}"
                      "</td></tr>"
                      for item in shown)
            + "</tbody></table></div>")
        if len(forfeits) > len(shown):
            parts.append(f'<p class="muted">and {esc(len(forfeits) - len(shown))} more in '
                         '<a href="games.html">the list of games</a>.</p>')
    return parts


def _times(report: Report) -> list[str]:
    limit = config_seconds(report.config)
    heads = "".join(f'<th class="num">{esc(name)}</th>' for name in ("min", "p10", "p25", "median", "p75", "p90", "max"))
    rows = "".join(
        f'<tr><td>{esc(row.name)}</td><td class="num">{esc(row.moves)}</td>'
        f'<td class="num">{esc(f"{row.mean_move_seconds:.3f}")}</td>'
        + "".join(f'<td class="num">{esc(f"{value:.3f}")}</td>'
                  for value in (row.move_quantiles or (0.0,) * len(QUANTILES)))
        + "</tr>" for row in report.engines)
    return [
        '<h2 id="times">Move times</h2>',
        f'<p class="muted">Seconds per engine call: the box spans the middle half, the whiskers p10 to p90, '
        f"the dots the fastest and slowest; the dashed line is the limit, {esc(f'{limit:g}')} s.</p>",
        box_plot([(row.name, row.move_quantiles) for row in report.engines], limit),
        '<div class="scroll"><table class="data" id="times-table"><thead><tr><th>engine</th><th class="num">moves</th>'
        f'<th class="num">mean</th>{heads}</tr></thead><tbody>{rows}</tbody></table></div>',
    ]


def _games_table(listed: list[_Listed]) -> str:
    rows = "".join(
        f'<tr><td class="num"><a href="games/{esc(item.row.id)}.html">{esc(item.row.id)}</a></td>'
        f'<td class="num">{esc(item.row.round)}</td><td>{esc(item.row.size)}</td><td>{esc(item.row.x)}</td>'
        f"<td>{esc(item.row.o)}</td><td>{esc(item.row.result)}</td><td>{esc(item.row.termination)}</td>"
        f'<td class="num">{esc(item.row.plies)}</td><td>{esc(item.verdict)}</td></tr>'
        for item in listed)
    return ('<div class="scroll"><table class="data" id="games-table"><thead><tr><th class="num">game</th><th class="num">round</th>'
            "<th>size</th><th>x</th><th>o</th><th>result</th><th>end</th><th class=\"num\">plies</th>"
            f"<th>fault</th></tr></thead><tbody>{rows}</tbody></table></div>")


def index_page(report: Report, listed: list[_Listed], created: str) -> str:
    sections = [*NAV[:4], *([("conversions", "Won and lost starts")] if report.conversion else []), *NAV[4:]]
    nav = " ".join(f'<a href="#{esc(anchor)}">{esc(text)}</a>' for anchor, text in sections)
    body = [
        f'<nav class="top">{nav} <a href="games.html">All {esc(report.games)} games</a></nav>',
        f"<h1>{esc(heading(report))}</h1>",
        f'<p class="meta">{esc(title_line(report))}; started {esc(created)}</p>',
        *_ratings(report), *_crosstable(report), *_pairs(report), *_colours(report), *_conversions(report),
        *_faults(report, listed), *_times(report),
    ]
    return page(heading(report), "\n".join(body))


def games_page(report: Report, listed: list[_Listed]) -> str:
    body = ['<nav class="top"><a href="index.html">tournament</a></nav>',
            f"<h1>Games of tournament {esc(report.name)}</h1>",
            f'<p class="meta">{esc(len(listed))} games; click a game for its replay.</p>', _games_table(listed)]
    return page(f"Games of {report.name}", "\n".join(body))


def write_html_report(store: Store, tournament: int, report: Report, folder: Path,
                      on_page: Callable[[], None] | None = None) -> HtmlReport:
    """Write the report's pages into ``folder`` (created if missing): index.html, games.html, a page
    per game in games/, and the style sheet and script they share. Paths show relative to the
    config's folder, or as file names (``html_page.paths_relative_to``)."""
    config_path = store.tournament_info(tournament)["config_path"]
    base = Path(config_path).parent if config_path.startswith("/") else None
    try:
        with paths_relative_to(base):
            return _write_pages(store, tournament, report, folder, on_page or (lambda: None))
    except OSError as error:
        raise UsageError(f"cannot write {error.filename or folder}: {error.strerror or error}") from None


def _write_pages(store: Store, tournament: int, report: Report, folder: Path, on_page: Callable[[], None]) -> HtmlReport:
    games_folder = folder / "games"
    games_folder.mkdir(parents=True, exist_ok=True)
    write_assets(folder)
    rows = store.game_rows(tournament)
    listed = []
    for number, row in enumerate(rows):
        record = store.game_record(row.id)
        previous = rows[number - 1].id if number > 0 else None
        following = rows[number + 1].id if number + 1 < len(rows) else None
        analysis = stored_finding(store, row.id)
        page_text = game_page(row, record, previous, following, None if analysis is None else analysis[0])
        (games_folder / f"{row.id}.html").write_text(page_text, encoding="utf-8")
        on_page()
        fault = record.fault
        listed.append(_Listed(row, fault.engine if fault else None, fault.verdict.value if fault else "",
                              fault.detail if fault else ""))
    created = str(store.tournament_info(tournament)["created_at"])
    (folder / "games.html").write_text(games_page(report, listed), encoding="utf-8")
    index = folder / "index.html"
    index.write_text(index_page(report, listed, created), encoding="utf-8")
    return HtmlReport(index, len(rows))
