"""Open tasks as their holder sees them: the inbox's rows and the nav badge's number.

Read-only Core statements with explicit ``org_id`` and ``assignee_id`` predicates
(row-level security backs them on PostgreSQL), so the list and the badge use the
partial index ``ix_task_open_by_assignee``. Prebuilt: the badge is on every page.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, bindparam, case, func, select
from sqlalchemy.engine import Connection

from portal.accounts.queries import member_name_of
from portal.core.db import table_of
from portal.documents.models import Document, Task, TaskStatus

_DOC = table_of(Document)
_TASK = table_of(Task)

_MINE = (
    (_TASK.c.org_id == bindparam("org"))
    & (_TASK.c.assignee_id == bindparam("member"))
    & (_TASK.c.status == TaskStatus.OPEN)
)
# The columns after the first two, in this order, are what an inbox row is built from.
OPEN_TASK_COLUMNS = (
    "reference",
    "title",
    "requester_name",
    "amount",
    "currency",
    "kind",
    "version",
    "state",
    "due_at",
    "created_at",
    "state_entered_at",
    "via",
)
_OPEN_TASKS = (
    select(
        _TASK.c.document_id,
        # Every open task of the member, before the LIMIT: the nav badge's number.
        func.count().over().label("total"),
        _DOC.c.reference,
        _DOC.c.title,
        member_name_of(_DOC.c.requester_id, _DOC.c.org_id).label("requester_name"),
        _DOC.c.amount,
        _DOC.c.currency,
        _DOC.c.kind,
        _DOC.c.version,
        _DOC.c.state,
        _TASK.c.due_at,
        _TASK.c.created_at,
        _DOC.c.state_entered_at,
        _TASK.c.via,
    )
    .join_from(_TASK, _DOC, (_DOC.c.org_id == _TASK.c.org_id) & (_DOC.c.id == _TASK.c.document_id))
    # A task belongs to the state it was opened in; one left behind by a move that has
    # not closed it yet is not actionable.
    # A discarded draft was never submitted, so it holds no task; it is left out anyway,
    # so that nothing a requester threw away can surface in an inbox.
    .where(
        _MINE,
        _DOC.c.org_id == bindparam("org"),
        _DOC.c.state == _TASK.c.state,
        _DOC.c.discarded_at.is_(None),
    )
    # Most urgent first: the earliest deadline (so the overdue ones lead), tasks
    # without a deadline after every dated one, then the oldest.
    .order_by(
        case((_TASK.c.due_at.is_(None), 1), else_=0),
        _TASK.c.due_at,
        _TASK.c.created_at,
        _TASK.c.id,
    )
    .limit(bindparam("rows"))
)
_COUNT_OPEN = select(func.count()).select_from(_TASK).where(_MINE)


def open_task_rows_in(
    connection: Connection, org_id: int, member_id: int, rows: int
) -> list[Row[Any]]:
    """The member's first ``rows`` open tasks, most urgent first: the document id, the
    total count of their open tasks, then ``OPEN_TASK_COLUMNS``."""
    return list(connection.execute(_OPEN_TASKS, {"org": org_id, "member": member_id, "rows": rows}))


def count_open_tasks_in(connection: Connection, org_id: int, member_id: int) -> int:
    """How many open tasks the member has: one COUNT on the partial index."""
    count = connection.execute(_COUNT_OPEN, {"org": org_id, "member": member_id})
    return int(count.scalar_one())
