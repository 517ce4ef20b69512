"""What an edit of a draft changed (old -> new, as text), and who may throw a draft
away: its requester, only while it has never been submitted."""

from __future__ import annotations

from decimal import Decimal

import pytest

from portal.domain.authority import TransitionRefused
from portal.domain.editing import check_discardable, edit_changes, may_discard, value_text
from portal.domain.errors import DomainError
from portal.flows.seeded import seeded_graphs

BEFORE = {"amount": Decimal("120.0000"), "title": "Taxi", "description": ""}


def _claim_graph():
    return next(g for g in seeded_graphs("MYR") if g.kind == "expense_claim")


def test_an_edit_lists_only_what_changed_amount_first_in_one_spelling():
    changes = edit_changes(
        BEFORE,
        {"title": "Taxi, Ipoh", "description": "", "amount": Decimal("145.5")},
        fields_before={"category": "travel", "paid": False},
        fields_after={"category": "travel", "paid": True, "receipt": "R-1"},
    )
    assert changes == [
        {"field": "amount", "old": "120.0000", "new": "145.5000"},
        {"field": "title", "old": "Taxi", "new": "Taxi, Ipoh"},
        {"field": "fields.paid", "old": "false", "new": "true"},
        {"field": "fields.receipt", "old": None, "new": "R-1"},
    ]


def test_the_same_values_however_spelled_are_no_change():
    assert (
        edit_changes(
            BEFORE,
            {"amount": Decimal("120"), "title": "Taxi"},
            fields_before={"category": "travel"},
            fields_after={"category": "travel"},
        )
        == []
    )
    # Fields not edited at all are not compared.
    assert edit_changes(BEFORE, {}, fields_before={"category": "travel"}, fields_after=None) == []
    assert value_text(None) is None and value_text(Decimal("0.1")) == "0.1000"


def test_the_requester_may_discard_a_draft_that_never_left():
    graph = _claim_graph()
    check_discardable(graph, "draft", requester=7, member=7, decisions=0)  # allowed
    assert may_discard(graph, "draft", requester=7, member=7, decisions=0)

    with pytest.raises(TransitionRefused, match="not_requester"):
        check_discardable(graph, "draft", requester=7, member=8, decisions=0)
    # Back in draft after a rework is not "never submitted".
    for state, decisions in (("draft", 3), ("pending_review", 1)):
        with pytest.raises(DomainError, match="discard_after_submission"):
            check_discardable(graph, state, requester=7, member=7, decisions=decisions)
        assert not may_discard(graph, state, requester=7, member=7, decisions=decisions)
    assert not may_discard(graph, "draft", requester=7, member=None, decisions=0)
