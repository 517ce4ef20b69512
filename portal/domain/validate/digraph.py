"""Directed-graph algorithms over adjacency lists: node ``i``'s successors are
``adjacency[i]``, nodes are ``0 … n-1``.

Blocked or skipped nodes are given as one flag per node rather than as a predicate:
the validator runs these on every editor change, and an index is cheaper than a call.
Tarjan's algorithm recurses once per node on a path, which a flow graph (at most
``MAX_STATES`` states) keeps far below Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TypeAlias

Adjacency: TypeAlias = Sequence[Sequence[int]]


def reachable(
    adjacency: Adjacency, starts: Iterable[int], blocked: Sequence[bool] | None = None
) -> list[bool]:
    """Which nodes can be reached from ``starts`` (themselves included) without entering
    a blocked node; a blocked start reaches nothing."""
    n = len(adjacency)
    barred = blocked if blocked is not None else [False] * n
    seen = [False] * n
    stack = []
    for s in starts:
        if not barred[s] and not seen[s]:
            seen[s] = True
            stack.append(s)
    while stack:
        for m in adjacency[stack.pop()]:
            if not seen[m] and not barred[m]:
                seen[m] = True
                stack.append(m)
    return seen


def strongly_connected_components(adjacency: Adjacency, skipped: Sequence[bool]) -> list[int]:
    """The strongly connected components (Tarjan) of the graph without the skipped
    nodes: each node's component number, -1 for a skipped node.

    Components are numbered in the order they complete, so a component's successors
    always have smaller numbers (reverse topological order of the condensation).
    """
    n = len(adjacency)
    component = [-1] * n
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    counter = 0
    completed = 0

    def visit(v: int) -> None:
        nonlocal counter, completed
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack[v] = True
        for w in adjacency[v]:
            if skipped[w]:
                continue
            # Compared, not min(): a call per edge costs more than the comparison.
            if index[w] < 0:
                visit(w)
                if low[w] < low[v]:
                    low[v] = low[w]
            elif on_stack[w] and index[w] < low[v]:
                low[v] = index[w]
        if low[v] == index[v]:
            while True:
                w = stack.pop()
                on_stack[w] = False
                component[w] = completed
                if w == v:
                    break
            completed += 1

    for v in range(n):
        if not skipped[v] and index[v] < 0:
            visit(v)
    return component


def condensation(adjacency: Adjacency, component: Sequence[int]) -> dict[int, set[int]]:
    """The acyclic graph of the components: component -> the other components its nodes
    lead to. Skipped nodes (component -1) and their edges are left out."""
    dag: dict[int, set[int]] = {}
    for v, targets in enumerate(adjacency):
        c = component[v]
        if c < 0:
            continue
        for w in targets:
            d = component[w]
            if d >= 0 and d != c:
                dag.setdefault(c, set()).add(d)
    return dag


def heaviest_paths(dag: Mapping[int, Collection[int]], weight: Sequence[int]) -> list[int]:
    """For an acyclic graph whose edges all lead to smaller numbers (as
    ``strongly_connected_components`` numbers the components), the most weight on any
    path from each node, the node's own weight included.

    One pass in numbering order: every successor of a node is done before the node, so
    no recursion and no memo, each edge looked at once.
    """
    heaviest = [0] * len(weight)
    for c, own in enumerate(weight):
        most = 0
        for d in dag.get(c, ()):
            if heaviest[d] > most:
                most = heaviest[d]
        heaviest[c] = own + most
    return heaviest
