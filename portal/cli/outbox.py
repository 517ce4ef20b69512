"""``portal outbox status|retry|prune``: the operator's view of what waits to be
delivered, a second chance for dead letters, and the removal of delivered rows."""

from __future__ import annotations

import re

import click
from flask.cli import with_appcontext

from portal.cli import _settings, main

_RETENTION = re.compile(r"([1-9][0-9]{0,3})d")


def _age(seconds: float) -> str:
    for size, unit in ((86_400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


@main.group()
def outbox() -> None:
    """Events waiting to be delivered (notices, mail), per organization."""


@outbox.command("status")
@click.option("--org", "org_slug", default=None, help="One organization, by its address.")
@with_appcontext
def outbox_status(org_slug: str | None) -> None:
    """Pending, due and dead events, and the oldest pending one's age, per organization
    and for the account mail."""
    from portal.core import outbox as events
    from portal.core.clock import clock

    report = events.outbox_status(org_slug)
    if org_slug is not None and not report:
        raise click.ClickException(f"there is no organization {org_slug!r}")
    now = clock.now()
    click.echo(f"{'organization':<24} {'pending':>8} {'due':>8} {'dead':>8}  oldest pending")
    for slug, backlog in report:
        oldest = (
            _age((now - backlog.oldest_pending_at).total_seconds())
            if backlog.oldest_pending_at
            else "-"
        )
        name = slug if slug is not None else "(account mail)"
        click.echo(f"{name:<24} {backlog.pending:>8} {backlog.due:>8} {backlog.dead:>8}  {oldest}")


@outbox.command("retry")
@click.argument("ids", nargs=-1, type=click.IntRange(1, 2**63 - 1))
@click.option("--all-dead", is_flag=True, help="Every dead letter (of --org, if given).")
@click.option("--org", "org_slug", default=None, help="Only this organization's.")
@with_appcontext
def outbox_retry(ids: tuple[int, ...], all_dead: bool, org_slug: str | None) -> None:
    """Give dead letters (by ID, or --all-dead) a new round of attempts, due now."""
    from portal.core import outbox as events

    if bool(ids) == all_dead:
        raise click.UsageError("name the events to retry by ID, or pass --all-dead (not both)")
    retried = events.retry_dead_letters(list(ids) if ids else None, org_slug=org_slug)
    for slug, outbox_id in retried:
        click.echo(f"retrying {outbox_id} ({slug or 'account mail'})")
    missing = sorted(set(ids) - {outbox_id for _, outbox_id in retried})
    if missing:
        raise click.ClickException(
            "not dead letters (delivered, still being tried, or no such event): "
            + ", ".join(map(str, missing))
        )
    if not retried:
        click.echo("no dead letters")


@outbox.command("prune")
@click.option(
    "--older-than",
    default=None,
    metavar="DAYS",
    help="How long delivered events are kept, e.g. 30d (default: PORTAL_OUTBOX_RETENTION_DAYS).",
)
@click.option("--org", "org_slug", default=None, help="Only this organization's.")
@with_appcontext
def outbox_prune(older_than: str | None, org_slug: str | None) -> None:
    """Delete delivered events older than the retention; undelivered ones are kept."""
    from portal.core import outbox as events

    if older_than is None:
        days = _settings().outbox_retention_days
    else:
        match = _RETENTION.fullmatch(older_than.strip())
        if match is None:
            raise click.BadParameter(
                "write whole days, e.g. 30d (1d to 9999d)", param_hint="--older-than"
            )
        days = int(match.group(1))
    pruned = events.prune_outbox(days, org_slug=org_slug)
    if org_slug is not None and not pruned:
        raise click.ClickException(f"there is no organization {org_slug!r}")
    for slug, count in pruned.items():
        if count:
            click.echo(f"{slug or '(account mail)'}: {count} deleted")
    click.echo(f"{sum(pruned.values())} delivered events older than {days}d deleted")
