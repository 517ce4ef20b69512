"""The lists a member sees: their own documents, the kinds they may start, and what
the new-document form needs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.accounts.queries import base_currency_in
from portal.core.db import table_of
from portal.core.uow import unit_of_work_for
from portal.documents.models import Document
from portal.domain.actor import Actor
from portal.domain.graph import Graph
from portal.domain.labels import Labels
from portal.flows.queries import current_version_in, published_kinds_in, version_in

MAX_PER_PAGE = 100
# A kind or state key is at most this long; a longer filter matches nothing.
MAX_KEY = 63

_DOC = table_of(Document)


@dataclass(frozen=True)
class StartableKind:
    """A kind a member may start a document of: it has a published version."""

    kind: str
    labels: Labels
    # The current version, the one a new document starts on.
    version: int


def _startable_in(session: Session, org_id: int) -> list[tuple[StartableKind, Graph]]:
    out = []
    for kind, number in published_kinds_in(session):
        graph = version_in(session, org_id, kind, number).graph
        out.append((StartableKind(kind, graph.labels, number), graph))
    return out


@dataclass(frozen=True)
class NewDocument:
    """What the new-document form needs: the kind's current graph and the currency
    every amount is in."""

    kind: str
    version: int
    graph: Graph
    currency: str


def new_document_setup(actor: Actor, kind: str) -> NewDocument:
    """The form for a new ``kind`` document; ``NotFound`` when nothing is published."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        _, version = current_version_in(s, actor.org_id, kind[:MAX_KEY])
        return NewDocument(
            version.kind, version.version, version.graph, base_currency_in(s, actor.org_id)
        )


@dataclass(frozen=True)
class DocumentRow:
    reference: str
    kind: str
    title: str
    amount: Decimal
    currency: str
    state: str
    state_entered_at: datetime
    version: int


@dataclass(frozen=True)
class DocumentList:
    """One page of a member's documents."""

    rows: list[DocumentRow]
    total: int
    page: int
    pages: int


def list_my_documents(
    actor: Actor,
    *,
    state: str | None = None,
    kind: str | None = None,
    page: int = 1,
    per_page: int = 25,
) -> DocumentList:
    """The actor's own documents (they are the requester), newest first."""
    with unit_of_work_for(actor) as uow:
        return _my_documents_in(uow.session, actor, state, kind, page, per_page)


def _my_documents_in(
    session: Session,
    actor: Actor,
    state: str | None,
    kind: str | None,
    page: int,
    per_page: int,
) -> DocumentList:
    per_page = min(max(per_page, 1), MAX_PER_PAGE)
    where = [
        _DOC.c.org_id == actor.org_id,
        _DOC.c.requester_id == actor.member_id,
        # A discarded draft is listed nowhere, nor counted.
        _DOC.c.discarded_at.is_(None),
    ]
    if kind:
        where.append(_DOC.c.kind == kind[:MAX_KEY])
    if state:
        where.append(_DOC.c.state == state[:MAX_KEY])
    conn = session.connection()
    total = conn.scalar(select(func.count()).select_from(_DOC).where(*where)) or 0
    pages = max(1, -(-total // per_page))
    page = min(max(page, 1), pages)
    rows = conn.execute(
        select(
            _DOC.c.reference,
            _DOC.c.kind,
            _DOC.c.title,
            _DOC.c.amount,
            _DOC.c.currency,
            _DOC.c.state,
            _DOC.c.state_entered_at,
            _DOC.c.version,
        )
        .where(*where)
        .order_by(_DOC.c.created_at.desc(), _DOC.c.id.desc())
        .limit(per_page)
        .offset((page - 1) * per_page)
    ).all()
    return DocumentList([DocumentRow(*row) for row in rows], total, page, pages)


@dataclass(frozen=True)
class ListedDocument:
    row: DocumentRow
    # The row's pinned flow, for its kind's and state's labels.
    graph: Graph


@dataclass(frozen=True)
class MyDocumentsPage:
    """Everything the My documents page shows, read in one unit of work."""

    listed: DocumentList
    rows: list[ListedDocument]
    startable: list[StartableKind]
    # The current graph of each startable kind, for the state filter's labels.
    current: dict[str, Graph]


def my_documents_page(
    actor: Actor,
    *,
    state: str | None = None,
    kind: str | None = None,
    page: int = 1,
    per_page: int = 25,
) -> MyDocumentsPage:
    """One page of the actor's documents, each with its pinned graph, and the kinds
    they may start."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        listed = _my_documents_in(s, actor, state, kind, page, per_page)
        rows = [
            ListedDocument(row, version_in(s, actor.org_id, row.kind, row.version).graph)
            for row in listed.rows
        ]
        startable = _startable_in(s, actor.org_id)
    return MyDocumentsPage(
        listed, rows, [k for k, _ in startable], {k.kind: graph for k, graph in startable}
    )
