"""Rule 5: a rejection or cancellation leaving a state at or past an accrual reverses
it, and a transition that does not undo anything says it does not."""

from __future__ import annotations

from portal.domain.graph import StateRole
from portal.domain.validate.digraph import reachable
from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, describe, violation


def check(index: GraphIndex) -> list[Violation]:
    g = index.graph
    accruals = [i for i, s in enumerate(g.states) if s.role == StateRole.ACCRUAL]
    past_accrual = reachable(index.exits, accruals, index.reversing)
    out = []
    for i, t in enumerate(g.transitions):
        ref, path = {"transition": i}, f"transitions[{i}]"
        source, target = index.ends[i]
        if index.reversing[target]:
            if past_accrual[source] and not t.reverses:
                out.append(
                    violation("reversal_missing", ref, f"{path}.reverses", transition=describe(t))
                )
        elif t.reverses:
            out.append(
                violation("reverses_unexpected", ref, f"{path}.reverses", transition=describe(t))
            )
    return out
