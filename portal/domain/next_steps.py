"""When a document waits for its own requester: the rule behind "your next steps" in
the inbox and the "Waiting for you" banner on the document page.

A document waits for its requester when it sits in a state, not terminal, with an exit
only the requester may take that moves it on — revise after a rejection, confirm
receipt of a payment. Withdrawing, or raising a dispute, is something a requester
*may* do, never something they are waited for; a terminal state waits for nobody. A
draft waits for its requester only once it has been submitted before (it came back
after a rejection): a fresh draft is their own work in progress, not a request.
"""

from __future__ import annotations

from portal.domain.graph import Gate, Graph, StateRole, Transition


def requester_next_steps(graph: Graph, state: str, *, submitted_before: bool) -> list[Transition]:
    """The exits the requester is waited for on, in display order (empty: nothing)."""
    current = graph.state(state)
    if current is None or current.terminal:
        return []
    if current.role == StateRole.DRAFT and not submitted_before:
        return []
    return [
        t
        for t in graph.transitions_from(state)
        if t.gate == Gate.REQUESTER and graph.moves_forward(t.to_state)
    ]


def waits_for_requester(graph: Graph, state: str, *, submitted_before: bool) -> bool:
    return bool(requester_next_steps(graph, state, submitted_before=submitted_before))


def states_waiting_for_requester(graph: Graph) -> tuple[frozenset[str], frozenset[str]]:
    """The states of ``graph`` that wait for the requester: (always, only once the
    document was submitted before — its draft states)."""
    always: set[str] = set()
    resubmitted: set[str] = set()
    for s in graph.states:
        if requester_next_steps(graph, s.key, submitted_before=True):
            (resubmitted if s.role == StateRole.DRAFT else always).add(s.key)
    return frozenset(always), frozenset(resubmitted)
