"""``portal worker`` and ``portal scheduler``: the background half as operators run it."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import with_appcontext

from portal.cli import _settings, main
from portal.config import Settings


def mail_transport_line(settings: Settings) -> str:
    """One line saying where this worker's mail goes, and whether that works: a bad SMTP
    setting is said at start-up, and the worker runs on (the outbox keeps the mail and
    retries it) rather than exiting into a restart loop."""
    from portal.core.health import check_smtp

    if not settings.smtp_host:
        return f"mail: no PORTAL_SMTP_HOST; messages are written to {settings.mail_directory}/"
    problem = check_smtp(settings)
    if problem:
        return (
            f"mail: WARNING {problem}. The worker runs on; mail waits in the outbox and is"
            " retried (PORTAL_SMTP_* settings)"
        )
    return f"mail: SMTP {settings.smtp_host}:{settings.smtp_port} ({settings.smtp_security}), reachable"


@main.command("worker")
@click.option(
    "--queue",
    "queue_name",
    default="default",
    show_default=True,
    help="The one queue this process serves (run one process per queue).",
)
@click.option("--burst", is_flag=True, help="Exit when the queue is empty.")
@click.option(
    "--fork/--in-process",
    default=None,
    help="Fork a process per job, or run jobs in this one [default: in-process for the"
    " sweep queue, forking for the others].",
)
@with_appcontext
def worker(queue_name: str, burst: bool, fork: bool | None) -> None:
    """Run an RQ worker on PORTAL_REDIS_URL."""
    from portal.core.queue import SWEEP_QUEUE, redis_holder
    from portal.core.worker import (
        InProcessWorker,
        PortalWorker,
        preload_job_modules,
        reporting_to,
        work_through_outages,
    )

    if redis_holder.embedded:
        raise click.ClickException(
            "PORTAL_REDIS_URL is not set; the demo runs its worker in-process"
        )
    # The app is built (by the CLI, before this runs) and the job modules imported here,
    # in the parent: every forked job starts from them instead of importing its own.
    modules = preload_job_modules()
    forking = fork if fork is not None else queue_name != SWEEP_QUEUE
    how = "a process per job" if forking else "jobs in this process"
    click.echo(
        f"worker on queue {queue_name!r} ({how}); jobs preloaded from {len(modules)} modules"
    )
    click.echo(mail_transport_line(_settings()))
    kind = PortalWorker if forking else InProcessWorker
    hook = current_app.extensions.get("portal.error_hook")
    connection = redis_holder.get()
    work_through_outages(
        lambda: kind(
            [queue_name],
            connection=connection,
            exception_handlers=[reporting_to(hook)] if hook else [],
        ),
        connection,
        burst=burst,
    )


@main.command("scheduler")
@click.option(
    "--interval",
    type=click.IntRange(5, 3600),
    default=None,
    help="Seconds between deadline sweeps [default: PORTAL_SWEEP_INTERVAL, or 60].",
)
@click.option("--queue", "queue_name", default="default", show_default=True)
@with_appcontext
def scheduler(interval: int | None, queue_name: str) -> None:
    """Enqueue the periodic jobs (the deadline sweep, the outbox relay …) on
    PORTAL_REDIS_URL. A second scheduler at once does no harm."""
    from portal.core.queue import redis_holder
    from portal.core.schedule import PERIODIC_JOBS, build_cron

    if redis_holder.embedded:
        raise click.ClickException("PORTAL_REDIS_URL is not set")
    sweep_interval = interval or _settings().sweep_interval
    cron = build_cron(redis_holder.get(), sweep_interval, queue=queue_name)
    for path, every in PERIODIC_JOBS:
        click.echo(f"every {every or sweep_interval:>4} s: {path}")
    cron.start()
