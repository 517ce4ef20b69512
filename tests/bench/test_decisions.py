"""`portal bench decisions` runs end to end — client processes, three phases behind
barriers, over the service layer and over HTTP — and leaves nothing behind (its figures
go in the README; here that it works, and that a decision costs four round trips)."""

from __future__ import annotations

import pytest

from portal.app import create_app
from portal.bench.decision_report import report
from portal.bench.decisions import PHASES, bench_decisions
from tests.bench.leftovers import left_behind


def test_the_clients_take_every_document_through_the_three_steps(backend, settings, committed):
    lines: list[str] = []
    clients = 2 if backend.postgres else 1  # SQLite serves one writing process
    figures = bench_decisions(
        settings,
        clients=clients,
        documents=6,
        history=1,
        http=False,
        expense_claim=False,
        create_app=create_app,
        progress=lines.append,
    )

    assert [p.name for p in figures.phases] == list(PHASES)
    assert [p.calls for p in figures.phases] == [6, 6, 6]
    assert all(p.seconds > 0 and len(p.latencies) == 6 for p in figures.phases)
    assert figures.decisions_per_second == 12 / sum(p.seconds for p in figures.phases[1:])
    assert figures.decision_latency(0.5) <= figures.decision_latency(0.99)
    assert figures.history == 10 * clients  # the clients' warm-up documents, ten each
    assert any(line.startswith("decisions/s") for line in report(figures))
    if backend.postgres:
        # The transaction's start with the tenant, the load, the writes, the commit.
        assert figures.round_trips["approve at manager"] == 4
        assert figures.round_trips["approve at finance"] <= 5
    assert left_behind(backend.owner_url) == (0, 0)


def test_over_http_the_decisions_go_through_the_document_page(backend, settings, committed):
    if not backend.postgres:
        pytest.skip("gunicorn's two workers share the database: PostgreSQL")
    figures = bench_decisions(
        settings,
        clients=1,
        documents=3,
        history=1,
        http=True,
        expense_claim=False,
        create_app=create_app,
        plans=True,
        progress=lambda _line: None,
    )

    assert [p.calls for p in figures.phases] == [3, 3, 3]
    assert figures.per_decision("server") > 0  # gunicorn's workers did the work
    # The first approval's statements with their generic plans, run again: the load
    # and the writes. (Which index the load takes depends on the statistics, of which
    # the test database has none; the tasks a decision closes are found by their
    # document whatever they say: no other index matches the statement as this one.)
    assert [e.statement.split()[0] for e in figures.plans] == ["SELECT", "WITH"]
    assert "ix_task_open_by_document" in figures.plans[1].plan
    assert left_behind(backend.owner_url) == (0, 0)


def test_sqlite_is_refused_more_than_one_writing_client(backend, settings, committed):
    if backend.postgres:
        pytest.skip("SQLite's limit")
    with pytest.raises(ValueError, match="one writing client"):
        bench_decisions(
            settings,
            clients=2,
            documents=4,
            history=1,
            http=False,
            expense_claim=False,
            create_app=create_app,
        )
    assert left_behind(backend.owner_url) == (0, 0)
