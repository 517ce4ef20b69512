"""``portal sweep``: run the deadline sweep once, in this process (no worker needed)."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from portal.cli import main


@main.command("sweep")
@with_appcontext
def sweep_command() -> None:
    """Apply every due deadline effect now (reminders, escalations, reassignments,
    automatic transitions) in every organization, and say how many."""
    from portal.deadlines.jobs import sweep_once

    applied = sweep_once()
    if applied is None:
        click.echo("Deadline sweep: another sweep is running; nothing was done here.")
        return
    click.echo(f"Deadline sweep: {applied} effect(s) applied.")
