"""Delivering the outbox: due events are claimed in batches, each delivered in its own
savepoint, and the batch committed at once.

A batch is one transaction: it claims up to ``BATCH`` due events ``FOR UPDATE SKIP
LOCKED`` (so several workers share the work, never an event), runs each event's handler
in a savepoint — a failure undoes only that event's writes, and is recorded on it for a
retry with backoff or, after the last attempt, as a dead letter — then marks the
delivered ones in one statement and commits. A handler that can take several events at
once (the in-app notices: a few statements for the whole batch) gets them in one
savepoint; should that fail, they are delivered one by one as above, so only the
failing event is retried and nothing of the others is lost or written twice.

Mail cannot be taken back, so a transaction sends at most one (``_one_mail_at_most``):
should its commit fail after the send (a worker killed, the database gone), that one
mail goes again, with the same ``Message-ID`` (delivery is at least once) — never a
batch of them. Batches stay small so that row locks are held briefly.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from portal.core import outbox
from portal.core.clock import clock
from portal.core.outbox import (
    MAX_ATTEMPTS,
    Handler,
    OutboxEvent,
    _doorbell,
    _handlers,
    _work_for,
    backoff,
    handler_for,
    log,
    together_for,
)
from portal.core.queue import redis_holder

# What sends mail (``web.mail`` registers it): delivered one per transaction.
MAIL_PREFIX = "mail."
# Events per transaction: enough to spread a transaction's fixed cost (begin, the
# tenant, the claim, the commit) thin, few enough that a failed commit repeats little.
BATCH = 50


def dispatch_batches(org_id: int | None, *, limit: int = 200) -> int:
    """Deliver the organization's due events (``None``: the account events), a batch
    per transaction, until none is due or about ``limit`` were claimed; return how many
    were delivered. Events no handler claims yet (the ledger's posting events) stay in
    the outbox for the consumer that will take them."""
    # Unset the doorbell before scanning: an event committed from here on is either
    # seen by the scan below or rings for a new job (see ``outbox.nudge``).
    try:
        redis_holder.get().delete(_doorbell(org_id))
    except Exception as exc:  # Redis down: the scan still runs
        log.warning("could not reset the outbox doorbell for org %s: %s", org_id, exc)
    if not _handlers:
        return 0
    delivered = claimed = 0
    while claimed < limit:
        with _work_for(org_id) as uow:
            s = uow.session
            now = clock.now()
            events = _one_mail_at_most(_claim(s, now, min(BATCH, limit - claimed)))
            if not events:
                return delivered
            claimed += len(events)
            delivered += _deliver(s, events, now)
    # The limit is spent and more may wait (a large import's mail): ring again, so
    # other organizations' dispatches get their turn in between.
    outbox.nudge(org_id)
    return delivered


def _one_mail_at_most(events: list[OutboxEvent]) -> list[OutboxEvent]:
    """The claimed events this transaction delivers: all that only write to the
    database, and at most one mail. A mail cannot be taken back: sent from a batch whose
    commit then fails (a worker killed, the database gone), it would go again with every
    other mail of the batch; one per transaction, at most that one repeats. The mail
    left out stays due and its lock ends with this transaction: the next batch takes
    it."""
    mail = [e for e in events if e.topic.startswith(MAIL_PREFIX)]
    if len(mail) <= 1:
        return events
    return [e for e in events if not e.topic.startswith(MAIL_PREFIX)] + mail[:1]


def _claim(session: Session, now: datetime, size: int) -> list[OutboxEvent]:
    return list(
        session.scalars(
            select(OutboxEvent)
            .where(
                OutboxEvent.dispatched_at.is_(None),
                OutboxEvent.next_attempt_at <= now,
                OutboxEvent.attempts < MAX_ATTEMPTS,
                or_(*(OutboxEvent.topic.startswith(p) for p in _handlers)),
            )
            .order_by(OutboxEvent.id)
            .limit(size)
            .with_for_update(skip_locked=True)
        )
    )


def _deliver(session: Session, events: list[OutboxEvent], now: datetime) -> int:
    """Run the claimed events' handlers, each event in a savepoint (or the events of a
    handler that takes several at once, in one); mark the delivered ones in one
    statement and record each failure on its event. Returns how many were delivered."""
    delivered: list[int] = []
    by_handler: dict[Handler, list[OutboxEvent]] = {}
    for event in events:
        handler = handler_for(event.topic)
        assert handler is not None
        by_handler.setdefault(handler, []).append(event)
    for handler, group in by_handler.items():
        together = together_for(handler)
        if together is not None and len(group) > 1:
            try:
                with session.begin_nested():
                    together(session, group)
            except Exception as exc:  # one of them failed: find which, one at a time
                log.info("delivering %d events together failed (%s)", len(group), exc)
            else:
                delivered += [event.id for event in group]
                continue
        for event in group:
            try:
                with session.begin_nested():
                    handler(session, event)
            except Exception as exc:  # a failed delivery is recorded and retried, never lost
                _failed(event, exc, now)
            else:
                delivered.append(event.id)
    if delivered:
        session.execute(
            update(OutboxEvent)
            .where(OutboxEvent.id.in_(delivered))
            .values(
                attempts=OutboxEvent.attempts + 1,
                dispatched_at=now,
                last_error=None,
            )
            .execution_options(synchronize_session=False)
        )
    return len(delivered)


def _failed(event: OutboxEvent, exc: Exception, now: datetime) -> None:
    event.attempts += 1
    event.last_error = f"{type(exc).__name__}: {exc}"[:2000]
    event.next_attempt_at = now + backoff(event.attempts)
    if event.attempts >= MAX_ATTEMPTS:
        event.dead_at = now
        log.error("outbox event %s (%s) is dead: %s", event.id, event.topic, exc)
    else:
        log.warning("outbox event %s (%s) failed: %s", event.id, event.topic, exc)
