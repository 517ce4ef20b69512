"""Everything a member's home page shows, read in one unit of work with a few statements.

Counts respect visibility: a member counts their own tasks and documents; the
organization's documents are counted only for admins and auditors (who see them all);
flows and chart gaps only for admins. Another organization's rows are never read: each
statement names the tenant, and row-level security backs it on PostgreSQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from portal.accounts.queries import today_in
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.delegations.queries import NO_BANNER, CoverBanner, cover_banner_in
from portal.documents.queries.counts import (
    DocumentCounts,
    OrganizationDocuments,
    TaskCounts,
    my_document_counts_in,
    organization_documents_in,
    task_counts_in,
)
from portal.documents.queries.tasks import open_task_rows_in
from portal.domain.actor import Actor
from portal.flows.services.health import FlowProblems, flow_problems_in
from portal.orgchart.queries import ChartGaps, chart_gaps_in


@dataclass(frozen=True)
class AdminSummary:
    flows: list[FlowProblems]
    gaps: ChartGaps


# How many of the most urgent open tasks the page names.
NEXT_TASKS = 3


@dataclass(frozen=True)
class NextTask:
    reference: str
    title: str
    requester_name: str
    due_at: datetime | None
    overdue: bool
    # Whose task it is when the member decides it by cover (None: their own).
    on_behalf_name: str | None = None


@dataclass(frozen=True)
class HomeSummary:
    # The organization's day and zone (the page says which day it counts).
    today: date
    tasks: TaskCounts
    # The most urgent of them (the inbox's order), for a shortcut to each.
    next_tasks: list[NextTask]
    mine: DocumentCounts
    # Admins only.
    admin: AdminSummary | None
    # Admins and auditors: every document of the organization.
    organization: OrganizationDocuments | None
    # Who covers for the member today, and whom they cover: the page's banner.
    banner: CoverBanner = NO_BANNER


def home_summary(actor: Actor) -> HomeSummary:
    with unit_of_work_for(actor) as uow:
        s = uow.session
        today = today_in(s, actor)
        admin = (
            AdminSummary(flow_problems_in(s, actor.org_id, today), chart_gaps_in(s, today))
            if actor.is_admin
            else None
        )
        now = clock.now()
        # Whom the member covers today (read once, names included): their tasks come
        # too, as the inbox lists them.
        banner = cover_banner_in(s.connection(), actor.org_id, actor.member_id, today)
        covered = {c.member_id: c.name for c in banner.covering}
        lent = today if covered else None
        rows = open_task_rows_in(
            s.connection(), actor.org_id, actor.member_id, NEXT_TASKS, today=lent
        )
        return HomeSummary(
            today=today,
            tasks=task_counts_in(s, actor.org_id, actor.member_id, now, lent),
            next_tasks=[
                NextTask(
                    r.reference,
                    r.title,
                    r.requester_name,
                    r.due_at,
                    r.due_at is not None and r.due_at < now,
                    covered.get(r.assignee_id) if r.assignee_id != actor.member_id else None,
                )
                for r in rows
            ],
            mine=my_document_counts_in(s, actor),
            admin=admin,
            organization=organization_documents_in(s, actor),
            banner=banner,
        )
