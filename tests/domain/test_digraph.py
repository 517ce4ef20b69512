"""The validator's graph algorithms, on small graphs drawn by hand.

The story: reachability stops at blocked nodes, strongly connected components find the
cycles (and only those) among the nodes not skipped, and the heaviest path over the
components counts the weight a walk can collect, however the paths branch and join.
"""

from __future__ import annotations

from portal.domain.validate.digraph import (
    condensation,
    heaviest_paths,
    reachable,
    strongly_connected_components,
)

# 0 -> 1 -> 2 -> 3, 2 -> 1 (a cycle of 1 and 2), 4 alone, 5 -> 4
CHAIN_WITH_LOOP = [[1], [2], [3, 1], [], [], [4]]


def test_reachable_from_a_start_is_everything_its_edges_lead_to():
    assert reachable(CHAIN_WITH_LOOP, [0]) == [True, True, True, True, False, False]
    assert reachable(CHAIN_WITH_LOOP, [5]) == [False, False, False, False, True, True]
    assert reachable(CHAIN_WITH_LOOP, []) == [False] * 6
    assert reachable(CHAIN_WITH_LOOP, [3, 3]) == [False, False, False, True, False, False]


def test_a_blocked_node_is_never_entered_nor_left():
    blocked = [False, False, True, False, False, False]
    assert reachable(CHAIN_WITH_LOOP, [0], blocked) == [True, True, False, False, False, False]
    # A blocked start reaches nothing, not even itself.
    assert reachable(CHAIN_WITH_LOOP, [2], blocked) == [False] * 6
    assert reachable(CHAIN_WITH_LOOP, [2, 3], blocked) == [False, False, False, True, False, False]


def test_nodes_on_one_cycle_share_a_component_and_the_others_are_alone():
    component = strongly_connected_components(CHAIN_WITH_LOOP, [False] * 6)
    assert component[1] == component[2]
    others = [component[i] for i in (0, 3, 4, 5)]
    assert len({*others, component[1]}) == 5
    assert sorted({*component}) == [0, 1, 2, 3, 4]


def test_a_component_is_numbered_after_every_component_it_leads_to():
    component = strongly_connected_components(CHAIN_WITH_LOOP, [False] * 6)
    for v, targets in enumerate(CHAIN_WITH_LOOP):
        for w in targets:
            assert component[w] <= component[v]


def test_skipping_a_node_breaks_the_cycles_through_it():
    skipped = [False, False, True, False, False, False]
    component = strongly_connected_components(CHAIN_WITH_LOOP, skipped)
    assert component[2] == -1
    assert component[1] != component[0]
    assert len({c for c in component if c >= 0}) == 5  # every other node on its own


def test_a_two_way_pair_and_a_self_loop_and_a_larger_ring():
    # 0 <-> 1, 2 -> 2, ring 3 -> 4 -> 5 -> 3, 1 -> 3
    adjacency = [[1], [0, 3], [2], [4], [5], [3]]
    component = strongly_connected_components(adjacency, [False] * 6)
    assert component[0] == component[1]
    assert component[3] == component[4] == component[5]
    assert len({component[0], component[2], component[3]}) == 3


def test_the_condensation_links_components_and_leaves_out_skipped_nodes():
    component = strongly_connected_components(CHAIN_WITH_LOOP, [False] * 6)
    dag = condensation(CHAIN_WITH_LOOP, component)
    loop, first, last, alone, feeder = (component[i] for i in (1, 0, 3, 4, 5))
    assert dag == {first: {loop}, loop: {last}, feeder: {alone}}

    skipped = [False, False, False, False, True, False]
    component = strongly_connected_components(CHAIN_WITH_LOOP, skipped)
    assert component[5] not in condensation(CHAIN_WITH_LOOP, component)  # its edge led to 4


def test_the_heaviest_path_collects_the_most_weight_on_any_branch():
    #     3 (w1) -> 1 (w1)
    # 4 <                 > 0 (w1)
    #     2 (w0) ------->
    # Numbered as the components are: every edge leads to a smaller number.
    dag = {4: {3, 2}, 3: {1}, 2: {0}, 1: {0}}
    heaviest = heaviest_paths(dag, [1, 1, 0, 1, 0])
    assert heaviest[4] == 3  # 4 -> 3 -> 1 -> 0
    assert heaviest[2] == 1
    assert heaviest[0] == 1


def test_a_nodes_own_weight_counts_and_a_weightless_graph_weighs_nothing():
    assert heaviest_paths({1: {0}}, [0, 2]) == [0, 2]
    assert heaviest_paths({2: {1}, 1: {0}}, [0, 0, 0]) == [0, 0, 0]
    assert heaviest_paths({}, []) == []


def test_a_diamond_is_counted_once_per_path_not_once_per_way_in():
    # 3 -> 2 -> 0, 3 -> 1 -> 0, every node weighing 1: a path visits three of them.
    assert heaviest_paths({3: {2, 1}, 2: {0}, 1: {0}}, [1, 1, 1, 1])[3] == 3


def test_the_heaviest_paths_over_the_components_of_a_graph_with_a_loop():
    # The loop (1, 2) is one component weighing two; 0 leads into it and on to 3.
    component = strongly_connected_components(CHAIN_WITH_LOOP, [False] * 6)
    dag = condensation(CHAIN_WITH_LOOP, component)
    weight = [0] * (max(component) + 1)
    for v in (1, 2, 3):
        weight[component[v]] += 1
    heaviest = heaviest_paths(dag, weight)
    assert [heaviest[component[v]] for v in range(6)] == [3, 3, 3, 1, 0, 0]
