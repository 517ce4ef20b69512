"""`portal bench validate` runs and reports every graph, the capped one at the caps."""

from __future__ import annotations

from click.testing import CliRunner

from portal.bench.validate import BENCH_CURRENCY, capped_graph
from portal.cli.benchmarks import bench
from portal.domain.graph import MAX_GRANTS, MAX_STATES, MAX_TRANSITIONS
from portal.domain.validate import validate


def test_the_generated_graph_sits_exactly_at_the_caps_and_is_valid():
    graph = capped_graph()
    assert (len(graph.states), len(graph.transitions), len(graph.grants)) == (
        MAX_STATES,
        MAX_TRANSITIONS,
        MAX_GRANTS,
    )
    assert validate(graph, base_currency=BENCH_CURRENCY) == []


def test_the_benchmark_prints_a_median_and_p95_for_each_graph():
    # The `bench` group itself: going through `portal` would build a second app.
    result = CliRunner().invoke(bench, ["validate", "--rounds", "10"])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines()[2:]]
    assert [row[0] for row in rows] == [
        "expense_claim",
        "purchase_request",
        "leave_request",
        "capped",
    ]
    assert rows[-1][-3] == f"{MAX_STATES}/{MAX_TRANSITIONS}/{MAX_GRANTS}"
    for row in rows:
        median, p95 = float(row[-2]), float(row[-1])
        assert 0 < median <= p95
