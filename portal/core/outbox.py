"""The transactional outbox: every side effect that leaves the database is a row
written in the transaction that caused it.

A rolled-back transition therefore never notifies, and a committed one is delivered at
least once: a job dispatches rows after commit, retrying with backoff; a periodic relay
re-enqueues anything left undispatched, so a Redis outage delays but loses nothing.
Handlers are registered by topic and must be idempotent (the row id is their key).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Index, String, Text, text
from sqlalchemy.orm import Mapped, Session, mapped_column

from portal.core.clock import clock
from portal.core.db import Base, TenantScoped


class OutboxEvent(TenantScoped, Base):
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

    id: Mapped[int] = mapped_column(primary_key=True)
    topic: Mapped[str] = mapped_column(String(63))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime]
    dispatched_at: Mapped[datetime | None]
    attempts: Mapped[int] = mapped_column(server_default=text("0"))
    next_attempt_at: Mapped[datetime]
    last_error: Mapped[str | None] = mapped_column(Text)

    def __repr__(self) -> str:
        return f"<OutboxEvent {self.id} {self.topic!r}>"


def add_event(session: Session, topic: str, payload: dict[str, Any]) -> OutboxEvent:
    """Write one side effect into the caller's transaction."""
    now = clock.now()
    event = OutboxEvent(topic=topic, payload=payload, created_at=now, next_attempt_at=now)
    session.add(event)
    return event
