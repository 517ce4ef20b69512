"""Reading the inbox: a member's open tasks joined to their documents, their own
documents that wait for them (``documents.queries.next_steps``), and the counts.

While the member covers for someone (an active delegation, on the organization's day),
the delegator's open tasks are in the inbox too, each marked with whose it is, and in the
counts; the page may be narrowed to the member's own or to one delegator's.

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

from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.delegations.queries import NO_BANNER, CoverBanner, cover_banner_in
from portal.documents.queries.handovers import handed_from, handovers_in
from portal.documents.queries.next_steps import NextStep, count_next_steps_in, next_steps_in
from portal.documents.queries.tasks import count_open_tasks_in, covered_by, open_task_rows_in
from portal.domain.actor import Actor
from portal.domain.authority import Via
from portal.domain.graph import Graph
from portal.flows import queries as flows
from portal.notifications.queries import count_unread_in

DEFAULT_LIMIT = 200


@dataclass(frozen=True, slots=True)
class InboxRow:
    document_id: int
    # The fields from here come in the order of ``OPEN_TASK_COLUMNS``.
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
    # How the member came by the task: grant, delegation, escalation, reassignment.
    via: str
    # The pinned flow version's graph, for state and transition labels.
    graph: Graph
    # Whom a passing deadline escalated or reassigned the task from, if it did.
    from_name: str | None = None
    # Whom a passing deadline brought in above the member on this task.
    escalated_to: tuple[str, ...] = ()
    # Whose task it is when it is not the member's own: the delegator they cover.
    on_behalf_of: int | None = None
    on_behalf_name: str | None = None

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
    # The member's own documents that wait for them (revise, confirm receipt).
    steps: tuple[NextStep, ...] = ()
    # Whom the member covers today (member id, name), for the "on behalf of" filter.
    covering: tuple[tuple[int, str], ...] = ()
    # Who covers for the member today, and whom they cover: the page's banner.
    banner: CoverBanner = NO_BANNER


def open_tasks(actor: Actor, limit: int = DEFAULT_LIMIT, *, only: int | None = None) -> InboxPage:
    """The member's open tasks, one row per document, most urgent first — with those of
    whoever they cover today. ``only``: just the member's own (their id) or just one
    delegator's; ``total`` counts them all either way (the badge)."""
    with unit_of_work_for(actor) as uow:
        connection = uow.session.connection()
        org, member = actor.org_id, actor.member_id
        today = clock.today_in(actor.time_zone)
        assert member is not None
        # Whom the member covers today (and who covers them), names included: read once.
        banner = cover_banner_in(connection, org, member, today)
        names = {c.member_id: c.name for c in banner.covering}
        covering = sorted(names)
        # Only a member who covers someone today pays for the statements that take the
        # delegators' tasks in.
        lent = today if covering else None
        # A page plus one row tells whether there are more, unless a document holds two
        # of the member's tasks; then ask again for twice the page plus one, which is
        # always enough (at most two tasks per document).
        tasks = open_task_rows_in(connection, org, member, limit + 1, today=lent, only=only)
        page = _page_of(uow.session, org, member, tasks, limit)
        if len(tasks) == limit + 1 and not page.more:
            tasks = open_task_rows_in(connection, org, member, 2 * limit + 1, today=lent, only=only)
            page = _page_of(uow.session, org, member, tasks, limit)
        total = page.total
        if only is not None:
            total = count_open_tasks_in(connection, org, member, lent)
        steps = next_steps_in(uow.session, org, member)
        rows = _with_handovers(uow.session, org, member, page.rows, clock.now())
        rows = [
            replace(r, on_behalf_name=names.get(r.on_behalf_of, f"#{r.on_behalf_of}"))
            if r.on_behalf_of is not None
            else r
            for r in rows
        ]
        return replace(
            page,
            rows=rows,
            total=total,
            unread=count_unread_in(connection, actor),
            steps=tuple(steps),
            covering=tuple((m, names.get(m, f"#{m}")) for m in covering),
            banner=banner,
        )


def _with_handovers(
    session: Session, org_id: int, member_id: int, rows: list[InboxRow], now: datetime
) -> list[InboxRow]:
    """The rows, with what a passing deadline did: whom a task handed to the member came
    from (or who handed it over to them), and whom an overdue task of theirs was
    escalated to. One read, and only when such a row is on the page (a deadline
    escalates only once it passed)."""
    handed = (Via.ESCALATION, Via.REASSIGNMENT, Via.HANDOVER)
    asked = [r.document_id for r in rows if r.via in handed or r.is_overdue(now)]
    if not asked:
        return rows
    handovers = handovers_in(session, org_id, asked)
    if not handovers:
        return rows
    ids: set[int | None] = set()
    for found in handovers.values():
        for h in found:
            ids |= {h.from_member, *h.to_members}
    names = member_names(session, ids)
    out = []
    for row in rows:
        # Only what happened in the state's current visit.
        mine = [
            h for h in handovers.get(row.document_id, ()) if h.decided_at >= row.state_entered_at
        ]
        source = handed_from(mine, member_id) if row.via in handed else None
        above = dict.fromkeys(
            m for h in mine if h.by_deadline and h.from_member == member_id for m in h.to_members
        )
        if source is not None or above:
            row = replace(
                row,
                from_name=names.get(source.from_member or 0) if source is not None else None,
                escalated_to=tuple(names.get(m, f"#{m}") for m in above if m != member_id),
            )
        out.append(row)
    return out


def _page_of(
    session: Session, org_id: int, member_id: int, tasks: list[Any], limit: int
) -> InboxPage:
    rows: dict[int, InboxRow] = {}
    graphs: dict[tuple[str, int], Graph] = {}
    more = False
    for task in tasks:
        document_id, _total, assignee_id, *columns = task
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
        row = InboxRow(document_id, *(*columns, graph))
        # Someone else's task: the member works on it under their cover.
        rows[document_id] = (
            row if assignee_id == member_id else replace(row, on_behalf_of=assignee_id)
        )
    return InboxPage(list(rows.values()), more, tasks[0].total if tasks else 0)


def count_open_tasks(actor: Actor) -> int:
    """How many open tasks the member has (the nav badge), with those of whoever they
    cover today: one COUNT on the partial index when they cover nobody."""
    with unit_of_work_for(actor) as uow:
        return _count_open_tasks_in(uow.session.connection(), actor)


def count_next_steps(actor: Actor) -> int:
    """How many of the member's own documents wait for them."""
    if actor.member_id is None:
        return 0
    with unit_of_work_for(actor) as uow:
        return count_next_steps_in(uow.session, actor.org_id, actor.member_id)


def count_waiting(actor: Actor) -> int:
    """The nav badge's number, in one unit of work: the member's open tasks plus their
    own documents that wait for them."""
    if actor.member_id is None:
        return 0
    with unit_of_work_for(actor) as uow:
        return _waiting_in(uow.session, actor)


def nav_badges(actor: Actor) -> dict[str, int]:
    """Both of the nav's badges in one unit of work, by the names templates call: the
    inbox's (``count_waiting``) and the bell's unread notifications."""
    with unit_of_work_for(actor) as uow:
        waiting = 0 if actor.member_id is None else _waiting_in(uow.session, actor)
        unread = count_unread_in(uow.session.connection(), actor)
    return {"inbox_count": waiting, "unread_count": unread}


def _waiting_in(session: Session, actor: Actor) -> int:
    assert actor.member_id is not None
    tasks = _count_open_tasks_in(session.connection(), actor)
    return tasks + count_next_steps_in(session, actor.org_id, actor.member_id)


def _count_open_tasks_in(connection: Connection, actor: Actor) -> int:
    """The badge's open tasks: the delegators' too while the member covers someone."""
    assert actor.member_id is not None
    today = clock.today_in(actor.time_zone)
    covering = covered_by(connection, actor.org_id, actor.member_id, today)
    lent = today if covering else None
    return count_open_tasks_in(connection, actor.org_id, actor.member_id, lent)
