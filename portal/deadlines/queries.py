"""What the deadline sweep reads: the organizations with due work (across them, in the
platform operator's scope), and within one organization the documents whose tasks are
due, their due tasks (locked), the effects already recorded and who holds the step.

Core statements with explicit tenant predicates (row-level security behind them on
PostgreSQL), on the partial indexes ``ix_task_sweep_due`` and ``ix_task_sweep_due_in_org``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from portal.accounts.queries import chart_version_of
from portal.core.db import table_of
from portal.deadlines.models import DeadlineEffect
from portal.documents.access import DocumentRecord, VisibleDocument, record_of
from portal.documents.transitions import DOCUMENT_TABLE, OPEN_STATUS, TASK_TABLE

_DOC = DOCUMENT_TABLE
_TASK = TASK_TABLE
_EFFECT = table_of(DeadlineEffect)

_DUE = (_TASK.c.status == OPEN_STATUS) & (_TASK.c.sweep_at.is_not(None))


@dataclass(frozen=True)
class SweptOrganization:
    """What the sweep needs to know of the organization it works in."""

    id: int
    slug: str
    time_zone: str
    # The reminder before a deadline, in minutes (0: none).
    reminder_lead_minutes: int


def organization_in(session: Session, org_id: int) -> SweptOrganization | None:
    """The organization the unit of work is in, or None when it is archived (its tasks
    wait: nobody acts in an archived organization)."""
    row = session.execute(
        text(
            "SELECT id, slug, time_zone, reminder_lead_minutes, archived_at"
            " FROM organization WHERE id = :id"
        ),
        {"id": org_id},
    ).first()
    if row is None or row.archived_at is not None:
        return None
    return SweptOrganization(row.id, row.slug, row.time_zone or "UTC", row.reminder_lead_minutes)


def organizations_due(session: Session, now: datetime) -> list[int]:
    """The organizations, not archived, with an open task whose sweep is due (the
    operator's scope: across organizations)."""
    due = set(
        session.scalars(select(_TASK.c.org_id).distinct().where(_DUE, _TASK.c.sweep_at <= now))
    )
    if not due:
        return []
    archived = set(
        session.scalars(text("SELECT id FROM organization WHERE archived_at IS NOT NULL"))
    )
    return sorted(due - archived)


def documents_due(
    session: Session, org_id: int, now: datetime, after: int, limit: int
) -> list[int]:
    """Up to ``limit`` documents of the organization with due tasks, by id after ``after``
    (the sweep walks them once per job in id order)."""
    return list(
        session.scalars(
            select(_TASK.c.document_id)
            .distinct()
            .where(
                _TASK.c.org_id == org_id,
                _DUE,
                _TASK.c.sweep_at <= now,
                _TASK.c.document_id > after,
            )
            .order_by(_TASK.c.document_id)
            .limit(limit)
        )
    )


def due_tasks_put_off(
    session: Session, org_id: int, document_id: int, now: datetime, wait: timedelta
) -> int:
    """Move the document's due tasks' next sweep to ``now + wait`` (its sweep failed);
    returns how many were moved."""
    moved = session.connection().execute(
        update(_TASK)
        .where(
            _TASK.c.org_id == org_id,
            _TASK.c.document_id == document_id,
            _DUE,
            _TASK.c.sweep_at <= now,
        )
        .values(sweep_at=now + wait)
    )
    return moved.rowcount


def lock_document(
    session: Session, org_id: int, document_id: int, *, skip_locked: bool
) -> VisibleDocument | None:
    """The document, its row locked for the rest of the transaction; None when another
    transaction holds it (a decision or another sweep: a later pass gets it)."""
    statement = select(_DOC, chart_version_of(_DOC.c.org_id).label("chart_version")).where(
        _DOC.c.org_id == org_id, _DOC.c.id == document_id
    )
    locked = statement.with_for_update(of=_DOC, skip_locked=skip_locked)
    row = session.connection().execute(locked).first()
    if row is None:
        return None
    # The requester's name is for pages; the sweep shows none (and an automatic
    # transition reads the document afresh).
    return VisibleDocument(record_of(row), "", row.chart_version, {})


@dataclass(frozen=True)
class DueTask:
    id: int
    state: str
    assignee_id: int
    via: str
    transitions: tuple[str, ...]
    band_floor: Decimal
    due_at: datetime | None
    created_at: datetime
    level: int
    sweep_at: datetime | None = None

    def due_by(self, now: datetime) -> bool:
        return self.sweep_at is not None and self.sweep_at <= now


def open_tasks_of(session: Session, doc: DocumentRecord) -> list[DueTask]:
    """The document's open tasks, locked (read under the document's lock, so a decision
    closing them waits or has committed): the due ones are the sweep's work, and all of
    them say who holds each step already."""
    rows = session.connection().execute(
        select(
            _TASK.c.id,
            _TASK.c.state,
            _TASK.c.assignee_id,
            _TASK.c.via,
            _TASK.c.transitions,
            _TASK.c.band_floor,
            _TASK.c.due_at,
            _TASK.c.created_at,
            _TASK.c.level,
            _TASK.c.sweep_at,
        )
        .where(
            _TASK.c.org_id == doc.org_id,
            _TASK.c.document_id == doc.id,
            _TASK.c.status == OPEN_STATUS,
        )
        .order_by(_TASK.c.id)
        .with_for_update(of=_TASK)
    )
    return [
        DueTask(
            row.id,
            row.state,
            row.assignee_id,
            row.via,
            tuple(row.transitions),
            row.band_floor,
            row.due_at,
            row.created_at,
            row.level,
            row.sweep_at,
        )
        for row in rows
    ]


def effects_recorded(session: Session, doc: DocumentRecord) -> dict[int, set[tuple[str, int]]]:
    """Per task of the document, the (kind, level) of every effect already recorded."""
    done: dict[int, set[tuple[str, int]]] = {}
    for task_id, kind, level in session.connection().execute(
        select(_EFFECT.c.task_id, _EFFECT.c.kind, _EFFECT.c.level).where(
            _EFFECT.c.org_id == doc.org_id, _EFFECT.c.document_id == doc.id
        )
    ):
        done.setdefault(task_id, set()).add((kind, level))
    return done


@dataclass(frozen=True)
class RecordedEffect:
    task_id: int
    kind: str
    level: int
    action: str
    outcome: dict[str, Any]
    applied_at: datetime


def effects_of(session: Session, org_id: int, document_id: int) -> list[RecordedEffect]:
    """What the sweep did on a document, in order (for the history and tests)."""
    return [
        RecordedEffect(*row)
        for row in session.execute(
            select(
                _EFFECT.c.task_id,
                _EFFECT.c.kind,
                _EFFECT.c.level,
                _EFFECT.c.action,
                _EFFECT.c.outcome,
                _EFFECT.c.applied_at,
            )
            .where(_EFFECT.c.org_id == org_id, _EFFECT.c.document_id == document_id)
            .order_by(_EFFECT.c.id)
        )
    ]
