"""The sweep as operators run it, with real `portal worker` processes on real Redis and
PostgreSQL, committing for real: two workers at once, a worker killed in the middle of
a batch, two schedulers at once, Redis away for a while — each effect happens exactly
once, and nothing committed is lost.

The frozen clock does not cross into a worker process, so the documents are made
overdue in the data instead: built through the pipeline, then moved 49 hours back
(the seeded purchase request escalates one seat up after 48 hours).
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from redis import Redis
from rq import Queue
from sqlalchemy import Engine, create_engine, pool, text

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.bench.cleanup import purge_organizations
from portal.bench.sweep import chart_organization, move_into_the_past, submit_through_the_pipeline
from portal.bench.sweep_checks import count_effects, in_org, still_due, wait_until_idle
from portal.bench.worker_processes import WorkerProcesses, worker_environment
from portal.config import ConfigError, Settings
from portal.core.health import ping
from portal.core.outbox import relay_outbox
from portal.core.queue import DEFAULT_QUEUE, SWEEP_QUEUE, enqueue, redis_holder
from portal.core.schedule import PERIODIC_JOBS, EmbeddedCron, build_cron, periodic_jobs
from portal.core.worker import preload_job_modules
from portal.deadlines.jobs import sweep_deadlines, sweep_now, sweep_organization
from portal.documents.transitions import transition_document
from tests.mailbox import Mailbox, free_port

# The process tests need PostgreSQL and a Redis that processes share; the scheduler's
# own tests run on either backend.
postgres_only = pytest.mark.postgres_only


@dataclass
class Overdue:
    """An organization of its own: a requester under a lead under a head, and purchase
    requests waiting for the lead 49 hours past their 48-hour deadline."""

    slug: str
    org_id: int
    emails: dict[str, str]
    members: dict[str, int]
    owner: Engine
    documents: int = 0

    def overdue(self, count: int) -> None:
        submit_through_the_pipeline(self.slug, self.emails["requester"], count)
        with in_org(self.owner, self.org_id) as conn:
            move_into_the_past(conn, self.org_id)
        self.documents += count

    def scalar(self, sql: str, **params: object) -> int:
        with in_org(self.owner, self.org_id) as conn:
            return int(conn.scalar(text(sql), {"o": self.org_id, **params}) or 0)

    def exactly_once(self) -> dict[str, int]:
        return count_effects(self.owner, [self.org_id])

    def notices(self, who: str, code: str) -> int:
        return self.scalar(
            "SELECT count(*) FROM notification WHERE org_id = :o AND member_id = :m AND code = :c",
            m=self.members[who],
            c=code,
        )

    def undelivered(self) -> int:
        return self.scalar(
            "SELECT count(*) FROM outbox WHERE org_id = :o AND dispatched_at IS NULL"
        )


@pytest.fixture
def org(backend, committed) -> Iterator[Overdue]:
    if not backend.postgres:
        pytest.skip("worker processes need PostgreSQL and a Redis shared between processes")
    run = uuid.uuid4().hex[:8]
    slug = f"workers-{run}"
    emails = {who: f"{who}@{slug}.test" for who in ("requester", "lead", "head")}
    owner = create_engine(backend.owner_url, poolclass=pool.NullPool)
    try:
        for who, email in emails.items():
            accounts.create_user(email, who.title(), "workers-pass-123")
        org_id, _ = chart_organization(slug, emails)
        members = {}
        for who, email in emails.items():
            user = account_queries.find_user(email)
            assert user is not None
            actor = account_queries.actor_for(slug, user.id, None)
            assert actor is not None
            members[who] = actor.member_id
        yield Overdue(slug, org_id, emails, members, owner)
    finally:
        purge_organizations(backend.owner_url, slug_like=slug, email_like=f"%@{slug}.test")
        owner.dispose()


@pytest.fixture
def workers(settings, tmp_path: Path) -> Iterator[Callable[..., WorkerProcesses]]:
    """Start ``n`` `portal worker` processes on a queue, the default one unless named
    (stopped afterwards)."""
    started: list[WorkerProcesses] = []

    def start(n: int, queue: str = DEFAULT_QUEUE) -> WorkerProcesses:
        processes = WorkerProcesses(
            n,
            queue=queue,
            connection=redis_holder.get(),
            env=worker_environment(settings, tmp_path / "instance"),
            log_dir=tmp_path / f"logs-{len(started)}",
        ).start()
        started.append(processes)
        processes.wait_ready()
        return processes

    yield start
    for processes in started:
        processes.stop()


def _queue() -> Queue:
    return Queue(DEFAULT_QUEUE, connection=redis_holder.get())


def _until(condition: Callable[[], bool], seconds: float = 60, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.05)


def _settled(org: Overdue, workers: WorkerProcesses) -> None:
    """Until the sweep has nothing due and every outbox row is delivered."""
    _until(lambda: still_due(org.owner, [org.org_id]) == 0, what="tasks still due")
    wait_until_idle(_queue(), pids=workers.live_pids())
    _until(lambda: org.undelivered() == 0, what="outbox rows undelivered")
    wait_until_idle(_queue(), pids=workers.live_pids())


def _assert_each_effect_once(org: Overdue, mailbox: Mailbox) -> None:
    counts = org.exactly_once()
    assert counts == {
        "escalated": org.documents,
        "effects": 0,
        "decisions": 0,
        "events": 0,
        "notifications": 0,
    }
    assert (
        org.scalar("SELECT count(*) FROM decision WHERE org_id = :o AND gate = 'deadline'")
        == org.documents
    )
    # The head now holds a task on each; the lead kept theirs and heard of it.
    assert org.notices("head", "notice_escalated") == org.documents
    assert org.notices("lead", "notice_escalated_away") == org.documents
    to_head = mailbox.wait_for(org.emails["head"], count=org.documents)
    time.sleep(0.5)  # a duplicate would arrive now
    to_head = mailbox.to(org.emails["head"])
    assert len(to_head) == org.documents
    assert len({m.message["Message-ID"] for m in to_head}) == org.documents


@postgres_only
def test_two_worker_processes_draining_sweep_jobs_apply_each_effect_once(org, workers, mailbox):
    org.overdue(12)
    assert still_due(org.owner, [org.org_id]) == 12
    pair = workers(2, SWEEP_QUEUE)
    delivery = workers(1)

    # Both workers sweep the same organization at once, and the planner adds its own.
    for _ in range(3):
        enqueue(sweep_organization, org.org_id, queue_name=SWEEP_QUEUE)
    enqueue(sweep_deadlines)
    _settled(org, delivery)

    _assert_each_effect_once(org, mailbox)
    assert all(p.poll() is None for p in [*pair.processes, *delivery.processes])  # no crash


@postgres_only
def test_a_worker_killed_in_the_middle_of_a_batch_leaves_each_effect_for_exactly_once(
    org, workers, mailbox
):
    org.overdue(30)
    first = workers(1)
    enqueue(sweep_organization, org.org_id)
    _until(
        lambda: org.scalar("SELECT count(*) FROM deadline_effect WHERE org_id = :o") > 0,
        what="the first effects",
    )
    first.kill(0)  # SIGKILL, the worker and the job it forked, mid-batch
    time.sleep(1)  # a COMMIT already on its way when the job died still lands
    swept = org.scalar(
        "SELECT count(DISTINCT task_id) FROM deadline_effect WHERE org_id = :o AND kind = 'breach'"
    )
    assert 0 < swept < org.documents, "the kill must land in the middle of the batch"
    assert still_due(org.owner, [org.org_id]) == org.documents - swept

    # The next tick of the scheduler finds what is still due and a new worker does it.
    second = workers(2)
    workers(1, SWEEP_QUEUE)
    assert sweep_deadlines() == 1
    _settled(org, second)

    _assert_each_effect_once(org, mailbox)


@postgres_only
def test_two_schedulers_at_once_apply_each_effect_once(org, workers, mailbox):
    org.overdue(12)
    # Two planners and two in-process sweeps, all at the same moment.
    barrier = threading.Barrier(4)
    results: list[object] = []

    def run(work: Callable[[], int]) -> None:
        barrier.wait()
        try:
            results.append(work())
        except Exception as exc:  # asserted on below
            results.append(exc)

    threads = [
        threading.Thread(target=run, args=(work,))
        for work in (sweep_deadlines, sweep_deadlines, sweep_now, sweep_now)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not [r for r in results if isinstance(r, Exception)], results
    pair = workers(2)
    workers(1, SWEEP_QUEUE)
    _settled(org, pair)

    _assert_each_effect_once(org, mailbox)


def test_two_cron_schedulers_enqueue_each_periodic_job_once_per_slot(app):
    connection = redis_holder.get()
    connection.flushdb()
    first, second = build_cron(connection, 60), build_cron(connection, 60)

    assert len(first.enqueue_jobs()) == len(PERIODIC_JOBS)
    assert second.enqueue_jobs() == []  # the slot is taken: nothing twice
    names = sorted(job.func_name or "" for job in _queue().get_jobs())
    assert names == sorted(path for path, _ in PERIODIC_JOBS)
    assert "portal.deadlines.jobs.sweep_deadlines" in names


def test_a_cron_scheduler_rides_out_redis_going_away_and_coming_back_empty(app, caplog):
    connection = redis_holder.get()
    connection.flushdb()
    cron = build_cron(connection, 60)
    cron.heartbeat()  # its key made anew: it is seen
    assert connection.exists(cron.key)

    cron.connection = Redis(port=free_port(), socket_connect_timeout=0.2)
    with caplog.at_level(logging.WARNING, logger="portal.core.schedule"):
        assert cron.enqueue_jobs() == []  # each job waits for its next slot
        cron.save()
        cron.heartbeat()  # RQ's loop calls these: they must not end the process
    assert "could not send the scheduler's heartbeat" in caplog.text
    assert "could not record the scheduler's state" in caplog.text

    connection.flushdb()  # Redis back, with nothing it had before
    cron.connection = connection
    cron.heartbeat()
    assert connection.exists(cron.key)


@postgres_only
def test_with_redis_away_decisions_commit_and_the_backlog_drains_when_it_is_back(
    org, workers, mailbox
):
    org.overdue(3)
    user = account_queries.find_user(org.emails["lead"])
    assert user is not None
    lead = account_queries.actor_for(org.slug, user.id, None)
    assert lead is not None
    reference = org.scalar("SELECT min(id) FROM document WHERE org_id = :o")
    with in_org(org.owner, org.org_id) as conn:
        ref = conn.scalar(text("SELECT reference FROM document WHERE id = :d"), {"d": reference})

    real = redis_holder.connection
    redis_holder.connection = Redis(port=free_port(), socket_connect_timeout=0.2)
    try:
        # The lead approves one: the decision commits, the doorbell cannot ring.
        moved = transition_document(lead, ref, "approve", seen_state="submitted")
        assert moved.document.state == "approved"
        # The planner cannot enqueue: the due work stays due, nothing is lost.
        assert sweep_deadlines() == 0
    finally:
        redis_holder.connection = real
    assert org.undelivered() > 0
    assert still_due(org.owner, [org.org_id]) == 2  # the approved one has no open task
    assert (
        org.scalar(
            "SELECT count(*) FROM notification WHERE org_id = :o AND code = 'notice_document_moved'"
        )
        == 0
    )

    # Redis is back: the relay's next tick delivers the backlog, the planner's sweeps.
    back = workers(1)
    workers(1, SWEEP_QUEUE)
    enqueue(relay_outbox)
    enqueue(sweep_deadlines)
    org.documents = 2
    _settled(org, back)

    assert (
        org.scalar("SELECT count(*) FROM decision WHERE org_id = :o AND transition = 'approve'")
        == 1
    )
    assert org.notices("requester", "notice_document_moved") >= 1
    _assert_each_effect_once(org, mailbox)


def test_an_embedded_demo_runs_the_periodic_jobs_without_a_scheduler(app):
    connection = redis_holder.get()
    connection.flushdb()
    cron = EmbeddedCron(connection, 60)
    cron.start()
    try:
        _until(lambda: len(_queue().get_jobs()) == len(PERIODIC_JOBS), 10, "the periodic jobs")
    finally:
        cron.stop()
    assert {job.func_name for job in _queue().get_jobs()} == {p for p, _ in PERIODIC_JOBS}


def test_the_worker_imports_every_job_module_before_it_forks():
    names = preload_job_modules()
    assert {"portal.deadlines.jobs", "portal.core.outbox", "portal.accounts.jobs"} <= set(names)
    assert {path.rsplit(".", 1)[0] for path, _ in PERIODIC_JOBS} <= set(names)
    assert all(name in sys.modules for name in names)


def _portal_worker(settings, tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "portal.cli", "worker", "--queue", "test-start", "--burst"],
        env=worker_environment(settings, tmp_path / "instance", extra),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@postgres_only
def test_a_worker_says_at_start_where_mail_goes(backend, settings, app, tmp_path):
    if not backend.postgres:
        pytest.skip("needs a real Redis shared between processes")
    started = _portal_worker(settings, tmp_path)

    assert started.returncode == 0, started.stderr
    assert "worker on queue 'test-start' (a process per job); jobs preloaded" in started.stdout
    assert (
        f"mail: SMTP {settings.smtp_host}:{settings.smtp_port} (none), reachable" in started.stdout
    )


@postgres_only
def test_smtp_settings_that_do_not_connect_get_a_warning_at_start_not_a_crash_loop(
    backend, settings, app, tmp_path
):
    if not backend.postgres:
        pytest.skip("needs a real Redis shared between processes")
    job = Queue("test-start", connection=redis_holder.get()).enqueue(ping)

    started = _portal_worker(settings, tmp_path, PORTAL_SMTP_PORT=str(free_port()))

    assert started.returncode == 0, started.stderr
    assert "mail: WARNING the mail server 127.0.0.1:" in started.stdout
    assert "mail waits in the outbox" in started.stdout
    job.refresh()
    assert job.return_value() == "pong"  # and it went on to work


def test_the_sweep_runs_every_sweep_interval_and_the_setting_is_bounded():
    assert Settings.from_env({}).sweep_interval == 60
    assert Settings.from_env({"PORTAL_SWEEP_INTERVAL": "15"}).sweep_interval == 15
    for bad in ("4", "3601", "٥", "1e3", "-60"):
        with pytest.raises(ConfigError, match="PORTAL_SWEEP_INTERVAL must be a whole number"):
            Settings.from_env({"PORTAL_SWEEP_INTERVAL": bad})

    jobs = dict((f"{f.__module__}.{f.__name__}", every) for f, every in periodic_jobs(15))
    assert jobs["portal.deadlines.jobs.sweep_deadlines"] == 15
    assert jobs["portal.core.outbox.relay_outbox"] == 60


def test_a_scheduler_interval_out_of_bounds_is_refused_by_name():
    from click.testing import CliRunner

    from portal.cli import main

    refused = CliRunner().invoke(main, ["scheduler", "--interval", "4"])

    assert refused.exit_code == 2
    assert "--interval" in refused.output and "5<=x<=3600" in refused.output
