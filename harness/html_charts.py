"""Charts for the report pages, drawn as inline SVG by the project (no plotting library: the pages
stay small and offline, and a chart is a few dozen lines of markup): Elo with intervals, stacked
bars of faults, move-time box plots, pentanomial sparklines, and the heat map's colours."""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.html_page import esc

CHAR_WIDTH = 6.6
"""Pixels per character of an 11 px label, to leave room for names."""
ROW = 24
"""Pixels per chart row."""


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


def _label_width(names: Sequence[str]) -> int:
    return int(min(220, 14 + CHAR_WIDTH * max([len(name) for name in names] + [4])))


def _number(value: float) -> str:
    return f"{value:g}" if abs(value) >= 1 or value == 0 else f"{value:.3g}"


class _Axis:
    """A horizontal linear scale from [low, high] to [left, right] pixels."""

    def __init__(self, low: float, high: float, left: float, right: float, whole: bool = False) -> None:
        self.ticks = nice_ticks(low, high)
        if whole and len(self.ticks) > 1 and self.ticks[1] - self.ticks[0] < 1:  # counts: no half games
            self.ticks = [float(value) for value in range(int(low), int(math.ceil(high)) + 1)]
        self.low, self.high = (self.ticks[0], self.ticks[-1]) if self.ticks else (low, high)
        self.left, self.right = left, right

    def x(self, value: float) -> float:
        value = min(max(value, self.low), self.high)
        return round(self.left + (value - self.low) / (self.high - self.low) * (self.right - self.left), 1)

    def draw(self, top: float, bottom: float, unit: str = "") -> list[str]:
        parts = [f'<line class="axis" x1="{self.left}" y1="{bottom}" x2="{self.right}" y2="{bottom}"/>']
        for tick in self.ticks:
            x = self.x(tick)
            parts.append(f'<line class="tick" x1="{x}" y1="{top}" x2="{x}" y2="{bottom}"/>')
            parts.append(f'<text class="ticklabel" x="{x}" y="{bottom + 14}">{_number(tick)}{unit}</text>')
        return parts


def _svg(width: float, height: float, label: str, parts: list[str]) -> str:
    return (f'<svg class="chart" role="img" aria-label="{esc(label)}" viewBox="0 0 {width:g} {height:g}" '
            f'width="{width:g}" height="{height:g}" xmlns="http://www.w3.org/2000/svg">'
            f'<title>{esc(label)}</title>' + "".join(parts) + "</svg>")


def elo_chart(entries: Sequence[tuple[str, float, float, float]], width: int = 640) -> str:
    """Each engine's Elo as a dot on its 95% interval: entries are (name, elo, low, high); an
    unbounded end is drawn dashed to the chart's edge."""
    if not entries:
        return ""
    left = _label_width([name for name, *_ in entries])
    finite = [v for _, elo, low, high in entries for v in (elo, low, high) if math.isfinite(v)] or [0.0]
    axis = _Axis(min(finite + [0.0]), max(finite + [0.0]), left, width - 20)
    height = 10 + ROW * len(entries) + 26
    bottom = height - 26
    parts = axis.draw(6, bottom, "")
    parts.append(f'<line class="zero" x1="{axis.x(0)}" y1="6" x2="{axis.x(0)}" y2="{bottom}"/>')
    for row, (name, elo, low, high) in enumerate(entries):
        y = 10 + ROW * row + ROW / 2
        open_end = " open" if not (math.isfinite(low) and math.isfinite(high)) else ""
        parts.append(f'<text class="label" x="{left - 8}" y="{y + 4}">{esc(name)}</text>')
        parts.append(f'<line class="ci{open_end}" x1="{axis.x(low)}" y1="{y}" x2="{axis.x(high)}" y2="{y}"/>')
        for end in (low, high):
            if math.isfinite(end):
                parts.append(f'<line class="ci" x1="{axis.x(end)}" y1="{y - 5}" x2="{axis.x(end)}" y2="{y + 5}"/>')
        parts.append(f'<circle class="pt" cx="{axis.x(elo)}" cy="{y}" r="4"><title>{esc(name)}: {elo:+.0f} '
                     f'[{low:+.0f}, {high:+.0f}]</title></circle>')
    return _svg(width, height, "Elo ratings with 95% intervals", parts)


def stacked_bars(rows: Sequence[tuple[str, Sequence[tuple[str, int]]]], label: str, width: int = 640) -> str:
    """One horizontal bar per row, made of (kind, count) segments, each with the CSS class v-KIND."""
    if not rows:
        return ""
    left = _label_width([name for name, _ in rows])
    most = max([sum(count for _, count in segments) for _, segments in rows] + [1])
    axis = _Axis(0, most, left, width - 20, whole=True)
    height = 10 + ROW * len(rows) + 26
    bottom = height - 26
    parts = axis.draw(6, bottom)
    for row, (name, segments) in enumerate(rows):
        y = 10 + ROW * row + 4
        parts.append(f'<text class="label" x="{left - 8}" y="{y + 12}">{esc(name)}</text>')
        start = 0
        for kind, count in segments:
            if count:
                x0, x1 = axis.x(start), axis.x(start + count)
                parts.append(f'<rect class="v-{esc(kind)}" x="{x0}" y="{y}" width="{round(x1 - x0, 1)}" height="{ROW - 8}">'
                             f'<title>{esc(name)}: {count} {esc(kind)}</title></rect>')
                start += count
    return _svg(width, height, label, parts)


def box_plot(rows: Sequence[tuple[str, Sequence[float]]], limit: float, width: int = 640) -> str:
    """Move-time distributions: per row the quantiles (min, p10, p25, median, p75, p90, max) as a
    box from p25 to p75, whiskers to p10 and p90, dots at min and max; the time limit dashed."""
    rows = [(name, q) for name, q in rows if q]
    if not rows:
        return ""
    left = _label_width([name for name, _ in rows])
    high = max([q[-1] for _, q in rows] + [limit])
    axis = _Axis(0, high * 1.02, left, width - 20)
    height = 10 + ROW * len(rows) + 26
    bottom = height - 26
    parts = axis.draw(6, bottom, " s")
    for row, (name, (low, p10, p25, median, p75, p90, peak)) in enumerate(rows):
        y = 10 + ROW * row + ROW / 2
        parts.append(f'<text class="label" x="{left - 8}" y="{y + 4}">{esc(name)}</text>')
        parts.append(f'<line class="whisker" x1="{axis.x(p10)}" y1="{y}" x2="{axis.x(p90)}" y2="{y}"/>')
        parts.append(f'<rect class="box" x="{axis.x(p25)}" y="{y - 7}" width="{round(axis.x(p75) - axis.x(p25), 1)}" '
                     f'height="14"><title>{esc(name)}: median {median:.3f} s, p25-p75 {p25:.3f}-{p75:.3f} s, '
                     f'p10-p90 {p10:.3f}-{p90:.3f} s, min {low:.3f} s, max {peak:.3f} s</title></rect>')
        parts.append(f'<line class="median" x1="{axis.x(median)}" y1="{y - 7}" x2="{axis.x(median)}" y2="{y + 7}"/>')
        parts += [f'<circle class="pt" cx="{axis.x(end)}" cy="{y}" r="2"/>' for end in (low, peak)]
    if limit > 0:
        x = axis.x(limit)
        parts.append(f'<line class="limit" x1="{x}" y1="4" x2="{x}" y2="{bottom}"><title>the time limit, '
                     f'{limit:g} s</title></line>')
    return _svg(width, height, "Seconds per move by engine", parts)


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
