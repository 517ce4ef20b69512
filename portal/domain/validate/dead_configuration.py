"""Warnings for configuration that can never take effect, reported as rule 8 with the
checks beyond the numbered rules: a deadline on a state where nobody holds a task, a
grant on a state no transition is gated on, the same grant twice."""

from __future__ import annotations

from decimal import Decimal

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
    gate_states = set(index.distinct_gate_states)
    out = []
    # A grant is compared only with the grants before it of the same state, grantee kind
    # and floor: equal grants share all three, and comparing two grants compares every
    # field of both.
    seen: dict[tuple[str | None, str, Decimal | None], list[Grant]] = {}
    for i, gr in enumerate(index.graph.grants):
        if gr.state is not None and gr.state not in gate_states:
            out.append(violation("grant_unused", {"grant": i}, f"grants[{i}]", state=gr.state))
        alike = seen.setdefault((gr.state, gr.grantee.kind, gr.min_amount), [])
        if gr in alike:
            out.append(violation("grant_duplicate", {"grant": i}, f"grants[{i}]"))
        alike.append(gr)
    return out
