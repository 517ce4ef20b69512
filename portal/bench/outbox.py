"""`portal bench outbox`: notifications delivered per second by one `portal worker`
process — in-app notices, and mail to an SMTP server on loopback (aiosmtpd, run in this
process, counting what it accepts).

An organization is built through the services: a requester with a submitted purchase
request, and recipients. Each round commits N in-app events (``notify.document_moved``,
in the portal only by default) and M events that also mail (``notify.task_assigned``:
each writes a notification and a ``mail.notice`` row, which the worker renders and
sends) in one transaction, rings the doorbell as every commit does, and times the worker
until every notification is written and every mail accepted. The organization is
removed afterwards.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from rq import Queue
from sqlalchemy import create_engine, text

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.bench.cleanup import purge_organizations
from portal.bench.sweep import PEOPLE, chart_organization
from portal.bench.sweep_checks import in_org, wait_until_idle
from portal.bench.worker_processes import WorkerProcesses, free_port, worker_environment
from portal.config import Settings
from portal.core import outbox
from portal.core.queue import DEFAULT_QUEUE, redis_holder
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents.transitions import transition_document

PREFIX = "outbox-bench-"
PASSWORD = "outbox-bench-password"  # noqa: S105 - throwaway accounts, removed after the run


@dataclass(frozen=True)
class Round:
    notifications: int
    mails: int
    seconds: float

    @property
    def per_second(self) -> float:
        return (self.notifications + self.mails) / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class Figures:
    notices: int
    mails: int
    rounds: list[Round]

    @property
    def median_per_second(self) -> float:
        return statistics.median(r.per_second for r in self.rounds)

    @property
    def low_per_second(self) -> float:
        return min(r.per_second for r in self.rounds)

    @property
    def high_per_second(self) -> float:
        return max(r.per_second for r in self.rounds)

    @property
    def median_seconds(self) -> float:
        return statistics.median(r.seconds for r in self.rounds)


class CountingSmtp:
    """An aiosmtpd handler that counts the messages it accepts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's hook name
        with self._lock:
            self.count += 1
        return "250 Message accepted"


def _build(run: str) -> tuple[int, dict[str, Any], list[int], int]:
    """The organization (a requester under a lead under a head) and a submitted purchase
    request; returns (org id, the document's payload, recipients, requester)."""
    slug = f"{PREFIX}{run}"
    emails = {who: f"{who}@{slug}.test" for who in PEOPLE}
    for who, email in emails.items():
        accounts.create_user(email, who.title(), PASSWORD)
    org_id, _ = chart_organization(slug, emails)
    members = {}
    for who, email in emails.items():
        user = account_queries.find_user(email)
        assert user is not None
        actor = account_queries.actor_for(slug, user.id, None)
        assert actor is not None
        members[who] = actor
    requester = members["requester"]
    doc = documents.create_document(
        requester,
        kind="purchase_request",
        title="Printer paper",
        amount=Decimal("80.00"),
        fields={"supplier": "Paper Sdn Bhd", "category": "goods"},
    )
    doc = transition_document(requester, doc.reference, "submit", seen_state="draft").document
    payload = {"document_id": doc.id, "reference": doc.reference, "state": doc.state}
    recipients = [members["lead"].member_id, members["head"].member_id]
    return org_id, payload, recipients, requester.member_id


def _commit_events(
    org_id: int,
    payload: dict[str, Any],
    notices: int,
    mails: int,
    recipients: list[int],
    requester: int,
) -> None:
    events = [
        ("notify.document_moved", {**payload, "members": [requester]}) for _ in range(notices)
    ] + [
        ("notify.task_assigned", {**payload, "members": [recipients[i % len(recipients)]]})
        for i in range(mails)
    ]
    with unit_of_work(org_id) as uow:
        outbox.add_events(uow.session, events)
        uow.after_commit(lambda: outbox.nudge(org_id))


def _pending(owner: Any, org_id: int) -> tuple[int, int]:
    """(undelivered events, dead or failing events) of the organization."""
    with in_org(owner, org_id) as conn:
        row = conn.execute(
            text(
                "SELECT count(*) FILTER (WHERE dispatched_at IS NULL),"
                " count(*) FILTER (WHERE dispatched_at IS NULL AND last_error IS NOT NULL)"
                " FROM outbox WHERE org_id = :o"
            ),
            {"o": org_id},
        ).one()
    return int(row[0]), int(row[1])


def _notifications(owner: Any, org_id: int) -> int:
    with in_org(owner, org_id) as conn:
        return int(
            conn.scalar(text("SELECT count(*) FROM notification WHERE org_id = :o"), {"o": org_id})
            or 0
        )


def bench_outbox(
    settings: Settings,
    *,
    notices: int,
    mails: int,
    rounds: int = 3,
    progress: Callable[[str], None],
    timeout: float = 300.0,
) -> Figures:
    if not settings.is_postgres or redis_holder.embedded:
        raise RuntimeError("the outbox benchmark needs PostgreSQL and PORTAL_REDIS_URL")
    owner = create_engine(settings.migrate_database_url, pool_size=2)  # polled often
    run = uuid.uuid4().hex[:8]
    smtp = CountingSmtp()
    server = Controller(smtp, hostname="127.0.0.1", port=free_port())
    server.start()
    queue = Queue(DEFAULT_QUEUE, connection=redis_holder.get())
    results: list[Round] = []
    try:
        progress("building the organization …")
        org_id, payload, recipients, requester = _build(run)
        mail_to = settings.with_(
            smtp_host="127.0.0.1",
            smtp_port=server.port,
            smtp_security="none",
        )
        with tempfile.TemporaryDirectory(prefix="outbox-bench-") as tmp:
            env = worker_environment(mail_to, Path(tmp) / "instance")
            with WorkerProcesses(
                1,
                queue=DEFAULT_QUEUE,
                connection=queue.connection,
                env=env,
                log_dir=Path(tmp) / "logs",
            ) as worker:
                worker.wait_ready()
                wait_until_idle(queue)
                while _pending(owner, org_id)[0]:  # the submission's own notices first
                    time.sleep(0.05)
                progress(f"timing {rounds} rounds of {notices} in-app + {mails} mailed …")
                for _ in range(rounds):
                    written, sent = _notifications(owner, org_id), smtp.count
                    started = time.perf_counter()
                    _commit_events(org_id, payload, notices, mails, recipients, requester)
                    while (
                        smtp.count - sent < mails
                        or _notifications(owner, org_id) - written < notices + mails
                    ):
                        pending, failing = _pending(owner, org_id)
                        if failing or time.perf_counter() - started > timeout:
                            raise RuntimeError(
                                f"{pending} events undelivered ({failing} failing)\n{worker.logs()}"
                            )
                        time.sleep(0.05)
                    seconds = time.perf_counter() - started
                    results.append(
                        Round(
                            notifications=_notifications(owner, org_id) - written,
                            mails=smtp.count - sent,
                            seconds=seconds,
                        )
                    )
        return Figures(notices=notices, mails=mails, rounds=results)
    finally:
        server.stop()
        progress("removing the benchmark organization …")
        purge_organizations(
            settings.migrate_database_url,
            slug_like=f"{PREFIX}{run}",
            email_like=f"%@{PREFIX}{run}.test",
        )
        owner.dispose()
