"""Periodic jobs, run by `portal scheduler` (RQ cron). The sweep and reminders join later."""

from __future__ import annotations

from redis import Redis
from rq.cron import CronScheduler

from portal.core.health import ping
from portal.core.outbox import relay_outbox
from portal.core.queue import DEFAULT_QUEUE

# (function, interval in seconds)
PERIODIC_JOBS = ((ping, 60), (relay_outbox, 60))


def build_cron(connection: Redis) -> CronScheduler:
    cron = CronScheduler(connection=connection, logging_level="INFO")
    for func, interval in PERIODIC_JOBS:
        cron.register(func, queue_name=DEFAULT_QUEUE, interval=interval)
    return cron
