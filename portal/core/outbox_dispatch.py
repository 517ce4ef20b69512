"""Delivering the outbox: due events are claimed in batches, each delivered in its own
savepoint, and the batch committed at once.

A batch is one transaction: it claims up to ``BATCH`` due events ``FOR UPDATE SKIP
LOCKED`` (so several workers share the work, never an event), runs each event's handler
in a savepoint — a failure undoes only that event's writes, and is recorded on it for a
retry with backoff or, after the last attempt, as a dead letter — then marks the
delivered ones in one statement and commits. Mail is sent from inside the batch: if the
batch's commit fails after a send, the whole batch is retried and its mail goes again,
with the same ``Message-ID`` (delivery is at least once). Batches stay small so that such
a repeat stays small and rare, and row locks are held briefly.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from portal.core import outbox
from portal.core.clock import clock
from portal.core.outbox import (
    MAX_ATTEMPTS,
    OutboxEvent,
    _doorbell,
    _handlers,
    _work_for,
    backoff,
    handler_for,
    log,
)
from portal.core.queue import redis_holder

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
            events = _claim(s, now, min(BATCH, limit - claimed))
            if not events:
                return delivered
            claimed += len(events)
            delivered += _deliver(s, events, now)
    # The limit is spent and more may wait (a large import's mail): ring again, so
    # other organizations' dispatches get their turn in between.
    outbox.nudge(org_id)
    return delivered


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
    """Run each claimed event's handler in a savepoint; mark the delivered ones in one
    statement and record each failure on its event. Returns how many were delivered."""
    delivered: list[int] = []
    for event in events:
        handler = handler_for(event.topic)
        assert handler is not None
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
