"""What a member's home page counts: their open tasks (and how many are overdue), their
own documents still under way, and, for those who see every document (admins,
auditors), the organization's. Read-only, a few statements, in the caller's unit of
work; discarded drafts are counted nowhere."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.core.db import table_of
from portal.documents.models import OPEN_STATUS, Document, Task
from portal.documents.queries.tasks import open_or_lent_counts_in
from portal.domain.actor import Actor
from portal.domain.graph import Graph, StateRole
from portal.flows.queries import version_in

_DOC = table_of(Document)
_TASK = table_of(Task)


@dataclass(frozen=True)
class TaskCounts:
    open: int
    # Open tasks whose deadline has passed.
    overdue: int


def task_counts_in(
    session: Session, org_id: int, member_id: int, now: datetime, today: date | None = None
) -> TaskCounts:
    """The member's open tasks (what the inbox badge counts) and the overdue ones among
    them, in one statement on the open-task index. Given the organization's ``today``,
    with the tasks of whoever the member covers then, a document once, as the inbox
    lists them (``queries.tasks``)."""
    if today is not None:  # the member covers someone then (the caller asked)
        conn = session.connection()
        return TaskCounts(*open_or_lent_counts_in(conn, org_id, member_id, today, now=now))
    row = (
        session.connection()
        .execute(
            select(
                func.count(),
                func.count().filter(_TASK.c.due_at < now),
            ).where(
                _TASK.c.org_id == org_id,
                _TASK.c.assignee_id == member_id,
                _TASK.c.status == OPEN_STATUS,
            )
        )
        .one()
    )
    return TaskCounts(int(row[0]), int(row[1]))


@dataclass(frozen=True)
class DocumentCounts:
    # Not in a terminal state (drafts included), and of those, still drafts.
    open: int
    drafts: int


def _counts_by_state(
    session: Session, org_id: int, rows: list[tuple[str, int, str, int]]
) -> DocumentCounts:
    graphs: dict[tuple[str, int], Graph] = {}
    open_count = drafts = 0
    for kind, version, state_key, count in rows:
        graph = graphs.get((kind, version))
        if graph is None:
            graph = graphs[(kind, version)] = version_in(session, org_id, kind, version).graph
        state = graph.state(state_key)
        if state is None or state.terminal:
            continue
        open_count += count
        if state.role == StateRole.DRAFT:
            drafts += count
    return DocumentCounts(open_count, drafts)


def my_document_counts_in(session: Session, actor: Actor) -> DocumentCounts:
    """The actor's own documents still under way: one grouped statement, and the
    (cached) pinned flow of each group to tell a terminal state."""
    rows = session.connection().execute(
        select(_DOC.c.kind, _DOC.c.version, _DOC.c.state, func.count())
        .where(
            _DOC.c.org_id == actor.org_id,
            _DOC.c.requester_id == actor.member_id,
            _DOC.c.discarded_at.is_(None),
        )
        .group_by(_DOC.c.kind, _DOC.c.version, _DOC.c.state)
    )
    return _counts_by_state(session, actor.org_id, [tuple(r) for r in rows])


@dataclass(frozen=True)
class RecentDocument:
    reference: str
    title: str
    state: str
    state_entered_at: datetime
    graph: Graph


@dataclass(frozen=True)
class OrganizationDocuments:
    """Every document of the organization, for those who see them all."""

    total: int
    counts: DocumentCounts
    recent: list[RecentDocument]


def organization_documents_in(
    session: Session, actor: Actor, *, recent: int = 5
) -> OrganizationDocuments | None:
    """For admins and auditors (who see every document): how many there are, how many
    are under way, and the latest moved. None for anyone else."""
    if not (actor.is_admin or actor.is_auditor):
        return None
    conn = session.connection()
    live = (_DOC.c.org_id == actor.org_id) & _DOC.c.discarded_at.is_(None)
    grouped = [
        tuple(r)
        for r in conn.execute(
            select(_DOC.c.kind, _DOC.c.version, _DOC.c.state, func.count())
            .where(live)
            .group_by(_DOC.c.kind, _DOC.c.version, _DOC.c.state)
        )
    ]
    latest = conn.execute(
        select(
            _DOC.c.reference,
            _DOC.c.title,
            _DOC.c.state,
            _DOC.c.state_entered_at,
            _DOC.c.kind,
            _DOC.c.version,
        )
        .where(live)
        .order_by(_DOC.c.state_entered_at.desc(), _DOC.c.id.desc())
        .limit(recent)
    ).all()
    return OrganizationDocuments(
        total=sum(int(r[3]) for r in grouped),
        counts=_counts_by_state(session, actor.org_id, grouped),
        recent=[
            RecentDocument(
                r.reference,
                r.title,
                r.state,
                r.state_entered_at,
                version_in(session, actor.org_id, r.kind, r.version).graph,
            )
            for r in latest
        ],
    )
