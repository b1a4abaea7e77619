"""The validator's report for people: text for a terminal, a self-contained HTML page.

The checks and the report's data are in ``harness.validate``; this module only draws them, each
board with its game's width (harness.games.registry).
"""

from __future__ import annotations

import shlex
from functools import lru_cache
from pathlib import Path
from typing import Any

from harness.games.errors import PositionError
from harness.games.registry import Game, get_game, render_grid
from harness.html_page import Step, esc, page, paths_relative_to, public_word, replay_html
from harness.positions import suites
from harness.protocol import Verdict
from harness.text import cut_note, visible
from harness.validate import Check, ValidationReport


@lru_cache(maxsize=64)
def _columns(game: str, size: str) -> int:
    """How many columns a board of ``size`` has (0 when the size is not one of the game's)."""
    rules = get_game(game)
    try:
        return rules.columns(rules.initial(size))
    except (ValueError, PositionError):
        return 0


def _draw(board: str, n: int) -> list[str]:
    return [" ".join(board[r * n:(r + 1) * n]) for r in range(len(board) // n)] if n else []


def _draw_board(game: str, board: str, size: str) -> list[str]:
    """Betsy's board as rows (as it always was); any other game's with column numbers below."""
    if game == "kings-horses":
        from harness.games.kings_horses import Position, render

        try:
            return render(Position.from_text(None, "x", board)).splitlines()
        except PositionError:
            return []
    columns = _columns(game, size)
    if not columns or len(board) % columns:
        return []
    return _draw(board, columns) if game == "betsy" else render_grid(board, columns).splitlines()


_NO_ANSWER_VERDICTS = tuple(f"{verdict.value}:" for verdict in (
    Verdict.FAILED_TO_START, Verdict.NO_ANSWER, Verdict.TIME, Verdict.OUTPUT_LIMIT))


def _answered(check: Check) -> bool:
    """Whether the check's evidence holds an answer (a board worth drawing)."""
    return not check.detail.startswith(_NO_ANSWER_VERDICTS) and check.id not in ("starts", "answers")


def fix_hint(check: Check, answer_form: str = "MOVE NEWBOARD") -> str:
    """How to fix a program that does not answer at all, from what it printed (empty if unknown);
    ``answer_form`` is the game's answer line in words."""
    stderr = check.stderr
    if "SyntaxError" in stderr and "print" in stderr:
        return "this is Python 2 code: run it with Python 3 and make print a function, print(...)"
    if "SyntaxError" in stderr or "IndentationError" in stderr:
        return "fix the syntax error shown on stderr"
    if "ModuleNotFoundError" in stderr or "ImportError" in stderr:
        return "a module it imports is not installed here: install it, or do without it"
    if check.detail.startswith(f"{Verdict.NO_ANSWER.value}:") and "printed nothing" in check.detail:
        return (f"print the answer as the last line of stdout, '{answer_form}'; run the command above "
                "yourself to see what happens")
    return ""


def _same_cause(check: Check) -> str:
    """What identifies one root cause: the verdict and detail with the position's numbers removed."""
    return " ".join("#" if any(ch.isdigit() for ch in word) or set(word) <= set(".xo") else word
                    for word in check.detail.split())


def _answer_form(game: str) -> str:
    if game == "kings-horses":
        from harness.validate_kings_horses import ANSWER_FORM

        return ANSWER_FORM
    return suites(game).answer_form


def render_text(report: ValidationReport, verbose: bool = False) -> str:
    """The report for a terminal: verdict, one line per category, then each failure once (checks
    that failed the same way are named with the first), with its evidence."""
    game = get_game(report.game)
    answer_form = _answer_form(report.game)
    lines = [report.verdict, f"program: {report.program}", ""]
    for name, category in report.categories.items():
        status = {"pass": "pass", "fail": "FAIL", "not judged": "-"}[category.status]
        if name == "tactics" and category.status == "fail":
            status = "weak"
        if name == "strength" and category.judged:
            status = "info"
        lines.append(f"  {name:<11} {status:<5} {category.summary}")
    groups: dict[tuple[str, str], list[tuple[str, Check]]] = {}
    for name, category in report.categories.items():
        for check in category.checks:
            if name == "strength" and not verbose:
                continue  # information, not faults: every move is in --json and --html
            if check.judged and (not check.passed or (check.warning and verbose)):
                groups.setdefault((("warning " if check.passed else "") + name, _same_cause(check)), []).append(
                    (name, check))
    warnings = [(name, check) for name, category in report.categories.items()
                for check in category.checks if check.warning]
    lines.append("")
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
        if check.command:
            lines.append(f"    command : {check.command}")
        if check.board and _answered(check):
            lines.append(f"    position: {game.position_phrase(check.size, check.player)}")
            lines += [f"      {row}" for row in _draw_board(report.game, check.board, check.size)]
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
    if len(shown) > 40 and not verbose:
        lines.append(f"... and {len(shown) - 40} more (see --json or --html)")
    return "\n".join(visible(line) for line in lines)  # what the program printed, shown safely


def _program_and_expected(game: Game, check: Check) -> tuple[str, str] | None:
    """(board the program printed, board its move gives) for a check with an answer, if both known."""
    from harness.protocol import parse_answer_line

    answer = next((parsed for parsed in map(parse_answer_line, reversed(check.printed)) if parsed), None)
    if answer is None or not check.board or not check.size:
        return None
    try:
        position = game.position(check.size, check.player, check.board)
        if position.illegal_reason(answer[0]) is not None:
            return answer[1], ""
        return answer[1], position.after(answer[0]).board()
    except (ValueError, PositionError):
        return None


def _players(entry: dict[str, Any]) -> dict[str, str]:
    """Who played x and o in a strength game."""
    program, opponent = "the program", str(entry["opponent"])
    return {"x": program, "o": opponent} if entry["student_plays"] == "x" else {"x": opponent, "o": program}


def strength_steps(game: Game, entry: dict[str, Any]) -> list[Step]:
    """A strength game of the validator's report as replay steps: the start, then each ply (a
    forfeit keeps the board it was played on)."""
    moves = entry["moves"]
    names = _players(entry)
    board = entry.get("start_board") or ""
    first = moves[0][0] if moves else "x"
    steps = [Step(board, 0, f"start: {first} to move (x = {names['x']}, o = {names['o']})")]
    for ply, (player, move, after, verdict, seconds) in enumerate(moves, 1):
        if verdict == Verdict.OK.value and move is not None and after:
            board, column, what = after, int(move), game.describe_move(int(move))
        else:
            column, what = 0, f"forfeits: {verdict}"
        steps.append(Step(board, column, f"ply {ply}/{len(moves)}: {player} ({names.get(player, player)}) {what} "
                                         f"({seconds:.2f} s)"))
    if len(steps) > 1:
        last = steps[-1]
        steps[-1] = Step(last.board, last.column, f"{last.caption}. Result {entry['result']}: {entry['reason']}")
    return steps


def _strength_moves_table(game: Game, entry: dict[str, Any], replay_id: str) -> str:
    rows = [f'<tr data-step="0" data-replay="{esc(replay_id)}"><td class="num">0</td><td colspan="4">start</td></tr>']
    names = _players(entry)
    for ply, (player, move, _board, verdict, seconds) in enumerate(entry["moves"], 1):
        ok = verdict == Verdict.OK.value and move is not None
        what = game.describe_move(int(move)) if ok else "forfeits"
        rows.append(f'<tr data-step="{esc(ply)}" data-replay="{esc(replay_id)}"><td class="num">{esc(ply)}</td>'
                    f'<td>{esc(player)} {esc(names.get(player, ""))}</td>'
                    f'<td>{esc(what)}</td><td class="num">{esc(f"{seconds:.2f}")}</td>'
                    f'<td class="{"verdict-ok" if ok else "verdict-fault"}">{esc(verdict)}</td></tr>')
    return ('<table class="data moves"><thead><tr><th class="num">ply</th><th>player</th><th>move</th>'
            '<th class="num">seconds</th><th>verdict</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def render_html(report: ValidationReport, base: Path | None = None) -> str:
    """A self-contained page (the project's style sheet and replay script inside it): verdict, a
    summary table with links to the strength games, every check with its evidence (the position,
    the program's board beside the right one, columns numbered), and a replay of each strength game.
    Paths show relative to ``base`` (the program's folder), else as file names."""
    with paths_relative_to(base):
        return _render_html(report)


def _render_html(report: ValidationReport) -> str:
    game = get_game(report.game)
    betsy = report.game == "betsy"

    def board_html(board: str, size: str, caption: str = "") -> str:
        n = _columns(report.game, size)
        if not board or not n or len(board) % n:
            return ""
        numbers = "".join(f"<th>{esc(column)}</th>" for column in range(1, n + 1))
        rows = [f"<tr>{numbers}</tr>"]
        for r in range(len(board) // n):
            top = betsy and r < len(board) // n - 3  # Betsy's lines count in the top n rows only
            cells = "".join(
                f'<td class="{ {"x": "x", "o": "o"}.get(ch, "e") }{" top" if top else ""}">'
                f'{ {"x": "●", "o": "●"}.get(ch, "") }</td>'
                for ch in board[r * n:(r + 1) * n]
            )
            rows.append(f"<tr>{cells}</tr>")
        head = f"<caption>{esc(caption)}</caption>" if caption else ""
        return f'<table class="board">{head}{"".join(rows)}</table>'

    games = report.strength.get("games") or []
    parts = [
        f"<h1>{esc(game.title)} validation</h1><p><b>Program:</b> <code>{esc(_program(report.program))}</code></p>",
        f"<p class='{'pass' if report.passed else 'fail'}'><b>{esc(report.verdict)}</b></p>",
        "<table class='summary'><tr><th>category</th><th>status</th><th>summary</th></tr>",
    ]
    css_of = {"pass": "pass", "fail": "fail", "not judged": "unjudged"}
    for name, category in report.categories.items():
        status = "info" if name == "strength" and category.judged else category.status
        parts.append(f"<tr><td><a href='#{esc(name)}'>{esc(name)}</a></td><td class='{esc(css_of.get(category.status))}'>"
                     f"{esc(status)}</td><td>{esc(category.summary)}</td></tr>")
    parts.append("</table>")
    if games:
        links = ", ".join(f"<a href='#game-{esc(number)}'>game {esc(number)}</a> (as {esc(entry['student_plays'])} "
                          f"against {esc(entry['opponent'])}, {esc(format(entry['score'], 'g'))})"
                          for number, entry in enumerate(games, 1))
        parts.append(f"<p>Replays of the strength games: {links}.</p>")
    for name, category in report.categories.items():
        parts.append(f"<h2 id='{esc(name)}' class='{esc(css_of[category.status])}'>{esc(name)}: "
                     f"{esc(category.summary)}</h2>")
        for check in category.checks:
            css = ("unjudged" if not check.judged else "fail" if not check.passed
                   else "warn" if check.warning else "pass")
            mark = {"unjudged": "–", "fail": "✗", "warn": "!", "pass": "✓"}[css]
            parts.append(f"<details{' open' if css == 'fail' and name != 'strength' else ''}>"
                         f"<summary class='{esc(css)}'>{esc(mark)} {esc(check.id)}: {esc(check.detail)}</summary>")
            if check.command:
                parts.append(f"<p>Command:</p><pre>{esc(_program(check.command))}</pre>")
            if check.board:
                shading = " (shaded: the top n rows, where lines count)" if betsy else ""
                parts.append(f"<p>Position: {esc(game.position_phrase(check.size, check.player))}{shading}</p>")
                parts.append(board_html(check.board, check.size, "asked"))
                boards = _program_and_expected(game, check)
                if boards is not None:
                    printed, right = boards
                    parts.append(board_html(printed, check.size, "the program's board"))
                    parts.append(board_html(right, check.size, "the board its move gives") if right
                                 else "<p>(its move is not legal here)</p>")
            if check.printed:
                cut = f"; {cut_note(check.printed_cut)}" if check.printed_cut else ""
                parts.append(f"<p>Printed (last lines{esc(cut)}):</p><pre>{esc(chr(10).join(check.printed))}</pre>")
            if check.stderr.strip():
                parts.append(f"<p>Stderr (end):</p><pre>{esc(check.stderr[-800:])}</pre>")
            if check.expected:
                parts.append(f"<p>Expected: {esc(check.expected)}</p>")
            parts.append("</details>")
    if games:
        parts.append("<h2 id='games'>Strength games</h2>")
    size = str(report.strength.get("size", ""))
    columns = _columns(report.game, size)
    for number, entry in enumerate(games, 1):
        end = (f"adjudicated at the ply cap: {entry['adjudication']['why']}" if entry["adjudication"]
               else entry["reason"])
        parts.append(f"<details id='game-{esc(number)}'><summary>game {esc(number)}: the program as "
                     f"{esc(entry['student_plays'])} against {esc(entry['opponent'])}, score "
                     f"{esc(format(entry['score'], 'g'))}; {esc(end)}</summary>")
        steps = strength_steps(game, entry)
        if columns and all(len(step.board) == len(steps[0].board) for step in steps):
            replay_id = f"game-{number}-replay"
            parts.append(replay_html(replay_id, steps, columns, columns if betsy else 0, 0,
                                     _strength_moves_table(game, entry, replay_id)))
        last = next((board for *_, board, _verdict, _seconds in reversed(entry["moves"]) if board), "")
        parts.append(board_html(last, size, "final board") + "</details>")
    return page(f"{game.title} validation", "\n".join(parts), None, scripts=bool(games))


def _program(command: str) -> str:
    """A command line with each word that is an absolute path made public (its file name, or
    relative to the base folder)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    return shlex.join(public_word(word) for word in words)
