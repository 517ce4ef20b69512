"""Who decided which approval step of a document: what exclusive approval needs to
know (``domain.exclusive``), read from the document's history.

Read only when the document's flow turns exclusive approval on, in the caller's unit of
work (under the transition's lock, so a decision racing this one is already in the
history or waits). One statement on the history's (org, document, seq) index.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from portal.core.db import table_of
from portal.documents.access import DocumentRecord
from portal.documents.models import Decision
from portal.domain.exclusive import PriorDecision, steps_decided
from portal.domain.graph import Gate, Graph

_DECISION = table_of(Decision)

_DECIDERS = select(
    _DECISION.c.transition,
    _DECISION.c.from_state,
    _DECISION.c.to_state,
    _DECISION.c.gate,
    _DECISION.c.actor_id,
    _DECISION.c.authority_member_id,
).where(
    _DECISION.c.org_id == bindparam("org"),
    _DECISION.c.document_id == bindparam("document"),
    # The requester's own actions decide no step.
    _DECISION.c.gate != Gate.REQUESTER,
)


def steps_decided_in(
    session: Session, doc: DocumentRecord, graph: Graph
) -> Mapping[int, frozenset[str]]:
    """Each member's decided approval steps on ``doc`` (``graph`` is its pinned flow);
    nothing, and no query, when the flow lacks exclusive approval."""
    if not graph.exclusive_approval:
        return {}
    rows = session.connection().execute(_DECIDERS, {"org": doc.org_id, "document": doc.id})
    return steps_decided(graph, (PriorDecision(*row) for row in rows))


def steps_decided_of(graph: Graph, decisions: Iterable[Any]) -> Mapping[int, frozenset[str]]:
    """``steps_decided_in`` from the document's decisions already read (rows of the
    decision table, or ``Decision`` objects): no statement."""
    if not graph.exclusive_approval:
        return {}
    return steps_decided(
        graph,
        (
            PriorDecision(
                d.transition, d.from_state, d.to_state, d.gate, d.actor_id, d.authority_member_id
            )
            for d in decisions
            if d.gate != Gate.REQUESTER
        ),
    )
