"""The pure shape rules of the org chart: no app, no database."""

from __future__ import annotations

from portal.domain.orgchart import cycle_members, would_form_cycle

# A small healthy chart: 1 is the top; 2 and 3 report to 1; 4 reports to 2.
CHART = {1: None, 2: 1, 3: 1, 4: 2}


def test_pointing_a_node_at_itself_is_a_cycle():
    assert not would_form_cycle(CHART, 4, 1)
    assert would_form_cycle(CHART, 4, 4)


def test_a_node_cannot_point_at_its_direct_child():
    assert not would_form_cycle(CHART, 2, 3)  # a sibling is fine
    assert would_form_cycle(CHART, 2, 4)  # 4 already reports to 2


def test_a_node_cannot_point_at_a_descendant_several_levels_down():
    assert not would_form_cycle(CHART, 3, 4)  # 4 is not below 3
    assert would_form_cycle(CHART, 1, 4)  # 4 -> 2 -> 1


def test_pointing_at_nothing_never_forms_a_cycle():
    assert not would_form_cycle(CHART, 4, 3)
    assert not would_form_cycle(CHART, 1, None)
    assert not would_form_cycle({}, 1, None)


def test_a_parent_unknown_to_the_edge_set_is_a_root_and_forms_no_cycle():
    assert not would_form_cycle(CHART, 4, 99)


def test_a_corrupt_loop_elsewhere_in_the_chart_does_not_hang_the_walk():
    corrupt = {**CHART, 5: 6, 6: 7, 7: 5}  # 5 -> 6 -> 7 -> 5, unrelated to node 4
    assert not would_form_cycle(corrupt, 4, 1)
    assert not would_form_cycle(corrupt, 4, 5)  # walks into the loop, stops, no 4 on it
    assert would_form_cycle(corrupt, 6, 5)  # 5 -> 6: pointing 6 at 5 meets 6


def test_a_healthy_chart_has_no_cycle_members():
    assert cycle_members(CHART) == set()
    assert cycle_members({}) == set()


def test_cycle_members_names_exactly_the_nodes_on_each_loop():
    assert cycle_members(CHART) == set()
    corrupt = {**CHART, 5: 6, 6: 7, 7: 5, 8: 5, 9: 9, 10: 8}
    # 8 and 10 lead into the loop but are not on it; 9 is a loop of one.
    assert cycle_members(corrupt) == {5, 6, 7, 9}


def test_cycle_members_finds_a_two_node_loop_whatever_the_start_order():
    assert cycle_members({1: None, 2: 1}) == set()
    assert cycle_members({1: 2, 2: 1}) == {1, 2}
    assert cycle_members({3: 1, 1: 2, 2: 1}) == {1, 2}


def test_cycle_members_ignores_parents_outside_the_edge_set():
    assert cycle_members({1: 42, 2: 1}) == set()
