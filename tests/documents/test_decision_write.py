"""A decision's five writes (advance, close, decision, open, outbox) are all or none:
one statement on PostgreSQL, one by one on SQLite, the same rows either way."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import func, select

from portal.core.outbox import OutboxEvent
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.decision_write import write_decision
from portal.documents.models import Decision, Document, Task, TaskStatus

CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20"}


class _Captured(Exception):
    pass


def _submitted(siti) -> Any:
    doc = documents.create_document(
        siti, kind="expense_claim", title="Hotel", amount=Decimal("320.00"), fields=CLAIM_FIELDS
    )
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    return doc


def _writes_of_review(nurul, doc, monkeypatch) -> dict[str, Any]:
    """What Nurul's review of ``doc`` would write, taken and rolled back."""
    seen: dict[str, Any] = {}

    def capture(_conn, **writes):
        seen.update(writes)
        raise _Captured

    with monkeypatch.context() as patch:
        patch.setattr(transitions, "write_decision", capture)
        with pytest.raises(_Captured):
            transitions.transition_document(
                nurul, doc.reference, "review", seen_state="pending_review"
            )
    return seen


def _rows(org_id: int, doc) -> dict[str, Any]:
    with unit_of_work(org_id) as uow:
        s = uow.session

        def count(model, *where):
            return s.scalar(select(func.count()).select_from(model).where(*where))

        return {
            "state": s.scalar(select(Document.state).where(Document.id == doc.id)),
            "decisions": count(Decision, Decision.document_id == doc.id),
            "open": sorted(
                s.scalars(
                    select(Task.state).where(
                        Task.document_id == doc.id, Task.status == TaskStatus.OPEN
                    )
                )
            ),
            "events": count(OutboxEvent),
        }


def test_the_writes_land_together_and_none_lands_when_the_document_moved_on(
    people, globex, monkeypatch
):
    siti, nurul = people("siti"), people("nurul")
    moved, kept = _submitted(siti), _submitted(siti)
    writes = _writes_of_review(nurul, moved, monkeypatch)
    before = _rows(siti.org_id, moved)
    assert before["state"] == "pending_review" and before["open"] == ["pending_review"]

    with unit_of_work(siti.org_id) as uow:
        assert write_decision(uow.session.connection(), **writes) is True
    after = _rows(siti.org_id, moved)
    assert after["state"] == "reviewed"
    assert after["decisions"] == before["decisions"] + 1
    assert after["open"] == ["reviewed"] * len(writes["tasks"])
    assert after["events"] == before["events"] + len(writes["events"])

    writes = _writes_of_review(nurul, kept, monkeypatch)
    before = _rows(siti.org_id, kept)
    # Someone else's change moved the row version on: nothing at all is written.
    stale = {**writes, "advance": {**writes["advance"], "seen_row_version": 0}}
    with unit_of_work(siti.org_id) as uow:
        assert write_decision(uow.session.connection(), **stale) is False
    assert _rows(siti.org_id, kept) == before
    # In another organization's unit of work, naming that organization (as its actors
    # would), the document is not there to move.
    theirs = {**writes, "advance": {**writes["advance"], "org": globex.org.id}}
    with unit_of_work(globex.org.id) as uow:
        assert write_decision(uow.session.connection(), **theirs) is False
    assert _rows(siti.org_id, kept) == before


def test_row_level_security_keeps_a_write_naming_another_organization_out(
    backend, people, globex, monkeypatch
):
    if not backend.postgres:
        pytest.skip("row-level security is PostgreSQL's; SQLite has the explicit predicates")
    siti, nurul = people("siti"), people("nurul")
    doc = _submitted(siti)
    writes = _writes_of_review(nurul, doc, monkeypatch)
    before = _rows(siti.org_id, doc)
    # A unit of work of globex handed acme's ids: PostgreSQL shows it no acme row.
    with unit_of_work(globex.org.id) as uow:
        assert write_decision(uow.session.connection(), **writes) is False
    assert _rows(siti.org_id, doc) == before
