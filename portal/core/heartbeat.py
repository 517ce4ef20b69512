"""Heartbeats of the background half: when the deadline sweep (and other periodic
jobs) last ran, and what they found. One row per job name; not an organization's data.
Workers' own heartbeats are RQ's (``rq.Worker.all``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, String, select, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from portal.core.clock import clock
from portal.core.db import Base

# The rows the migrations write, one per periodic job.
SWEEP_HEARTBEAT = "deadline_sweep"
DIGEST_HEARTBEAT = "mail_digest"


class Heartbeat(Base):
    __tablename__ = "heartbeat"

    name: Mapped[str] = mapped_column(String(63), primary_key=True)
    # None: it has never run.
    beat_at: Mapped[datetime | None]
    # What the last run found (how many items, how long it took).
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)


def beat(session: Session, name: str, detail: dict[str, Any]) -> None:
    """Record that ``name`` ran now (inside the caller's transaction). The rows are
    written by the migration that adds each job, so two runners never race to create
    one."""
    session.execute(
        update(Heartbeat).where(Heartbeat.name == name).values(beat_at=clock.now(), detail=detail)
    )


def last_beat(session: Session, name: str) -> Heartbeat | None:
    return session.scalar(select(Heartbeat).where(Heartbeat.name == name))
