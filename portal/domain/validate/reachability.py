"""Rule 2: every state is reachable from the initial state, every non-terminal state
has an exit, and a terminal state may only be left into a dispute."""

from __future__ import annotations

from portal.domain.graph import StateRole
from portal.domain.validate.digraph import reachable
from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, violation


def check(index: GraphIndex) -> list[Violation]:
    g = index.graph
    out = []
    seen = reachable(index.exits, [index.initial])
    for i, s in enumerate(g.states):
        ref, path = {"state": s.key}, f"states[{i}]"
        if not seen[i]:
            out.append(violation("state_unreachable", ref, path, state=s.key))
        if not s.terminal and not index.exits[i]:
            out.append(violation("state_no_exit", ref, path, state=s.key))
    terminal_exits = [
        i for s, exits in zip(g.states, index.leaving, strict=True) if s.terminal for i in exits
    ]
    terminal_exits.sort()  # in drawing order, whichever terminal state they leave
    for i in terminal_exits:
        source_index, target_index = index.ends[i]
        if index.roles[target_index] != StateRole.DISPUTE:
            out.append(
                violation(
                    "terminal_exit_not_dispute",
                    {"transition": i},
                    f"transitions[{i}]",
                    state=g.states[source_index].key,
                )
            )
    return out
