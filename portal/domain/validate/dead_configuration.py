"""Warnings for configuration that can never take effect, reported as rule 8 with the
checks beyond the numbered rules: a deadline on a state where nobody holds a task, a
grant on a state no transition is gated on, the same grant twice."""

from __future__ import annotations

from portal.domain.graph import Grant
from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, violation


def deadlines_without_tasks(index: GraphIndex) -> list[tuple[int, Violation]]:
    """Each violation with the index of its state. Tasks are opened only for exits
    someone other than the requester takes, and deadlines and escalation act on tasks."""
    out = []
    for i, s in enumerate(index.graph.states):
        timed = s.deadline is not None or s.escalate_after is not None
        if timed and s.key not in index.gated_exits:
            out.append(
                (
                    i,
                    violation(
                        "deadline_without_tasks", {"state": s.key}, f"states[{i}]", state=s.key
                    ),
                )
            )
    return out


def grants_unused_or_repeated(index: GraphIndex) -> list[Violation]:
    gate_states = set(index.gate_states) - {None}
    out = []
    seen: dict[str | None, list[Grant]] = {}
    for i, gr in enumerate(index.graph.grants):
        ref, path = {"grant": i}, f"grants[{i}]"
        if gr.state is not None and gr.state not in gate_states:
            out.append(violation("grant_unused", ref, path, state=gr.state))
        # Compared within one state only: cheap, and duplicates can only be there.
        same_state = seen.setdefault(gr.state, [])
        if gr in same_state:
            out.append(violation("grant_duplicate", ref, path))
        same_state.append(gr)
    return out
