"""Charts as pure geometry: rectangles, lines and texts in an SVG user space, which a
template draws with classes only (the CSP allows no inline styles). No numbers are
formatted here beyond durations: callers pass the words (tick labels, value labels) in
the reader's language.

Two shapes, each read at a glance:

- **Bars** (``bar_chart``): one row per item, its name on a line of its own above the
  bar (so a long state or member name never collides with anything), up to two series
  drawn over each other from zero — the larger one behind, the smaller one thinner in
  front (a p90 behind its median, the overdue part of those waiting) — and the value
  written after the bar, or inside it when the bar reaches the edge.
- **Columns** (``column_chart``): categories along the bottom (the weeks), the series
  side by side in each, the labels thinned to every k-th so that none overlaps.

Axes get "nice" ticks: 1, 2 or 5 times a power of ten for counts, human steps (an hour,
six hours, a day, a week …) for durations. Text widths are estimated (0.6 em a
character, 1 em for the wide characters of Chinese), generously enough that labels
placed apart never touch.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

WIDTH = 400
FONT = 13  # the text size the stylesheet sets, in user units
PAD = 8
BAR = 18
GAP = 12
COLUMNS_HEIGHT = 180
ELLIPSIS = "…"

# --- durations ---------------------------------------------------------------------------

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR
# The unit names, by key; the page passes them in the reader's language.
UNIT_NAMES: Mapping[str, str] = {"d": "d", "h": "h", "min": "min", "s": "s"}
# Steps a duration axis may take, in seconds.
DURATION_STEPS = (
    MINUTE,
    5 * MINUTE,
    15 * MINUTE,
    30 * MINUTE,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    6 * HOUR,
    12 * HOUR,
    DAY,
    2 * DAY,
    7 * DAY,
    14 * DAY,
    30 * DAY,
    90 * DAY,
    180 * DAY,
    365 * DAY,
)


def duration_parts(seconds: float) -> tuple[tuple[int, str], ...]:
    """At most two units, the larger first, the smaller rounded: 273,600 s ->
    ((3, "d"), (4, "h")); under a minute, seconds; under an hour, whole minutes."""
    s = max(0, round(seconds))
    if s < MINUTE:
        return ((s, "s"),)
    if s < HOUR:
        minutes = round(s / MINUTE)
        if minutes < 60:
            return ((minutes, "min"),)
        s = HOUR
    if s < DAY:
        hours, minutes = divmod(round(s / MINUTE), 60)
        if hours < 24:
            return _nonzero((hours, "h"), (minutes, "min"))
        s = DAY
    days, hours = divmod(round(s / HOUR), 24)
    return _nonzero((days, "d"), (hours, "h"))


def _nonzero(first: tuple[int, str], second: tuple[int, str]) -> tuple[tuple[int, str], ...]:
    return (first, second) if second[0] else (first,)


def human_duration(seconds: float, names: Mapping[str, str] = UNIT_NAMES) -> str:
    """``"3 d 4 h"``; ``names`` gives each unit's abbreviation in the reader's language."""
    return " ".join(f"{amount} {names.get(unit, unit)}" for amount, unit in duration_parts(seconds))


# --- ticks ---------------------------------------------------------------------------------


def nice_step(raw: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten that is at least ``raw`` (> 0)."""
    base = 10.0 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5, 10):
        if raw <= multiple * base * (1 + 1e-9):
            return float(multiple * base)
    return 10.0 * base  # pragma: no cover - the loop always returns


def nice_ticks(maximum: float, target: int = 5, *, whole: bool = True) -> list[float]:
    """Ticks from 0 to the first nice value at or above ``maximum``, about ``target``
    steps; whole numbers only when ``whole`` (counts)."""
    if maximum <= 0:
        return [0.0, 1.0]
    step = nice_step(maximum / target)
    if whole:
        step = max(step, 1.0)
    steps = math.ceil(maximum / step - 1e-9)
    return [i * step for i in range(steps + 1)]


def duration_ticks(maximum_seconds: float, target: int = 5) -> list[float]:
    """Ticks in human steps (a multiple of a year beyond the longest step)."""
    if maximum_seconds <= 0:
        return [0.0, float(HOUR)]
    step = next((s for s in DURATION_STEPS if maximum_seconds / s <= target), None)
    if step is None:
        step = math.ceil(maximum_seconds / target / DURATION_STEPS[-1]) * DURATION_STEPS[-1]
    steps = math.ceil(maximum_seconds / step - 1e-9)
    return [float(i * step) for i in range(steps + 1)]


# --- text ----------------------------------------------------------------------------------


def text_width(text: str, size: float = FONT) -> float:
    """An estimate of the drawn width: 0.6 em a character, 1 em for wide ones."""
    ems = sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in text)
    return ems * size


def fit_text(text: str, width: float, size: float = FONT) -> str:
    """``text`` cut (with an ellipsis) to fit ``width``; whole when it fits."""
    if text_width(text, size) <= width:
        return text
    room = width - text_width(ELLIPSIS, size)
    kept = ""
    for char in text:
        if text_width(kept + char, size) > room:
            break
        kept += char
    return kept.rstrip() + ELLIPSIS


def label_step(widths: Sequence[float], pitch: float, gap: float = 6.0) -> int:
    """Show every k-th of labels centred ``pitch`` apart: the smallest k at which the
    widest never reaches its neighbour."""
    widest = max(widths, default=0.0)
    if pitch <= 0:
        return 1
    return max(1, math.ceil((widest + gap) / pitch))


# --- shapes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float
    css: str
    # What a pointer hovering it is told (the exact figure).
    title: str = ""


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    css: str


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    # "start", "middle" or "end" (SVG's text-anchor, drawn as an attribute).
    anchor: str
    css: str


@dataclass(frozen=True)
class Chart:
    width: float
    height: float
    rects: tuple[Rect, ...] = ()
    lines: tuple[Line, ...] = ()
    texts: tuple[Text, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.rects


@dataclass(frozen=True)
class BarRow:
    label: str
    # One value per series, the first the largest (drawn behind).
    values: tuple[float, ...]
    # Written after the bar: the figures in words.
    value_text: str
    # Each series' exact figure, for the hover title.
    titles: tuple[str, ...] = ()


def _scale(ticks: Sequence[float], span: float) -> Callable[[float], float]:
    top = ticks[-1] if ticks and ticks[-1] > 0 else 1.0
    return lambda value: max(0.0, min(value, top)) / top * span


def bar_chart(
    rows: Sequence[BarRow],
    *,
    series: Sequence[str],
    ticks: Sequence[float],
    tick_label: Callable[[float], str],
    width: float = WIDTH,
) -> Chart:
    """Horizontal bars, one row per item (see the module's note). ``series`` names the
    css class of each value's bar, the first drawn behind."""
    if not rows:
        return Chart(width, 0)
    span = width - 2 * PAD
    x_of = _scale(ticks, span)
    pitch = FONT + 4 + BAR + GAP
    bottom = PAD + pitch * len(rows)
    rects: list[Rect] = []
    texts: list[Text] = []
    for i, row in enumerate(rows):
        top = PAD + i * pitch
        # Just right of the axis line, which runs the chart's whole height.
        texts.append(Text(PAD + 4, top + FONT, fit_text(row.label, span - 4), "start", "bar-label"))
        bar_y = top + FONT + 4
        for n, value in enumerate(row.values):
            # Each series after the first is drawn thinner, in front.
            inset = 0.0 if n == 0 else BAR * 0.2
            title = row.titles[n] if n < len(row.titles) else ""
            bar_width = x_of(value)
            if bar_width > 0:
                rects.append(
                    Rect(PAD, bar_y + inset, bar_width, BAR - 2 * inset, f"bar {series[n]}", title)
                )
        texts.append(_value_text(row, x_of(max(row.values, default=0.0)), bar_y, width, series[0]))
    lines, tick_texts = _vertical_ticks(ticks, x_of, PAD, bottom, tick_label, width)
    return Chart(
        width,
        bottom + FONT + 8,
        tuple(rects),
        tuple(lines),
        tuple(texts + tick_texts),
    )


def _value_text(row: BarRow, bar_end: float, bar_y: float, width: float, behind: str) -> Text:
    baseline = bar_y + BAR / 2 + FONT * 0.35
    outside = PAD + bar_end + 6
    if outside + text_width(row.value_text) <= width - PAD:
        return Text(outside, baseline, row.value_text, "start", "bar-value")
    # The bar reaches the edge: the words go inside its end, in the colour that reads on
    # the series drawn behind (``on-<series>`` in the stylesheet).
    room = max(bar_end - 12, FONT)
    return Text(
        PAD + bar_end - 6,
        baseline,
        fit_text(row.value_text, room),
        "end",
        f"bar-value inside on-{behind}",
    )


def _vertical_ticks(
    ticks: Sequence[float],
    x_of: Callable[[float], float],
    top: float,
    bottom: float,
    tick_label: Callable[[float], str],
    width: float,
) -> tuple[list[Line], list[Text]]:
    labels = [tick_label(t) for t in ticks]
    pitch = x_of(ticks[1]) - x_of(ticks[0]) if len(ticks) > 1 else width
    step = label_step([text_width(label) for label in labels], pitch)
    lines, texts = [], []
    for i, (tick, label) in enumerate(zip(ticks, labels, strict=True)):
        x = PAD + x_of(tick)
        lines.append(Line(x, top, x, bottom, "grid" if i else "axis"))
        if i % step == 0:
            # The first label starts at the axis and the last ends at the edge: inside.
            anchor = "start" if i == 0 else "end" if i == len(ticks) - 1 else "middle"
            texts.append(Text(x, bottom + FONT + 2, label, anchor, "tick"))
    return lines, texts


@dataclass(frozen=True)
class ColumnGroup:
    label: str
    values: tuple[float, ...]
    titles: tuple[str, ...] = ()


def column_chart(
    groups: Sequence[ColumnGroup],
    *,
    series: Sequence[str],
    ticks: Sequence[float],
    tick_label: Callable[[float], str],
    width: float = WIDTH,
    height: float = COLUMNS_HEIGHT,
) -> Chart:
    """Columns, the series side by side in each group; horizontal grid lines at the
    ticks, their labels on the left; the groups' labels below, every k-th."""
    if not groups:
        return Chart(width, 0)
    tick_labels = [tick_label(t) for t in ticks]
    left = PAD + max(text_width(label) for label in tick_labels) + 6
    plot_width = width - left - PAD
    bottom = PAD + FONT / 2 + height
    y_of = _scale(ticks, height)
    pitch = plot_width / len(groups)
    column = pitch * 0.8 / max(1, len(series))
    lines: list[Line] = []
    texts: list[Text] = []
    for tick, label in zip(ticks, tick_labels, strict=True):
        y = bottom - y_of(tick)
        lines.append(Line(left, y, width - PAD, y, "grid" if tick else "axis"))
        texts.append(Text(left - 6, y + FONT * 0.35, label, "end", "tick"))
    rects: list[Rect] = []
    for i, group in enumerate(groups):
        x0 = left + i * pitch + pitch * 0.1
        for n, value in enumerate(group.values):
            h = y_of(value)
            if h > 0:
                title = group.titles[n] if n < len(group.titles) else ""
                rects.append(
                    Rect(x0 + n * column, bottom - h, column, h, f"column {series[n]}", title)
                )
    step = label_step([text_width(g.label) for g in groups], pitch)
    for i, group in enumerate(groups):
        if i % step == 0:
            # Kept inside the picture: a first label wider than its column may reach
            # under the tick labels (they sit higher), never past the edge.
            half = text_width(group.label) / 2
            x = min(max(left + (i + 0.5) * pitch, PAD + half), width - PAD - half)
            texts.append(Text(x, bottom + FONT + 4, group.label, "middle", "tick"))
    return Chart(width, bottom + FONT + 10, tuple(rects), tuple(lines), tuple(texts))
