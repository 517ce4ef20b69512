"""Rule 6: an advance gate needs exactly one target-gated sibling, whose grants then
authorise it."""

from __future__ import annotations

from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, violation


def check(index: GraphIndex) -> list[tuple[int, Violation]]:
    """Each violation with the index of the transition that raised it."""
    g = index.graph
    out = []
    for i in index.advance_gated:
        t = g.transitions[i]
        count = len(index.target_gated_exits.get(t.from_state, ()))
        if count != 1:
            out.append(
                (
                    i,
                    violation(
                        "advance_sibling_count",
                        {"transition": i},
                        f"transitions[{i}].gate",
                        state=t.from_state,
                        count=count,
                    ),
                )
            )
    return out
