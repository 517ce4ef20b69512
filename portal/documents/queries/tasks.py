"""Open tasks as their holder sees them: the inbox's rows and the nav badge's number.

Read-only Core statements with explicit ``org_id`` and ``assignee_id`` predicates
(row-level security backs them on PostgreSQL), so the list and the badge use the
partial index ``ix_task_open_by_assignee``. Prebuilt: the badge is on every page.

While someone's cover is active (``delegations.queries``), their open tasks are the
delegate's work too, "on behalf of" them: the rows and the count then come from
statements that take those tasks in as well — one row, and one count, per document.
Only a member who covers someone today pays for them: one read on the delegate's
index first (``covered_by``).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import Row, bindparam, case, func, or_, select
from sqlalchemy.engine import Connection

from portal.accounts.queries import member_name_of
from portal.core.db import table_of
from portal.delegations.queries import delegators_of, kind_clause
from portal.documents.models import OPEN_STATUS, Document, Task

_DOC = table_of(Document)
_TASK = table_of(Task)

_MINE = (
    (_TASK.c.org_id == bindparam("org"))
    & (_TASK.c.assignee_id == bindparam("member"))
    & (_TASK.c.status == OPEN_STATUS)
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
        # Whose task it is: the member's own here (a delegator's, under cover).
        _TASK.c.assignee_id,
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

# --- under cover ---------------------------------------------------------------------------

_COVERS = delegators_of(bindparam("org"), bindparam("member"), bindparam("today"))
# A delegator's open task the member may work on by an active cover for its kind — never
# on a document the member requested, nor on one requested by anyone they cover
# (``domain.authority`` refuses both: ``self_approval``, ``delegation_own_document``).
_LENT = (
    _COVERS.where(
        _COVERS.selected_columns.delegator_id == _TASK.c.assignee_id,
        kind_clause(_DOC.c.kind),
    ).exists()
    & (_DOC.c.requester_id != bindparam("member"))
    & ~_COVERS.where(_COVERS.selected_columns.delegator_id == _DOC.c.requester_id).exists()
)
_OWN_FIRST = case((_TASK.c.assignee_id == bindparam("member"), 0), else_=1)
_TASK_OR_LENT = (
    select(
        _TASK.c.document_id,
        _TASK.c.assignee_id,
        _TASK.c.due_at,
        _TASK.c.created_at,
        _TASK.c.id.label("task_id"),
        _TASK.c.via,
        # One task per document: the member's own before a delegator's, then the most
        # urgent, so a document shows once and counts once.
        func.row_number()
        .over(
            partition_by=_TASK.c.document_id,
            order_by=(
                _OWN_FIRST,
                case((_TASK.c.due_at.is_(None), 1), else_=0),
                _TASK.c.due_at,
                _TASK.c.id,
            ),
        )
        .label("pick"),
    )
    .join_from(_TASK, _DOC, (_DOC.c.org_id == _TASK.c.org_id) & (_DOC.c.id == _TASK.c.document_id))
    .where(
        _TASK.c.org_id == bindparam("org"),
        _TASK.c.status == OPEN_STATUS,
        or_(_TASK.c.assignee_id == bindparam("member"), _LENT),
        _DOC.c.org_id == bindparam("org"),
        _DOC.c.state == _TASK.c.state,
        _DOC.c.discarded_at.is_(None),
    )
    .subquery("picked")
)
_PICKED = _TASK_OR_LENT.c.pick == 1
_OPEN_OR_LENT = (
    select(
        _TASK_OR_LENT.c.document_id,
        func.count().over().label("total"),
        _TASK_OR_LENT.c.assignee_id,
        _DOC.c.reference,
        _DOC.c.title,
        member_name_of(_DOC.c.requester_id, _DOC.c.org_id).label("requester_name"),
        _DOC.c.amount,
        _DOC.c.currency,
        _DOC.c.kind,
        _DOC.c.version,
        _DOC.c.state,
        _TASK_OR_LENT.c.due_at,
        _TASK_OR_LENT.c.created_at,
        _DOC.c.state_entered_at,
        _TASK_OR_LENT.c.via,
    )
    .join_from(
        _TASK_OR_LENT,
        _DOC,
        (_DOC.c.org_id == bindparam("org")) & (_DOC.c.id == _TASK_OR_LENT.c.document_id),
    )
    .where(_PICKED)
    .order_by(
        case((_TASK_OR_LENT.c.due_at.is_(None), 1), else_=0),
        _TASK_OR_LENT.c.due_at,
        _TASK_OR_LENT.c.created_at,
        _TASK_OR_LENT.c.task_id,
    )
    .limit(bindparam("rows"))
)
# Narrowed to the member's own rows, or to one delegator's ("Mine" / "On behalf of …").
_ONLY_ONE_HOLDER = _OPEN_OR_LENT.where(_TASK_OR_LENT.c.assignee_id == bindparam("only"))
_COUNT_OPEN_OR_LENT = select(
    func.count(),
    func.count().filter(_TASK_OR_LENT.c.due_at < bindparam("now")),
).where(_PICKED)


def covered_by(connection: Connection, org_id: int, member_id: int, today: date) -> list[int]:
    """The members whose open tasks ``member_id`` works on today by an active cover
    (the organization's ``today``), each once, in id order; usually none."""
    found = connection.execute(delegators_of(org_id, member_id, today))
    return sorted({row.delegator_id for row in found})


def open_task_rows_in(
    connection: Connection,
    org_id: int,
    member_id: int,
    rows: int,
    *,
    today: date | None = None,
    only: int | None = None,
) -> list[Row[Any]]:
    """The member's first ``rows`` open tasks, most urgent first: the document id, the
    total count of their open tasks, whose task it is, then ``OPEN_TASK_COLUMNS``.

    Given the organization's ``today`` — passed only when the member covers someone
    then (``covered_by``, or the banner's read): the caller asks once — the tasks of
    whoever the member covers come too (a document once, by the member's own task if
    they hold one); ``only`` narrows them to one holder's (the member: their own; a
    delegator: theirs)."""
    if today is None:
        if only not in (None, member_id):
            return []
        own = {"org": org_id, "member": member_id, "rows": rows}
        return list(connection.execute(_OPEN_TASKS, own))
    params: dict[str, Any] = {"org": org_id, "member": member_id, "today": today, "rows": rows}
    if only is None:
        return list(connection.execute(_OPEN_OR_LENT, params))
    return list(connection.execute(_ONLY_ONE_HOLDER, {**params, "only": only}))


def count_open_tasks_in(
    connection: Connection, org_id: int, member_id: int, today: date | None = None
) -> int:
    """How many open tasks the member has: one COUNT on the partial index. Given the
    organization's ``today``, with their delegators' (``open_task_rows_in``): a
    document counts once, as it is listed once (``today`` as for ``open_task_rows_in``)."""
    if today is None:
        count = connection.execute(_COUNT_OPEN, {"org": org_id, "member": member_id})
        return int(count.scalar_one())
    return open_or_lent_counts_in(connection, org_id, member_id, today, now=None)[0]


def open_or_lent_counts_in(
    connection: Connection, org_id: int, member_id: int, today: date, *, now: Any
) -> tuple[int, int]:
    """The member's open tasks with their delegators' (a document once), and how many
    of them are past their deadline at ``now`` (0 when ``now`` is None)."""
    params = {"org": org_id, "member": member_id, "today": today, "now": now}
    total, overdue = connection.execute(_COUNT_OPEN_OR_LENT, params).one()
    return int(total), int(overdue or 0)
