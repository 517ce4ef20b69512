"""What Prometheus scrapes from ``/metrics``: request latency by route, decisions, the
queues' depth, the outbox's backlog and the age of its oldest undelivered row, the
deadline sweep's lag, and the database pool in use.

The web processes count their own requests and decisions; under gunicorn they share one
directory of counters (``PROMETHEUS_MULTIPROC_DIR``, set by ``portal.gunicorn_conf``),
so any process answers for all. What only the platform may read — every organization's
outbox, the sweep's heartbeat — a worker measures every half minute
(``measure_background``) and leaves in Redis for the scrape to read, so a web request
never needs the operator's scope.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector
from sqlalchemy import select, text

from portal.core.clock import clock
from portal.core.db import db
from portal.core.queue import QUEUES, get_queue, redis_holder

REQUEST_SECONDS = Histogram(
    "countersign_request_seconds",
    "Server time of a request, by route (the rule, not the path), method and status class.",
    ["route", "method", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
DECISIONS = Counter(
    "countersign_decisions", "Decisions committed (rate() of it: decisions per second)."
)
POOL_CHECKED_OUT = Gauge(
    "countersign_db_pool_checked_out",
    "Database connections a process holds from its pool, summed over live processes.",
    multiprocess_mode="livesum",
)

log = logging.getLogger(__name__)

# The background figures a worker leaves for the scrape, and how long they stay good.
BACKGROUND_KEY = "portal:metrics:background"
BACKGROUND_TTL = 300


def observe_request(route: str, method: str, status: int, seconds: float) -> None:
    REQUEST_SECONDS.labels(route, method, f"{status // 100}xx").observe(seconds)
    if db.engine is not None:
        POOL_CHECKED_OUT.set(db.engine.pool.checkedout())  # type: ignore[attr-defined]


def decision_committed() -> None:
    DECISIONS.inc()


def measure_background() -> dict[str, float | None]:
    """The periodic job: the outbox's backlog over every organization (each read in its
    own unit of work, as the relay reads them: row-level security shows no one all of
    them) and the sweep's lag, left in Redis for ``/metrics``."""
    from portal.core.heartbeat import SWEEP_HEARTBEAT, Heartbeat
    from portal.core.outbox import backlog_in
    from portal.core.uow import operator_work, unit_of_work

    now = clock.now()
    with operator_work() as uow:
        org_ids = list(uow.session.scalars(text("SELECT id FROM organization ORDER BY id")))
        swept = uow.session.scalar(
            select(Heartbeat.beat_at).where(Heartbeat.name == SWEEP_HEARTBEAT)
        )
        backlogs = [backlog_in(uow.session, now)]  # the account mail
    for org_id in org_ids:
        with unit_of_work(org_id) as uow:
            backlogs.append(backlog_in(uow.session, now))
    oldest = min((b.oldest_pending_at for b in backlogs if b.oldest_pending_at), default=None)
    figures: dict[str, float | None] = {
        "outbox_undelivered": float(sum(b.pending for b in backlogs)),
        "outbox_dead": float(sum(b.dead for b in backlogs)),
        "outbox_oldest_undelivered_seconds": (now - oldest).total_seconds() if oldest else 0.0,
        "sweep_lag_seconds": (now - swept).total_seconds() if swept else None,
        "measured_at": time.time(),
    }
    redis_holder.get().set(BACKGROUND_KEY, json.dumps(figures), ex=BACKGROUND_TTL)
    return figures


class BackgroundCollector(Collector):
    """Read at scrape time: the queues' depth from Redis, and the worker's last
    background figures (absent when none was measured in the last five minutes — an
    alert on ``absent()`` then tells that no worker measures)."""

    def collect(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily(
            "countersign_queue_jobs", "Jobs waiting in each RQ queue.", labels=["queue"]
        )
        raw = None
        try:
            for name in QUEUES:
                depth.add_metric([name], float(get_queue(name).count))
            raw = redis_holder.get().get(BACKGROUND_KEY)
        except Exception as exc:  # Redis away: fewer figures rather than a failed scrape
            log.warning("metrics: Redis did not answer: %s", exc)
        yield depth
        figures: dict[str, Any] = json.loads(raw) if raw else {}
        helps = {
            "outbox_undelivered": "Outbox rows waiting for delivery (not dead).",
            "outbox_dead": "Outbox rows kept as dead letters.",
            "outbox_oldest_undelivered_seconds": "Age of the oldest undelivered outbox row.",
            "sweep_lag_seconds": "Time since the deadline sweep last ran.",
            "measured_at": "When a worker last measured these (Unix time).",
        }
        for key, help_text in helps.items():
            value = figures.get(key)
            if value is not None:
                yield GaugeMetricFamily(f"countersign_{key}", help_text, value=float(value))


def exposition() -> bytes:
    """The text Prometheus scrapes: every process's counters (under gunicorn) and the
    figures read now."""
    registry: CollectorRegistry
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = REGISTRY
    background = BackgroundCollector()
    registry.register(background)
    try:
        return generate_latest(registry)
    finally:
        registry.unregister(background)
