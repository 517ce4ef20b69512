"""Bulk decisions: one pipeline per document, each its own transaction, an outcome each."""

from __future__ import annotations

from decimal import Decimal

import pytest

from portal.documents import bulk, transitions
from portal.documents import services as documents
from portal.documents.queries import detail as document_queries
from portal.domain.errors import DomainError

CLAIM_FIELDS = {"category": "meals", "expense_date": "2026-11-21"}


def _code(outcome: bulk.BulkOutcome) -> str | None:
    """Why a document did not move (None when it did)."""
    return outcome.refusal.code if outcome.refusal is not None else None


def _submitted(siti, title: str):
    doc = documents.create_document(
        siti, kind="expense_claim", title=title, amount=Decimal("42.00"), fields=CLAIM_FIELDS
    )
    return transitions.transition_document(
        siti, doc.reference, "submit", seen_state="draft"
    ).document


def test_each_document_gets_its_own_outcome_and_a_refusal_disturbs_no_other(people):
    siti, jason, nurul = people("siti"), people("jason"), people("nurul")
    mine = [_submitted(siti, f"Lunch {n}") for n in range(3)]
    other = _submitted(jason, "Dinner")  # Jason also reports to Nurul
    items = [(d.reference, d.state) for d in mine] + [(other.reference, "draft")]

    outcomes = bulk.bulk_transition(nurul, items, "review")

    assert [(o.reference, o.ok, o.state) for o in outcomes[:3]] == [
        (d.reference, True, "reviewed") for d in mine
    ]
    stale = outcomes[3]
    assert (stale.ok, _code(stale)) == (False, "stale_state")
    assert document_queries.get_document(nurul, other.reference).state == "pending_review"

    # The same request again is harmless: every document has moved on.
    replay = bulk.bulk_transition(nurul, items, "review")
    assert [_code(o) for o in replay] == ["stale_state"] * 4
    assert all(len(document_queries.history(nurul, d.reference)) == 2 for d in mine)


def test_a_document_the_actor_may_not_see_is_reported_as_not_found(people):
    siti, nurul, farid = people("siti"), people("nurul"), people("farid")
    doc = _submitted(siti, "Parking")
    (outcome,) = bulk.bulk_transition(farid, [(doc.reference, doc.state)], "review")
    assert (outcome.ok, _code(outcome)) == (False, "not_found")
    (ok,) = bulk.bulk_transition(nurul, [(doc.reference, doc.state)], "review")
    assert ok.ok


def test_more_than_a_hundred_or_a_repeated_document_is_refused_whole(people):
    siti, nurul = people("siti"), people("nurul")
    doc = _submitted(siti, "Train")
    hundred_and_one = [(f"EXP-2026-{n:05d}", "pending_review") for n in range(1, 102)]
    with pytest.raises(DomainError) as too_many:
        bulk.bulk_transition(nurul, hundred_and_one, "review")
    assert (too_many.value.code, too_many.value.params["limit"]) == ("bulk_too_large", 100)

    with pytest.raises(DomainError) as twice:
        bulk.bulk_transition(
            nurul, [(doc.reference, doc.state), (doc.reference, doc.state)], "review"
        )
    assert twice.value.code == "bulk_duplicates"
    with pytest.raises(DomainError) as empty:
        bulk.bulk_transition(nurul, [], "review")
    assert empty.value.code == "bulk_empty"
    # Nothing moved.
    assert document_queries.get_document(nurul, doc.reference).state == "pending_review"


def test_approve_takes_each_documents_own_next_step_and_reject_needs_its_comment(people):
    siti, nurul = people("siti"), people("nurul")
    first, second = _submitted(siti, "Taxi"), _submitted(siti, "Hotel")
    items = [(first.reference, first.state), (second.reference, second.state)]

    approved = bulk.bulk_decide(nurul, items, "approve", comment="Fine")

    # "Approve" in pending_review is the flow's "review": each moved one step, no further.
    assert [(o.ok, o.state) for o in approved] == [(True, "reviewed"), (True, "reviewed")]
    assert approved[0].document is not None
    assert approved[0].document.graph.state_label("reviewed", "en") == "Reviewed"

    third = _submitted(siti, "Flight")
    (refused,) = bulk.bulk_decide(nurul, [(third.reference, third.state)], "reject")
    assert (refused.ok, _code(refused)) == (False, "comment_required")
    (rejected,) = bulk.bulk_decide(
        nurul, [(third.reference, third.state)], "reject", comment="No receipt"
    )
    assert (rejected.ok, rejected.state) == (True, "rejected")


def test_approving_without_a_task_says_not_assigned_only_about_a_visible_document(people):
    siti, nurul, farid = people("siti"), people("nurul"), people("farid")
    doc = _submitted(siti, "Parking")
    # The requester sees the document but holds no task on it.
    (own,) = bulk.bulk_decide(siti, [(doc.reference, doc.state)], "approve")
    assert (own.ok, _code(own)) == (False, "not_assigned")
    # Someone who may not see it learns nothing about it, nor about a made-up reference.
    (hidden,) = bulk.bulk_decide(farid, [(doc.reference, doc.state)], "approve")
    (made_up,) = bulk.bulk_decide(nurul, [("EXP-2026-99999", "pending_review")], "approve")
    assert [_code(o) for o in (hidden, made_up)] == ["not_found", "not_found"]
    assert document_queries.get_document(nurul, doc.reference).state == "pending_review"
