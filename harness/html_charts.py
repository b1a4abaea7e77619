"""Charts for the report pages, drawn as inline SVG by the project (no plotting library: the pages
stay small and offline, and a chart is a few dozen lines of markup): Elo with intervals, stacked
bars of faults, move-time box plots, pentanomial sparklines, and the heat map's colours."""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.html_page import esc

ROW = 36
"""Pixels per chart row: a label line, then the mark under it."""
LEFT, RIGHT = 2.0, 98.0
"""The axis spans these percentages of the chart's width (room for a dot at either end)."""
MAX_LABEL = 48
"""Characters of a row's label shown (the whole name is in its tooltip)."""
TOP = 6
"""Pixels above the first row."""
AXIS = 30
"""Pixels below the last row: the axis and its tick labels."""


def nice_ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round values that cover [low, high] in about ``count`` steps of 1, 2 or 5 times a power of ten."""
    if not math.isfinite(low) or not math.isfinite(high):
        return []
    if high <= low:
        high = low + 1.0
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 10))
    return ticks


def _number(value: float) -> str:
    return f"{value:g}" if abs(value) >= 1 or value == 0 else f"{value:.3g}"


def _pct(value: float) -> str:
    return f"{value:.2f}%"


class _Axis:
    """A horizontal linear scale from [low, high] to percentages of the chart's width, so that a
    chart stretches to its box while its text keeps its size."""

    def __init__(self, low: float, high: float, whole: bool = False) -> None:
        self.ticks = nice_ticks(low, high)
        if whole and len(self.ticks) > 1 and self.ticks[1] - self.ticks[0] < 1:  # counts: no half games
            self.ticks = [float(value) for value in range(int(low), int(math.ceil(high)) + 1)]
        self.low, self.high = (self.ticks[0], self.ticks[-1]) if self.ticks else (low, high)

    def x(self, value: float) -> str:
        """The value's place, as a percentage of the width (clamped to the axis)."""
        value = min(max(value, self.low), self.high)
        return _pct(LEFT + (value - self.low) / (self.high - self.low) * (RIGHT - LEFT))

    def span(self, start: float, end: float) -> str:
        """The width from ``start`` to ``end``, as a percentage."""
        low, high = (min(max(v, self.low), self.high) for v in (start, end))
        return _pct((high - low) / (self.high - self.low) * (RIGHT - LEFT))

    def draw(self, top: float, bottom: float, unit: str = "") -> list[str]:
        """The axis line, a faint line per tick, and the tick labels under the axis (the end labels
        aligned inward; every other label has the class ``odd``, which narrow pages hide)."""
        parts = [f'<line class="axis" x1="{_pct(LEFT)}" y1="{bottom}" x2="{_pct(RIGHT)}" y2="{bottom}"/>']
        last = len(self.ticks) - 1
        for index, tick in enumerate(self.ticks):
            x = self.x(tick)
            anchor = "start" if index == 0 else "end" if index == last else "middle"
            odd = " odd" if index % 2 and index != last else ""
            parts.append(f'<line class="tick" x1="{x}" y1="{top}" x2="{x}" y2="{bottom}"/>')
            parts.append(f'<text class="ticklabel{odd}" x="{x}" y="{bottom + 14}" text-anchor="{anchor}">'
                         f"{_number(tick)}{unit}</text>")
        return parts


def _label(name: str, y: float, extra: str = "") -> str:
    """A row's label above its mark, cut to MAX_LABEL characters (the whole name as its tooltip)."""
    shown = name if len(name) <= MAX_LABEL else name[:MAX_LABEL - 1] + "\u2026"
    value = f'<tspan class="value" dx="8">{esc(extra)}</tspan>' if extra else ""
    return f'<g><title>{esc(name)}</title><text class="label" x="{_pct(LEFT)}" y="{y}">{esc(shown)}{value}</text></g>'


def _svg(height: float, label: str, parts: list[str]) -> str:
    """A chart as wide as its box (its marks placed in percentages), ``height`` pixels high."""
    return (f'<svg class="chart" role="img" aria-label="{esc(label)}" width="100%" height="{height:g}" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{esc(label)}</title>' + "".join(parts) + "</svg>")


def _rows(count: int) -> tuple[float, float]:
    """The height of a chart of ``count`` rows, and the y of its axis."""
    bottom = TOP + ROW * count + 4
    return bottom + AXIS, bottom


def elo_chart(entries: Sequence[tuple[str, float, float, float]]) -> str:
    """Each engine's Elo as a dot on its 95% interval, under a label with the figures: entries are
    (name, elo, low, high); an unbounded end is drawn dashed to the chart's edge."""
    if not entries:
        return ""
    finite = [v for _, elo, low, high in entries for v in (elo, low, high) if math.isfinite(v)] or [0.0]
    axis = _Axis(min(finite + [0.0]), max(finite + [0.0]))
    height, bottom = _rows(len(entries))
    parts = axis.draw(TOP, bottom, "")
    parts.append(f'<line class="zero" x1="{axis.x(0)}" y1="{TOP}" x2="{axis.x(0)}" y2="{bottom}"/>')
    for row, (name, elo, low, high) in enumerate(entries):
        top = TOP + ROW * row
        y = top + 26
        figures = f"{_signed(elo)} [{_signed(low)}, {_signed(high)}]"
        parts.append(_label(name, top + 12, figures))
        open_end = " open" if not (math.isfinite(low) and math.isfinite(high)) else ""
        parts.append(f'<line class="ci{open_end}" x1="{axis.x(low)}" y1="{y}" x2="{axis.x(high)}" y2="{y}"/>')
        for end in (low, high):
            if math.isfinite(end):
                parts.append(f'<line class="ci" x1="{axis.x(end)}" y1="{y - 5}" x2="{axis.x(end)}" y2="{y + 5}"/>')
        parts.append(f'<circle class="pt" cx="{axis.x(elo)}" cy="{y}" r="4"><title>{esc(name)}: {esc(figures)}'
                     "</title></circle>")
    return _svg(height, "Elo ratings with 95% intervals", parts)


def _signed(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+\u221e" if value > 0 else "\u2212\u221e")


def stacked_bars(rows: Sequence[tuple[str, Sequence[tuple[str, int]]]], label: str) -> str:
    """One horizontal bar per row, under its label, made of (kind, count) segments, each with the
    CSS class v-KIND."""
    if not rows:
        return ""
    most = max([sum(count for _, count in segments) for _, segments in rows] + [1])
    axis = _Axis(0, most, whole=True)
    height, bottom = _rows(len(rows))
    parts = axis.draw(TOP, bottom)
    for row, (name, segments) in enumerate(rows):
        top = TOP + ROW * row
        total = sum(count for _, count in segments)
        parts.append(_label(name, top + 12, f"{total}"))
        start = 0
        for kind, count in segments:
            if count:
                parts.append(f'<rect class="v-{esc(kind)}" x="{axis.x(start)}" y="{top + 18}" '
                             f'width="{axis.span(start, start + count)}" height="14">'
                             f'<title>{esc(name)}: {count} {esc(kind)}</title></rect>')
                start += count
    return _svg(height, label, parts)


def box_plot(rows: Sequence[tuple[str, Sequence[float]]], limit: float) -> str:
    """Move-time distributions: per row, under its label, the quantiles (min, p10, p25, median, p75,
    p90, max) as a box from p25 to p75, whiskers to p10 and p90, dots at min and max; the time
    limit dashed."""
    rows = [(name, q) for name, q in rows if q]
    if not rows:
        return ""
    high = max([q[-1] for _, q in rows] + [limit])
    axis = _Axis(0, high * 1.02)
    height, bottom = _rows(len(rows))
    parts = axis.draw(TOP, bottom, " s")
    for row, (name, (low, p10, p25, median, p75, p90, peak)) in enumerate(rows):
        top = TOP + ROW * row
        y = top + 25
        parts.append(_label(name, top + 12, f"median {median:.3f} s"))
        parts.append(f'<line class="whisker" x1="{axis.x(p10)}" y1="{y}" x2="{axis.x(p90)}" y2="{y}"/>')
        parts.append(f'<rect class="box" x="{axis.x(p25)}" y="{y - 7}" width="{axis.span(p25, p75)}" '
                     f'height="14"><title>{esc(name)}: median {median:.3f} s, p25-p75 {p25:.3f}-{p75:.3f} s, '
                     f'p10-p90 {p10:.3f}-{p90:.3f} s, min {low:.3f} s, max {peak:.3f} s</title></rect>')
        parts.append(f'<line class="median" x1="{axis.x(median)}" y1="{y - 7}" x2="{axis.x(median)}" y2="{y + 7}"/>')
        parts += [f'<circle class="pt" cx="{axis.x(end)}" cy="{y}" r="2"/>' for end in (low, peak)]
    if limit > 0:
        x = axis.x(limit)
        parts.append(f'<line class="limit" x1="{x}" y1="{TOP}" x2="{x}" y2="{bottom}"><title>the time limit, '
                     f'{limit:g} s</title></line>')
    return _svg(height, "Seconds per move by engine", parts)


def spark_bars(counts: Sequence[int], label: str) -> str:
    """A small bar per count (a pentanomial's five), scaled to the largest."""
    most = max(list(counts) + [1])
    bar, gap, height = 10, 2, 22
    parts = [f'<rect class="bar" x="{i * (bar + gap)}" y="{height - round(c / most * (height - 2), 1)}" '
             f'width="{bar}" height="{round(c / most * (height - 2), 1)}"/>' for i, c in enumerate(counts)]
    width = len(counts) * (bar + gap)
    return (f'<svg class="spark" role="img" aria-label="{esc(label)}" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" xmlns="http://www.w3.org/2000/svg"><title>{esc(label)}</title>{"".join(parts)}</svg>')


def heat_colour(fraction: float) -> str:
    """A background from red (0, lost everything) through white (half) to green (1, won everything)."""
    fraction = min(max(fraction, 0.0), 1.0)
    low, mid, high = (232, 121, 111), (248, 248, 248), (102, 187, 106)
    start, end, t = (low, mid, fraction * 2) if fraction < 0.5 else (mid, high, fraction * 2 - 1)
    red, green, blue = (round(a + (b - a) * t) for a, b in zip(start, end))
    return f"#{red:02x}{green:02x}{blue:02x}"
