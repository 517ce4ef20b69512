"""Bulk decisions: one pipeline per document, each its own transaction, an outcome each."""

from __future__ import annotations

from decimal import Decimal

import pytest

from portal.documents import services as documents
from portal.domain.errors import DomainError

CLAIM_FIELDS = {"category": "meals", "expense_date": "2026-11-21"}


def _submitted(siti, title: str):  # type: ignore[no-untyped-def]
    doc = documents.create_document(
        siti, kind="expense_claim", title=title, amount=Decimal("42.00"), fields=CLAIM_FIELDS
    )
    return documents.transition_document(siti, doc.reference, "submit", seen_state="draft").document


def test_each_document_gets_its_own_outcome_and_a_refusal_disturbs_no_other(people):
    siti, jason, nurul = people("siti"), people("jason"), people("nurul")
    mine = [_submitted(siti, f"Lunch {n}") for n in range(3)]
    other = _submitted(jason, "Dinner")  # Jason also reports to Nurul
    items = [(d.reference, d.state) for d in mine] + [(other.reference, "draft")]

    outcomes = documents.bulk_transition(nurul, items, "review")

    assert [(o.reference, o.ok, o.state) for o in outcomes[:3]] == [
        (d.reference, True, "reviewed") for d in mine
    ]
    stale = outcomes[3]
    assert (stale.ok, stale.refusal.code) == (False, "stale_state")  # type: ignore[union-attr]
    assert documents.get_document(nurul, other.reference).state == "pending_review"

    # The same request again is harmless: every document has moved on.
    replay = documents.bulk_transition(nurul, items, "review")
    assert [o.refusal.code for o in replay] == ["stale_state"] * 4  # type: ignore[union-attr]
    assert all(len(documents.history(nurul, d.reference)) == 2 for d in mine)


def test_a_document_the_actor_may_not_see_is_reported_as_not_found(people):
    siti, nurul, farid = people("siti"), people("nurul"), people("farid")
    doc = _submitted(siti, "Parking")
    (outcome,) = documents.bulk_transition(farid, [(doc.reference, doc.state)], "review")
    assert (outcome.ok, outcome.refusal.code) == (False, "not_found")  # type: ignore[union-attr]
    (ok,) = documents.bulk_transition(nurul, [(doc.reference, doc.state)], "review")
    assert ok.ok


def test_more_than_a_hundred_or_a_repeated_document_is_refused_whole(people):
    siti, nurul = people("siti"), people("nurul")
    doc = _submitted(siti, "Train")
    hundred_and_one = [(f"EXP-2026-{n:05d}", "pending_review") for n in range(1, 102)]
    with pytest.raises(DomainError) as too_many:
        documents.bulk_transition(nurul, hundred_and_one, "review")
    assert (too_many.value.code, too_many.value.params["limit"]) == ("bulk_too_large", 100)

    with pytest.raises(DomainError) as twice:
        documents.bulk_transition(
            nurul, [(doc.reference, doc.state), (doc.reference, doc.state)], "review"
        )
    assert twice.value.code == "bulk_duplicates"
    with pytest.raises(DomainError) as empty:
        documents.bulk_transition(nurul, [], "review")
    assert empty.value.code == "bulk_empty"
    # Nothing moved.
    assert documents.get_document(nurul, doc.reference).state == "pending_review"
