"""`portal bench audit` runs end to end on a small scale and leaves nothing behind; the
data it generates is what the application itself would have written (its hash chains
verify). Its figures, at a million documents, go in the README."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import create_engine, pool, text

from portal.audit.queries.search import search
from portal.bench.audit import SEARCHES, auditor_of, bench_audit
from portal.bench.audit_data import organization_sizes
from portal.bench.audit_load import PREFIX, fill, remove
from portal.documents.queries import detail
from portal.domain.audit_query import parse_audit_query


def _left(owner_url: str) -> int:
    owner = create_engine(owner_url, poolclass=pool.NullPool)
    with owner.connect() as conn:
        left = conn.scalar(
            text("SELECT count(*) FROM organization WHERE slug LIKE :p"), {"p": PREFIX + "%"}
        )
    owner.dispose()
    return int(left)


def test_the_audit_benchmark_times_searches_and_exports_and_cleans_up(app, backend, committed):
    lines: list[str] = []
    figures = bench_audit(
        app,
        documents=400,
        organizations=4,
        rounds=5,
        export_rows=150,
        clean=True,
        progress=lines.append,
    )

    assert (figures.loaded.documents, figures.loaded.organizations) == (400, 4)
    assert not figures.loaded.reused and figures.loaded.decisions > 400
    # Five searches in the largest organization and five in the median one.
    assert [t.search for t in figures.timings] == [*SEARCHES, *SEARCHES]
    assert {t.organization for t in figures.timings} == {f"{PREFIX}0000", f"{PREFIX}0002"}
    assert all(0 < t.median_ms <= t.p95_ms for t in figures.timings)
    assert [(e.fmt, e.rows >= 150) for e in figures.exports] == [("csv", True), ("json", True)]
    assert all(e.per_second > 0 for e in figures.exports)
    assert any(line.startswith("  ") and "documents/s" in line for line in lines)
    assert lines[-1].startswith("removing")
    assert _left(backend.owner_url) == 0


def test_the_generated_history_is_what_the_application_writes(app, backend, committed):
    owner = create_engine(backend.owner_url, poolclass=pool.NullPool)
    now = datetime.now(UTC)
    try:
        loaded = fill(
            owner, backend.owner_url, documents=120, organizations=2, now=now, progress=print
        )
        assert loaded.decisions > 120
        # A second run finds the data set complete and reuses it.
        assert fill(
            owner, backend.owner_url, documents=120, organizations=2, now=now, progress=print
        ).reused
        with app.app_context():
            auditor = auditor_of(1)
            found = 0
            for page in (1, 2):
                query, errors = parse_audit_query({"page": str(page)})
                assert not errors
                result = search(auditor, query)
                for row in result.rows:
                    check = detail.verify_history(auditor, row.reference)
                    assert check.ok, (row.reference, check)
                    found += 1
            assert found == min(50, organization_sizes(120, 2)[1])
    finally:
        owner.dispose()
        remove(backend.owner_url)
    assert _left(backend.owner_url) == 0
