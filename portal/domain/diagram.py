"""The pinned flow as a small diagram on the document page: where each state sits,
an arrow for each pair of states a transition joins, each arrow's label placed where no
state hides it, the current state marked — and, on the audit timeline, the path the
document actually took: the states it visited and the arrows it followed, each arrow
numbered with the steps that took it.

The editor's layout decides the arrangement (an admin put the states where they make
sense); this module only draws it at the page's size. The boxes are smaller than the
editor's, and the editor's centres are brought as close together as they can come while
every pair of boxes keeps room for an arrowhead between them — so the seeded expense
claim fits a desktop page at its natural size (one unit of the drawing is one CSS pixel,
so the text is as large as written here) and a phone scrolls it sideways in its own box.
The geometry (sizes, wrapping, placing labels) is ``domain.diagram_geometry``.

Pure: the caller passes the reader's locale.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from portal.domain.diagram_geometry import (
    BOX_H,
    BOX_W,
    CLEARANCE,
    FONT,
    HALO,
    LABEL_FONT,
    LABEL_H,
    LABEL_PAD,
    LINE,
    MARGIN,
    MAX_LABEL_CHARS,
    TWIN_OFFSET,
    Index,
    Rect,
    candidates,
    exit_point,
    place,
    scale,
    shorten,
    text_width,
    wrap,
)
from portal.domain.graph import Graph, StateRole
from portal.domain.layout import STATE_BOX_HEIGHT, STATE_BOX_WIDTH

# Re-exported: the pages and the tests take them from here.
__all__ = [
    "CLEARANCE",
    "FONT",
    "HALO",
    "LABEL_FONT",
    "Arrow",
    "Diagram",
    "Rect",
    "StateBox",
    "draw",
    "state_tone",
    "text_width",
    "wrap",
]

STEP_FONT = 11  # a step's number on a taken arrow
STEP_H = 15
STEP_PAD = 4
STEP_SLIVER = 3  # how far a step's number may reach into a state's box


@dataclass(frozen=True, slots=True)
class StateBox:
    key: str
    box: Rect
    # The name, wrapped to at most two lines, each with its baseline.
    lines: tuple[tuple[str, float], ...]
    name: str  # the whole name (a tooltip when the lines shortened it)
    shortened: bool
    tone: str  # the state's role, as every state chip shows it
    current: bool
    # On the path drawn (``draw``'s ``path``): the document was here at some point;
    # ``start``: where it began.
    visited: bool = False
    start: bool = False


@dataclass(frozen=True, slots=True)
class Arrow:
    x1: float
    y1: float
    x2: float
    y2: float
    label: str
    full_label: str
    label_box: Rect
    # Leaves the current state: one of the steps the document may take next.
    next_step: bool
    # The states it joins (keys).
    from_state: str = ""
    to_state: str = ""
    # The steps of the path drawn that followed this arrow (1 = the first move), and
    # where their numbers go.
    steps: tuple[int, ...] = ()
    step_box: Rect | None = None

    @property
    def taken(self) -> bool:
        return bool(self.steps)

    @property
    def step_text(self) -> str:
        return ", ".join(str(n) for n in self.steps)

    @property
    def step_y(self) -> float:
        box = self.step_box or self.label_box
        return box.cy + STEP_FONT * 0.35

    @property
    def label_x(self) -> float:
        return self.label_box.cx

    @property
    def label_y(self) -> float:
        # The baseline that centres the text in its box.
        return self.label_box.cy + LABEL_FONT * 0.35


@dataclass(frozen=True, slots=True)
class Diagram:
    left: float
    top: float
    width: float
    height: float
    boxes: tuple[StateBox, ...]
    arrows: tuple[Arrow, ...]


def state_tone(role: str) -> str:
    """The tone a state of this role is shown in (a class name's suffix: only known
    roles, whatever the graph says)."""
    return role if role in StateRole.ALL else StateRole.CUSTOM


def _bead(options: Iterable[Rect], boxes: Index, labels: Index) -> Rect:
    """Where a step's number goes: the first option on its arrow that hides no label and
    at most a sliver of a state (two states a short arrow joins leave little room, and a
    number beside the arrow would seem to name another); else the one hiding least."""
    best: Rect | None = None
    best_cost = math.inf
    for option in options:
        over_states = sum(option.overlap(b) for b in boxes.near(option, 0))
        over_labels = sum(option.overlap(p, 1) for p in labels.near(option, 1))
        if over_labels == 0 and over_states <= STEP_SLIVER * option.h:
            return option
        cost = over_states * 4 + over_labels
        if cost < best_cost:
            best, best_cost = option, cost
    assert best is not None  # there is always an option
    return best


def draw(
    graph: Graph,
    current: str,
    locale: str,
    path: Sequence[tuple[str, str]] | None = None,
) -> Diagram:
    """The diagram of ``graph`` in ``locale``, the state ``current`` marked; with
    ``path`` (the moves a document made, (from, to) in order), the states it visited
    and the arrows it followed marked, each arrow numbered with its steps."""
    moves = [(a, b) for a, b in path or () if a != b]
    visited = {key for move in moves for key in move}
    if path is not None and not moves:
        visited.add(current)  # it never moved: it visited where it is
    start = moves[0][0] if moves else (current if path is not None else None)
    steps_of: dict[tuple[str, str], list[int]] = {}
    for n, move in enumerate(moves, start=1):
        steps_of.setdefault(move, []).append(n)
    centres = [(s.x + STATE_BOX_WIDTH / 2, s.y + STATE_BOX_HEIGHT / 2) for s in graph.states]
    k = scale(centres)
    rects: dict[str, Rect] = {}
    boxes: list[StateBox] = []
    for s, (cx, cy) in zip(graph.states, centres, strict=True):
        rect = Rect(cx * k - BOX_W / 2, cy * k - BOX_H / 2, BOX_W, BOX_H)
        rects.setdefault(s.key, rect)
        name = s.labels.text(locale) or s.key
        lines = wrap(name, FONT, BOX_W - 12)
        first = rect.cy - (len(lines) - 1) * LINE / 2 + FONT * 0.35
        boxes.append(
            StateBox(
                key=s.key,
                box=rect,
                lines=tuple((text, first + i * LINE) for i, text in enumerate(lines)),
                name=name,
                shortened=bool(lines) and lines[-1].endswith("…") and not name.endswith("…"),
                tone=state_tone(s.role),
                current=s.key == current,
                visited=s.key in visited,
                start=s.key == start,
            )
        )

    # One arrow per pair of states, labelled with every action that joins them.
    pairs: dict[tuple[str, str], list[str]] = {}
    for t in graph.transitions:
        if t.from_state == t.to_state or t.from_state not in rects or t.to_state not in rects:
            continue
        names = pairs.setdefault((t.from_state, t.to_state), [])
        name = t.labels.text(locale) or t.key
        if name not in names:
            names.append(name)

    segments = []
    for (a_key, b_key), names in pairs.items():
        a, b = rects[a_key], rects[b_key]
        dx, dy = b.cx - a.cx, b.cy - a.cy
        length = math.hypot(dx, dy)
        if not length:
            continue
        ux, uy = dx / length, dy / length
        shift = TWIN_OFFSET if (b_key, a_key) in pairs else 0.0
        ox, oy = -uy * shift, ux * shift
        x1, y1 = exit_point(a, a.cx + ox, a.cy + oy, ux, uy)
        x2, y2 = exit_point(b, b.cx + ox, b.cy + oy, -ux, -uy)
        segments.append((a_key, b_key, " / ".join(names), x1, y1, x2, y2))

    # Arrows with the same action into the same state ("Reject" from every step) share
    # one label, near where they meet; the current state's exits keep their own.
    groups: dict[tuple[str, str, bool], list[int]] = {}
    for i, (a_key, b_key, full, *_ends) in enumerate(segments):
        groups.setdefault((b_key, full, a_key == current), []).append(i)

    def span(i: int) -> float:
        _a, _b, _full, x1, y1, x2, y2 = segments[i]
        return math.hypot(x2 - x1, y2 - y1)

    # Short arrows choose first: they have the fewest places to put a label.
    state_rects = list(rects.values())
    state_index, label_index = Index(state_rects), Index()
    placed: list[Rect] = []
    label_boxes: dict[int, tuple[str, Rect]] = {}
    for members in sorted(groups.values(), key=lambda m: min(span(i) for i in m)):
        a_key, b_key, full, *_ends = segments[members[0]]
        text = shorten(full, LABEL_FONT, text_width("M", LABEL_FONT) * MAX_LABEL_CHARS)
        w, h = text_width(text, LABEL_FONT) + 2 * LABEL_PAD, LABEL_H
        options: list[Rect] = []
        for i in sorted(members, key=span):
            _a, _b, _full, x1, y1, x2, y2 = segments[i]
            near = (0.72, 0.8, 0.62) if len(members) > 1 else None
            ends = (rects[segments[i][0]], rects[b_key])
            options.extend(candidates(x1, y1, x2, y2, w, h, ends, near))
        spot = place(options, state_index, label_index)
        placed.append(spot)
        label_index.add(spot)
        label_boxes[members[0]] = (text, spot)

    # The path's step numbers, on each arrow taken (clear of the labels).
    step_boxes: dict[int, Rect] = {}
    for i, (a_key, b_key, _full, x1, y1, x2, y2) in enumerate(segments):
        steps = steps_of.get((a_key, b_key))
        if not steps:
            continue
        text = ", ".join(str(n) for n in steps)
        w = max(text_width(text, STEP_FONT) + 2 * STEP_PAD, STEP_H)
        ends = (rects[a_key], rects[b_key])
        beads = candidates(x1, y1, x2, y2, w, STEP_H, ends, (0.3, 0.5, 0.7, 0.2, 0.8))
        spot = _bead(beads, state_index, label_index)
        placed.append(spot)
        label_index.add(spot)
        step_boxes[i] = spot

    arrows = tuple(
        Arrow(
            x1=round(x1, 1),
            y1=round(y1, 1),
            x2=round(x2, 1),
            y2=round(y2, 1),
            label=label_boxes[i][0] if i in label_boxes else "",
            full_label=full,
            label_box=label_boxes[i][1] if i in label_boxes else Rect(x1, y1, 0, 0),
            next_step=a_key == current,
            from_state=a_key,
            to_state=b_key,
            steps=tuple(steps_of.get((a_key, b_key), ())),
            step_box=step_boxes.get(i),
        )
        for i, (a_key, b_key, full, x1, y1, x2, y2) in enumerate(segments)
    )
    everything = [*state_rects, *placed]
    if not everything:
        return Diagram(0, 0, 2 * MARGIN, 2 * MARGIN, (), ())
    left = min(r.x for r in everything) - MARGIN
    top = min(r.y for r in everything) - MARGIN
    right = max(r.right for r in everything) + MARGIN
    bottom = max(r.bottom for r in everything) + MARGIN
    return Diagram(
        left=round(left, 1),
        top=round(top, 1),
        width=math.ceil(right - left),
        height=math.ceil(bottom - top),
        boxes=tuple(boxes),
        arrows=arrows,
    )
