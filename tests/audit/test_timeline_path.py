"""The flow's diagram with the path a document took (``domain.diagram.draw``'s ``path``):
the states visited and the arrows followed are marked, each arrow numbered with the
steps that took it, each number on its own arrow and hiding no label; without a path the
document page's diagram is drawn as before."""

from __future__ import annotations

from portal.domain.diagram import draw
from portal.flows.seeded.claims import expense_claim
from tests.audit.timelines import LONG_WAY

GRAPH = expense_claim("MYR")


def test_the_arrows_taken_carry_their_steps_in_order():
    diagram = draw(GRAPH, "approved", "en", path=LONG_WAY)
    taken = {(a.from_state, a.to_state): a.steps for a in diagram.arrows if a.taken}
    assert taken == {
        ("draft", "pending_review"): (1, 4),
        ("pending_review", "rejected"): (2,),
        ("rejected", "draft"): (3,),
        ("pending_review", "reviewed"): (5,),
        ("reviewed", "approved"): (6,),
    }
    steps = sorted((n, pair) for pair, ns in taken.items() for n in ns)
    assert [pair for _n, pair in steps] == LONG_WAY
    visited = {s.key for s in diagram.boxes if s.visited}
    assert visited == {"draft", "pending_review", "rejected", "reviewed", "approved"}
    assert [s.key for s in diagram.boxes if s.start] == ["draft"]
    assert [s.key for s in diagram.boxes if s.current] == ["approved"]


def test_each_number_sits_on_its_arrow_and_hides_no_label():
    diagram = draw(GRAPH, "approved", "en", path=LONG_WAY)
    labels = [a.label_box for a in diagram.arrows if a.label]
    for arrow in (a for a in diagram.arrows if a.taken):
        bead = arrow.step_box
        assert bead is not None
        assert all(bead.overlap(label) == 0 for label in labels)
        # Its centre lies on the arrow's line (within a pixel).
        dx, dy = arrow.x2 - arrow.x1, arrow.y2 - arrow.y1
        cross = (
            abs(dx * (bead.cy - arrow.y1) - dy * (bead.cx - arrow.x1)) / (dx * dx + dy * dy) ** 0.5
        )
        assert cross < 1.0, arrow
        # Inside the drawing.
        assert diagram.left <= bead.x and bead.right <= diagram.left + diagram.width


def test_a_path_that_never_moved_marks_where_it_is_and_no_path_marks_nothing():
    still = draw(GRAPH, "draft", "en", path=[])
    assert [s.key for s in still.boxes if s.visited] == ["draft"]
    assert not any(a.taken for a in still.arrows)

    plain = draw(GRAPH, "reviewed", "en")
    assert not any(s.visited or s.start for s in plain.boxes)
    assert not any(a.taken or a.step_box for a in plain.arrows)
    # A handover (a decision that stays where it is) is no step.
    held = draw(GRAPH, "pending_review", "en", path=[*LONG_WAY[:1], ("pending_review",) * 2])
    assert [a.steps for a in held.arrows if a.taken] == [(1,)]
