"""`portal bench sweep` runs end to end with real worker processes on a few
organizations and cleans up after itself (its figures go in the README; here only that
it works and that its exactly-once check holds)."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from portal.bench.sweep import PREFIX, bench_sweep


def test_the_sweep_benchmark_clears_every_task_once_and_leaves_nothing_behind(
    backend, settings, committed
):
    if not backend.postgres:
        pytest.skip("worker processes need PostgreSQL and a Redis shared between processes")
    lines: list[str] = []
    figures = bench_sweep(settings, organizations=2, per_org=4, workers=2, progress=lines.append)

    assert figures.tasks == 8 and figures.organizations == 2
    assert figures.exactly_once, figures
    assert figures.tasks_escalated == 8 and figures.still_due == 0
    assert figures.clear_seconds > 0 and figures.tasks_per_second > 0
    assert lines[-1].startswith("removing")
    owner = create_engine(backend.owner_url)
    with owner.connect() as conn:
        assert (
            conn.scalar(
                text("SELECT count(*) FROM organization WHERE slug LIKE :p"), {"p": PREFIX + "%"}
            )
            == 0
        )
        assert (
            conn.scalar(
                text("SELECT count(*) FROM app_user WHERE email LIKE :p"), {"p": f"%@{PREFIX}%"}
            )
            == 0
        )
    owner.dispose()
