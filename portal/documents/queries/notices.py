"""What a member's notifications are about, read when they are shown: the documents
(title, amount, requester, their pinned flow for labels), the decisions that caused
them and the ones that came after, and which "waiting for your decision" notices still
stand (an open task, and nobody has moved the document on since).

The notifications feature stores only keys; the words are made from these at read time,
so they are in the reader's language of the day and never go stale.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, func, select
from sqlalchemy.orm import Session

from portal.accounts.queries import member_name_of
from portal.core.db import storable_ids, table_of
from portal.documents.models import OPEN_STATUS, Decision, Document, Task
from portal.domain.graph import Graph
from portal.flows.queries import version_in

_DOC = table_of(Document)
_TASK = table_of(Task)
_DECISION = table_of(Decision)


@dataclass(frozen=True)
class NoticeDocument:
    id: int
    reference: str
    title: str
    amount: Decimal
    currency: str
    requester_id: int
    requester_name: str
    state: str
    graph: Graph


@dataclass(frozen=True)
class NoticeDecision:
    seq: int
    actor_id: int | None
    actor_name: str | None
    transition: str
    from_state: str
    to_state: str
    comment: str


@dataclass(frozen=True)
class NoticeFacts:
    documents: dict[int, NoticeDocument] = field(default_factory=dict)
    # Every decision of those documents, by (document id, seq), in order per document.
    decisions: dict[tuple[int, int], NoticeDecision] = field(default_factory=dict)
    # (document id, state) where the reader holds an open task.
    open_tasks: set[tuple[int, str]] = field(default_factory=set)

    def decision(self, document_id: int, seq: object) -> NoticeDecision | None:
        return self.decisions.get((document_id, seq)) if isinstance(seq, int) else None

    def left_after(self, document_id: int, seq: object, state: str) -> NoticeDecision | None:
        """The first decision after ``seq`` that took the document out of ``state``."""
        after = seq if isinstance(seq, int) else 0
        found = [
            d
            for (doc, n), d in self.decisions.items()
            if doc == document_id and n > after and d.from_state == state and d.to_state != state
        ]
        return min(found, key=lambda d: d.seq) if found else None

    def still_waiting(self, document_id: int, seq: object, state: str) -> bool:
        """Whether a "waiting for your decision" notice still stands: the reader's task
        is open and nobody has taken the document out of that state since."""
        return (document_id, state) in self.open_tasks and self.left_after(
            document_id, seq, state
        ) is None


def notice_facts_in(
    session: Session, org_id: int, member_id: int, document_ids: Iterable[int | None]
) -> NoticeFacts:
    """Everything the reader's notifications about ``document_ids`` need: three
    statements, however many notifications."""
    ids = storable_ids(document_ids)
    if not ids:
        return NoticeFacts()
    conn = session.connection()
    rows = conn.execute(
        select(
            _DOC.c.id,
            _DOC.c.reference,
            _DOC.c.title,
            _DOC.c.amount,
            _DOC.c.currency,
            _DOC.c.requester_id,
            member_name_of(_DOC.c.requester_id, _DOC.c.org_id).label("requester_name"),
            _DOC.c.state,
            _DOC.c.kind,
            _DOC.c.version,
        ).where(_DOC.c.org_id == org_id, _DOC.c.id.in_(ids))
    ).all()
    graphs: dict[tuple[str, int], Graph] = {}
    documents: dict[int, NoticeDocument] = {}
    for r in rows:
        pinned = (r.kind, r.version)
        if pinned not in graphs:
            graphs[pinned] = version_in(session, org_id, *pinned).graph
        documents[r.id] = NoticeDocument(
            r.id,
            r.reference,
            r.title,
            r.amount,
            r.currency,
            r.requester_id,
            r.requester_name or "",
            r.state,
            graphs[pinned],
        )
    decisions = {
        (d.document_id, d.seq): NoticeDecision(
            d.seq, d.actor_id, d.actor_name, d.transition, d.from_state, d.to_state, d.comment
        )
        for d in conn.execute(
            select(
                _DECISION.c.document_id,
                _DECISION.c.seq,
                _DECISION.c.actor_id,
                member_name_of(_DECISION.c.actor_id, _DECISION.c.org_id).label("actor_name"),
                _DECISION.c.transition,
                _DECISION.c.from_state,
                _DECISION.c.to_state,
                _DECISION.c.comment,
            )
            .where(_DECISION.c.org_id == org_id, _DECISION.c.document_id.in_(ids))
            .order_by(_DECISION.c.document_id, _DECISION.c.seq)
        )
    }
    open_tasks = {
        (t.document_id, t.state)
        for t in conn.execute(
            select(_TASK.c.document_id, _TASK.c.state).where(
                _TASK.c.org_id == org_id,
                _TASK.c.assignee_id == member_id,
                _TASK.c.status == OPEN_STATUS,
                _TASK.c.document_id.in_(ids),
            )
        )
    }
    return NoticeFacts(documents, decisions, open_tasks)


def task_still_open(
    org_id: Any,
    document_id: Any,
    member_id: Any,
    state: ColumnElement[Any],
    decision: ColumnElement[Any],
) -> ColumnElement[bool]:
    """``NoticeFacts.still_waiting`` as a SQL condition over a notification's columns
    (its document, member, and the state and decision number in its parameters), for a
    count that must not read the rows: the member's task there is open, and no decision
    after ``decision`` has taken the document out of ``state``."""
    open_task = exists().where(
        _TASK.c.org_id == org_id,
        _TASK.c.document_id == document_id,
        _TASK.c.assignee_id == member_id,
        _TASK.c.state == state,
        _TASK.c.status == OPEN_STATUS,
    )
    left = exists().where(
        _DECISION.c.org_id == org_id,
        _DECISION.c.document_id == document_id,
        _DECISION.c.seq > func.coalesce(decision, 0),
        _DECISION.c.from_state == state,
        _DECISION.c.to_state != _DECISION.c.from_state,
    )
    return and_(open_task, ~left)
