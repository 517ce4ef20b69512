"""`portal bench sweep`: how long two `portal worker` processes take to clear 10,000
overdue tasks across 100 organizations, and a check that every effect happened once.

The first organization is built through the services (chart, purchase requests
created and submitted by the pipeline), then moved 49 hours into the past, so its
tasks are overdue exactly as the pipeline leaves them. The other organizations are
provisioned and charted through the services too, and receive a copy of its documents,
submit decisions and tasks in set-based SQL as the schema owner (building 10,000
documents one by one would take longer than the sweep). The planner
(``sweep_deadlines``) runs once; the clock stops when no task is due any more. All of
it is removed afterwards.
"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from rq import Queue
from rq.registry import FinishedJobRegistry
from sqlalchemy import Connection, Engine, create_engine, text

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.bench.cleanup import purge_organizations
from portal.bench.sweep_checks import count_effects, in_org, still_due, wait_until_idle
from portal.bench.worker_processes import WorkerProcesses, worker_environment
from portal.config import Settings
from portal.core.queue import DEFAULT_QUEUE, SWEEP_QUEUE, redis_holder
from portal.documents import services as documents
from portal.documents.transitions import transition_document
from portal.domain.actor import SystemActor
from portal.orgchart import services as chart
from portal.provisioning import provision_organization

PREFIX = "sweep-bench-"
PEOPLE = ("requester", "lead", "head")
KIND = "purchase_request"
FIELDS = {"supplier": "Paper Sdn Bhd", "category": "goods"}
# The seeded purchase request escalates after 48 hours: 49 hours ago is overdue.
AGO = timedelta(hours=49)
PASSWORD = "sweep-bench-password"  # noqa: S105 - throwaway accounts, removed after the run


@dataclass(frozen=True)
class Figures:
    organizations: int
    tasks: int
    workers: int
    build_seconds: float
    clear_seconds: float
    job_median_ms: float
    job_p95_ms: float
    # The exactly-once check: each overdue task breached once, one decision each.
    tasks_escalated: int
    duplicate_effects: int
    duplicate_decisions: int
    duplicate_events: int
    duplicate_notifications: int
    still_due: int

    @property
    def tasks_per_second(self) -> float:
        return self.tasks / self.clear_seconds if self.clear_seconds else 0.0

    @property
    def exactly_once(self) -> bool:
        return (
            self.tasks_escalated == self.tasks
            and not self.duplicate_effects
            and not self.duplicate_decisions
            and not self.duplicate_events
            and not self.duplicate_notifications
            and not self.still_due
        )


def chart_organization(slug: str, emails: dict[str, str]) -> tuple[int, SystemActor]:
    """An organization with a head over a lead over a requester, through the services."""
    org = provision_organization(slug, f"Sweep bench {slug}", base_currency="MYR")
    system = SystemActor(org_id=org.id, org_slug=slug)
    members = {who: accounts.enrol_member(system, email=email) for who, email in emails.items()}
    unit = chart.create_unit(system, code="OPS", name="Operations")
    seats: dict[str, Any] = {}
    above = None
    for who in reversed(PEOPLE):  # head first: each seat reports to the one made before
        seats[who] = chart.create_position(
            system, code=who.upper(), title=who.title(), unit_id=unit.id, reports_to_id=above
        )
        above = seats[who].id
    chart.update_unit(
        system,
        unit.id,
        code="OPS",
        name="Operations",
        parent_id=None,
        head_position_id=seats["head"].id,
    )
    for who in PEOPLE:
        chart.assign_position(system, member_id=members[who].id, position_id=seats[who].id)
    return org.id, system


def submit_through_the_pipeline(slug: str, requester_email: str, count: int) -> None:
    user = account_queries.find_user(requester_email)
    assert user is not None
    requester = account_queries.actor_for(slug, user.id, None)
    assert requester is not None
    for i in range(count):
        doc = documents.create_document(
            requester, kind=KIND, title=f"Paper {i}", amount=Decimal("50.00"), fields=FIELDS
        )
        transition_document(requester, doc.reference, "submit", seen_state="draft")


def move_into_the_past(conn: Connection, org_id: int) -> None:
    """What 49 hours of waiting leaves: the same rows, every moment earlier (but the
    decisions', which are append-only and hash their own time)."""
    for table, columns in (
        ("document", ("state_entered_at", "created_at", "updated_at")),
        ("task", ("created_at", "due_at", "sweep_at")),
        ("outbox", ("created_at", "next_attempt_at")),
    ):
        moved = ", ".join(f"{c} = {c} - make_interval(hours => :h)" for c in columns)
        conn.execute(
            text(f"UPDATE {table} SET {moved} WHERE org_id = :o"),  # noqa: S608 - constant names
            {"o": org_id, "h": int(AGO.total_seconds() // 3600)},
        )


def _rows(conn: Connection, sql: str, org_id: int) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in conn.execute(text(sql), {"o": org_id})]


def _insert(conn: Connection, table: str, rows: list[dict[str, Any]]) -> None:
    if rows:
        columns = list(rows[0])
        conn.execute(
            text(
                f"INSERT INTO {table} ({', '.join(columns)})"  # noqa: S608 - constant names
                f" VALUES ({', '.join(':' + c for c in columns)})"
            ),
            rows,
        )


_JSON = {"fields", "eligible", "resolution", "transitions"}


def _copy_documents(owner: Engine, source: int, target: int) -> None:
    """The source organization's documents, their decisions and tasks, into ``target``:
    members matched by account, the flow by kind, documents by reference."""
    import json

    with in_org(owner, source) as conn:
        members: dict[int, int] = dict(
            conn.execute(
                text("SELECT id, user_id FROM membership WHERE org_id = :o"), {"o": source}
            ).all()
        )
        docs = _rows(conn, "SELECT * FROM document WHERE org_id = :o ORDER BY id", source)
        decisions = _rows(conn, "SELECT * FROM decision WHERE org_id = :o ORDER BY id", source)
        tasks = _rows(conn, "SELECT * FROM task WHERE org_id = :o ORDER BY id", source)
        counters = _rows(conn, "SELECT * FROM reference_counter WHERE org_id = :o", source)
    with in_org(owner, target) as conn:
        by_user: dict[int, int] = dict(
            conn.execute(
                text("SELECT user_id, id FROM membership WHERE org_id = :o"), {"o": target}
            ).all()
        )
        member = {old: by_user[user] for old, user in members.items()}
        version = conn.scalar(
            text("SELECT id FROM flow_version WHERE org_id = :o AND kind = :k AND version = 1"),
            {"o": target, "k": KIND},
        )

        def moved(row: dict[str, Any], **changes: Any) -> dict[str, Any]:
            out = {k: v for k, v in row.items() if k != "id"}
            out.update(org_id=target, **changes)
            for key in _JSON & out.keys():
                out[key] = json.dumps(out[key])
            return out

        _insert(
            conn,
            "document",
            [
                moved(d, requester_id=member[d["requester_id"]], flow_version_id=version)
                for d in docs
            ],
        )
        by_reference: dict[str, int] = dict(
            conn.execute(
                text("SELECT reference, id FROM document WHERE org_id = :o"), {"o": target}
            ).all()
        )
        new_id = {d["id"]: by_reference[d["reference"]] for d in docs}
        _insert(
            conn,
            "decision",
            [
                moved(
                    d,
                    document_id=new_id[d["document_id"]],
                    flow_version_id=version,
                    actor_id=member.get(d["actor_id"]),
                    authority_member_id=member.get(d["authority_member_id"]),
                    delegation_id=None,
                )
                for d in decisions
            ],
        )
        _insert(
            conn,
            "task",
            [
                moved(
                    t,
                    document_id=new_id[t["document_id"]],
                    assignee_id=member[t["assignee_id"]],
                    completed_by=member.get(t["completed_by"]),
                )
                for t in tasks
            ],
        )
        _insert(conn, "reference_counter", [moved(c) for c in counters])


def build(
    owner: Engine, run: str, organizations: int, per_org: int, progress: Callable[[str], None]
) -> list[int]:
    """The organizations, the first through the pipeline and the rest copied from it;
    the same three accounts hold the seats everywhere (hashing a password per
    organization would cost more than building it)."""
    emails = {who: f"{who}@{PREFIX}{run}.test" for who in PEOPLE}
    for who, email in emails.items():
        accounts.create_user(email, who.title(), PASSWORD)
    org_ids: list[int] = []
    for n in range(organizations):
        slug = f"{PREFIX}{run}-{n:03d}"
        org_id, _ = chart_organization(slug, emails)
        org_ids.append(org_id)
        if n == 0:
            submit_through_the_pipeline(slug, emails["requester"], per_org)
            with in_org(owner, org_id) as conn:
                move_into_the_past(conn, org_id)
        else:
            _copy_documents(owner, org_ids[0], org_id)
        if n % 10 == 9:
            progress(f"  {n + 1} organizations built")
    return org_ids


def _job_times_ms(queue: Queue, since: datetime) -> list[float]:
    registry = FinishedJobRegistry(queue=queue)
    jobs = queue.job_class.fetch_many(registry.get_job_ids(), connection=queue.connection)
    return sorted(
        (job.ended_at - job.started_at).total_seconds() * 1000
        for job in jobs
        if job is not None
        and (job.func_name or "").endswith("sweep_organization")
        and job.started_at is not None
        and job.ended_at is not None
        and job.started_at.replace(tzinfo=UTC) >= since
    )


def bench_sweep(
    settings: Settings,
    *,
    organizations: int,
    per_org: int,
    workers: int = 2,
    progress: Callable[[str], None],
    timeout: float = 600.0,
) -> Figures:
    """Build, clear with real worker processes, check, remove. Needs PostgreSQL and a
    real Redis (the workers are other processes)."""
    from portal.deadlines.jobs import sweep_deadlines

    if not settings.is_postgres or redis_holder.embedded:
        raise RuntimeError("the sweep benchmark needs PostgreSQL and PORTAL_REDIS_URL")
    owner = create_engine(settings.migrate_database_url, pool_size=2)  # polled often
    run = uuid.uuid4().hex[:8]
    queue = Queue(DEFAULT_QUEUE, connection=redis_holder.get())
    try:
        progress(f"building {organizations} organizations x {per_org} overdue tasks …")
        started = time.perf_counter()
        org_ids = build(owner, run, organizations, per_org, progress)
        build_seconds = time.perf_counter() - started
        sweep_queue = Queue(SWEEP_QUEUE, connection=queue.connection)
        with tempfile.TemporaryDirectory(prefix="sweep-bench-") as tmp:
            env = worker_environment(settings, Path(tmp) / "instance")

            def started_workers(on: str, logs: str) -> WorkerProcesses:
                return WorkerProcesses(
                    workers,
                    queue=on,
                    connection=queue.connection,
                    env=env,
                    log_dir=Path(tmp) / logs,
                )

            # What building enqueued (the submissions' mail) is delivered first.
            with started_workers(DEFAULT_QUEUE, "before") as delivery:
                delivery.wait_ready()
                wait_until_idle(queue)
            # Timed: the sweep's own workers, as a deployment runs them (`--queue sweep`).
            with started_workers(SWEEP_QUEUE, "sweep") as processes:
                processes.wait_ready()
                progress(f"{workers} workers ready on the sweep queue; sweeping …")
                since = datetime.now(UTC)
                started = time.perf_counter()
                sweep_deadlines()
                while (due := still_due(owner, org_ids)) > 0:
                    if time.perf_counter() - started > timeout:
                        raise RuntimeError(
                            f"{due} tasks still due after {timeout} s\n{processes.logs()}"
                        )
                    time.sleep(0.05)
                clear_seconds = time.perf_counter() - started
                job_times = _job_times_ms(sweep_queue, since)
            # Then some of the notices and mail the sweep wrote are delivered (a minute's
            # worth: all 30,000 would take longer than the sweep), and checked for repeats.
            progress("delivering the sweep's notices for a minute …")
            with started_workers(DEFAULT_QUEUE, "after") as delivery:
                delivery.wait_ready()
                # The rest is delivered after the run, or removed with it.
                with contextlib.suppress(RuntimeError):
                    wait_until_idle(queue, timeout=60)
        counts = count_effects(owner, org_ids)
        return Figures(
            organizations=organizations,
            tasks=organizations * per_org,
            workers=workers,
            build_seconds=build_seconds,
            clear_seconds=clear_seconds,
            job_median_ms=statistics.median(job_times) if job_times else 0.0,
            job_p95_ms=job_times[int(len(job_times) * 0.95)] if job_times else 0.0,
            tasks_escalated=counts["escalated"],
            duplicate_effects=counts["effects"],
            duplicate_decisions=counts["decisions"],
            duplicate_events=counts["events"],
            duplicate_notifications=counts["notifications"],
            still_due=still_due(owner, org_ids),
        )
    finally:
        progress("removing the benchmark organizations …")
        purge_organizations(
            settings.migrate_database_url,
            slug_like=f"{PREFIX}{run}-%",
            email_like=f"%@{PREFIX}{run}.test",
        )
        owner.dispose()
