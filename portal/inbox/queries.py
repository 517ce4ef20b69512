"""Reading the inbox: a member's open tasks joined to their documents, and their count.

Read-only, and no Flask: the page, the nav badge, jobs and tests call these the same
way. SQLAlchemy Core with explicit ``org_id`` and ``assignee_id`` predicates (row-level
security backs them on PostgreSQL), so the list and the badge use the partial index
``ix_task_open_by_assignee``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import bindparam, case, func, select
from sqlalchemy.orm import Session

from portal.accounts.models import Membership, User
from portal.core.uow import unit_of_work_for
from portal.documents.models import Document, Task, TaskStatus
from portal.domain.actor import Actor
from portal.domain.graph import Graph
from portal.flows import queries as flows
from portal.notifications.queries import count_unread_in

DEFAULT_LIMIT = 200

_DOC = Document.__table__
_TASK = Task.__table__
_MEMBER = Membership.__table__
_USER = User.__table__

_MINE = (
    (_TASK.c.org_id == bindparam("org"))
    & (_TASK.c.assignee_id == bindparam("member"))
    & (_TASK.c.status == TaskStatus.OPEN)
)
_OPEN_TASKS = (
    select(
        _TASK.c.document_id,
        # Every open task of the member, before the LIMIT: the nav badge's number.
        func.count().over().label("total"),
        # The rest in InboxRow's order: a row is built from them positionally.
        _DOC.c.reference,
        _DOC.c.title,
        _USER.c.name.label("requester_name"),
        _DOC.c.amount,
        _DOC.c.currency,
        _DOC.c.kind,
        _DOC.c.version,
        _DOC.c.state,
        _TASK.c.due_at,
        _TASK.c.created_at,
        _DOC.c.state_entered_at,
    )
    .join_from(_TASK, _DOC, (_DOC.c.org_id == _TASK.c.org_id) & (_DOC.c.id == _TASK.c.document_id))
    .join(_MEMBER, (_MEMBER.c.org_id == _DOC.c.org_id) & (_MEMBER.c.id == _DOC.c.requester_id))
    .join(_USER, _USER.c.id == _MEMBER.c.user_id)
    # A task belongs to the state it was opened in; one left behind by a move that has
    # not closed it yet is not actionable.
    .where(_MINE, _DOC.c.org_id == bindparam("org"), _DOC.c.state == _TASK.c.state)
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


@dataclass(frozen=True, slots=True)
class InboxRow:
    # The fields come in the order of _OPEN_TASKS' columns after its first two.
    reference: str
    title: str
    requester_name: str
    amount: Decimal
    currency: str
    kind: str
    version: int
    # The document's state, the one the task is open in.
    state: str
    due_at: datetime | None
    # When the task was opened, and when the document entered its state.
    created_at: datetime
    state_entered_at: datetime
    # The pinned flow version's graph, for state and transition labels.
    graph: Graph

    def is_overdue(self, now: datetime) -> bool:
        return self.due_at is not None and self.due_at < now


@dataclass(frozen=True)
class InboxPage:
    rows: list[InboxRow]
    # True when there are more open tasks than ``limit``: the page says "200+".
    more: bool
    # All the member's open tasks (what the nav badge counts).
    total: int = 0
    # The member's unread notifications (the bell), read in the same transaction.
    unread: int = 0


def open_tasks(actor: Actor, limit: int = DEFAULT_LIMIT) -> InboxPage:
    """The member's open tasks, one row per document, most urgent first."""
    with unit_of_work_for(actor) as uow:
        connection = uow.session.connection()
        params = {"org": actor.org_id, "member": actor.member_id}
        # A page plus one row tells whether there are more, unless a document holds two
        # of the member's tasks; then ask again for twice the page plus one, which is
        # always enough (at most two tasks per document).
        tasks = connection.execute(_OPEN_TASKS, {**params, "rows": limit + 1}).all()
        page = _page_of(uow.session, actor.org_id, tasks, limit)
        if len(tasks) == limit + 1 and not page.more:
            tasks = connection.execute(_OPEN_TASKS, {**params, "rows": 2 * limit + 1}).all()
            page = _page_of(uow.session, actor.org_id, tasks, limit)
        return replace(page, unread=count_unread_in(connection, actor))


def _page_of(session: Session, org_id: int, tasks: list[Any], limit: int) -> InboxPage:
    rows: dict[int, InboxRow] = {}
    graphs: dict[tuple[str, int], Graph] = {}
    more = False
    for task in tasks:
        document_id, _total, *columns = task
        if document_id in rows:
            # Two tasks on one document: one row, dated by the more urgent (it came first).
            continue
        if len(rows) == limit:
            more = True
            break
        pinned = (task.kind, task.version)
        graph = graphs.get(pinned)
        if graph is None:
            graph = graphs[pinned] = flows.version_in(session, org_id, *pinned).graph
        rows[document_id] = InboxRow(*columns, graph)
    return InboxPage(list(rows.values()), more, tasks[0].total if tasks else 0)


def count_open_tasks(actor: Actor) -> int:
    """How many open tasks the member has (the nav badge): one COUNT on the partial index."""
    with unit_of_work_for(actor) as uow:
        count = uow.session.connection().execute(
            _COUNT_OPEN, {"org": actor.org_id, "member": actor.member_id}
        )
        return int(count.scalar_one())
