"""The validator's report for people: text for a terminal, a self-contained HTML page.

The checks and the report's data are in ``harness.validate.validator``; this module only draws them, each
board with its game's width (harness.games.registry).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from harness.games.errors import PositionError
from harness.games.registry import Game, get_game
from harness.analysis.losing import Finding
from harness.analysis.run import describe
from harness.report.html import BOARD_MARK, analysis_html, losing_mark
from harness.report.page import Step, board_svg, esc, moves_table, page, paths_relative_to, public_word, replay_html
from harness.referee.protocol import Verdict
from harness.text import cut_note, visible
from harness.validate.validator import CHANCE_BAR, Category, Check, Role, Status, ValidationReport, fix_hint

STATUS_CSS = {Status.PASS: "pass", Status.FAIL: "fail", Status.WEAK: "weak", Status.INFO: "info",
              Status.NOT_JUDGED: "unjudged"}
"""The page's style class for each status (harness/report/static/arena.css)."""
MARKS = {"pass": "✓", "fail": "✗", "weak": "✗", "info": "i", "unjudged": "–", "warn": "!"}


@lru_cache(maxsize=64)
def _columns(game: str, size: str) -> int:
    """How many columns a board of ``size`` has (0 when the size is not one of the game's)."""
    rules = get_game(game)
    try:
        return rules.columns(rules.initial(size))
    except (ValueError, PositionError):
        return 0


def grid(game: str, board: str, size: str) -> tuple[str, int] | None:
    """A board as drawn: its cells row by row from the top (``.``, ``x``, ``o``) and its width; None
    when the board does not fit the size. A King's Horses board is drawn from its eight numbers."""
    rules = get_game(game)
    if rules.numbered_rows:  # a position on its own: drawn as far as its pieces go
        try:
            position = rules.position("", "x", board)
        except (ValueError, PositionError):
            return None
        return rules.picture(position, position), rules.columns(position)
    columns = _columns(game, size)
    if not board or not columns or len(board) % columns:
        return None
    return board, columns


def _draw_board(game: str, board: str, size: str, player: str) -> list[str]:
    """A board for a terminal, drawn by its game (columns numbered, and rows where the game names
    squares by row); empty when the board is not a position of that size."""
    rules = get_game(game)
    try:  # a position on its own (a King's Horses board without its game's band)
        return str(rules.render(rules.position("" if rules.numbered_rows else size, player or "x", board))).splitlines()
    except (ValueError, PositionError):
        return []


TEXT_WIDTH = 80
"""The terminal width the drawn boards and their marks keep within (n = 12, 12x12 boards)."""
_NO_ANSWER_VERDICTS = tuple(f"{verdict.value}:" for verdict in (
    Verdict.FAILED_TO_START, Verdict.NO_ANSWER, Verdict.TIME, Verdict.OUTPUT_LIMIT))


def _answered(check: Check) -> bool:
    """Whether the check's evidence holds an answer (a board worth drawing)."""
    return not check.detail.startswith(_NO_ANSWER_VERDICTS) and check.id not in ("starts", "answers")


def _same_cause(check: Check) -> str:
    """What identifies one root cause: the verdict and detail with the position's numbers removed."""
    return " ".join("#" if any(ch.isdigit() for ch in word) or set(word) <= set(".xo") else word
                    for word in check.detail.split())


BASIS_WORDS = {
    "observed": "observed: what the referee saw this call do (docs/verdicts.md)",
    "oracle": "proved: its move is not among the solving moves, proven by exhaustive search or exact tables",
    "proved": "proved by minimal pairs, with the chance figure above (docs/verdicts.md)",
}
"""What a failed check's verdict rests on (``Check.basis``), in the text report's words."""


def render_text(report: ValidationReport, verbose: bool = False) -> str:
    """The report for a terminal: verdict, one line per category, then each failure once (checks
    that failed the same way are named with the first), with its evidence."""
    rules = get_game(report.game)
    answer_form = rules.answer_form
    lines = [report.verdict, f"program: {report.program}",
             *([f"time scale: {report.time_scale:g} (every limit multiplied by it: harness.referee.calibrate)"]
               if report.time_scale != 1 else []), ""]
    for name, category in report.categories.items():
        lines.append(f"  {name:<11} {category.status.value:<10} {category.summary}")
    groups: dict[tuple[str, str], list[tuple[str, Check]]] = {}
    for name, category in report.categories.items():
        for check in category.checks:
            status = category.status_of(check)
            if status is Status.FAIL or (verbose and check.warning and status is Status.PASS):
                groups.setdefault((("warning " if check.passed else "") + name, _same_cause(check)), []).append(
                    (name, check))
    warnings = [(name, check) for name, category in report.categories.items()
                for check in category.checks if check.warning]
    lines.append("")
    lines += strength_losing_lines(rules, report.strength.get("games") or [])
    if warnings and not verbose:
        lines.append("Warnings:")
        seen = set()
        for name, check in warnings:
            if check.detail not in seen:
                seen.add(check.detail)
                lines.append(f"  {name}/{check.id}: {check.detail}")
        lines.append("")
    if groups:
        lines.append("Failed checks:" if not verbose else "Failed checks and warnings:")
    shown = list(groups.values())
    for group in shown[: 40 if not verbose else None]:
        name, check = group[0]
        also = ""
        if len(group) > 1:
            others = [f"{other_name}/{other.id}" if other_name != name else other.id for other_name, other in group[1:]]
            also = f" (and {', '.join(others[:4])}{f' and {len(others) - 4} more' if len(others) > 4 else ''}: the same way)"
        lines.append(f"- {name}/{check.id}{also}: {check.detail}")
        if check.slowest:
            lines.append("    slowest : " + _slow_call(rules, check.slowest[0]))
            lines += [f"              {_slow_call(rules, call)}" for call in check.slowest[1:]]
        if check.command:
            lines.append(f"    command : {check.command}")
        if check.board and _answered(check):
            lines.append(f"    position: {rules.position_phrase(check.size, check.player)}")
            lines += [f"      {row}" for row in _draw_board(report.game, check.board, check.size, check.player)]
            found = evidence(rules, check)
            if found is not None:
                lines += [f"      {row}" for row in _marks(rules, check, found)]
                lines += [f"    then    : {note[5:]}" for note in found.notes if note.startswith("then ")]
        lines += pair_lines(check)
        if check.printed:
            lines.append("    printed : " + check.printed[0])
            lines += [f"              {line}" for line in check.printed[1:]]
            if check.printed_cut:
                lines.append(f"              {cut_note(check.printed_cut)}")
        if check.stderr.strip():
            lines.append(f"    stderr  : {check.stderr.strip().splitlines()[-1][:200]}")
        hint = fix_hint(check, answer_form) if not _answered(check) else ""
        if check.expected and not hint:
            lines.append(f"    expected: {check.expected}")
        if hint:
            lines.append(f"    fix     : {hint}")
        if check.basis in BASIS_WORDS:
            lines.append(f"    basis   : {BASIS_WORDS[check.basis]}")
    if len(shown) > 40 and not verbose:
        lines.append(f"... and {len(shown) - 40} more (see --json or --html)")
    return "\n".join(visible(line) for line in lines)  # what the program printed, shown safely


def _answers(moves: list[int | None]) -> str:
    """A pair's answers, ``-1 -1 -1`` (``none`` for an ask with no legal answer; ``-`` for no ask)."""
    return " ".join("none" if move is None else str(move) for move in moves) or "-"


def _twin_said(pair: dict[str, Any]) -> str:
    """Where a pair's twin differs: ``a pebble off column 6`` (``no twin`` without one)."""
    return f"a pebble off column {pair['twin_column']}" if pair["twin"] else "no twin"


def chance_said(check: Check) -> str:
    """A missed last-pebble check's chance figure in words (empty without one)."""
    if check.chance is None:
        return ""
    return (f"{check.chance:.2g}: the probability that a random mover answers as seen (a supply count one short "
            f"stands below {CHANCE_BAR:.0%})")


def pair_lines(check: Check) -> list[str]:
    """The text report's lines on a last-pebble check's minimal pairs (its own first) and its chance:
    each case's answers, and its twin's (the same board, a pebble of the mover's off a column)."""
    if not check.pairs:
        return []
    width = max(len(pair["original"]) for pair in check.pairs)
    rows = [f"{pair['original']:<{width}}  played {_answers(pair['answers'])}; twin ({_twin_said(pair)}): "
            + (f"played {_answers(pair['twin_answers'])}, solving {', '.join(map(str, pair['solutions']))}"
               if pair["twin_answers"] else "not asked")
            for pair in check.pairs]
    lines = ["    pairs   : " + rows[0], *(f"              {row}" for row in rows[1:])]
    said = chance_said(check)
    return lines + ([f"    chance  : {said}"] if said else [])


def _marks(rules: Game, check: Check, found: Evidence) -> list[str]:
    """Lines under a drawn board: ``^`` under the column of the program's move and ``*`` under the
    right moves', each line followed by its words."""
    columns = _columns(rules.name, check.size) if not rules.numbered_rows else 0
    width = len(str(columns))
    lines = []
    said = {note.split(":")[0]: note for note in found.notes}
    rows = [("^", [rules.move_column(check.move)] if check.move is not None else [], said.get("its move", "")),
            ("*", list(found.boards[0].outlined), said.get("the right moves", ""))]
    for sign, marked, words in rows:
        if columns and words and any(1 <= column <= columns for column in marked):
            row = " ".join((sign if column in marked else "").rjust(width) for column in range(1, columns + 1))
            wide = len(row) + len(words) > TEXT_WIDTH - 10  # the report indents it by 6, and adds "  ^ "
            lines += [row.rstrip(), f"{sign} {words}"] if wide else [f"{row}  {sign} {words}"]
    return lines


def _slow_call(rules: Game, call: dict[str, Any]) -> str:
    """One of a time check's slowest calls: ``2.01 s, no answer: rules/n8-x-midgame (n = 8, x to move)``."""
    answer = "answered" if call["answered"] else "no answer, stopped"
    return (f"{call['seconds']:.2f} s, {answer}: {call['id']} "
            f"({rules.position_phrase(str(call['size']), str(call['player']))})")


@dataclass(frozen=True)
class Drawn:
    """One board of a check's evidence, as both reports draw it."""

    caption: str
    board: str
    mark: int = 0
    """The move that led to it (its column; negative for a Betsy rotation), 0 for none."""
    outlined: tuple[int, ...] = ()
    """Columns of the right moves (on the board asked)."""


@dataclass(frozen=True)
class Evidence:
    """What a check's boards show: the board asked (the right moves outlined), the program's move on
    it (and its board beside the right one when they differ), the opponent's reply that proves a
    wrong move lost, and the same in words."""

    boards: list[Drawn]
    notes: list[str]


def _mark(rules: Game, move: int) -> int:
    """The column a move is marked under (negative for a rotation), 0 for none."""
    column = rules.move_column(move)
    return column if move > 0 else -column


def _moves_words(rules: Game, moves: list[int]) -> str:
    """``3 (drops into column 3)`` for one move; several by their numbers, ``3, -2``."""
    return f"{moves[0]} ({rules.describe_move(moves[0])})" if len(moves) == 1 else ", ".join(map(str, moves))


def evidence(rules: Game, check: Check) -> Evidence | None:
    """The boards and words of a check with a position (None without one, or one that does not parse)."""
    from harness.referee.protocol import parse_answer_line

    if not check.board:
        return None
    try:
        position = rules.position(check.size, check.player or "x", check.board)
    except (ValueError, PositionError):
        return None
    outlined = tuple(column for column in (rules.move_column(move) for move in check.solutions) if column)
    boards = [Drawn("asked", check.board, 0, outlined)]
    notes = []
    answer = next((parsed for parsed in map(parse_answer_line, reversed(check.printed)) if parsed), None)
    move = check.move if check.move is not None else answer[0] if answer else None
    if move is not None and _answered(check):
        mark = _mark(rules, move)
        notes.append(f"its move: {_moves_words(rules, [move])}" if position.illegal_reason(move) is None
                     else f"its move: {move} (not legal here)")
        printed = answer[1] if answer and answer[0] == move else ""
        if position.illegal_reason(move) is not None:
            if printed:
                boards.append(Drawn("the program's board", printed, mark))
        else:
            after = position.after(move)
            if printed and printed != after.board():
                boards += [Drawn("the program's board", printed, mark), Drawn("its move gives", after.board(), mark)]
            else:
                boards.append(Drawn("after its move", after.board(), mark))
            ended = after.winner()
            if ended is not None and ended != position.turn:
                notes.append(f"then {after.player} wins: the move completes {after.player}'s line")
            elif check.losing_line:
                reply = check.losing_line[0]
                if after.illegal_reason(reply) is None:
                    then, other = after.after(reply), after.player  # the opponent replies
                    won = then.winner() == after.turn
                    boards.append(Drawn(f"then {other}'s reply", then.board(), _mark(rules, reply)))
                    notes.append(f"then {other} {rules.describe_move(reply)} and "
                                 + ("wins at once" if won else f"wins within 3 plies, whatever {check.player} plays"))
    own = check.pairs[0] if check.pairs else None
    if own is not None and own["twin"] and len(own["twin"]) == len(check.board):
        boards.append(Drawn(f"its twin: a pebble off column {own['twin_column']}, one more in hand", own["twin"], 0,
                            outlined))
    if check.solutions:
        notes.insert(0, f"the right moves: {_moves_words(rules, check.solutions)}")
    return Evidence(boards, notes)


def _players(entry: dict[str, Any]) -> dict[str, str]:
    """Who played x and o in a strength game."""
    program, opponent = "the program", str(entry["opponent"])
    return {"x": program, "o": opponent} if entry["student_plays"] == "x" else {"x": opponent, "o": program}


def strength_finding(entry: dict[str, Any]) -> Finding | None:
    """A strength game's analysis (harness.analysis.losing), None for a report without one."""
    data = entry.get("analysis")
    if not isinstance(data, dict):
        return None
    try:
        return Finding.from_json(data)
    except ValueError:
        return None


def strength_losing_lines(rules: Game, games: list[dict[str, Any]]) -> list[str]:
    """The text report's lines on the program's losing moves in the strength games: one block per game
    whose first losing move the program played (the page shows every game's analysis)."""
    lines: list[str] = []
    for number, entry in enumerate(games, 1):
        finding = strength_finding(entry)
        if finding is None or losing_mark(finding) is None or finding.player != entry["student_plays"]:
            continue
        lines.append(f"  game {number} (the program as {entry['student_plays']} against {entry['opponent']}, "
                     f"score {format(entry['score'], 'g')}):")
        lines += [f"    {line.strip()}" for line in describe(finding, rules, _players(entry))]
    return ["The program's losing moves in the strength games:", *lines, ""] if lines else []


def strength_steps(rules: Game, entry: dict[str, Any]) -> list[Step]:
    """A strength game of the validator's report as replay steps: the start, then each ply (a
    forfeit keeps the board it was played on), the losing move's step marked."""
    losing = losing_mark(strength_finding(entry))
    moves = entry["moves"]
    names = _players(entry)
    board = entry.get("start_board") or ""
    first = moves[0][0] if moves else "x"
    steps = [Step(board, 0, f"start: {first} to move (x = {names['x']}, o = {names['o']})")]
    for ply, (player, move, after, verdict, seconds) in enumerate(moves, 1):
        if verdict == Verdict.OK.value and move is not None and after:
            board, column, what = after, int(move), rules.describe_move(int(move))
        else:
            column, what = 0, f"forfeits: {verdict}"
        caption = f"ply {ply}/{len(moves)}: {player} ({names.get(player, player)}) {what} ({seconds:.2f} s)"
        mark = ""
        if losing is not None and ply == losing[0]:
            caption, mark = f"{caption}: the {losing[1]}", BOARD_MARK
        steps.append(Step(board, column, caption, mark))
    if len(steps) > 1:
        last = steps[-1]
        steps[-1] = Step(last.board, last.column, f"{last.caption}. Result {entry['result']}: {entry['reason']}",
                         last.losing)
    return steps


def _strength_moves_table(rules: Game, entry: dict[str, Any], replay_id: str) -> str:
    return moves_table(rules, entry["moves"], _players(entry), replay_id, losing_mark(strength_finding(entry)))


def render_html(report: ValidationReport, base: Path | None = None) -> str:
    """A self-contained page (the project's style sheet and replay script inside it): verdict, a
    summary table with links to the strength games, the failed checks first with their evidence
    (the position, the program's board beside the right one, columns numbered), then every
    category with its passed checks folded, and a replay of each strength game. Paths show
    relative to ``base`` (the program's folder), else as file names."""
    with paths_relative_to(base):
        return _render_html(report)


def _board_html(game: str, board: str, size: str, caption: str, mark: int = 0, outlined: tuple[int, ...] = ()) -> str:
    """A board drawn as the game pages draw it (harness.report.page.board_svg: columns numbered, rows
    too where the game names squares by row, Betsy's top n rows shaded, the move that led to it
    marked, the right moves' columns outlined), under its caption; empty when it does not fit the size."""
    drawn = grid(game, board, size)
    if drawn is None:
        return ""
    cells, n = drawn
    rules = get_game(game)
    svg = board_svg(cells, n, rules.shaded_rows(n), caption, rules.numbered_rows, mark, outlined)
    return f'<figure class="board"><figcaption>{esc(caption)}</figcaption>{svg}</figure>'


def _check_html(report: ValidationReport, category: Category, check: Check, opened: bool) -> str:
    """One check: its status mark, id and detail, and its evidence folded under it."""
    rules = get_game(report.game)
    status = category.status_of(check)
    css = "warn" if status is Status.PASS and check.warning else STATUS_CSS[status]
    parts = [f"<details id='{esc(_anchor(category.name, check.id))}' class='check'{' open' if opened else ''}>"
             f"<summary class='{esc(css)}'>{esc(MARKS[css])} {esc(category.name)}/{esc(check.id)}: "
             f"{esc(check.detail)}</summary>"]
    if check.slowest:
        rows = "".join(f"<tr><td class='num'>{esc(format(call['seconds'], '.2f'))}</td>"
                       f"<td>{'answered' if call['answered'] else 'no answer, stopped'}</td><td>{esc(call['id'])}</td>"
                       f"<td>{esc(rules.position_phrase(str(call['size']), str(call['player'])))}</td></tr>"
                       for call in check.slowest)
        parts.append("<p>The slowest calls:</p><div class='scroll'><table class='data slowest'><thead><tr>"
                     "<th class='num'>seconds</th><th>answer</th><th>check</th><th>position</th></tr></thead>"
                     f"<tbody>{rows}</tbody></table></div>")
    if check.command:
        parts.append(f"<p>Command:</p><pre>{esc(_program(check.command))}</pre>")
    found = evidence(rules, check)
    if found is not None:
        shading = f" (shaded: {rules.shading_note})" if rules.shading_note else ""
        parts.append(f"<p>Position: {esc(rules.position_phrase(check.size, check.player))}{shading}</p>")
        if len(found.boards) > 1 or check.solutions:
            parts.append("<p class='muted'>Highlighted: the column of the move that led to each board; outlined: "
                         "the right moves.</p>")
        boards = [_board_html(report.game, drawn.board, check.size, drawn.caption, drawn.mark, drawn.outlined)
                  for drawn in found.boards]
        notes = "".join(f"<li>{esc(note[0].upper() + note[1:])}</li>" for note in found.notes)
        parts.append(f"<div class='boards'>{''.join(boards)}</div>" + (f"<ul class='moves-said'>{notes}</ul>"
                                                                        if notes else ""))
    parts.append(_pairs_html(check))
    if check.printed:
        cut = f"; {cut_note(check.printed_cut)}" if check.printed_cut else ""
        parts.append(f"<p>Printed (last lines{esc(cut)}):</p><pre>{esc(chr(10).join(check.printed))}</pre>")
    if check.stderr.strip():
        parts.append(f"<p>Stderr (end):</p><pre>{esc(check.stderr[-800:])}</pre>")
    if check.expected:
        parts.append(f"<p>Expected: {esc(check.expected)}</p>")
    parts.append("</details>")
    return "".join(parts)


def _pairs_html(check: Check) -> str:
    """A last-pebble check's minimal pairs as a table (its own first) and its chance figure."""
    if not check.pairs:
        return ""
    rows = "".join(
        f"<tr><td>{esc(pair['original'])}</td><td class='nowrap'>{esc(_answers(pair['answers']))}</td>"
        f"<td>{esc(_twin_said(pair))}</td><td class='nowrap'>{esc(_answers(pair['twin_answers']))}</td>"
        f"<td class='nowrap'>{esc(', '.join(map(str, pair['solutions'])))}</td></tr>"
        for pair in check.pairs)
    said = chance_said(check)
    return ("<p>Minimal pairs: each case, and its twin (the same board with one of the mover's pebbles off the top "
            "of a column, so one more in hand, and the same solving moves):</p><div class='scroll'>"
            "<table class='data pairs'><thead><tr><th>case</th><th>its answers</th><th>twin</th>"
            "<th>twin's answers</th><th>solving moves</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></div>" + (f"<p>Chance: {esc(said)}</p>" if said else ""))


def _anchor(category: str, check_id: str) -> str:
    return f"check-{category}-{check_id}"


def _render_html(report: ValidationReport) -> str:
    rules = get_game(report.game)
    games = report.strength.get("games") or []
    parts = [
        f"<h1>{esc(rules.title)} validation</h1><p><b>Program:</b> <code>{esc(_program(report.program))}</code></p>",
        *([f"<p><b>Time scale:</b> {esc(f'{report.time_scale:g}')} (every limit multiplied by it)</p>"]
          if report.time_scale != 1 else []),
        f"<p class='verdict {'pass' if report.passed else 'fail'}'><b>{esc(report.verdict)}</b></p>",
        "<div class='scroll'><table class='summary'><thead><tr><th>category</th><th>status</th><th>summary</th>"
        "</tr></thead><tbody>",
    ]
    for name, category in report.categories.items():
        status = category.status
        parts.append(f"<tr><td><a href='#{esc(name)}'>{esc(name)}</a></td>"
                     f"<td class='status {esc(STATUS_CSS[status])}'>{esc(status.value)}</td>"
                     f"<td>{esc(category.summary)}</td></tr>")
    parts.append("</tbody></table></div>")
    parts.append("<p class='muted'>Statuses: pass; fail (decides the exit status); weak (failed checks in a "
                 "category that does not decide it); info (information, not pass/fail); not judged (no "
                 "evidence to judge by, never a pass).</p>")
    if games:
        links = ", ".join(f"<a href='#game-{esc(number)}'>game {esc(number)}</a> (as {esc(entry['student_plays'])} "
                          f"against {esc(entry['opponent'])}, {esc(format(entry['score'], 'g'))})"
                          for number, entry in enumerate(games, 1))
        parts.append(f"<p>Replays of the strength games: {links}.</p>")
    failed = [(category, check) for category in report.categories.values() for check in category.failed]
    if failed:
        worst = "fail" if any(category.status is Status.FAIL for category, _ in failed) else "weak"
        parts.append(f"<h2 id='failed' class='{worst}'>Failed checks ({esc(len(failed))})</h2>")
        parts += [_check_html(report, category, check, True) for category, check in failed]
    for name, category in report.categories.items():
        status = category.status
        parts.append(f"<h2 id='{esc(name)}' class='{esc(STATUS_CSS[status])}'>{esc(name)}: {esc(status.value)}</h2>"
                     f"<p class='category-summary'>{esc(category.summary)}</p>")
        if category.failed:
            links = ", ".join(f"<a href='#{esc(_anchor(name, check.id))}'>{esc(check.id)}</a>"
                              for check in category.failed)
            parts.append(f"<p class='fail'>Failed ({esc(len(category.failed))}, shown above): {links}</p>")
        shown = [check for check in category.checks if category.status_of(check) is not Status.FAIL]
        warned = [check for check in shown if check.warning]
        for check in warned:
            parts.append(_check_html(report, category, check, False))
        rest = [check for check in shown if not check.warning]
        passed = [check for check in rest if category.status_of(check) is Status.PASS]
        if category.role is Role.INFO or len(rest) <= 3:
            parts += [_check_html(report, category, check, False) for check in rest]
        else:
            others = [check for check in rest if category.status_of(check) is not Status.PASS]
            parts += [_check_html(report, category, check, False) for check in others]
            if passed:
                parts.append(f"<details class='group'><summary class='pass'>{esc(MARKS['pass'])} {esc(len(passed))} "
                             "passed checks</summary>"
                             + "".join(_check_html(report, category, check, False) for check in passed)
                             + "</details>")
    if games:
        parts.append("<h2 id='games'>Strength games</h2>")
    size = str(report.strength.get("size", ""))
    columns = _columns(report.game, size)
    for number, entry in enumerate(games, 1):
        end = (f"stopped at the ply cap and adjudicated: {entry['adjudication']['why']}" if entry["adjudication"]
               else entry["reason"])
        parts.append(f"<details id='game-{esc(number)}'><summary>game {esc(number)}: the program as "
                     f"{esc(entry['student_plays'])} against {esc(entry['opponent'])}, score "
                     f"{esc(format(entry['score'], 'g'))}; {esc(end)}</summary>")
        steps = strength_steps(rules, entry)
        if columns and all(len(step.board) == len(steps[0].board) for step in steps):
            replay_id = f"game-{number}-replay"
            parts.append(replay_html(replay_id, steps, columns, rules.shaded_rows(columns), 0,
                                     _strength_moves_table(rules, entry, replay_id)))
        finding = strength_finding(entry)
        if finding is not None:
            parts.append(analysis_html(finding, rules, _players(entry)))
        last = next((board for *_, board, _verdict, _seconds in reversed(entry["moves"]) if board), "")
        parts.append(_board_html(report.game, last, size, "final board") + "</details>")
    return page(f"{rules.title} validation", "\n".join(parts), None, scripts=bool(games))


def _program(command: str) -> str:
    """A command line with each word that is an absolute path made public (its file name, or
    relative to the base folder)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    return shlex.join(public_word(word) for word in words)
