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
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    JSON,
    ColumnElement,
    ForeignKey,
    Index,
    String,
    Text,
    delete,
    func,
    insert,
    or_,
    select,
    text,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from portal.core.clock import clock
from portal.core.db import Base, CreatedAt, Id, TenantScoped, storable_ids, table_of
from portal.core.queue import enqueue, redis_holder
from portal.core.uow import UnitOfWork, operator_work, unit_of_work
from portal.domain.errors import Conflict, NotFound


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
    rows = event_rows(session.info.get("org_id"), events, clock.now())
    session.connection().execute(insert(table_of(OutboxEvent)), rows)


def event_rows(
    org_id: int | None, events: list[tuple[str, dict[str, Any]]], now: datetime
) -> list[dict[str, Any]]:
    """The outbox rows of ``events``, due at once (a decision writes them with its own
    statement: ``documents.decision_write``)."""
    return [
        {
            "org_id": org_id,
            "topic": topic,
            "payload": payload,
            "created_at": now,
            "next_attempt_at": now,
            "attempts": 0,
        }
        for topic, payload in events
    ]


# --- dispatch ------------------------------------------------------------------------------

Handler = Callable[[Session, OutboxEvent], None]
_handlers: dict[str, Handler] = {}
# A handler's way with several events at once (fewer statements), by the handler.
BatchHandler = Callable[[Session, list[OutboxEvent]], None]
_together: dict[Handler, BatchHandler] = {}

# After this many failed attempts an event stops being retried and waits for an admin.
MAX_ATTEMPTS = 8
FIRST_RETRY = timedelta(seconds=10)
LONGEST_WAIT = timedelta(hours=1)

log = logging.getLogger(__name__)


def register(prefix: str, handler: Handler, *, together: BatchHandler | None = None) -> None:
    """Deliver events whose topic starts with ``prefix`` (e.g. "notify.") with ``handler``.
    Handlers run in a savepoint of their batch's transaction and must be idempotent: the
    event's id is their key, since delivery is at least once.

    ``together``, when given, delivers several such events at once, as ``handler`` would
    one by one; should it fail, each is delivered on its own, so only the failing one
    is retried."""
    _handlers[prefix] = handler
    if together is not None:
        _together[handler] = together


def together_for(handler: Handler) -> BatchHandler | None:
    return _together.get(handler)


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
    """Deliver the organization's due events (``None``: the account events) in batches,
    at most about ``limit`` of them; return how many were delivered. Safe to run
    concurrently (``FOR UPDATE SKIP LOCKED``); see ``outbox_dispatch``."""
    # Imported here: the dispatcher builds on this module, which stays the public face.
    from portal.core.outbox_dispatch import dispatch_batches

    return dispatch_batches(org_id, limit=limit)


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


# --- what operators see and do --------------------------------------------------------------


@dataclass(frozen=True)
class Backlog:
    """The undelivered events of one scope (an organization, or the account mail)."""

    # Waiting for a delivery (not dead), and of those, due now.
    pending: int
    due: int
    # Dead letters: the last attempt failed; they wait for a person to retry them.
    dead: int
    oldest_pending_at: datetime | None


def _in_scope(session: Session) -> ColumnElement[bool]:
    """The unit of work's own rows, said explicitly (row-level security backs it)."""
    org_id: int | None = session.info.get("org_id")
    if org_id is None:
        return OutboxEvent.org_id.is_(None)
    return OutboxEvent.org_id == org_id


def _delivered_by_us() -> ColumnElement[bool]:
    # Events no handler claims yet (the ledger's postings) wait for their consumer: they
    # are no backlog of this portal's.
    return or_(*(OutboxEvent.topic.startswith(p) for p in _handlers))


_UNDELIVERED = OutboxEvent.dispatched_at.is_(None)
_DEAD = OutboxEvent.dead_at.is_not(None)


def backlog_in(session: Session, now: datetime) -> Backlog:
    """How much of the unit of work's scope waits, in one statement."""
    if not _handlers:
        return Backlog(0, 0, 0, None)
    waiting = _UNDELIVERED & OutboxEvent.dead_at.is_(None)
    row = session.execute(
        select(
            func.count().filter(waiting),
            func.count().filter(waiting & (OutboxEvent.next_attempt_at <= now)),
            func.count().filter(_UNDELIVERED & _DEAD),
            func.min(OutboxEvent.created_at).filter(waiting),
        ).where(_in_scope(session), _UNDELIVERED, _delivered_by_us())
    ).one()
    return Backlog(int(row[0]), int(row[1]), int(row[2]), row[3])


def dead_letters_in(session: Session, limit: int = 50) -> list[OutboxEvent]:
    """The scope's dead letters, the newest first."""
    return list(
        session.scalars(
            select(OutboxEvent)
            .where(_in_scope(session), _UNDELIVERED, _DEAD)
            .order_by(OutboxEvent.dead_at.desc(), OutboxEvent.id.desc())
            .limit(limit)
        )
    )


def retry_dead_in(session: Session, outbox_id: int) -> OutboxEvent:
    """Give a dead letter of the unit of work's scope a new round of attempts, due now.
    Its last error stays until the next attempt replaces it. Another scope's id, or
    none, is not found; a delivered event, or one still being tried, is refused."""
    if not storable_ids([outbox_id]):
        raise NotFound("outbox_event")
    event = session.scalars(
        select(OutboxEvent).where(_in_scope(session), OutboxEvent.id == outbox_id).with_for_update()
    ).first()
    if event is None:
        raise NotFound("outbox_event")
    if event.dispatched_at is not None:
        raise Conflict("outbox_already_delivered", id=outbox_id)
    if event.dead_at is None:
        raise Conflict("outbox_not_dead", id=outbox_id)
    event.dead_at = None
    event.attempts = 0
    event.next_attempt_at = clock.now()
    return event


def prune_delivered_in(session: Session, before: datetime) -> int:
    """Delete the scope's events delivered before ``before``; return how many. Only
    delivered rows: the database refuses any other to the app role, and the platform
    operator (who may) names the condition too."""
    result = session.execute(
        delete(OutboxEvent)
        .where(
            _in_scope(session),
            OutboxEvent.dispatched_at.is_not(None),
            OutboxEvent.dispatched_at < before,
        )
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def _scopes() -> list[tuple[int | None, str | None]]:
    """The account mail (None) and every organization, by id and address."""
    with operator_work() as uow:
        orgs = uow.session.execute(text("SELECT id, slug FROM organization ORDER BY id")).all()
    return [(None, None), *((row.id, row.slug) for row in orgs)]


def outbox_status(org_slug: str | None = None) -> list[tuple[str | None, Backlog]]:
    """Each organization's backlog (by address; None: the account mail), for operators."""
    report: list[tuple[str | None, Backlog]] = []
    now = clock.now()
    for org_id, slug in _scopes():
        if org_slug is not None and slug != org_slug:
            continue
        with _work_for(org_id) as uow:
            report.append((slug, backlog_in(uow.session, now)))
    return report


def retry_dead_letters(
    ids: list[int] | None = None, *, org_slug: str | None = None
) -> list[tuple[str | None, int]]:
    """Retry the dead letters with ``ids`` wherever they are, or (``ids`` None) every dead
    letter, of one organization with ``org_slug``. Returns (organization, id) of each
    retried; ids that name no dead letter are left out. Each scope is nudged."""
    wanted = storable_ids(ids or []) if ids is not None else None
    retried: list[tuple[str | None, int]] = []
    for org_id, slug in _scopes():
        if org_slug is not None and slug != org_slug:
            continue
        with _work_for(org_id) as uow:
            s = uow.session
            dead = select(OutboxEvent.id).where(_in_scope(s), _UNDELIVERED, _DEAD)
            if wanted is not None:
                dead = dead.where(OutboxEvent.id.in_(wanted))
            found = list(s.scalars(dead.order_by(OutboxEvent.id)))
            for outbox_id in found:
                retry_dead_in(s, outbox_id)
            if found:
                uow.after_commit(_nudger(org_id))
        retried += [(slug, outbox_id) for outbox_id in found]
    return retried


def _nudger(org_id: int | None) -> Callable[[], None]:
    return lambda: nudge(org_id)


def prune_outbox(
    retention_days: int | None = None, *, org_slug: str | None = None
) -> dict[str | None, int]:
    """Delete delivered events older than the retention (``PORTAL_OUTBOX_RETENTION_DAYS``
    when not given), each organization in its own unit of work and the account mail in
    the platform's (or only the organization at ``org_slug``); returns how many per
    organization address (None: account mail)."""
    if retention_days is None:
        from portal.config import Settings

        retention_days = Settings.from_env().outbox_retention_days
    before = clock.now() - timedelta(days=retention_days)
    pruned: dict[str | None, int] = {}
    for org_id, slug in _scopes():
        if org_slug is not None and slug != org_slug:
            continue
        with _work_for(org_id) as uow:
            pruned[slug] = prune_delivered_in(uow.session, before)
    return pruned
