"""`portal bench document` runs end to end on a small scale and leaves nothing behind (its
figures go in the README; here that it works, and that the page's statements do not
grow with its history)."""

from __future__ import annotations

import itertools

import pytest

from portal.bench.document_page import bench_document, plan
from tests.bench.leftovers import left_behind


@pytest.mark.parametrize("decisions", [1, 2, 3, 4, 6, 7, 10, 29, 30, 31])
def test_a_plan_takes_a_claim_through_exactly_that_many_decisions(decisions):
    steps, holder = plan(decisions)

    assert len(steps) == decisions
    assert steps[0][0] == "submit"
    # Each step leaves the state the next is taken from.
    lands = {"submit": "pending_review", "review": "reviewed", "reject": "rejected"}
    lands |= {"revise": "draft", "approve": "approved"}
    assert all(lands[step[0]] == after[2] for step, after in itertools.pairwise(steps))
    waits_at = {"pending_review": "superior", "reviewed": "head", "approved": "admin"}
    assert waits_at[lands[steps[-1][0]]] == holder


def test_the_document_benchmark_times_the_page_beside_a_bare_render_and_cleans_up(
    app, backend, committed
):
    lines: list[str] = []
    figures = bench_document(app, decisions=4, rounds=5, progress=lines.append)

    page = figures.page
    assert page.decisions == 4
    assert 0 < page.median_ms <= page.p95_ms
    assert 0 < figures.bare_median_ms <= figures.bare_p95_ms
    assert figures.ratio > 0
    assert page.statements == len(page.sent) > 0
    assert page.transactions >= 1
    assert [row.decisions for row in figures.scale] == [1, 4, 10, 30]
    # One read of the history whatever its length: no statement per decision.
    assert {(row.statements, row.transactions) for row in figures.scale} == {
        (page.statements, page.transactions)
    }
    assert lines[-1].startswith("removing")
    assert left_behind(backend.owner_url) == (0, 0)


def test_without_the_scale_only_the_asked_claim_is_timed(app, backend, committed):
    figures = bench_document(
        app, decisions=2, rounds=5, scale=False, profile=True, progress=lambda _line: None
    )

    assert figures.page.decisions == 2
    assert figures.scale == ()
    assert "cumulative" in figures.profile
    assert left_behind(backend.owner_url) == (0, 0)
