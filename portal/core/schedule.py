"""Periodic jobs: enqueued by `portal scheduler` (RQ cron) in production, and by a timer
thread beside the embedded worker in the demo.

Two schedulers at once are safe twice over. Each claims a job's run slot in Redis
before enqueueing it (``SET NX``, one key per job and slot), so normally only one of
them enqueues; and every periodic job is safe to run twice anyway: the deadline sweep
takes an advisory lock and keys each effect uniquely, the outbox relay claims each row
with ``FOR UPDATE SKIP LOCKED``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from redis import Redis
from redis.client import Pipeline
from redis.exceptions import RedisError
from rq.cron import CronJob, CronScheduler
from rq.utils import import_attribute, now

from portal.core.queue import DEFAULT_QUEUE

# Each job by its dotted path, so this layer names the features' jobs without importing
# them (they import it); with its interval in seconds, or None for the deadline sweep's
# own (PORTAL_SWEEP_INTERVAL).
PERIODIC_JOBS: tuple[tuple[str, int | None], ...] = (
    ("portal.deadlines.jobs.sweep_deadlines", None),
    ("portal.core.outbox.relay_outbox", 60),
    ("portal.core.outbox.prune_outbox", 86_400),
    ("portal.core.health.ping", 60),
    # The outbox backlog (a unit of work per organization) and the sweep lag, for /metrics.
    ("portal.core.metrics.measure_background", 60),
    ("portal.notifications.jobs.send_digests", 300),
    ("portal.notifications.jobs.announce_covers", 300),
    # Enqueues each organization's pass over its hash chains once its 02:00 has come.
    ("portal.audit.jobs.plan_nightly_verifications", 300),
)

log = logging.getLogger(__name__)


def periodic_jobs(sweep_interval: int) -> list[tuple[Callable[..., Any], int]]:
    """The periodic jobs, imported, each with its interval in seconds."""
    return [
        (import_attribute(path), interval or sweep_interval) for path, interval in PERIODIC_JOBS
    ]


class PortalCron(CronScheduler):
    """RQ's cron scheduler, claiming each run slot before it enqueues, so a second
    scheduler (a redeploy overlapping the old one, two hosts) does not double the work.
    It rides out a Redis outage: a job whose enqueue fails is logged and tried at its
    next slot, and the scheduler's own bookkeeping (its heartbeat, its jobs' last run)
    is skipped while Redis is away — RQ's loop would otherwise end the process."""

    def heartbeat(self) -> None:
        try:
            super().heartbeat()
        except RedisError as exc:
            log.warning("could not send the scheduler's heartbeat: %s", exc)

    def save(self, pipeline: Pipeline | None = None) -> None:
        try:
            super().save(pipeline)
        except RedisError as exc:
            log.warning("could not record the scheduler's state: %s", exc)

    def enqueue_jobs(self) -> list[CronJob]:
        at = now()
        enqueued: list[CronJob] = []
        for job in self._cron_jobs:
            if not job.should_run():
                continue
            try:
                if self._claim(job, at.timestamp()):
                    job.enqueue(self.connection)
                    enqueued.append(job)
            except Exception as exc:  # the next slot tries again; the scheduler stays up
                log.warning("could not enqueue %s: %s", job.name, exc)
            job.set_enqueue_time(at)
        return enqueued

    def _claim(self, job: CronJob, timestamp: float) -> bool:
        interval = job.interval or 60
        slot = int(timestamp) // interval
        key = f"portal:cron:{job.name}:{slot}"
        return bool(self.connection.set(key, self.name, nx=True, ex=interval * 2))


def build_cron(
    connection: Redis,
    sweep_interval: int,
    *,
    queue: str = DEFAULT_QUEUE,
    logging_level: str = "INFO",
) -> PortalCron:
    cron = PortalCron(connection=connection, logging_level=logging_level)
    for func, interval in periodic_jobs(sweep_interval):
        cron.register(func, queue_name=queue, interval=interval)
    return cron


class EmbeddedCron:
    """The demo's scheduler: a daemon thread enqueueing the periodic jobs on the embedded
    queue, which the embedded worker drains (there is no `portal scheduler` without
    Redis). RQ's own loop installs signal handlers, which only the main thread may."""

    def __init__(self, connection: Redis, sweep_interval: int) -> None:
        self.connection = connection
        self.sweep_interval = sweep_interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="portal-embedded-cron", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:  # built in the thread: a job that cannot be imported must not stop the app
            # Quiet: the demo's console is for the web server's lines.
            cron = build_cron(self.connection, self.sweep_interval, logging_level="WARNING")
        except Exception:
            log.exception("the periodic jobs could not be loaded; none will run")
            return
        while not self._stop.is_set():
            cron.enqueue_jobs()
            self._stop.wait(max(cron.calculate_sleep_interval(), 1.0))

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
