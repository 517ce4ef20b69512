"""Reading the inbox: a member's open tasks joined to their documents, and their count.

Read-only, and no Flask: the page, the nav badge, jobs and tests call these the same
way. SQLAlchemy Core with explicit ``org_id`` and ``assignee_id`` predicates (row-level
security backs them on PostgreSQL), so the list and the badge use the partial index
``ix_task_open_by_assignee``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal

from sqlalchemy import bindparam, case, func, select

from portal.accounts.models import Membership, User
from portal.core.uow import unit_of_work
from portal.documents.models import Document, Task, TaskStatus
from portal.domain.actor import Actor
from portal.domain.graph import Graph
from portal.flows import services as flows

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
        _TASK.c.state.label("task_state"),
        _TASK.c.transitions,
        _TASK.c.due_at,
        _TASK.c.created_at,
        _DOC.c.reference,
        _DOC.c.title,
        _DOC.c.amount,
        _DOC.c.currency,
        _DOC.c.kind,
        _DOC.c.version,
        _DOC.c.state,
        _DOC.c.state_entered_at,
        _USER.c.name.label("requester_name"),
        # Every open task of the member, before the LIMIT: the nav badge's number.
        func.count().over().label("total"),
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
    # At most two tasks per document (two gate states among its exits), so twice the
    # page plus one row always tells whether there are more documents than shown.
    .limit(bindparam("rows"))
)
_COUNT_OPEN = select(func.count()).select_from(_TASK).where(_MINE)
# The transitions the member's task on each document in the state the page showed
# authorises (or authorised, when the document has moved on since): an open task first.
_TASKS_IN_STATE = (
    select(_DOC.c.reference, _TASK.c.state, _TASK.c.transitions)
    .join_from(_TASK, _DOC, (_DOC.c.org_id == _TASK.c.org_id) & (_DOC.c.id == _TASK.c.document_id))
    .where(
        _TASK.c.org_id == bindparam("org"),
        _DOC.c.org_id == bindparam("org"),
        _TASK.c.assignee_id == bindparam("member"),
        _DOC.c.reference.in_(bindparam("references", expanding=True)),
    )
    .order_by(case((_TASK.c.status == TaskStatus.OPEN, 0), else_=1), _TASK.c.id.desc())
)


@dataclass(frozen=True)
class InboxRow:
    reference: str
    title: str
    requester_name: str
    amount: Decimal
    currency: str
    kind: str
    version: int
    # The document's state, the one the task is open in.
    state: str
    # The transitions (action keys) the member's task authorises, in flow order.
    transitions: tuple[str, ...]
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


def open_tasks(actor: Actor, limit: int = DEFAULT_LIMIT) -> InboxPage:
    """The member's open tasks, one row per document, most urgent first."""
    with unit_of_work(actor.org_id, user_id=actor.user_id) as uow:
        session = uow.session
        result = session.connection().execute(
            _OPEN_TASKS, {"org": actor.org_id, "member": actor.member_id, "rows": 2 * limit + 1}
        )
        rows: dict[int, InboxRow] = {}
        more = False
        total = 0
        for task in result:
            total = task.total
            known = rows.get(task.document_id)
            if known is not None:
                # Two tasks on one document (two gate states among its exits): one row,
                # offering what either authorises.
                extra = tuple(k for k in task.transitions if k not in known.transitions)
                rows[task.document_id] = replace(known, transitions=known.transitions + extra)
                continue
            if len(rows) == limit:
                more = True
                break
            graph = flows.version_in(session, actor.org_id, task.kind, task.version).graph
            rows[task.document_id] = InboxRow(
                reference=task.reference,
                title=task.title,
                requester_name=task.requester_name,
                amount=task.amount,
                currency=task.currency,
                kind=task.kind,
                version=task.version,
                state=task.state,
                transitions=tuple(task.transitions),
                due_at=task.due_at,
                created_at=task.created_at,
                state_entered_at=task.state_entered_at,
                graph=graph,
            )
        result.close()
        return InboxPage(list(rows.values()), more, total)


def count_open_tasks(actor: Actor) -> int:
    """How many open tasks the member has (the nav badge): one COUNT on the partial index."""
    with unit_of_work(actor.org_id, user_id=actor.user_id) as uow:
        count = uow.session.connection().execute(
            _COUNT_OPEN, {"org": actor.org_id, "member": actor.member_id}
        )
        return int(count.scalar_one())


def task_transitions(actor: Actor, items: Iterable[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """For each (reference, state the page showed): the transitions the member's task on
    that document in that state authorises — or authorised, if the document has moved
    on since, so that a bulk decision meets the service's ``stale_state`` rather than
    guessing. References with no such task are absent."""
    wanted = {reference[:32]: state for reference, state in items}
    if not wanted:
        return {}
    found: dict[str, tuple[str, ...]] = {}
    with unit_of_work(actor.org_id, user_id=actor.user_id) as uow:
        for reference, state, keys in uow.session.connection().execute(
            _TASKS_IN_STATE,
            {"org": actor.org_id, "member": actor.member_id, "references": sorted(wanted)},
        ):
            if wanted.get(reference) == state and reference not in found:
                found[reference] = tuple(keys)
    return found
