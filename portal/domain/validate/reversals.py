"""Rule 5: a rejection or cancellation leaving a state at or past an accrual reverses
it, and a transition that does not undo anything says it does not."""

from __future__ import annotations

from portal.domain.graph import StateRole, Transition
from portal.domain.validate.digraph import reachable
from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, describe, violation


def check(index: GraphIndex) -> list[Violation]:
    g = index.graph
    accruals = [i for i, s in enumerate(g.states) if s.role == StateRole.ACCRUAL]
    past_accrual = reachable(index.exits, accruals, index.reversing)
    # Only a transition into a reversing state, or one that says it reverses, can break
    # the rule.
    into_reversing = index.entering_any(StateRole.REVERSING)
    flagged = [i for i, t in enumerate(g.transitions) if t.reverses]
    suspects = sorted({*into_reversing, *flagged})
    out = []
    for i in suspects:
        t = g.transitions[i]
        source, target = index.ends[i]
        if index.reversing[target]:
            if past_accrual[source] and not t.reverses:
                out.append(_at(i, "reversal_missing", t))
        elif t.reverses:
            out.append(_at(i, "reverses_unexpected", t))
    return out


def _at(i: int, code: str, t: Transition) -> Violation:
    return violation(code, {"transition": i}, f"transitions[{i}].reverses", transition=describe(t))
