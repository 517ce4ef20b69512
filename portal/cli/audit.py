"""``portal audit verify [--org SLUG]``: check every document's hash chain, of one
organization or of every one, with a progress bar; the result is stored as the pass of
the command line and shown on the organization's audit home page.

Exit status: 0 when every chain holds, 1 when any is broken (each named), 2 for an
organization that does not exist.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click
from flask.cli import with_appcontext

from portal.cli import main


@main.group("audit")
def audit() -> None:
    """The auditor's tools for operators."""


@audit.command("verify")
@click.option("--org", "slug", default=None, help="Only this organization (by slug).")
@with_appcontext
def verify_command(slug: str | None) -> None:
    """Verify every document's hash chain, and say which are broken."""
    from sqlalchemy import text

    from portal.audit.models import VerificationTrigger
    from portal.audit.services.verification import verify_organization
    from portal.core.uow import operator_work
    from portal.domain.actor import SystemActor

    # A slug no organization could have (a NUL byte, far too long) is not looked up.
    if slug is not None and (len(slug) > 63 or not slug.isprintable()):
        _no_such_organization(slug)
    with operator_work() as uow:
        if slug is None:
            orgs = list(
                uow.session.execute(
                    text("SELECT id, slug FROM organization WHERE archived_at IS NULL ORDER BY id")
                )
            )
        else:
            orgs = list(
                uow.session.execute(
                    text("SELECT id, slug FROM organization WHERE slug = :s"), {"s": slug}
                )
            )
    if slug is not None and not orgs:
        _no_such_organization(slug)

    broken = chains = 0
    stderr = sys.stderr
    for org_id, org_slug in orgs:
        with click.progressbar(length=0, label=f"{org_slug}: verifying", file=stderr) as bar:

            def progress(done: int, total: int) -> None:
                bar.length = total
                bar.update(done - bar.pos)

            result = verify_organization(
                SystemActor(org_id=org_id, org_slug=org_slug),
                VerificationTrigger.CLI,
                progress=progress,
            )
        chains += result.chains
        broken += len(result.failures)
        click.echo(
            f"{org_slug}: {result.chains} chain(s), {result.decisions} decision(s), "
            f"{len(result.failures)} broken"
        )
        for failure in result.failures:
            click.echo(
                f"BROKEN {org_slug} {failure['reference']}: first bad decision #{failure['seq']}"
            )
    click.echo(
        f"Verified {chains} chain(s) in {len(orgs)} organization(s): "
        + (f"{broken} broken." if broken else "every chain holds.")
    )
    if broken:
        raise SystemExit(1)


def _no_such_organization(slug: str) -> NoReturn:
    click.echo(f"there is no organization {slug[:80]!r}", err=True)
    raise SystemExit(2)
