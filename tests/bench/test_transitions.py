"""`portal bench transitions` runs end to end on the test database and cleans up after
itself (its figures go in the README; here only that it works)."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from portal.bench.transitions import bench_transitions


def test_the_transitions_benchmark_measures_both_loops_and_leaves_nothing_behind(
    backend, committed
):
    lines: list[str] = []
    figures = bench_transitions(10, backend.app_url, backend.owner_url, progress=lines.append)

    assert figures.documents == 10
    assert figures.engine_per_second > 0 and figures.raw_per_second > 0
    assert figures.ratio == figures.engine_per_second / figures.raw_per_second
    assert lines and lines[-1].startswith("timing both loops")
    owner = create_engine(backend.owner_url)
    with owner.connect() as conn:
        assert conn.scalar(text("SELECT count(*) FROM organization WHERE slug LIKE 'bench-%'")) == 0
        assert (
            conn.scalar(
                text(
                    "SELECT count(*) FROM app_user WHERE email LIKE '%.test' AND email LIKE '%@bench-%'"
                )
            )
            == 0
        )
    owner.dispose()
