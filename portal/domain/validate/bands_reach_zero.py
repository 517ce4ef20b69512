"""Rule 7: on each gated state the bands reach down to zero, so every amount has a band
to decide it."""

from __future__ import annotations

from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, violation


def check(index: GraphIndex) -> list[tuple[int, Violation]]:
    """Each violation with the index of the first transition gated on the state.

    A gate state without any grant is rule 4's, not this rule's."""
    out = []
    for state in index.distinct_gate_states:
        grants = index.grants_by_state[state]
        if grants and not any(g.floor == 0 for g in grants):
            i = index.gate_states.index(state)
            where = f"states[{index.position[state]}]"
            out.append(
                (i, violation("bands_do_not_reach_zero", {"state": state}, where, state=state))
            )
    return out
