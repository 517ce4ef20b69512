"""Who may not close a dispute: whoever raised it. A transition out of a state whose
role is ``dispute`` is never decided by the member who raised that dispute — not on a
grant, not on a task escalated or reassigned to them."""

from __future__ import annotations

from portal.domain.graph import Graph, StateRole


def raised_the_dispute(
    graph: Graph, from_state: str, member_id: int | None, dispute_raiser: int | None
) -> bool:
    """Whether ``member_id`` is refused a transition out of ``from_state`` because they
    raised the dispute it would close."""
    source = graph.state(from_state)
    return (
        source is not None
        and source.role == StateRole.DISPUTE
        and member_id is not None
        and member_id == dispute_raiser
    )
