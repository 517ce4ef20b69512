"""`portal bench soak`: the real topology on this machine, under a mixed load and
faults, then proof that nothing was lost.

It builds the organizations (``soak_world``), starts the processes (``soak_processes``),
signs every simulated member in, then drives the load (``soak_load``) while the faults
(``soak_faults``) are injected on the same clock. When the load stops it waits for the
outbox to drain — the scheduler's relay delivers what a Redis outage held up — and runs
the checker (``soak_check``). The organizations and accounts are removed afterwards;
the processes' logs stay in a directory the report names.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from sqlalchemy import create_engine, pool, text

from portal.bench.soak_check import check_soak, wait_for_outbox
from portal.bench.soak_faults import Faults
from portal.bench.soak_load import Balancer, Load
from portal.bench.soak_processes import Topology
from portal.bench.soak_report import SoakResult
from portal.bench.soak_world import build_soak_world, remove_soak_world
from portal.config import Settings

DRAIN_SECONDS = 240.0


def bench_soak(
    settings: Settings,
    *,
    duration: float,
    organizations: int,
    documents: int,
    rate: float,
    threads: int,
    redis_outage: float,
    keep: bool = False,
    progress: Callable[[str], None],
) -> SoakResult:
    owner_url = settings.migrate_database_url
    if not settings.database_url.startswith("postgresql"):
        raise ValueError("the soak runs on PostgreSQL (PORTAL_DATABASE_URL)")
    if shutil.which("redis-server") is None:
        raise ValueError("the soak starts a Redis of its own: redis-server is not on PATH")
    remove_soak_world(owner_url)  # what an interrupted run left
    progress(f"building {organizations} organizations, {documents} documents each …")
    orgs = build_soak_world(organizations, documents, progress)
    directory = Path(tempfile.mkdtemp(prefix="countersign-soak-"))
    topology = Topology(settings, directory)
    try:
        progress(f"starting the processes (logs in {directory}) …")
        topology.start()
        balancer = Balancer(topology.web_addresses)
        load = Load(orgs, balancer)
        progress("signing everyone in …")
        load.sign_in_everyone()
        since = _database_now(owner_url)
        load.begin()
        faults = Faults(
            topology,
            app_url=settings.database_url,
            duration=duration,
            redis_outage=redis_outage,
            clock=load.now,
        )
        faults.start()
        progress(f"load for {duration:.0f} s at {rate:g} requests/s, faults on the way …")
        load.run(duration, rate, threads)
        seconds = load.now()
        faults.join()
        progress("load done; waiting for the outbox to drain …")
        ids = [(o.org_id, o.slug) for o in orgs]
        undelivered = wait_for_outbox(owner_url, ids, DRAIN_SECONDS, progress)
        progress("checking …")
        verdict = check_soak(owner_url, ids, load.record.decisions, topology.smtp.received, since)
        return SoakResult(
            seconds,
            rate,
            threads,
            organizations,
            len(load.deciders) + len(load.readers) + len(load.admins),
            load.record,
            faults.injected,
            faults.errors,
            topology.unplanned_restarts,
            undelivered,
            verdict,
            str(directory),
            balancer.passed_on,
        )
    finally:
        topology.stop()
        if not keep:
            progress("removing the organizations …")
            remove_soak_world(owner_url)


def _database_now(owner_url: str) -> datetime:
    """The database's clock at the start of the load: every row the load causes is later."""
    engine = create_engine(owner_url, poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            now: datetime = conn.scalar(text("SELECT now()"))
            return now
    finally:
        engine.dispose()
