"""``portal worker`` and ``portal scheduler``: the background half as operators run it."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from portal.cli import main


@main.command("worker")
@click.option("--queue", "queue_name", default="default", show_default=True)
@click.option("--burst", is_flag=True, help="Exit when the queue is empty.")
@with_appcontext
def worker(queue_name: str, burst: bool) -> None:
    """Run an RQ worker on PORTAL_REDIS_URL (one queue per process)."""
    from portal.core.queue import redis_holder
    from portal.core.worker import PortalWorker

    if redis_holder.embedded:
        raise click.ClickException(
            "PORTAL_REDIS_URL is not set; the demo runs its worker in-process"
        )
    PortalWorker([queue_name], connection=redis_holder.get()).work(
        burst=burst, logging_level="INFO"
    )


@main.command("scheduler")
@with_appcontext
def scheduler() -> None:
    """Run the periodic jobs (RQ cron) on PORTAL_REDIS_URL."""
    from portal.core.queue import redis_holder
    from portal.core.schedule import build_cron

    if redis_holder.embedded:
        raise click.ClickException("PORTAL_REDIS_URL is not set")
    build_cron(redis_holder.get()).start()
