"""``portal bench …``: measure the hot paths; figures go in the README's performance section."""

from __future__ import annotations

from typing import Any

import click

from portal.cli import main


@main.group(cls=click.Group)  # a plain group: benchmarks need no app, nor build one
def bench() -> None:
    """Measure the hot paths; figures go in the README's performance section."""


@bench.command("validate")
@click.option("--rounds", default=500, show_default=True, type=click.IntRange(10, 100_000))
def bench_validate_command(rounds: int) -> None:
    """Time validate() on the seeded flows, on a generated graph at the size caps, and on
    the same shape at 8, 32 and 64 states (how it grows with a flow's size)."""
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


@bench.command("decisions")
@click.option("--clients", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--documents", default=400, show_default=True, type=click.IntRange(1, 100_000))
@click.option(
    "--history",
    default=1,
    show_default=True,
    type=click.IntRange(1, 1000),
    help="Finished documents the organization holds first, as a multiple of --documents.",
)
@click.option("--http", is_flag=True, help="Through the document page, gunicorn --workers 2.")
@click.option("--expense-claim", is_flag=True, help="The seeded expense claim's first steps.")
@click.option("--explain", is_flag=True, help="Print a decision's statements' generic plans.")
def bench_decisions_command(
    clients: int, documents: int, history: int, http: bool, expense_claim: bool, explain: bool
) -> None:
    """Decisions per second, three phases with barriers, N client processes."""
    from portal.app import create_app
    from portal.bench.decision_report import report
    from portal.bench.decisions import bench_decisions

    settings = _bench_settings()
    app = _bench_app(settings)
    with app.app_context():
        try:
            figures = bench_decisions(
                settings,
                clients=clients,
                documents=max(documents, clients),
                history=history,
                http=http,
                expense_claim=expense_claim,
                create_app=create_app,
                plans=explain,
                progress=click.echo,
            )
        except ValueError as refused:
            raise click.UsageError(str(refused)) from None
    for line in report(figures):
        click.echo(line)


def _bench_settings() -> Any:
    from dataclasses import replace

    from portal.config import Settings

    # No in-process worker: it would compete with the loops being timed.
    return replace(Settings.from_env(), embedded_worker=False)


def _bench_app(settings: Any) -> Any:
    from portal.app import create_app

    return create_app(settings)


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


@bench.command("sweep")
@click.option("--organizations", default=100, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--per-org", default=100, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 32))
def bench_sweep_command(organizations: int, per_org: int, workers: int) -> None:
    """Time for `portal worker` processes to clear overdue tasks, each effect once."""
    from dataclasses import replace

    from portal.app import create_app
    from portal.bench.sweep import bench_sweep
    from portal.config import Settings

    settings = replace(Settings.from_env(), embedded_worker=False)
    app = create_app(settings)
    with app.app_context():
        f = bench_sweep(
            settings,
            organizations=organizations,
            per_org=per_org,
            workers=workers,
            progress=click.echo,
        )
    click.echo(
        f"sweep: {f.tasks:,} overdue tasks in {f.organizations} organizations,"
        f" {f.workers} worker processes (built in {f.build_seconds:.1f} s)"
    )
    click.echo(f"{'time to clear':<30}{f.clear_seconds:>10.2f} s")
    click.echo(f"{'tasks escalated per second':<30}{f.tasks_per_second:>10.1f} /s")
    click.echo(f"{'one organization, median':<30}{f.job_median_ms:>10.1f} ms")
    click.echo(f"{'one organization, p95':<30}{f.job_p95_ms:>10.1f} ms")
    click.echo(
        f"{'each effect exactly once':<30}{'yes' if f.exactly_once else 'NO':>10}"
        f"  ({f.tasks_escalated:,}/{f.tasks:,} escalated; duplicates: effects"
        f" {f.duplicate_effects}, decisions {f.duplicate_decisions}, events"
        f" {f.duplicate_events}, notifications {f.duplicate_notifications};"
        f" still due {f.still_due})"
    )
    if not f.exactly_once:
        raise click.ClickException("an effect was missed or repeated")


@bench.command("outbox")
@click.option("--notices", default=1000, show_default=True, type=click.IntRange(1, 100_000))
@click.option("--mails", default=500, show_default=True, type=click.IntRange(1, 100_000))
@click.option("--rounds", default=3, show_default=True, type=click.IntRange(1, 100))
def bench_outbox_command(notices: int, mails: int, rounds: int) -> None:
    """Notifications (in-app and mail to a local SMTP server) per second per worker."""
    from dataclasses import replace

    from portal.app import create_app
    from portal.bench.outbox import bench_outbox
    from portal.config import Settings

    settings = replace(Settings.from_env(), embedded_worker=False)
    app = create_app(settings)
    with app.app_context():
        f = bench_outbox(settings, notices=notices, mails=mails, rounds=rounds, progress=click.echo)
    click.echo(
        f"outbox: {f.notices} in-app + {f.mails} mailed events a round, one worker process,"
        f" {len(f.rounds)} rounds"
    )
    click.echo(f"{'round':<8}{'notifications':>15}{'mails':>8}{'seconds':>10}{'per second':>12}")
    for n, r in enumerate(f.rounds, 1):
        click.echo(
            f"{n:<8}{r.notifications:>15}{r.mails:>8}{r.seconds:>10.2f}{r.per_second:>12.1f}"
        )
    click.echo(
        f"{'deliveries per second per worker, median':<44}{f.median_per_second:>8.1f}"
        f"  (range {f.low_per_second:.1f}–{f.high_per_second:.1f})"
    )
    click.echo(f"{'ratio to the 300/s target':<44}{f.median_per_second / 300:>8.2f}")


@bench.command("audit")
@click.option(
    "--documents", default=1_000_000, show_default=True, type=click.IntRange(10, 10_000_000)
)
@click.option("--organizations", default=1_000, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--rounds", default=50, show_default=True, type=click.IntRange(5, 10_000))
@click.option("--export-rows", default=100_000, show_default=True, type=click.IntRange(1, 10**7))
@click.option("--clean", is_flag=True, help="Remove the generated data afterwards.")
def bench_audit_command(
    documents: int, organizations: int, rounds: int, export_rows: int, clean: bool
) -> None:
    """The auditor's searches (p95) and exports (rows/s) at the service layer, over a
    generated data set kept for the next run (about 5 decisions a document)."""
    from dataclasses import replace

    from portal.app import create_app
    from portal.bench.audit import bench_audit
    from portal.config import Settings

    if organizations > documents:
        raise click.BadParameter("at least one document per organization", param_hint="--documents")
    settings = replace(Settings.from_env(), embedded_worker=False)
    app = create_app(settings)
    f = bench_audit(
        app,
        documents=documents,
        organizations=organizations,
        rounds=rounds,
        export_rows=export_rows,
        clean=clean,
        progress=lambda line: click.echo(line, err=True),
    )
    loaded = f.loaded
    made = (
        "reused"
        if loaded.reused
        else f"generated in {loaded.seconds:.0f} s, {loaded.decisions:,} decisions"
    )
    click.echo(
        f"audit: {loaded.documents:,} documents in {loaded.organizations:,} organizations"
        f" on {settings.database_url.split('://', 1)[0]} ({made})"
    )
    click.echo(f"{'search':<36}{'organization':<20}{'documents':>10}{'p50 ms':>9}{'p95 ms':>9}")
    for t in f.timings:
        click.echo(
            f"{t.search:<36}{t.organization:<20}{t.documents:>10,}{t.median_ms:>9.1f}"
            f"{t.p95_ms:>9.1f}"
        )
    for e in f.exports:
        click.echo(
            f"export {e.fmt:<5}{e.rows:>10,} rows in {e.seconds:6.2f} s{e.per_second:>12,.0f} rows/s"
        )
    worst = max((t.p95_ms for t in f.timings), default=0.0)
    slowest = min((e.per_second for e in f.exports), default=0.0)
    click.echo(
        f"targets: p95 < 100 ms ({'met' if worst < 100 else 'MISSED'}: worst {worst:.1f} ms);"
        f" export ≥ 20,000 rows/s ({'met' if slowest >= 20_000 else 'MISSED'}:"
        f" slowest {slowest:,.0f})"
    )
