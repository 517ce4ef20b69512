"""``portal …``: the operator's commands (migrations, organizations, workers, demo)."""

from __future__ import annotations

import os
import sys

import click
from flask import Flask, current_app
from flask.cli import FlaskGroup, ScriptInfo, with_appcontext

from portal.config import Settings


def _create_app() -> Flask:
    from portal.app import create_app
    from portal.config import ConfigError

    try:
        return create_app()
    except ConfigError as error:  # a bad variable: say which, without a traceback
        raise click.ClickException(str(error)) from None


def _settings() -> Settings:
    return current_app.extensions["portal.settings"]


@click.group(cls=FlaskGroup, create_app=_create_app, add_default_commands=True)
def main() -> None:
    """Countersign: a multi-tenant approval-workflow portal."""


# --- database ---------------------------------------------------------------------------


@main.group()
def db() -> None:
    """Database migrations."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True)
@with_appcontext
def db_upgrade(revision: str) -> None:
    """Apply migrations (as PORTAL_MIGRATE_DATABASE_URL) and grant the app role."""
    from portal.core.migrate import grant_app_role, upgrade

    settings = _settings()
    if settings.database_url.startswith("sqlite:///"):
        settings.instance_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.migrate_database_url, revision=revision)
    role = grant_app_role(settings.migrate_database_url, settings.database_url)
    click.echo(f"database at {revision}" + (f"; privileges granted to role {role}" if role else ""))


@db.command("downgrade")
@click.argument("revision")
@with_appcontext
def db_downgrade(revision: str) -> None:
    """Step the schema back to REVISION (e.g. -1, or base)."""
    from portal.core.migrate import downgrade

    downgrade(_settings().migrate_database_url, revision)
    click.echo(f"database at {revision}")


# --- organizations ------------------------------------------------------------------------


@main.command("create-org")
@click.argument("slug")
@click.argument("name")
@click.option("--currency", default="USD", show_default=True, help="Base currency (ISO 4217).")
@click.option("--locale", default="en", show_default=True, type=click.Choice(["en", "zh", "ms"]))
@click.option(
    "--time-zone", default="UTC", show_default=True, help="IANA zone, e.g. Asia/Kuala_Lumpur."
)
@click.option("--territory", default=None, help="Country for date and money formats, e.g. MY.")
@click.option("--admin-email", required=True)
@click.option("--admin-name", required=True)
@with_appcontext
def create_org(
    slug: str,
    name: str,
    currency: str,
    locale: str,
    time_zone: str,
    territory: str | None,
    admin_email: str,
    admin_name: str,
) -> None:
    """Create an organization and invite its first admin (who sets their own password)."""
    from portal.accounts import services
    from portal.domain.actor import Role, SystemActor
    from portal.domain.errors import DomainError
    from portal.domain.naming import normalise_email, normalise_name
    from portal.provisioning import provision_organization
    from portal.web.messages import message_for

    try:
        # The admin's address and name first: a bad one must not leave an organization
        # behind with nobody to run it.
        admin_email, admin_name = normalise_email(admin_email), normalise_name(admin_name)
        org = provision_organization(
            slug,
            name,
            base_currency=currency,
            default_locale=locale,
            time_zone=time_zone,
            territory=territory,
        )
        system = SystemActor(org_id=org.id, org_slug=org.slug)
        services.invite_member(system, email=admin_email, name=admin_name, roles=[Role.ADMIN])
    except DomainError as error:
        with current_app.test_request_context():
            raise click.ClickException(message_for(error)) from error
    click.echo(f"created /o/{org.slug}/; an invitation to {admin_email} is on its way")


@main.command("archive-org")
@click.argument("slug")
@click.option("--restore", is_flag=True, help="Open an archived organization again.")
@with_appcontext
def archive_org(slug: str, restore: bool) -> None:
    """Close an organization to its members (nothing is deleted), or open it again."""
    from portal.accounts import services
    from portal.domain.errors import NotFound

    try:
        (services.restore_organization if restore else services.archive_organization)(slug)
    except NotFound:
        raise click.ClickException(f"there is no organization {slug!r}") from None
    click.echo(f"{slug} {'restored' if restore else 'archived'}")


@main.command("account-access")
@click.argument("email")
@click.option("--enable/--disable", default=False, help="Enable, or (the default) disable.")
@with_appcontext
def account_access(email: str, enable: bool) -> None:
    """Disable an account everywhere (its sessions end at once), or enable it again."""
    from portal.accounts import services
    from portal.domain.errors import NotFound

    try:
        services.set_account_active(email, enable)
    except NotFound:
        raise click.ClickException(f"there is no account {email!r}") from None
    click.echo(f"{email} {'enabled' if enable else 'disabled'}")


@main.command("seed-flows")
@with_appcontext
def seed_flows_command() -> None:
    """Publish v1 of the seeded flows in every organization lacking them (idempotent)."""
    from sqlalchemy import select

    from portal.accounts.models import Organization
    from portal.core.uow import operator_work
    from portal.flows import services as flows

    with operator_work() as uow:
        orgs = uow.session.execute(select(Organization.id, Organization.slug)).all()
    for org_id, slug in orgs:
        kinds = flows.seed_flows(org_id)
        click.echo(f"{slug}: {', '.join(kinds) if kinds else 'nothing to seed'}")


# --- demo -----------------------------------------------------------------------------------


@main.command("seed-demo")
@with_appcontext
def seed_demo_command() -> None:
    """Seed the demo organization `acme` (idempotent)."""
    from portal.demo import seed_demo

    click.echo("seeded acme" if seed_demo() else "acme already exists; left as it is")


@main.command("demo")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--no-serve", is_flag=True, help="Set up and seed, then exit.")
@with_appcontext
def demo(host: str, port: int, no_serve: bool) -> None:
    """Migrate, seed `acme`, and serve the portal with the embedded queue."""
    from portal.core.health import ping
    from portal.core.migrate import upgrade
    from portal.core.queue import enqueue
    from portal.demo import DEMO_PASSWORD, PEOPLE, seed_demo

    settings = _settings()
    settings.instance_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.migrate_database_url, settings.database_url)
    seeded = seed_demo()
    click.echo(
        "Seeded the demo organization acme." if seeded else "Demo organization acme kept as it was."
    )
    click.echo(f"\nDemo logins (password for all: {DEMO_PASSWORD}):")
    for person in PEOPLE:
        roles = f" [{', '.join(person.roles)}]" if person.roles else ""
        click.echo(f"  {person.email:<24} {person.name} — {person.position}{roles}")
    job = enqueue(ping)
    click.echo(f"\nQueue check enqueued (job {job.id}); the embedded worker runs it.")
    if no_serve:
        return
    click.echo(f"Serving on http://{host}:{port}/  (Ctrl+C to stop)\n")
    # Flask ignores app.run() inside its own CLI; serve with Werkzeug directly.
    from werkzeug.serving import run_simple

    # The application itself (the one this command's app context belongs to, loaded
    # once by the CLI), not the context-local proxy to it.
    app = click.get_current_context().ensure_object(ScriptInfo).load_app()
    if not os.environ.get("PORTAL_BASE_URL"):  # links in mail point at this server
        shown = "127.0.0.1" if host in {"0.0.0.0", "::"} else host  # noqa: S104
        app.extensions["portal.settings"] = settings.with_(base_url=f"http://{shown}:{port}")
    if not settings.smtp_host:
        click.echo(f"Mail is written to {settings.mail_directory}/ as .eml files.")
    run_simple(host, port, app, threaded=True)


# --- workers --------------------------------------------------------------------------------


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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


# --- benchmarks -----------------------------------------------------------------------------


@main.group(cls=click.Group)  # a plain group: benchmarks need no app, nor build one
def bench() -> None:
    """Measure the hot paths; figures go in the README's performance section."""


@bench.command("validate")
@click.option("--rounds", default=500, show_default=True, type=click.IntRange(10, 100_000))
def bench_validate_command(rounds: int) -> None:
    """Time validate() on the seeded flows and on a generated graph at the size caps."""
    from portal.bench.validate import bench_validate

    click.echo(f"validate(): {rounds} rounds each (states/transitions/grants)")
    click.echo(f"{'graph':<22}{'size':>12}{'median ms':>12}{'p95 ms':>10}")
    for t in bench_validate(rounds):
        click.echo(f"{t.name:<22}{t.size:>12}{t.median_ms:>12.3f}{t.p95_ms:>10.3f}")


@bench.command("transitions")
@click.option(
    "--documents", "count", default=200, show_default=True, type=click.IntRange(10, 10_000)
)
def bench_transitions_command(count: int) -> None:
    """Decisions per second through the engine vs. the same SQL written by hand."""
    from dataclasses import replace

    from portal.app import create_app
    from portal.bench.transitions import bench_transitions
    from portal.config import Settings

    # No in-process worker: it would compete with the loops being timed.
    settings = replace(Settings.from_env(), embedded_worker=False)
    app = create_app(settings)
    with app.app_context():
        url = settings.database_url
        figures = bench_transitions(count, url, settings.migrate_database_url, progress=click.echo)
    click.echo(f"transitions on {url.split('://', 1)[0]}: {figures.documents} each")
    click.echo(f"{'engine (service layer)':<28}{figures.engine_per_second:>10.1f} /s")
    click.echo(f"{'hand-written SQL loop':<28}{figures.raw_per_second:>10.1f} /s")
    click.echo(f"{'ratio engine / hand-written':<28}{figures.ratio:>10.2f}")


@bench.command("inbox")
@click.option("--organizations", default=1001, show_default=True, type=click.IntRange(1, 100_000))
@click.option("--per-org", default=1000, show_default=True, type=click.IntRange(1, 100_000))
@click.option("--member-tasks", default=250, show_default=True, type=click.IntRange(200, 100_000))
@click.option("--rounds", default=100, show_default=True, type=click.IntRange(5, 10_000))
@click.option("--keep", is_flag=True, help="Leave the generated data for the next run.")
def bench_inbox_command(
    organizations: int, per_org: int, member_tasks: int, rounds: int, keep: bool
) -> None:
    """The inbox page's server time over a million tasks, beside a bare render."""
    from dataclasses import replace

    from portal.app import create_app
    from portal.bench.inbox import bench_inbox
    from portal.config import Settings

    settings = replace(Settings.from_env(), embedded_worker=False)
    app = create_app(settings)
    # No application context around the run: each timed request must get its own, as
    # in production (an outer one would let Flask-Login and the nav keep what they
    # loaded in ``g`` from one request to the next).
    f = bench_inbox(
        app,
        organizations=organizations,
        per_org=per_org,
        member_tasks=member_tasks,
        rounds=rounds,
        keep=keep,
        progress=click.echo,
    )
    click.echo(
        f"inbox of a member with {f.member_tasks} open tasks, {f.tasks:,} tasks in"
        f" {f.organizations:,} organizations on {settings.database_url.split('://', 1)[0]}"
    )
    click.echo(f"{'':<26}{'median ms':>10}{'p95 ms':>10}")
    click.echo(f"{'inbox page':<26}{f.inbox_median_ms:>10.1f}{f.inbox_p95_ms:>10.1f}")
    click.echo(f"{'bare render, same rows':<26}{f.bare_median_ms:>10.1f}{f.bare_p95_ms:>10.1f}")
    click.echo(f"{'p95 ratio inbox / bare':<26}{f.ratio:>20.2f}")
