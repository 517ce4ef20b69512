"""The transactional outbox: every side effect that leaves the database is a row
written in the transaction that caused it.

A rolled-back transition therefore never notifies, and a committed one is delivered at
least once: a job dispatches rows after commit, retrying with backoff; a periodic relay
re-enqueues anything left undispatched, so a Redis outage delays but loses nothing.
Handlers are registered by topic and must be idempotent (the row id is their key).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text, insert, or_, select, text
from sqlalchemy.orm import Mapped, Session, mapped_column

from portal.core.clock import clock
from portal.core.db import Base, CreatedAt, Id, TenantScoped, table_of
from portal.core.queue import enqueue, redis_holder
from portal.core.uow import UnitOfWork, operator_work, unit_of_work


class OutboxEvent(TenantScoped, CreatedAt, Base):
    """One side effect to deliver. ``org_id`` is None for mail about an account itself
    (a password reset), which belongs to no organization: row-level security shows
    those rows only to units of work that name no organization."""

    __tablename__ = "outbox"
    __table_args__ = (
        TenantScoped.tenant_key(),
        # What the dispatcher looks for: undelivered rows that are due.
        Index(
            "ix_outbox_pending",
            "next_attempt_at",
            postgresql_where=text("dispatched_at IS NULL"),
            sqlite_where=text("dispatched_at IS NULL"),
        ),
    )

    platform_rows = True

    id: Mapped[int] = mapped_column(primary_key=True)
    org_id: Mapped[int | None] = mapped_column(  # type: ignore[assignment]
        Id, ForeignKey("organization.id", ondelete="RESTRICT")
    )
    topic: Mapped[str] = mapped_column(String(63))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    dispatched_at: Mapped[datetime | None]
    attempts: Mapped[int] = mapped_column(server_default=text("0"))
    next_attempt_at: Mapped[datetime]
    last_error: Mapped[str | None] = mapped_column(Text)
    # Set after the last attempt failed: the event waits for a person (dead letter).
    dead_at: Mapped[datetime | None]

    def __repr__(self) -> str:
        return f"<OutboxEvent {self.id} {self.topic!r}>"


def add_events(session: Session, events: list[tuple[str, dict[str, Any]]]) -> None:
    """Write side effects (topic, payload) into the caller's transaction, in one
    statement: a transition writes several per decision. A unit of work outside any
    organization writes account events (``org_id`` None)."""
    if not events:
        return
    org_id = session.info.get("org_id")
    now = clock.now()
    session.connection().execute(
        insert(table_of(OutboxEvent)),
        [
            {
                "org_id": org_id,
                "topic": topic,
                "payload": payload,
                "created_at": now,
                "next_attempt_at": now,
                "attempts": 0,
            }
            for topic, payload in events
        ],
    )


# --- dispatch ------------------------------------------------------------------------------

Handler = Callable[[Session, OutboxEvent], None]
_handlers: dict[str, Handler] = {}

# After this many failed attempts an event stops being retried and waits for an admin.
MAX_ATTEMPTS = 8
FIRST_RETRY = timedelta(seconds=10)
LONGEST_WAIT = timedelta(hours=1)

log = logging.getLogger(__name__)


def register(prefix: str, handler: Handler) -> None:
    """Deliver events whose topic starts with ``prefix`` (e.g. "notify.") with ``handler``.
    Handlers run in the event's own transaction and must be idempotent: the event's id
    is their key, since delivery is at least once."""
    _handlers[prefix] = handler


def handler_for(topic: str) -> Handler | None:
    matches = [p for p in _handlers if topic.startswith(p)]
    return _handlers[max(matches, key=len)] if matches else None


def backoff(attempts: int) -> timedelta:
    """10 s, 20 s, 40 s … at most an hour between attempts."""
    wait: timedelta = FIRST_RETRY * (2 ** max(attempts - 1, 0))
    return min(wait, LONGEST_WAIT)


def _doorbell(org_id: int | None) -> str:
    return f"portal:outbox-doorbell:{'platform' if org_id is None else org_id}"


def _work_for(org_id: int | None) -> AbstractContextManager[UnitOfWork]:
    """An organization's events are delivered in its unit of work; account events
    (no organization) by the platform, which may read the account they are about."""
    return operator_work() if org_id is None else unit_of_work(org_id)


def dispatch_outbox(org_id: int | None, *, limit: int = 200) -> int:
    """Deliver the organization's due events (``None``: the account events), each in
    its own transaction; return how many were delivered. Events no handler claims yet
    (the ledger's posting events) stay in the outbox for the consumer that will take
    them. Safe to run concurrently: each event is claimed with ``FOR UPDATE SKIP
    LOCKED``. An event whose last attempt failed is marked dead for an admin to see."""
    # Unset the doorbell before scanning: an event committed from here on is either
    # seen by the scan below or rings for a new job (see ``nudge``).
    try:
        redis_holder.get().delete(_doorbell(org_id))
    except Exception as exc:  # Redis down: the scan still runs
        log.warning("could not reset the outbox doorbell for org %s: %s", org_id, exc)
    if not _handlers:
        return 0
    delivered = 0
    for _ in range(limit):
        with _work_for(org_id) as uow:
            s = uow.session
            now = clock.now()
            event = s.scalars(
                select(OutboxEvent)
                .where(
                    OutboxEvent.dispatched_at.is_(None),
                    OutboxEvent.next_attempt_at <= now,
                    OutboxEvent.attempts < MAX_ATTEMPTS,
                    or_(*(OutboxEvent.topic.startswith(p) for p in _handlers)),
                )
                .order_by(OutboxEvent.id)
                .limit(1)
                .with_for_update(skip_locked=True)
            ).first()
            if event is None:
                break
            handler = handler_for(event.topic)
            assert handler is not None
            event.attempts += 1
            try:
                with s.begin_nested():
                    handler(s, event)
            except Exception as exc:  # a failed delivery is recorded and retried, never lost
                event.last_error = f"{type(exc).__name__}: {exc}"[:2000]
                event.next_attempt_at = now + backoff(event.attempts)
                if event.attempts >= MAX_ATTEMPTS:
                    event.dead_at = now
                    log.error("outbox event %s (%s) is dead: %s", event.id, event.topic, exc)
                else:
                    log.warning("outbox event %s (%s) failed: %s", event.id, event.topic, exc)
            else:
                event.dispatched_at = now
                event.last_error = None
                delivered += 1
    else:  # the batch is spent and more may wait (a large import's mail): ring again
        nudge(org_id)
    return delivered


def relay_outbox() -> int:
    """The safety net, run periodically: dispatch every organization's due events and
    the account events, so a lost doorbell (Redis down at commit time) only delays
    delivery."""
    with operator_work() as uow:
        org_ids: list[int | None] = list(
            uow.session.scalars(text("SELECT id FROM organization ORDER BY id"))
        )
    return sum(dispatch_outbox(org_id) for org_id in [None, *org_ids])


def nudge(org_id: int | None) -> None:
    """Ring the doorbell after a commit: a worker dispatches the organization's events.

    One queued dispatch serves many commits: the doorbell flag is set when a job is
    enqueued and unset when that job starts scanning, so a commit that finds the flag
    set knows a scan is still to come. (The flag expires on its own, and the periodic
    relay covers a lost job.) If Redis is down the relay picks the events up later."""
    try:
        if redis_holder.get().set(_doorbell(org_id), "1", nx=True, ex=300):
            enqueue(dispatch_outbox, org_id)
    except Exception as exc:  # the outbox row is safe; only the doorbell failed
        log.warning("could not enqueue the outbox dispatch for org %s: %s", org_id, exc)
