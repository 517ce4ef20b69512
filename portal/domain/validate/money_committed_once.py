"""Rule 3, money is committed once: no accrual or payout state on a cycle that avoids
the reversing states; no path crosses two accruals (or two payouts) without a reversal
between them; and the declared posting order holds."""

from __future__ import annotations

from portal.domain.graph import PostingOrder, StateRole
from portal.domain.validate.digraph import (
    condensation,
    heaviest_paths,
    reachable,
    strongly_connected_components,
)
from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, violation


def check(index: GraphIndex) -> list[Violation]:
    g = index.graph
    out = []
    component = strongly_connected_components(index.exits, index.reversing)
    size: dict[int, int] = {}  # a plain dict: Counter costs more than the count here
    for c in component:
        size[c] = size.get(c, 0) + 1
    for i, s in enumerate(g.states):
        if component[i] < 0 or s.role not in StateRole.POSTING:
            continue
        # A self-loop is refused by rule 0, so a cycle means a component of two or more.
        if size[component[i]] > 1:
            out.append(
                violation(f"{s.role}_on_cycle", {"state": s.key}, f"states[{i}]", state=s.key)
            )
    if out:
        return out  # the path counts below assume the posting states are acyclic

    # Passing through a reversing state undoes what was posted, so counting starts
    # again at the initial state and right after every reversing state.
    starts = [index.initial]
    for i, targets in enumerate(index.exits):
        if index.reversing[i]:
            starts.extend(m for m in targets if not index.reversing[m])

    out.extend(_posted_twice(index, component, starts))
    out.extend(_posting_order(index, starts))
    return out


def _posted_twice(index: GraphIndex, component: list[int], starts: list[int]) -> list[Violation]:
    """The first start from which a path crosses two accrual (payout) states without a
    reversal, for each role: the most such states on any path, over the condensation
    (components form an acyclic graph, and a posting state is a component of its own)."""
    g = index.graph
    # A role with a single state (as most flows have) cannot be crossed twice: that state
    # is on no cycle.
    repeatable = [role for role in StateRole.POSTING if index.roles.count(role) > 1]
    if not repeatable:
        return []
    dag = condensation(index.exits, component)
    components = max(component, default=-1) + 1
    out = []
    for role in repeatable:
        weight = [0] * components
        for i, s in enumerate(g.states):
            if component[i] >= 0 and s.role == role:
                weight[component[i]] += 1
        heaviest = heaviest_paths(dag, weight)
        for start in starts:
            if component[start] >= 0 and heaviest[component[start]] > 1:
                key = g.states[start].key
                out.append(
                    violation(f"{role}_repeated", {"state": key}, f"states[{start}]", state=key)
                )
                break
    return out


def _posting_order(index: GraphIndex, starts: list[int]) -> list[Violation]:
    """Accrual first: no payout is reached without an accrual before it. Payout first:
    no payout is reached after an accrual, and every payout leads to an accrual before
    the document can end."""
    g = index.graph
    payouts = [i for i, s in enumerate(g.states) if s.role == StateRole.PAYOUT]
    if not payouts:
        return []
    accrual = [s.role == StateRole.ACCRUAL for s in g.states]
    reversing_or_accrual = [r or a for r, a in zip(index.reversing, accrual, strict=True)]
    out = []
    if g.posting_order == PostingOrder.ACCRUAL_FIRST:
        unposted = reachable(index.exits, starts, reversing_or_accrual)
        for p in payouts:
            key = g.states[p].key
            if unposted[p]:
                out.append(
                    violation("payout_before_accrual", {"state": key}, f"states[{p}]", state=key)
                )
        return out
    after_accrual = reachable(
        index.exits,
        [m for i, targets in enumerate(index.exits) if accrual[i] for m in targets],
        index.reversing,
    )
    for p in payouts:
        key = g.states[p].key
        ref, path = {"state": key}, f"states[{p}]"
        if after_accrual[p]:
            out.append(violation("accrual_before_payout", ref, path, state=key))
        after = reachable(index.exits, index.exits[p], reversing_or_accrual)
        for i, s in enumerate(g.states):
            if s.terminal and (after[i] or i == p):
                out.append(
                    violation("payout_without_accrual", ref, path, state=key, terminal=s.key)
                )
                break
    return out
