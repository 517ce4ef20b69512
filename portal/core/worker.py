"""The production workers: one forking per job (the default queue), one running its jobs
in its own process (the sweep queue), both with the app and job modules imported first."""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Callable
from typing import Protocol

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, SimpleWorker, Worker
from rq.executions import Execution
from rq.job import Job
from rq.worker import BaseWorker

from portal.core import logs
from portal.core.db import db
from portal.core.logs import ErrorHook, report_error
from portal.core.schedule import PERIODIC_JOBS

_log = logging.getLogger(__name__)

# Every module whose functions are enqueued (by dotted path, like the services do), so
# the parent imports them once and each forked job starts warm: a child that imports
# them itself runs about a third as many jobs a second (DESIGN §10).
JOB_MODULES = (
    "portal.accounts.jobs",
    "portal.orgchart.jobs",
    "portal.deadlines.jobs",
    "portal.core.outbox",
    "portal.core.health",
)


def preload_job_modules() -> list[str]:
    """Import every job module (those of the periodic jobs too); return their names."""
    names = sorted({*JOB_MODULES, *(path.rsplit(".", 1)[0] for path, _ in PERIODIC_JOBS)})
    for name in names:
        importlib.import_module(name)
    return names


def reporting_to(hook: ErrorHook) -> Callable[..., bool]:
    """An RQ exception handler handing a failed job's error to ``hook`` (with its job
    id), after which RQ's own handling (the failed-job registry, retries) goes on."""

    def handler(job: Job, _type: type, error: BaseException, _traceback: object) -> bool:
        with logs.bound(job_id=job.id):
            report_error(hook, error)
        return True

    return handler


class _JobLines(BaseWorker):
    """Every line logged while a job runs carries its id: the job's own, and RQ's,
    the error that ends the job included (RQ logs it after the job has left
    ``get_current_job``)."""

    def perform_job(self, job: Job, queue: Queue, execution: Execution) -> bool:
        with logs.bound(job_id=job.id):
            return super().perform_job(job, queue, execution)


class PortalWorker(_JobLines, Worker):
    """An RQ worker whose forked job process never shares the parent's DB sockets.

    The parent imports the app (and so every job module) before it forks, so each job
    starts warm; the child drops the inherited pool without closing the parent's
    connections (``close=False``) and opens its own.
    """

    def main_work_horse(self, job: Job, queue: Queue) -> None:
        db.dispose(close=False)
        super().main_work_horse(job, queue)


class InProcessWorker(_JobLines, SimpleWorker):
    """An RQ worker that runs each job in its own process, keeping its connection pool,
    prepared statements and compiled SQL warm from one job to the next.

    For the deadline sweep's queue: its jobs are many short transactions, each document
    its own unit of work, and every effect keyed once, so a worker that dies mid-job
    loses nothing a later job does not redo — the isolation a fork buys is not needed,
    and a forked child starts cold every time (measured with `portal bench sweep`).
    """


class Working(Protocol):
    """What ``work_through_outages`` runs: an RQ worker."""

    def work(self, *, burst: bool, logging_level: str) -> object: ...


def work_through_outages(
    make_worker: Callable[[], Working],
    connection: Redis,
    *,
    burst: bool = False,
    pause: Callable[[float], None] = time.sleep,
) -> None:
    """Run a worker until it is stopped; when Redis goes away — before it starts, or
    under a job, where RQ gives up — wait for Redis and start a new one, rather than
    exit into the service manager's restart loop. What the lost worker was doing is
    safe: its job process finishes on its own, and the outbox relay re-sends what a
    lost dispatch did not deliver."""
    while True:
        _wait_for(connection, pause)
        try:
            make_worker().work(burst=burst, logging_level="INFO")
            return
        except RedisError as lost:
            _log.warning("lost Redis (%s); the worker starts again once it is back", lost)


def _wait_for(connection: Redis, pause: Callable[[float], None]) -> None:
    wait = 0.5
    while True:
        try:
            connection.ping()
            return
        except RedisError as away:
            _log.warning("waiting for Redis: %s", away)
            pause(wait)
            wait = min(wait * 2, 5.0)
