"""The seeded expense claim, walked end to end in the demo organization: submitted,
reviewed, approved, verified (the accrual), paid, received, disputed and the dispute
dismissed; a second claim rejected, reworked and resubmitted. The history verifies.

The claim has exclusive approval: review, approval, commitment and payment are four
different people, and each of them is refused a second step."""

from __future__ import annotations

from decimal import Decimal

import pytest

from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.queries import detail as document_queries
from portal.domain.engine import TransitionRefused

CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20", "receipt_number": "R-1"}


def _step(actor, doc, key, comment=""):
    moved = transitions.transition_document(
        actor, doc.reference, key, seen_state=doc.state, comment=comment
    )
    return moved.document


def test_a_claim_walks_from_draft_to_received_and_through_a_dismissed_dispute(people):
    siti = people("siti")  # Sales Executive; reports to Nurul (Sales Manager)
    nurul = people("nurul")
    zainal = people("zainal")  # Sales Director, head of Sales
    grace = people("grace")  # admin
    aisha = people("aisha")  # admin

    doc = documents.create_document(
        siti,
        kind="expense_claim",
        title="Client visit, Penang",
        amount=Decimal("480.00"),
        fields=CLAIM_FIELDS,
    )
    assert doc.reference.startswith("EXP-") and doc.state == "draft"

    doc = _step(siti, doc, "submit")
    assert doc.state == "pending_review"
    with pytest.raises(TransitionRefused) as refused:
        _step(siti, doc, "review")
    assert refused.value.code == "self_approval"
    doc = _step(nurul, doc, "review")
    doc = _step(zainal, doc, "approve")
    doc = _step(grace, doc, "verify_category")
    # Grace is an admin, and admins pay: but she committed this money.
    with pytest.raises(TransitionRefused) as pays_too:
        _step(grace, doc, "pay")
    assert (pays_too.value.code, pays_too.value.params) == (
        "exclusive_approval",
        {"step": "Category verified"},
    )
    doc = _step(aisha, doc, "pay")
    doc = _step(siti, doc, "acknowledge")
    assert doc.state == "received"
    doc = _step(siti, doc, "dispute", "The amount paid was short by RM20.")
    with pytest.raises(TransitionRefused) as raiser:
        _step(siti, doc, "dismiss", "no")
    assert raiser.value.code == "dispute_raiser"
    doc = _step(grace, doc, "dismiss", "Paid in full on 25 Nov; bank slip attached.")
    assert doc.state == "received"

    entries = document_queries.history(grace, doc.reference)
    assert [e.transition for e in entries] == [
        "submit",
        "review",
        "approve",
        "verify_category",
        "pay",
        "acknowledge",
        "dispute",
        "dismiss",
    ]
    check = document_queries.verify_history(grace, doc.reference)
    assert check.ok and check.decisions == 8
    deciders = {e.transition: e.actor_id for e in entries}
    steps = ("review", "approve", "verify_category", "pay")
    assert len({deciders[step] for step in steps}) == 4


def test_a_rejected_claim_is_reworked_and_resubmitted(people):
    siti = people("siti")
    nurul = people("nurul")
    doc = documents.create_document(
        siti, kind="expense_claim", title="Taxi", amount=Decimal("35.50"), fields=CLAIM_FIELDS
    )
    doc = _step(siti, doc, "submit")
    with pytest.raises(TransitionRefused) as missing:
        _step(nurul, doc, "reject")
    assert missing.value.code == "comment_required"
    doc = _step(nurul, doc, "reject", "Attach the receipt, please.")
    assert doc.state == "rejected"
    doc = _step(siti, doc, "revise")
    doc = documents.update_document(siti, doc.reference, amount=Decimal("36.00"))
    doc = _step(siti, doc, "submit")
    assert doc.state == "pending_review" and doc.amount == Decimal("36.00")
    assert document_queries.verify_history(siti, doc.reference).ok
