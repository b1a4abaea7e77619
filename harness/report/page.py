"""Pieces shared by the project's HTML pages (tournament reports, game replays, validation reports):
the page frame with its style sheet and replay script, boards drawn as SVG, and replay widgets.

Every page works offline from ``file://``: nothing is loaded from the network. Every value written
into a page goes through ``esc`` where it is written (numbers too: a stored value may be anything),
or, inside a replay's JSON, through ``json_script``, which the script reads with ``textContent``
only. Both also publish paths: inside ``paths_relative_to(base)`` an absolute path in any text
is shown relative to ``base`` (a config's folder) when it lies under it, else by its file name, so
a page never shows the operator's file layout.
"""

from __future__ import annotations

import contextlib
import contextvars
import html
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

ASSETS = ("arena.css", "replay.js")
"""The static files a folder of pages links to (harness/report/static)."""
PITCH = 30
"""Pixels from one board cell to the next."""


_BASE: contextvars.ContextVar[Path | None] = contextvars.ContextVar("published_base", default=None)
_ABSOLUTE = re.compile(r"(?<![^\s'\"=(\[,:])/(?!/)[^\s'\"<>()\[\],;:]+")
"""An absolute path in free text: a '/' that starts a word (or follows a quote, '=', ':' ...), not '//'."""


@contextlib.contextmanager
def paths_relative_to(base: Path | None) -> Iterator[None]:
    """Inside, pages show absolute paths relative to ``base`` when under it, else by file name."""
    token = _BASE.set(Path(os.path.normpath(base)) if base is not None else None)
    try:
        yield
    finally:
        _BASE.reset(token)


def public_path(path: str) -> str:
    """An absolute path as a page shows it: relative to the base folder, or its file name."""
    clean = PurePosixPath(os.path.normpath(path))
    base = _BASE.get()
    if base is not None:
        try:
            return str(clean.relative_to(base))
        except ValueError:
            pass
    return clean.name or path


def public(text: str) -> str:
    """``text`` with each absolute path in it made public (``public_path``)."""
    return _ABSOLUTE.sub(lambda found: public_path(found.group(0)), text) if "/" in text else text


def public_word(word: str) -> str:
    """One word of a command: a whole absolute path made public, any other word as ``public``."""
    return public_path(word) if word.startswith("/") and not word.startswith("//") else public(word)


def esc(value: object) -> str:
    """Any value as text safe for HTML content and quoted attributes, its paths made public."""
    return html.escape(public(str(value)), quote=True)


def asset(name: str) -> str:
    return resources.files("harness.report").joinpath("static").joinpath(name).read_text(encoding="utf-8")


def write_assets(folder: Path) -> None:
    for name in ASSETS:
        (folder / name).write_text(asset(name), encoding="utf-8")


def json_script(data: Any, css_class: str) -> str:
    """Data for a page's script, inert: a JSON script element that no text in ``data`` can close."""
    text = json.dumps(_public_data(data), ensure_ascii=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" class="{css_class}">{text}</script>'


def _public_data(data: Any) -> Any:
    if isinstance(data, str):
        return public(data)
    if isinstance(data, dict):
        return {key: _public_data(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [_public_data(value) for value in data]
    return data


def page(title: str, body: str, root: str | None = "", scripts: bool = False) -> str:
    """A whole page. ``root`` is the relative path to the folder holding the assets (``""`` or
    ``"../"``); None puts the style sheet and script inside the page (a single-file report)."""
    if root is None:
        head = f"<style>\n{asset('arena.css')}</style>"
        tail = f"<script>\n{asset('replay.js')}</script>" if scripts else ""
    else:
        head = f'<link rel="stylesheet" href="{root}arena.css">'
        tail = f'<script src="{root}replay.js"></script>' if scripts else ""
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<link rel='icon' href='data:,'><title>{esc(title)}</title>{head}</head>\n<body>\n{body}\n{tail}</body></html>\n"
    )


@dataclass(frozen=True)
class Step:
    """One position of a replay."""

    board: str
    column: int = 0
    """The column of the move that led here (negative for a Betsy rotation), 0 for none."""
    caption: str = ""
    losing: str = ""
    """The mark of the losing move's step (``losing move (proved)``), drawn on the board; empty elsewhere."""


def board_svg(board: str, columns: int, shaded_rows: int = 0, label: str = "board", row_numbers: bool = False,
              mark: int = 0, outlined: Sequence[int] = ()) -> str:
    """A board (row-major from the top, ``x``/``o``/``.``) as SVG: a circle per cell in board
    order, column numbers below (and row numbers on the left with ``row_numbers``), and a highlight
    of the last move's column that the replay script moves. ``shaded_rows``: the top rows shaded
    (Betsy's, where lines count). The losing move's frame and mark (hidden) show at its step. It shrinks
    to fit a narrow page (harness/report/static/arena.css).
    A board drawn on its own marks the move that led to it (``mark``: its column, negative for a
    Betsy rotation, as ``Step.column``) and outlines the columns ``outlined`` (a check's right moves)."""
    rows = len(board) // columns if columns else 0
    gutter = 8 + 7 * len(str(rows)) if row_numbers else 0
    left, top = 6 + gutter, 6
    width, height = left + 6 + columns * PITCH, top + rows * PITCH + 50
    parts = [f'<svg class="board" role="img" aria-label="{esc(label)}" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" data-pitch="{PITCH}" data-left="{left}" '
             f'xmlns="http://www.w3.org/2000/svg">',
             f'<rect class="frame" x="{left}" y="{top}" width="{columns * PITCH}" height="{rows * PITCH}"/>']
    if shaded_rows:
        parts.append(f'<rect class="shade" x="{left}" y="{top}" width="{columns * PITCH}" '
                     f'height="{min(shaded_rows, rows) * PITCH}"/>')
    marked = 1 <= abs(mark) <= columns
    parts.append(f'<rect class="lastcol" x="{left + (abs(mark) - 1) * PITCH if marked else left}" y="{top}" '
                 f'width="{PITCH}" height="{rows * PITCH}" visibility="{"visible" if marked else "hidden"}"/>')
    radius = PITCH // 2 - 3
    for index, ch in enumerate(board[: rows * columns]):
        row, column = divmod(index, columns)
        kind = "x" if ch == "x" else "o" if ch == "o" else "e"
        parts.append(f'<circle class="cell {kind}" cx="{left + column * PITCH + PITCH // 2}" '
                     f'cy="{top + row * PITCH + PITCH // 2}" r="{radius}"/>')
    parts += [f'<rect class="outlined" x="{left + (column - 1) * PITCH + 1}" y="{top + 1}" width="{PITCH - 2}" '
              f'height="{rows * PITCH - 2}"/>' for column in sorted(set(outlined)) if 1 <= column <= columns]
    numbers_y = top + rows * PITCH + 14
    parts += [f'<text class="colno" x="{left + column * PITCH + PITCH // 2}" y="{numbers_y}">{column + 1}</text>'
              for column in range(columns)]
    if row_numbers:
        parts += [f'<text class="rowno" x="{left - 6}" y="{top + row * PITCH + PITCH // 2 + 4}">{row + 1}</text>'
                  for row in range(rows)]
    rotated = marked and mark < 0
    middle = min(max((abs(mark) - 0.5) * PITCH, 36), columns * PITCH - 36)  # the words kept inside the frame
    parts.append(f'<text class="rotation" x="{left + middle if rotated else left}" '
                 f'y="{numbers_y + 16}" visibility="{"visible" if rotated else "hidden"}">&#x21bb; rotated</text>')
    parts.append(f'<rect class="losing" x="{left - 2}" y="{top - 2}" width="{columns * PITCH + 4}" '
                 f'height="{rows * PITCH + 4}" visibility="hidden"/>')
    parts.append(f'<text class="losing" x="{left}" y="{numbers_y + 32}" visibility="hidden"></text>')
    parts.append("</svg>")
    return "".join(parts)


def replay_html(element_id: str, steps: list[Step], columns: int, shaded_rows: int = 0, start: int = 0,
                moves_table: str = "", row_numbers: bool = False) -> str:
    """A replay: the board (drawn at step ``start``; -1 for the last; its rows numbered with
    ``row_numbers``), step buttons, a slider and the caption of the step shown; ``moves_table``
    (rows with ``data-step`` and ``data-replay``) beside it. The script (replay.js) does the stepping."""
    last = len(steps) - 1
    index = last if start < 0 else min(start, last)
    shown = steps[index]
    frames = [{"b": step.board, "c": step.column, "t": step.caption, "m": step.losing} for step in steps]
    controls = (
        '<div class="controls">'
        '<button type="button" data-go="first" title="start (Home)" aria-label="start">|&#x25c0;</button>'
        '<button type="button" data-go="prev" title="previous ply (left arrow)" aria-label="previous">&#x25c0;</button>'
        f'<span class="counter">ply {index} / {last}</span>'
        '<button type="button" data-go="next" title="next ply (right arrow)" aria-label="next">&#x25b6;</button>'
        '<button type="button" data-go="last" title="end (End)" aria-label="end">&#x25b6;|</button>'
        f'<input class="scrub" type="range" min="0" max="{last}" value="{index}" aria-label="ply">'
        "</div>"
    )
    board = board_svg(shown.board, columns, shaded_rows, "the board at the step shown", row_numbers)
    panel = f'<div class="moves-panel">{moves_table}</div>' if moves_table else ""
    return (
        f'<div class="replay" id="{esc(element_id)}" tabindex="0" data-start="{start}">'
        f'<div class="stage">{controls}{board}<p class="caption">{esc(shown.caption)}</p>'
        '<p class="keys">Keys: &#x2190; &#x2192; one ply, Home and End the ends; or click a move.</p>'
        f"{json_script(frames, 'frames')}</div>{panel}</div>"
    )


def output_folder(path: Path, option: str) -> Path:
    """``path`` as a folder to write into, created if missing; UsageError naming ``option`` otherwise."""
    from harness.errors import UsageError

    if path.exists() and not path.is_dir():
        raise UsageError(f"invalid {option} {path}: it is a file; give a folder (created if missing)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot create {option} {path}: {error.strerror or error}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"invalid {option} {path}: cannot write there (permission denied)")
    return path


def losing_row(ply: object, losing: tuple[int, str] | None) -> tuple[str, str]:
    """(the class attribute, the note) of a moves table's row for ``ply``: marked when it is the losing
    move ``losing`` = (its ply, its mark)."""
    if losing is None or ply != losing[0]:
        return "", ""
    return ' class="losing"', f'<span class="losing-note">{esc(losing[1])}</span>'


def moves_table(rules: Any, moves: Iterable[Sequence[Any]], names: Mapping[str, str], replay_id: str,
                losing: tuple[int, str] | None = None) -> str:
    """A replay's table of moves, a row per ply and each a step of the replay ``replay_id``: ply, the
    player (and its name in ``names``), the move in words (or "forfeits"), seconds, verdict, and the
    losing move's mark (``losing``: its ply and mark) on its row. ``moves``: ``(player, move, board,
    verdict, seconds, ...)`` as a report's JSON stores them; ``rules``: the Game."""
    rows = [f'<tr data-step="0" data-replay="{esc(replay_id)}"><td class="num">0</td><td colspan="4">start</td></tr>']
    for ply, (player, move, _board, verdict, seconds, *_) in enumerate(moves, 1):
        ok = verdict == "ok" and isinstance(move, int) and not isinstance(move, bool)
        what = rules.describe_move(move) if ok else "forfeits"
        shown = f"{seconds:.2f}" if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else ""
        marked, note = losing_row(ply, losing)
        rows.append(f'<tr data-step="{esc(ply)}" data-replay="{esc(replay_id)}"{marked}><td class="num">{esc(ply)}</td>'
                    f"<td>{esc(player)} {esc(names.get(str(player), ''))}</td><td>{esc(what)} {note}</td>"
                    f'<td class="num">{esc(shown)}</td>'
                    f'<td class="{"verdict-ok" if ok else "verdict-fault"}">{esc(verdict)}</td></tr>')
    return ('<table class="data moves"><thead><tr><th class="num">ply</th><th>player</th><th>move</th>'
            '<th class="num">seconds</th><th>verdict</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")
