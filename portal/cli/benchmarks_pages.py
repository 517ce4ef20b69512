"""``portal bench document``: the pages' server time (the inbox's is ``bench inbox``)."""

from __future__ import annotations

import click

from portal.cli.benchmarks import bench


@bench.command("document")
@click.option("--decisions", default=30, show_default=True, type=click.IntRange(1, 1000))
@click.option("--rounds", default=100, show_default=True, type=click.IntRange(5, 10_000))
@click.option(
    "--scale/--no-scale", default=True, show_default=True, help="Also claims of 1, 10, 30."
)
@click.option("--keep", is_flag=True, help="Leave the organization and its claims in place.")
@click.option("--statements", is_flag=True, help="Print the statements of one page load.")
@click.option("--profile", is_flag=True, help="Print a cProfile summary of the page's loads.")
def bench_document_command(
    decisions: int, rounds: int, scale: bool, keep: bool, statements: bool, profile: bool
) -> None:
    """The document page for an approver with an open task on a claim with N decisions,
    beside a bare render of as many history rows."""
    from dataclasses import replace

    from portal.app import create_app
    from portal.bench.document_page import bench_document
    from portal.config import Settings

    settings = replace(Settings.from_env(), embedded_worker=False)
    app = create_app(settings)
    # No application context around the timed requests: each must get its own, as in
    # production (``bench inbox`` says why).
    f = bench_document(
        app,
        decisions=decisions,
        rounds=rounds,
        scale=scale,
        keep=keep,
        profile=profile,
        progress=lambda line: click.echo(line, err=True),
    )
    page = f.page
    click.echo(
        f"document page, approver with an open task, {page.decisions} decisions, on"
        f" {f.database}, {rounds} requests"
    )
    click.echo(f"{'':<30}{'median ms':>10}{'p95 ms':>10}{'statements':>12}{'transactions':>14}")
    click.echo(
        f"{'document page':<30}{page.median_ms:>10.1f}{page.p95_ms:>10.1f}"
        f"{page.statements:>12}{page.transactions:>14}"
    )
    click.echo(f"{'bare render, same rows':<30}{f.bare_median_ms:>10.1f}{f.bare_p95_ms:>10.1f}")
    click.echo(f"{'p95 ratio page / bare':<30}{f.ratio:>20.2f}")
    for row in f.scale:
        click.echo(
            f"{f'  {row.decisions} decisions':<30}{row.median_ms:>10.1f}{row.p95_ms:>10.1f}"
            f"{row.statements:>12}{row.transactions:>14}"
        )
    click.echo(
        f"target: p95 < 20 ms ({'met' if page.p95_ms < 20 else 'MISSED'}: {page.p95_ms:.1f} ms)"
    )
    if statements:
        click.echo("statements of one page load:")
        for line in page.sent:
            click.echo(f"  {line}")
    if profile:
        click.echo(f.profile)


@bench.command("soak")
@click.option("--duration", default=300, show_default=True, type=click.IntRange(20, 86_400))
@click.option("--organizations", default=20, show_default=True, type=click.IntRange(1, 1000))
@click.option("--documents", default=150, show_default=True, type=click.IntRange(1, 100_000))
@click.option("--rate", default=40.0, show_default=True, type=click.FloatRange(1, 10_000))
@click.option("--threads", default=12, show_default=True, type=click.IntRange(1, 256))
@click.option(
    "--redis-outage", default=30, show_default=True, type=click.IntRange(1, 600), help="Seconds."
)
@click.option("--keep", is_flag=True, help="Leave the organizations in place.")
def bench_soak_command(
    duration: int,
    organizations: int,
    documents: int,
    rate: float,
    threads: int,
    redis_outage: int,
    keep: bool,
) -> None:
    """The topology as processes (2 web servers, 2 workers, a sweeper, the scheduler,
    Redis) under a mixed load with faults; then the consistency check. Exits 1 unless
    every target is met."""
    from dataclasses import replace

    from portal.app import create_app
    from portal.bench.soak import bench_soak
    from portal.bench.soak_report import report
    from portal.config import Settings

    settings = replace(Settings.from_env(), embedded_worker=False)
    with create_app(settings).app_context():
        try:
            result = bench_soak(
                settings,
                duration=duration,
                organizations=organizations,
                documents=documents,
                rate=rate,
                threads=threads,
                redis_outage=redis_outage,
                keep=keep,
                progress=lambda line: click.echo(line, err=True),
            )
        except ValueError as refused:
            raise click.UsageError(str(refused)) from None
    for line in report(result):
        click.echo(line)
    if not result.passed:
        raise SystemExit(1)
