"""The diagram's geometry: sizes at the page's scale, rectangles, how wide a text is
drawn, wrapping a state's name, bringing the editor's layout to the page, and finding a
place for a label (or a step's number) where no state and no other label hides it.

Pure: text widths are estimated from character classes (a browser draws the text, and
the estimate errs wide).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

BOX_W = 120  # a state's box on the page
BOX_H = 44
GAP = 26  # the least room left between two boxes: an arrowhead's
FONT = 13  # a state's name (units = CSS px at the natural size)
LINE = 15  # between the two lines of a wrapped state name
LABEL_FONT = 12  # an arrow's label
LABEL_H = 17
LABEL_PAD = 4  # the label's background reaches this far beyond its text
MARGIN = 10
# A label keeps this far from every state (the current one wears a ring this wide).
CLEARANCE = 7
HALO = 5  # the current state's ring, outside its box
MAX_LABEL_CHARS = 32
# An arrow and its twin going back are drawn this far apart, so both show.
TWIN_OFFSET = 6.0


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    def overlap(self, other: Rect, pad: float = 0.0) -> float:
        """The area the two share once ``self`` is grown by ``pad`` on every side."""
        across = min(self.right + pad, other.right) - max(self.x - pad, other.x)
        down = min(self.bottom + pad, other.bottom) - max(self.y - pad, other.y)
        return across * down if across > 0 and down > 0 else 0.0


def text_width(text: str, size: float) -> float:
    """About how wide ``text`` is drawn at ``size``: ideographs are square, capitals and
    lower case about 0.7 and 0.6 of the size, spaces and narrow marks less."""
    width = 0.0
    for char in text:
        if unicodedata.east_asian_width(char) in ("W", "F"):
            width += 1.0
        elif char in " .,:;'|!il()[]":
            width += 0.35
        elif char.isupper():
            width += 0.72
        else:
            width += 0.6
    return width * size


def shorten(text: str, size: float, room: float) -> str:
    # No character is narrower than 0.35 of the size: more than this never fits.
    text = text[: int(room / (0.35 * size)) + 2]
    if text_width(text, size) <= room:
        return text
    while text and text_width(text + "…", size) > room:
        text = text[:-1]
    return text.rstrip() + "…"


def wrap(text: str, size: float, room: float, max_lines: int = 2) -> tuple[str, ...]:
    """``text`` in lines no wider than ``room``: broken at spaces, or anywhere in a word
    too long for a line (Chinese has no spaces); the last line shortened with "…"."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if text_width(candidate, size) <= room:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        for char in word:
            if line and text_width(line + char, size) > room:
                lines.append(line)
                line = ""
            line += char
    if line:
        lines.append(line)
    if len(lines) <= max_lines:
        return tuple(lines)
    kept = lines[: max_lines - 1]
    rest = " ".join(lines[max_lines - 1 :])
    return (*kept, shorten(rest + " …", size, room))


def scale(centres: list[tuple[float, float]]) -> float:
    """The factor bringing the editor's centres as close as they can come while every
    two boxes stay apart by ``GAP`` across or down."""
    need = 0.0
    for i, (ax, ay) in enumerate(centres):
        for bx, by in centres[i + 1 :]:
            dx, dy = abs(ax - bx), abs(ay - by)
            if not dx and not dy:
                continue  # drawn on top of each other in the editor too
            across = (BOX_W + GAP) / dx if dx else math.inf
            down = (BOX_H + GAP) / dy if dy else math.inf
            need = max(need, min(across, down))
    return min(max(need, 0.25), 2.0)


def exit_point(box: Rect, px: float, py: float, dx: float, dy: float) -> tuple[float, float]:
    """Where the ray from (px, py), inside ``box``, along (dx, dy) leaves it."""
    t = math.inf
    if dx:
        t = min(t, ((box.right if dx > 0 else box.x) - px) / dx)
    if dy:
        t = min(t, ((box.bottom if dy > 0 else box.y) - py) / dy)
    t = max(t, 0.0)
    return px + dx * t, py + dy * t


def candidates(
    x1: float,
    y1: float,
    x2: float,
    y2: float,
    w: float,
    h: float,
    ends: tuple[Rect, Rect],
    near: tuple[float, ...] | None = None,
) -> Iterable[Rect]:
    """Where an arrow's label may go, best first: on the arrow near its middle (or at
    the fractions ``near``), beside it, then clear above or below (or beside) both of
    its states."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    nx, ny = -uy, ux
    beside = abs(nx) * w / 2 + abs(ny) * h / 2 + 3
    for t in near or (0.5, 0.38, 0.62, 0.26, 0.74):
        mx, my = x1 + (x2 - x1) * t, y1 + (y2 - y1) * t
        for shift in (0.0, beside, -beside):
            cx, cy = mx + nx * shift, my + ny * shift
            yield Rect(cx - w / 2, cy - h / 2, w, h)
    a, b = ends
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    yield Rect(mx - w / 2, min(a.y, b.y) - h - CLEARANCE, w, h)
    yield Rect(mx - w / 2, max(a.bottom, b.bottom) + CLEARANCE, w, h)
    yield Rect(max(a.right, b.right) + CLEARANCE, my - h / 2, w, h)
    yield Rect(min(a.x, b.x) - w - CLEARANCE, my - h / 2, w, h)


class Index:
    """Rectangles bucketed by a coarse grid, so a candidate is compared only with its
    neighbours (a flow of 64 states and 256 arrows is drawn in well under a second)."""

    CELL = 96.0

    def __init__(self, rects: Iterable[Rect] = ()) -> None:
        self._cells: dict[tuple[int, int], list[Rect]] = {}
        for rect in rects:
            self.add(rect)

    def _keys(self, rect: Rect, pad: float) -> Iterable[tuple[int, int]]:
        x0, x1 = math.floor((rect.x - pad) / self.CELL), math.floor((rect.right + pad) / self.CELL)
        y0, y1 = math.floor((rect.y - pad) / self.CELL), math.floor((rect.bottom + pad) / self.CELL)
        return ((i, j) for i in range(x0, x1 + 1) for j in range(y0, y1 + 1))

    def add(self, rect: Rect) -> None:
        for key in self._keys(rect, 0.0):
            self._cells.setdefault(key, []).append(rect)

    def near(self, rect: Rect, pad: float) -> list[Rect]:
        found: dict[int, Rect] = {}
        for key in self._keys(rect, pad):
            for other in self._cells.get(key, ()):
                found[id(other)] = other
        return list(found.values())


def place(options: Iterable[Rect], boxes: Index, placed: Index) -> Rect:
    """The first option clear of every state and every label placed so far; when none
    is, the one hiding least."""
    best: Rect | None = None
    best_cost = math.inf
    for option in options:
        cost = sum(option.overlap(b, CLEARANCE - 1) for b in boxes.near(option, CLEARANCE)) * 4
        cost += sum(option.overlap(p, 2) for p in placed.near(option, 2))
        if cost == 0:
            return option
        if cost < best_cost:
            best, best_cost = option, cost
    assert best is not None  # there is always an option
    return best
