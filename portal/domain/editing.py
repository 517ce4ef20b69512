"""Who may change a document's own values, and when: its requester, while it is in its
flow's draft state. The amount, like everything else, is frozen once it leaves."""

from __future__ import annotations

from portal.domain.authority import TransitionRefused
from portal.domain.errors import DomainError
from portal.domain.graph import Graph, StateRole


def check_requester(*, requester: int, member: int | None) -> None:
    """Refuses ``not_requester`` for anyone but the document's requester."""
    if member != requester:
        raise TransitionRefused("not_requester")


def check_editable(graph: Graph, state: str, *, requester: int, member: int | None) -> None:
    """Refuses ``not_requester`` for anyone but the requester, then ``document_frozen``
    once the document has left its draft state."""
    check_requester(requester=requester, member=member)
    if not is_draft(graph, state):
        raise DomainError("document_frozen", state=state)


def is_draft(graph: Graph, state: str) -> bool:
    found = graph.state(state)
    return found is not None and found.role == StateRole.DRAFT


def may_edit(graph: Graph, state: str, *, requester: int, member: int | None) -> bool:
    """Whether ``check_editable`` would let this member edit now."""
    return member == requester and is_draft(graph, state)
