"""The outbox delivers in batches: one transaction claims several due events, each is
delivered in a savepoint of its own, so a failing one neither stops nor undoes the
others and is retried on its own; several dispatchers at once share the work and
deliver each event once."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.bench.cleanup import purge_organizations
from portal.bench.sweep import chart_organization
from portal.core import outbox
from portal.core.clock import clock
from portal.core.outbox import OutboxEvent, add_events
from portal.core.uow import unit_of_work
from portal.notifications.models import Notification


def _moved(member_id: int, reference: str, **extra: object) -> tuple[str, dict[str, object]]:
    payload = {"document_id": None, "reference": reference, "state": "approved"}
    return ("notify.document_moved", {**payload, "members": [member_id], **extra})


def _events(org_id: int) -> dict[str, OutboxEvent]:
    with unit_of_work(org_id) as uow:
        rows = uow.session.scalars(
            select(OutboxEvent).where(OutboxEvent.topic == "notify.document_moved")
        )
        return {row.payload["reference"]: row for row in rows}


def _noticed(org_id: int) -> list[str]:
    with unit_of_work(org_id) as uow:
        return sorted(
            uow.session.scalars(
                select(Notification.params["reference"].as_string()).where(
                    Notification.code == "notice_document_moved"
                )
            )
        )


def test_a_failing_event_in_the_middle_of_a_batch_neither_stops_nor_undoes_the_others(
    people, globex, request
):
    siti = people("siti")
    real = outbox.handler_for("notify.document_moved")
    assert real is not None
    together = outbox.together_for(real)
    assert together is not None

    def failing(session, event):
        real(session, event)  # writes its notification, then fails: that must be undone
        if event.payload.get("fail"):
            raise ConnectionError("relay down")

    def failing_together(session, events):
        together(session, events)
        if any(e.payload.get("fail") for e in events):
            raise ConnectionError("relay down")

    outbox.register("notify.", failing, together=failing_together)
    request.addfinalizer(lambda: outbox.register("notify.", real))
    with unit_of_work(siti.org_id) as uow:
        add_events(
            uow.session,
            [
                _moved(siti.member_id, "A-1"),
                _moved(siti.member_id, "B-2", fail=True),
                _moved(siti.member_id, "C-3"),
            ],
        )
    clock.freeze(clock.now())

    outbox.dispatch_outbox(siti.org_id)
    events = _events(siti.org_id)
    for delivered in ("A-1", "C-3"):
        assert events[delivered].dispatched_at is not None
        assert (events[delivered].attempts, events[delivered].last_error) == (1, None)
    failed = events["B-2"]
    assert (failed.dispatched_at, failed.attempts) == (None, 1)
    assert failed.last_error == "ConnectionError: relay down"
    assert failed.next_attempt_at - clock.now() == outbox.FIRST_RETRY
    # The failed event's own notification was rolled back with it; the others stand.
    assert _noticed(siti.org_id) == ["A-1", "C-3"]
    # Globex's outbox and notices are untouched by Acme's dispatch.
    assert _noticed(globex.org.id) == []

    # Retried on its own once due, and delivered: nothing of the others is repeated.
    outbox.register("notify.", real)
    clock.freeze(failed.next_attempt_at + timedelta(seconds=1))
    outbox.dispatch_outbox(siti.org_id)
    events = _events(siti.org_id)
    assert events["B-2"].dispatched_at is not None
    assert (events["B-2"].attempts, events["B-2"].last_error) == (2, None)
    assert events["A-1"].attempts == 1
    assert _noticed(siti.org_id) == ["A-1", "B-2", "C-3"]


def test_an_event_that_fails_every_attempt_is_dead_while_its_batch_goes_on(people, request):
    siti = people("siti")
    real = outbox.handler_for("notify.document_moved")
    assert real is not None

    def refuse_one(session, event):
        if event.payload.get("fail"):
            raise ValueError("no such address")
        real(session, event)

    outbox.register("notify.", refuse_one)  # one by one: no handler for several at once
    request.addfinalizer(lambda: outbox.register("notify.", real))
    clock.freeze(clock.now())
    for attempt in range(1, outbox.MAX_ATTEMPTS + 1):
        with unit_of_work(siti.org_id) as uow:
            add_events(uow.session, [_moved(siti.member_id, f"OK-{attempt}")])
            if attempt == 1:
                add_events(uow.session, [_moved(siti.member_id, "BAD", fail=True)])
        outbox.dispatch_outbox(siti.org_id)
        bad = _events(siti.org_id)["BAD"]
        assert bad.attempts == attempt
        assert (bad.dead_at is not None) == (attempt == outbox.MAX_ATTEMPTS)
        clock.freeze(bad.next_attempt_at)
    assert _noticed(siti.org_id) == sorted(f"OK-{n}" for n in range(1, outbox.MAX_ATTEMPTS + 1))
    assert outbox.dispatch_outbox(siti.org_id) == 0  # a dead letter waits for a person


def test_two_dispatchers_at_once_deliver_each_event_once(backend, committed, request):
    if not backend.postgres:
        pytest.skip("concurrent claims (FOR UPDATE SKIP LOCKED) need PostgreSQL")
    slug = f"outbox-pair-{uuid.uuid4().hex[:8]}"
    emails = {who: f"{who}@{slug}.test" for who in ("requester", "lead", "head")}
    request.addfinalizer(
        lambda: purge_organizations(backend.owner_url, slug_like=slug, email_like=f"%@{slug}.test")
    )
    for who, email in emails.items():
        accounts.create_user(email, who.title(), "outbox-pair-pass-123")
    org_id, _ = chart_organization(slug, emails)
    user = account_queries.find_user(emails["requester"])
    assert user is not None
    actor = account_queries.actor_for(slug, user.id, None)
    assert actor is not None
    outbox.dispatch_outbox(org_id, limit=10_000)  # what building the organization wrote

    seen: Counter[int] = Counter()
    lock = threading.Lock()
    real = outbox.handler_for("notify.")
    assert real is not None
    together = outbox.together_for(real)
    assert together is not None

    def counted(session, event):
        with lock:
            seen[event.id] += 1
        real(session, event)

    def counted_together(session, events):
        with lock:
            seen.update(e.id for e in events)
        together(session, events)

    outbox.register("notify.", counted, together=counted_together)
    request.addfinalizer(lambda: outbox.register("notify.", real))
    total = 300
    with unit_of_work(org_id) as uow:
        add_events(uow.session, [_moved(actor.member_id, f"P-{n}") for n in range(total)])

    start = threading.Barrier(2)
    delivered: list[int] = []
    failures: list[BaseException] = []

    def dispatch() -> None:
        try:
            start.wait()
            n = outbox.dispatch_outbox(org_id, limit=10_000)
            with lock:
                delivered.append(n)
        except BaseException as exc:  # reported below, not lost in the thread
            failures.append(exc)

    threads = [threading.Thread(target=dispatch) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []

    notified = [e for e, n in seen.items() if n]
    assert len(notified) == total and max(seen.values()) == 1
    with unit_of_work(org_id) as uow:
        s = uow.session
        assert (
            s.scalar(
                select(func.count())
                .select_from(Notification)
                .where(Notification.code == "notice_document_moved")
            )
            == total
        )
        assert (
            s.scalar(
                select(func.count())
                .select_from(OutboxEvent)
                .where(OutboxEvent.dispatched_at.is_(None), OutboxEvent.topic.startswith("notify."))
            )
            == 0
        )
    # Each counted what it delivered (the notices, and any mail they led to).
    assert sum(delivered) >= total


def test_a_transaction_sends_at_most_one_mail_and_every_notice_with_it():
    from portal.core.outbox import OutboxEvent
    from portal.core.outbox_dispatch import _one_mail_at_most

    def event(n: int, topic: str) -> OutboxEvent:
        return OutboxEvent(id=n, topic=topic, payload={})

    notices = [event(1, "notify.task_assigned"), event(3, "notify.overdue")]
    one_mail = [event(2, "mail.notice")]
    assert _one_mail_at_most([*notices, *one_mail]) == [*notices, *one_mail]
    mails = [event(4, "mail.notice"), event(5, "mail.digest"), event(6, "mail.invitation")]
    kept = _one_mail_at_most([*notices, *mails])
    assert [e.id for e in kept] == [1, 3, 4]  # the others stay due for the next batch
    assert [e.id for e in _one_mail_at_most(mails)] == [4]
