"""`portal bench inbox` runs end to end on a small scale and leaves nothing behind (its
figures, at a million tasks, go in the README; here only that it works)."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from portal.bench.inbox import PREFIX, bench_inbox


def test_the_inbox_benchmark_times_both_pages_and_cleans_up(app, backend, committed):
    lines: list[str] = []
    figures = bench_inbox(
        app, organizations=3, per_org=20, member_tasks=210, rounds=5, progress=lines.append
    )

    assert (figures.organizations, figures.tasks, figures.member_tasks) == (3, 250, 210)
    assert 0 < figures.inbox_median_ms <= figures.inbox_p95_ms
    assert 0 < figures.bare_median_ms <= figures.bare_p95_ms
    assert lines[-1].startswith("removing")
    owner = create_engine(backend.owner_url)
    with owner.connect() as conn:
        left = conn.scalar(
            text("SELECT count(*) FROM organization WHERE slug LIKE :p"), {"p": PREFIX + "%"}
        )
    owner.dispose()
    assert left == 0
