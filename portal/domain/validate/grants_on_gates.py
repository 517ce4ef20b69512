"""Rule 4: every grant-gated transition has at least one grant on its gate state."""

from __future__ import annotations

from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, describe, violation


def check(index: GraphIndex) -> list[tuple[int, Violation]]:
    """Each violation with the index of the transition that raised it."""
    out = []
    for i, t in enumerate(index.graph.transitions):
        state = index.gate_states[i]
        if state is not None and not index.grants_by_state[state]:
            out.append(
                (
                    i,
                    violation(
                        "gate_without_grant",
                        {"transition": i},
                        f"transitions[{i}].gate",
                        transition=describe(t),
                        state=state,
                    ),
                )
            )
    return out
