"""What an organization's admins see of the background half, read in one call: its
overdue tasks, its outbox backlog and dead letters, when the deadline sweep last ran,
the workers' heartbeats and whether mail can leave.

The organization's rows are read in its unit of work (explicit ``org_id`` predicates,
row-level security behind them); the sweep's heartbeat, the workers and the mail server
are the platform's, the same for every organization.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from portal.config import Settings
from portal.core import outbox
from portal.core.clock import clock
from portal.core.health import SmtpCheck, Workers, smtp_check, worker_beats
from portal.core.heartbeat import SWEEP_HEARTBEAT, last_beat
from portal.core.uow import unit_of_work_for
from portal.documents.queries.overdue import oldest_sweep_due_in, overdue_task_rows_in
from portal.domain.actor import Actor, require_admin
from portal.domain.graph import Graph
from portal.flows import queries as flows

# How many overdue tasks and dead letters the page lists (it says how many there are).
LISTED = 100
# The sweep is late when its heartbeat is older than this many of its intervals.
LATE_AFTER_INTERVALS = 3


@dataclass(frozen=True)
class OverdueTask:
    document_id: int
    reference: str
    title: str
    # The document's state, labelled with its pinned flow's graph.
    state: str
    graph: Graph
    assignee_name: str
    due_at: datetime
    overdue_for: timedelta
    # Seats above the step's own approvers (0: the step's own).
    level: int


@dataclass(frozen=True)
class DeadLetter:
    id: int
    topic: str
    dead_at: datetime
    attempts: int
    last_error: str


@dataclass(frozen=True)
class Sweep:
    # None: it has never run.
    last_run: datetime | None
    interval: timedelta
    # The heartbeat is older than three intervals: the scheduler or the workers are away.
    late: bool
    # Since when this organization's oldest due deadline work has waited (None: none
    # waits); older than three intervals, no worker serves the sweep queue.
    waiting_since: datetime | None = None
    stalled: bool = False


@dataclass(frozen=True)
class MailTransport:
    # "smtp" or "files".
    kind: str
    host: str
    port: int
    security: str
    directory: Path
    check: SmtpCheck | None


@dataclass(frozen=True)
class OperationsOverview:
    now: datetime
    overdue_count: int
    overdue: list[OverdueTask]
    backlog: outbox.Backlog
    dead_letters: list[DeadLetter]
    sweep: Sweep
    workers: Workers
    mail: MailTransport


def operations_overview(actor: Actor, settings: Settings) -> OperationsOverview:
    """The Operations page of the actor's organization (admins only)."""
    require_admin(actor)
    now = clock.now()
    interval = timedelta(seconds=settings.sweep_interval)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        rows = overdue_task_rows_in(s.connection(), actor.org_id, now, LISTED)
        graphs: dict[tuple[str, int], Graph] = {}
        overdue = []
        for row in rows:
            pinned = (row.kind, row.version)
            if pinned not in graphs:
                graphs[pinned] = flows.version_in(s, actor.org_id, *pinned).graph
            overdue.append(
                OverdueTask(
                    row.document_id,
                    row.reference,
                    row.title,
                    row.state,
                    graphs[pinned],
                    row.assignee_name or "",
                    row.due_at,
                    now - row.due_at,
                    row.level,
                )
            )
        backlog = outbox.backlog_in(s, now)
        dead = [
            DeadLetter(e.id, e.topic, e.dead_at, e.attempts, e.last_error or "")
            for e in outbox.dead_letters_in(s, LISTED)
            if e.dead_at is not None
        ]
        beat = last_beat(s, SWEEP_HEARTBEAT)
        waiting_since = oldest_sweep_due_in(s.connection(), actor.org_id, now)
    last_run = beat.beat_at if beat is not None else None
    sweep = Sweep(
        last_run,
        interval,
        late=last_run is None or now - last_run > LATE_AFTER_INTERVALS * interval,
        waiting_since=waiting_since,
        stalled=waiting_since is not None and now - waiting_since > LATE_AFTER_INTERVALS * interval,
    )
    return OperationsOverview(
        now=now,
        overdue_count=rows[0].total if rows else 0,
        overdue=overdue,
        backlog=backlog,
        dead_letters=dead,
        sweep=sweep,
        workers=worker_beats(),
        mail=_mail_transport(settings),
    )


def _mail_transport(settings: Settings) -> MailTransport:
    smtp = bool(settings.smtp_host)
    return MailTransport(
        kind="smtp" if smtp else "files",
        host=settings.smtp_host,
        port=settings.smtp_port,
        security=settings.smtp_security,
        directory=settings.mail_directory,
        check=smtp_check(settings) if smtp else None,
    )
