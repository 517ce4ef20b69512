"""Side effects leave through the outbox: written in the transition's transaction,
delivered after commit, retried when delivery fails, never sent for a rollback."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from portal.core import outbox
from portal.core.clock import clock
from portal.core.outbox import OutboxEvent
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.models import Decision
from portal.documents.queries import detail as document_queries
from portal.notifications.models import Notification

CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20"}


def _claim(siti):
    return documents.create_document(
        siti, kind="expense_claim", title="Hotel", amount=Decimal("320.00"), fields=CLAIM_FIELDS
    )


def _count(org_id: int, model, *where) -> int:
    with unit_of_work(org_id) as uow:
        return uow.session.scalar(select(func.count()).select_from(model).where(*where)) or 0


def test_a_committed_transition_is_delivered_as_notifications_once(people):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    assert _count(siti.org_id, OutboxEvent, OutboxEvent.topic == "notify.task_assigned") == 1

    # The notice, and the mail that tells Nurul of it (mail is on for tasks by default).
    assert outbox.dispatch_outbox(siti.org_id) == 2
    assert _count(siti.org_id, Notification, Notification.member_id == nurul.member_id) == 1
    assert _count(siti.org_id, OutboxEvent, OutboxEvent.dispatched_at.is_(None)) == 0
    # Nothing left to deliver, and delivering the same event again adds nothing.
    assert outbox.dispatch_outbox(siti.org_id) == 0
    with unit_of_work(siti.org_id) as uow:
        event = uow.session.scalars(
            select(OutboxEvent).where(OutboxEvent.topic.startswith("notify."))
        ).one()
        deliver = outbox.handler_for(event.topic)
        assert deliver is not None
        deliver(uow.session, event)
    assert _count(siti.org_id, Notification) == 1


def test_a_failed_delivery_is_recorded_and_retried_until_it_succeeds(people, request):
    siti = people("siti")
    doc = _claim(siti)
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    real = outbox.handler_for("notify.task_assigned")
    assert real is not None
    calls = []

    def flaky(session, event):
        calls.append(event.id)
        if len(calls) == 1:
            raise ConnectionError("mail relay down")
        real(session, event)

    outbox.register("notify.", flaky)
    request.addfinalizer(lambda: outbox.register("notify.", real))
    clock.freeze(clock.now())
    assert outbox.dispatch_outbox(siti.org_id) == 0
    with unit_of_work(siti.org_id) as uow:
        event = uow.session.scalars(select(OutboxEvent)).one()
        assert (event.attempts, event.dispatched_at) == (1, None)
        assert event.last_error == "ConnectionError: mail relay down"
        due = event.next_attempt_at
    assert due - clock.now() == outbox.FIRST_RETRY
    assert outbox.dispatch_outbox(siti.org_id) == 0  # not due yet

    clock.freeze(due + timedelta(seconds=1))
    assert outbox.dispatch_outbox(siti.org_id) == 2  # the notice, then its mail
    assert _count(siti.org_id, Notification) == 1
    assert _count(siti.org_id, OutboxEvent, OutboxEvent.dispatched_at.is_(None)) == 0


def test_a_transition_that_fails_after_writing_its_events_leaves_no_trace(people, monkeypatch):
    siti = people("siti")
    doc = _claim(siti)
    write = transitions.write_decision

    def write_then_fail(*args, **kwargs):
        assert write(*args, **kwargs)  # the decision, its tasks and its events written
        raise RuntimeError("the database went away")

    monkeypatch.setattr(transitions, "write_decision", write_then_fail)
    with pytest.raises(RuntimeError):
        transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")

    assert _count(siti.org_id, OutboxEvent) == 0
    assert _count(siti.org_id, Decision) == 0
    assert document_queries.get_document(siti, doc.reference).state == "draft"
    assert outbox.dispatch_outbox(siti.org_id) == 0
    assert _count(siti.org_id, Notification) == 0


def test_posting_events_wait_in_the_outbox_for_the_ledger(people):
    siti, nurul, grace = people("siti"), people("nurul"), people("grace")
    doc = _claim(siti)
    for actor, key in ((siti, "submit"), (nurul, "review"), (people("zainal"), "approve")):
        doc = transitions.transition_document(
            actor, doc.reference, key, seen_state=doc.state
        ).document
    transitions.transition_document(grace, doc.reference, "verify_category", seen_state=doc.state)
    outbox.dispatch_outbox(siti.org_id)
    with unit_of_work(siti.org_id) as uow:
        posting = uow.session.scalars(
            select(OutboxEvent).where(OutboxEvent.topic == "posting.accrual")
        ).one()
    assert (posting.payload["amount"], posting.payload["currency"]) == ("320.0000", "MYR")
    assert (posting.dispatched_at, posting.attempts) == (None, 0)


def test_one_queued_dispatch_serves_many_commits_until_it_starts(people):
    from portal.core.queue import get_queue

    siti = people("siti")
    queue = get_queue()
    before = queue.count
    first, second = _claim(siti), _claim(siti)
    transitions.transition_document(siti, first.reference, "submit", seen_state="draft")
    transitions.transition_document(siti, second.reference, "submit", seen_state="draft")
    # Two commits rang once: the queued dispatch has not started, and will see both.
    assert queue.count == before + 1
    assert outbox.dispatch_outbox(siti.org_id) == 4  # two notices, and a mail for each
    # Once a dispatch has started, the next commit rings again.
    third = _claim(siti)
    transitions.transition_document(siti, third.reference, "submit", seen_state="draft")
    assert queue.count == before + 2


def test_the_relay_delivers_what_no_doorbell_announced(people, monkeypatch):
    siti = people("siti")
    monkeypatch.setattr(outbox, "nudge", lambda org_id: None)  # the doorbell is lost
    doc = _claim(siti)
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    assert _count(siti.org_id, OutboxEvent, OutboxEvent.dispatched_at.is_(None)) == 1
    assert outbox.relay_outbox() >= 1
    assert _count(siti.org_id, OutboxEvent, OutboxEvent.dispatched_at.is_(None)) == 0
