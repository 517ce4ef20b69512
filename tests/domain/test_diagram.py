"""The document page's diagram: readable at its natural size, every arrow labelled where
no state hides the label, the current state marked, each state in its role's tone."""

from __future__ import annotations

from dataclasses import replace

import pytest

from portal.domain.diagram import (
    FONT,
    HALO,
    LABEL_FONT,
    Rect,
    draw,
    state_tone,
    text_width,
    wrap,
)
from portal.domain.graph import Graph, StateRole
from portal.flows.seeded import seeded_graphs
from portal.flows.seeded.claims import expense_claim

GRAPHS = {g.kind: g for g in seeded_graphs("MYR")}
# What the panel of a desktop page (1366 px wide) leaves the diagram.
DESKTOP_PANEL = 1060


def _pairs(graph: Graph) -> set[tuple[str, str]]:
    return {(t.from_state, t.to_state) for t in graph.transitions if t.from_state != t.to_state}


def test_the_seeded_expense_claim_fits_a_desktop_panel_at_its_natural_size():
    diagram = draw(GRAPHS["expense_claim"], "pending_review", "en")
    assert diagram.width <= DESKTOP_PANEL
    # Drawn at one unit per pixel: the text is as large as written, never scaled down.
    assert FONT >= 11 and LABEL_FONT >= 11


@pytest.mark.parametrize("kind", sorted(GRAPHS))
@pytest.mark.parametrize("locale", ["en", "zh", "ms"])
def test_no_label_is_hidden_by_a_state_or_another_label(kind, locale):
    graph = GRAPHS[kind]
    diagram = draw(graph, graph.states[0].key, locale)
    labels = [a.label_box for a in diagram.arrows if a.label]
    assert labels, "the arrows are labelled"
    for label in labels:
        # Clear of the ring the current state wears, too.
        assert all(label.overlap(s.box, HALO) == 0 for s in diagram.boxes)
    for i, one in enumerate(labels):
        assert all(one.overlap(other) == 0 for other in labels[i + 1 :])
    # Every box and every label lies inside the drawing.
    frame = Rect(diagram.left, diagram.top, diagram.width, diagram.height)
    for rect in [*labels, *(s.box for s in diagram.boxes)]:
        assert rect.x >= frame.x and rect.y >= frame.y
        assert rect.right <= frame.right and rect.bottom <= frame.bottom


@pytest.mark.parametrize("kind", sorted(GRAPHS))
def test_no_two_states_overlap(kind):
    boxes = [s.box for s in draw(GRAPHS[kind], "draft", "en").boxes]
    for i, one in enumerate(boxes):
        assert all(one.overlap(other) == 0 for other in boxes[i + 1 :])


def test_each_action_is_named_in_the_readers_language():
    graph = GRAPHS["expense_claim"]
    english = {a.label for a in draw(graph, "draft", "en").arrows}
    chinese = {a.label for a in draw(graph, "draft", "zh").arrows}
    assert {"Submit", "Mark reviewed", "Approve", "Confirm receipt", "Uphold dispute"} <= english
    assert {"提交", "批准", "确认收款"} <= chinese
    # Arrows with one action into one state ("Reject" from three steps) share one label.
    assert sum(1 for a in draw(graph, "draft", "en").arrows if a.label == "Reject") == 1


def test_every_pair_of_states_a_transition_joins_has_an_arrow():
    graph = GRAPHS["expense_claim"]
    diagram = draw(graph, "draft", "en")
    assert len(diagram.arrows) == len(_pairs(graph))
    # Received and Disputed lead to each other: the two arrows are drawn apart.
    boxes = {s.key: s.box for s in diagram.boxes}
    between = [
        a
        for a in diagram.arrows
        if boxes["received"].overlap(Rect(a.x1 - 1, a.y1 - 1, 2, 2))
        or boxes["received"].overlap(Rect(a.x2 - 1, a.y2 - 1, 2, 2))
    ]
    twins = [a for a in between if boxes["disputed"].overlap(Rect(a.x1 - 1, a.y1 - 1, 2, 2))]
    back = [a for a in between if boxes["disputed"].overlap(Rect(a.x2 - 1, a.y2 - 1, 2, 2))]
    assert len(twins) == 1 and len(back) == 1
    assert (twins[0].x2, twins[0].y2) != (back[0].x1, back[0].y1)


def test_the_current_state_and_its_exits_are_marked():
    diagram = draw(GRAPHS["expense_claim"], "reviewed", "en")
    assert [s.key for s in diagram.boxes if s.current] == ["reviewed"]
    nexts = {a.label for a in diagram.arrows if a.next_step}
    assert {"Approve", "Reject", "Withdraw"} <= nexts
    # Elsewhere nothing is marked.
    assert not any(s.current for s in draw(GRAPHS["expense_claim"], "gone", "en").boxes)


def test_states_take_their_roles_tone_and_rejected_is_not_received():
    diagram = draw(GRAPHS["expense_claim"], "draft", "en")
    tones = {s.key: s.tone for s in diagram.boxes}
    assert tones["rejected"] == "rejected" and tones["received"] == "acknowledged"
    assert tones["completed"] == "payout" and tones["category_verified"] == "accrual"
    assert len({tones[k] for k in ("draft", "pending_review", "rejected", "received")}) == 4
    assert state_tone(StateRole.DISPUTE) == "dispute"
    # Anything unknown is shown as a custom state, never echoed into a class name.
    assert state_tone('x" onload="') == "custom"


def test_a_long_name_wraps_to_two_lines_and_is_shortened_beyond():
    assert wrap("Category verified", FONT, 108) == ("Category", "verified")
    lines = wrap("A very long state name that goes on and on and on", FONT, 108)
    assert len(lines) == 2 and lines[-1].endswith("…")
    assert all(text_width(line, FONT) <= 108 for line in lines)
    # Chinese has no spaces: it breaks between characters.
    chinese = wrap("这是一个非常非常长的状态名称", FONT, 108)
    assert len(chinese) == 2 and all(text_width(line, FONT) <= 108 for line in chinese)


def test_a_long_action_label_is_shortened_and_kept_whole_for_the_tooltip():
    graph = expense_claim("MYR")
    long = "Approve after checking every receipt against the travel policy twice"
    transitions = tuple(
        replace(t, labels=type(t.labels)({"en": long})) if t.key == "approve" else t
        for t in graph.transitions
    )
    arrow = next(
        a
        for a in draw(replace(graph, transitions=transitions), "draft", "en").arrows
        if a.full_label == long
    )
    assert arrow.label.endswith("…") and len(arrow.label) < len(long)


def test_a_graph_with_states_on_top_of_each_other_still_draws():
    graph = GRAPHS["leave_request"]
    stacked = replace(graph, states=tuple(replace(s, x=0, y=0) for s in graph.states))
    diagram = draw(stacked, "draft", "en")
    assert diagram.width > 0 and len(diagram.boxes) == len(graph.states)


def test_a_huge_or_strange_label_is_drawn_short_and_as_given():
    graph = expense_claim("MYR")
    huge = "9" * 5000
    states = tuple(
        replace(s, labels=type(s.labels)({"en": huge})) if s.key == "draft" else s
        for s in graph.states
    )
    transitions = tuple(
        replace(t, labels=type(t.labels)({"en": "<b>" + huge})) if t.key == "submit" else t
        for t in graph.transitions
    )
    diagram = draw(replace(graph, states=states, transitions=transitions), "draft", "en")
    draft = next(s for s in diagram.boxes if s.key == "draft")
    assert len(draft.lines) <= 2 and draft.shortened and draft.name == huge
    assert all(text_width(line, FONT) <= 108 for line, _baseline in draft.lines)
    submit = next(a for a in diagram.arrows if a.full_label.startswith("<b>"))
    # Text as given (the template escapes it), only shorter.
    assert submit.label.startswith("<b>99") and submit.label.endswith("…")
    assert len(submit.label) < 40
