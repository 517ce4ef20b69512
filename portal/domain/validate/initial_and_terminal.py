"""Rule 1: exactly one draft (initial) state, and at least one terminal state.

The rules after it start from the initial state, so they run only when this one holds.
"""

from __future__ import annotations

from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, violation


def check(index: GraphIndex) -> list[Violation]:
    out = []
    if len(index.drafts) != 1:
        out.append(violation("initial_state_count", {}, "states", count=len(index.drafts)))
    if not any(s.terminal for s in index.graph.states):
        out.append(violation("no_terminal_state", {}, "states"))
    return out
