"""An organization's open tasks past their deadline, for its admins (the Operations
page): the most overdue first, with the document and the holder.

A read-only Core statement with explicit ``org_id`` predicates (row-level security backs
them on PostgreSQL).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, func, select
from sqlalchemy.engine import Connection

from portal.accounts.queries import member_name_of
from portal.core.db import table_of
from portal.documents.models import OPEN_STATUS, Document, Task

_DOC = table_of(Document)
_TASK = table_of(Task)

_OVERDUE = (
    select(
        func.count().over().label("total"),
        _TASK.c.document_id,
        _DOC.c.reference,
        _DOC.c.title,
        _DOC.c.kind,
        _DOC.c.version,
        _DOC.c.state,
        member_name_of(_TASK.c.assignee_id, _TASK.c.org_id).label("assignee_name"),
        _TASK.c.due_at,
        _TASK.c.level,
    )
    .join_from(_TASK, _DOC, (_DOC.c.org_id == _TASK.c.org_id) & (_DOC.c.id == _TASK.c.document_id))
    .where(
        _TASK.c.org_id == bindparam("org"),
        _DOC.c.org_id == bindparam("org"),
        _TASK.c.status == OPEN_STATUS,
        _TASK.c.due_at < bindparam("now"),
        # A task left behind by a move that has not closed it yet is nobody's work.
        _DOC.c.state == _TASK.c.state,
        _DOC.c.discarded_at.is_(None),
    )
    .order_by(_TASK.c.due_at, _TASK.c.id)
    .limit(bindparam("rows"))
)


def overdue_task_rows_in(
    connection: Connection, org_id: int, now: datetime, rows: int
) -> list[Row[Any]]:
    """The organization's first ``rows`` overdue open tasks, most overdue first: the
    total count of them, then the document id, reference, title, kind, version and
    state, the holder's name, the due date and the task's escalation level."""
    return list(connection.execute(_OVERDUE, {"org": org_id, "now": now, "rows": rows}))


_OLDEST_DUE = select(func.min(_TASK.c.sweep_at)).where(
    _TASK.c.org_id == bindparam("org"),
    _TASK.c.status == OPEN_STATUS,
    _TASK.c.sweep_at.is_not(None),
    _TASK.c.sweep_at <= bindparam("now"),
)


def oldest_sweep_due_in(conn: Connection, org_id: int, now: datetime) -> datetime | None:
    """Since when the organization's oldest deadline work waits for the sweep (None:
    nothing waits). The planner can beat its heartbeat while no worker serves the sweep
    queue: this says whether the organization's deadlines are actually acted on."""
    found: datetime | None = conn.scalar(_OLDEST_DUE, {"org": org_id, "now": now})
    return found
