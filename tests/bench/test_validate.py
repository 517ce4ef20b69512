"""`portal bench validate` runs and reports every graph, the capped one at the caps and
the scaled ones at their sizes."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from portal.bench.validate import (
    BENCH_CURRENCY,
    MIN_SCALED_STATES,
    SCALED_STATES,
    capped_graph,
    scaled_graph,
)
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


@pytest.mark.parametrize("states", [MIN_SCALED_STATES, *SCALED_STATES])
def test_a_scaled_graph_has_four_transitions_and_four_grants_a_state_and_is_valid(states):
    graph = scaled_graph(states)
    assert (len(graph.states), len(graph.transitions), len(graph.grants)) == (
        states,
        min(4 * states, MAX_TRANSITIONS),
        min(4 * states, MAX_GRANTS),
    )
    assert validate(graph, base_currency=BENCH_CURRENCY) == []


def test_the_capped_graph_is_the_scaled_graph_at_the_caps():
    assert capped_graph() == scaled_graph(MAX_STATES)
    with pytest.raises(ValueError):
        scaled_graph(MIN_SCALED_STATES - 1)
    with pytest.raises(ValueError):
        scaled_graph(MAX_STATES + 1)


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
        "scaled",
        "scaled",
        "scaled",
    ]
    assert rows[3][-3] == f"{MAX_STATES}/{MAX_TRANSITIONS}/{MAX_GRANTS}"
    # The growth: 8, 32 and 64 states, four transitions and four grants a state.
    assert [row[-3] for row in rows[4:]] == ["8/32/32", "32/128/128", "64/256/256"]
    for row in rows:
        median, p95 = float(row[-2]), float(row[-1])
        assert 0 < median <= p95
