"""Rule 4: every grant-gated transition has at least one grant on its gate state."""

from __future__ import annotations

from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, describe, violation


def check(index: GraphIndex) -> list[tuple[int, Violation]]:
    """Each violation with the index of the transition that raised it."""
    ungranted = {s for s in index.distinct_gate_states if not index.grants_by_state[s]}
    if not ungranted:
        return []  # the usual case, told without a look at each transition
    out = []
    for i, state in enumerate(index.gate_states):
        if state in ungranted:
            out.append(
                (
                    i,
                    violation(
                        "gate_without_grant",
                        {"transition": i},
                        f"transitions[{i}].gate",
                        transition=describe(index.graph.transitions[i]),
                        state=state,
                    ),
                )
            )
    return out
