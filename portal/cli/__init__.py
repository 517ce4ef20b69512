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


@click.group(
    cls=FlaskGroup, create_app=_create_app, add_default_commands=True, add_version_option=False
)
# Countersign's own version (the installed distribution's), not Flask's and Python's.
@click.version_option(
    package_name="countersign", prog_name="Countersign", message="%(prog)s %(version)s"
)
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

    click.echo("seeded acme" if seed_demo(history=True) else "acme already exists; left as it is")


@main.command("demo")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--no-serve", is_flag=True, help="Set up and seed, then exit.")
@with_appcontext
def demo(host: str, port: int, no_serve: bool) -> None:
    """Migrate, seed `acme`, and serve the portal with the embedded queue."""
    from portal.core.health import ping
    from portal.core.migrate import upgrade
    from portal.core.queue import enqueue, redis_holder
    from portal.demo import DEMO_PASSWORD, PEOPLE, seed_demo

    settings = _settings()
    settings.instance_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.migrate_database_url, settings.database_url)
    seeded = seed_demo(history=True)
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
    if settings.embedded_worker and redis_holder.embedded:
        # No `portal scheduler` without Redis: the server that serves the demo enqueues
        # the periodic jobs (the deadline sweep among them) from a thread of its own —
        # only it, not every command that builds the app on the same SQLite file.
        from portal.core.schedule import EmbeddedCron

        EmbeddedCron(redis_holder.get(), settings.sweep_interval).start()
    run_simple(host, port, app, threaded=True)


# The commands kept in modules of their own register on ``main`` when imported.
from portal.cli import audit as _audit  # noqa: E402, F401
from portal.cli import benchmarks as _benchmarks  # noqa: E402, F401
from portal.cli import benchmarks_pages as _benchmarks_pages  # noqa: E402, F401
from portal.cli import outbox as _outbox  # noqa: E402, F401
from portal.cli import sweep as _sweep  # noqa: E402, F401
from portal.cli import workers as _workers  # noqa: E402, F401

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
