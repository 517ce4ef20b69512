"""A requester's own next steps: their documents that wait for them (``domain.next_steps``
— revise after a rejection, confirm receipt), each with the decision that put it there.

The states that wait for a requester depend on each document's pinned flow, so the
count first groups the requester's documents by (kind, version, state) on the index
``ix_document_requester`` and asks each graph; the list then reads only the documents
of the states that wait. Discarded drafts are nobody's next step.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from sqlalchemy import ColumnElement, and_, func, literal_column, or_, select
from sqlalchemy.orm import Session

from portal.accounts.queries import member_name_of
from portal.core.db import table_of
from portal.documents.models import Decision, Document
from portal.domain.deadlines import DEADLINE_GATE
from portal.domain.graph import Graph, Transition
from portal.domain.handover import HANDOVER_GATE
from portal.domain.next_steps import requester_next_steps
from portal.flows.queries import version_in

_DOC = table_of(Document)
_DECISION = table_of(Decision)

# More than this many waiting documents: the inbox shows the oldest this many.
NEXT_STEPS_SHOWN = 100


@dataclass(frozen=True)
class NextStep:
    reference: str
    title: str
    amount: Decimal
    currency: str
    state: str
    state_entered_at: datetime
    graph: Graph
    # What the requester is waited for (the exits they may take), in display order.
    actions: tuple[Transition, ...]
    # The last decision someone else took on it (what put it here): its action and the
    # state it led to, who took it (None: the system) and their comment.
    decided_by: str | None
    decided_transition: str | None
    decided_from: str | None
    decided_to: str | None
    comment: str


def _waiting_groups(
    session: Session, org_id: int, member_id: int
) -> list[tuple[str, int, str, bool]]:
    """(kind, version, state, submitted before) of the member's own documents that wait
    for them."""
    # A literal, not a bound parameter: the grouped expression must read the same in
    # the select list and the GROUP BY.
    submitted = (_DOC.c.chain_seq > literal_column("0")).label("submitted")
    query = (
        select(_DOC.c.kind, _DOC.c.version, _DOC.c.state, submitted)
        .where(
            _DOC.c.org_id == org_id,
            _DOC.c.requester_id == member_id,
            _DOC.c.discarded_at.is_(None),
        )
        .group_by(_DOC.c.kind, _DOC.c.version, _DOC.c.state, submitted)
    )
    rows = session.connection().execute(query).all()
    waiting = []
    for kind, version, state, submitted in rows:
        graph = version_in(session, org_id, kind, version).graph
        if requester_next_steps(graph, state, submitted_before=bool(submitted)):
            waiting.append((kind, version, state, bool(submitted)))
    return waiting


def _matching(
    org_id: int, member_id: int, groups: list[tuple[str, int, str, bool]]
) -> ColumnElement[bool]:
    return and_(
        _DOC.c.org_id == org_id,
        _DOC.c.requester_id == member_id,
        _DOC.c.discarded_at.is_(None),
        or_(
            *(
                and_(
                    _DOC.c.kind == kind,
                    _DOC.c.version == version,
                    _DOC.c.state == state,
                    (_DOC.c.chain_seq > 0) if submitted else (_DOC.c.chain_seq == 0),
                )
                for kind, version, state, submitted in groups
            )
        ),
    )


def count_next_steps_in(session: Session, org_id: int, member_id: int) -> int:
    """How many of the member's own documents wait for them (the inbox badge adds it)."""
    groups = _waiting_groups(session, org_id, member_id)
    if not groups:
        return 0
    count = session.connection().execute(
        select(func.count()).select_from(_DOC).where(_matching(org_id, member_id, groups))
    )
    return int(count.scalar_one())


def next_steps_in(session: Session, org_id: int, member_id: int) -> list[NextStep]:
    """The member's own documents that wait for them, the longest waiting first."""
    groups = _waiting_groups(session, org_id, member_id)
    if not groups:
        return []
    conn = session.connection()
    docs = conn.execute(
        select(
            _DOC.c.id,
            _DOC.c.reference,
            _DOC.c.title,
            _DOC.c.amount,
            _DOC.c.currency,
            _DOC.c.state,
            _DOC.c.state_entered_at,
            _DOC.c.kind,
            _DOC.c.version,
            _DOC.c.chain_seq,
        )
        .where(_matching(org_id, member_id, groups))
        .order_by(_DOC.c.state_entered_at, _DOC.c.id)
        .limit(NEXT_STEPS_SHOWN)
    ).all()
    # What put each one there: the latest decision taken by someone other than the
    # requester (their own "revise" does not count).
    last: dict[int, tuple[str | None, str | None, str | None, str | None, str]] = {}
    if docs:
        for d in conn.execute(
            select(
                _DECISION.c.document_id,
                member_name_of(_DECISION.c.actor_id, _DECISION.c.org_id).label("name"),
                _DECISION.c.transition,
                _DECISION.c.from_state,
                _DECISION.c.to_state,
                _DECISION.c.comment,
            )
            .where(
                _DECISION.c.org_id == org_id,
                _DECISION.c.document_id.in_([d.id for d in docs]),
                or_(_DECISION.c.actor_id.is_(None), _DECISION.c.actor_id != member_id),
                # The sweep's escalations and reassignments, and handovers, put
                # nothing anywhere.
                _DECISION.c.gate.notin_((DEADLINE_GATE, HANDOVER_GATE)),
            )
            .order_by(_DECISION.c.document_id, _DECISION.c.seq.desc())
        ):
            last.setdefault(
                d.document_id, (d.name, d.transition, d.from_state, d.to_state, d.comment)
            )
    steps = []
    for d in docs:
        graph = version_in(session, org_id, d.kind, d.version).graph
        name, transition, from_state, to_state, comment = last.get(
            d.id, (None, None, None, None, "")
        )
        steps.append(
            NextStep(
                d.reference,
                d.title,
                d.amount,
                d.currency,
                d.state,
                d.state_entered_at,
                graph,
                tuple(requester_next_steps(graph, d.state, submitted_before=d.chain_seq > 0)),
                name,
                transition,
                from_state,
                to_state,
                comment or "",
            )
        )
    return steps
