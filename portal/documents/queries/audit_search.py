"""The audit search over an organization's documents, as SQL: the filter as a predicate,
the sort, one page, a bounded count, and every row in order for an export.

Admins and auditors read every document of their organization, so the only scope is the
organization (named in every statement; row-level security backs it). Each filter is
chosen to seek on an index that leads with the tenant (migration 0008): creation time,
amount and the last decision on ``document``; who decided on ``decision`` by
(org_id, actor_id, document_id), asked as EXISTS per document so the planner may drive
the search from either side. Words are matched with ILIKE on PostgreSQL (LIKE on SQLite,
which ignores ASCII case already), their ``%`` and ``_`` taken literally.

Rows are Core tuples, never ORM objects: an export streams a hundred thousand of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Row,
    Select,
    and_,
    bindparam,
    exists,
    func,
    literal_column,
    select,
)
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names_of
from portal.core.db import table_of
from portal.documents.models import Decision, Document
from portal.domain.audit_query import AuditQuery
from portal.domain.time_zones import end_of_day, zone

_DOC = table_of(Document)
_DECISION = table_of(Decision)
# "EXP-2026-00042": a prefix, the year and the number, as ``documents.services`` issues.
_WHOLE_REFERENCE = re.compile(r"[A-Z0-9]{1,8}-[0-9]{4}-[0-9]{5,}")

# The columns of a row, in the order an export writes them from.
_COLUMNS = (
    _DOC.c.id,
    _DOC.c.reference,
    _DOC.c.kind,
    _DOC.c.version,
    _DOC.c.title,
    _DOC.c.requester_id,
    _DOC.c.amount,
    _DOC.c.currency,
    _DOC.c.state,
    _DOC.c.created_at,
    _DOC.c.state_entered_at,
    _DOC.c.discarded_at,
)


@dataclass(frozen=True)
class AuditRow:
    id: int
    reference: str
    kind: str
    # The flow version the document is pinned to.
    version: int
    title: str
    requester_id: int
    amount: Decimal
    currency: str
    state: str
    created_at: datetime
    # When it entered its state: its last decision (or its creation, for a draft).
    state_entered_at: datetime
    discarded_at: datetime | None


def _escaped(words: str) -> str:
    """``words`` for a LIKE pattern, its wildcards taken as the characters they are."""
    return words.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _day_start(day: date, zone_name: str) -> datetime:
    return datetime.combine(day, time(), tzinfo=zone(zone_name))


def _decided_by(member_id: int, *, under_cover: bool) -> ColumnElement[bool]:
    """The document has a decision taken by ``member_id``: as an approver (anything but
    the requester's own acts), or, ``under_cover``, on someone else's authority."""
    where = [
        _DECISION.c.org_id == _DOC.c.org_id,
        _DECISION.c.actor_id == member_id,
        _DECISION.c.document_id == _DOC.c.id,
    ]
    # The constants in the SQL, where the partial index ``ix_decision_actor``'s predicate
    # (``via <> 'requester'``) can be proved from them: bound, a prepared statement's
    # generic plan could not use it.
    if under_cover:
        where.append(_DECISION.c.via == literal_column("'delegation'"))
    else:
        where.append(_DECISION.c.via != literal_column("'requester'"))
    return exists().where(*where)


@dataclass(frozen=True)
class AuditSearch:
    """A search made SQL: the organization, the predicate on ``document``, the order."""

    org_id: int
    where: list[ColumnElement[bool]]
    query: AuditQuery


def audit_search(org_id: int, query: AuditQuery, zone_name: str, dialect: str) -> AuditSearch:
    """The search's predicate on ``document``: the organization, then each filter.
    Days are whole days of ``zone_name`` (the organization's), both ends included."""
    c = _DOC.c
    # The organization is written into the statement, not bound: each organization then
    # gets a plan of its own (PostgreSQL's generic plan for a prepared statement, made
    # for "some organization", would scan a huge one's documents for a small one's
    # amount range). The id is an int from the actor, never from the request.
    where: list[ColumnElement[bool]] = [c.org_id == bindparam("org", org_id, literal_execute=True)]
    # A discarded draft is listed only when asked for, and then only those.
    if query.discarded:
        where.append(c.discarded_at.is_not(None))
    else:
        where.append(c.discarded_at.is_(None))
        if query.state is not None:
            where.append(c.state == query.state)
    if query.kind is not None:
        where.append(c.kind == query.kind)
    if query.requester_id is not None:
        where.append(c.requester_id == query.requester_id)
    if query.approver_id is not None:
        where.append(_decided_by(query.approver_id, under_cover=False))
    if query.delegate_id is not None:
        where.append(_decided_by(query.delegate_id, under_cover=True))
    if query.decided_from is not None or query.decided_to is not None:
        # A draft never submitted has no decision: its ``state_entered_at`` is its
        # creation, not a decision's time.
        where.append(c.chain_seq > 0)
    for column, start, end in (
        (c.created_at, query.created_from, query.created_to),
        (c.state_entered_at, query.decided_from, query.decided_to),
    ):
        if start is not None:
            where.append(column >= _day_start(start, zone_name))
        if end is not None:
            where.append(column < end_of_day(end, zone_name))
    if query.amount_min is not None:
        where.append(c.amount >= query.amount_min)
    if query.amount_max is not None:
        where.append(c.amount <= query.amount_max)
    if query.reference is not None:
        if _WHOLE_REFERENCE.fullmatch(query.reference):
            # A whole reference seeks the unique index; a part of one (LIKE is not
            # leakproof, so row-level security keeps it off any index) scans.
            where.append(c.reference == query.reference)
        else:
            where.append(c.reference.like(f"%{_escaped(query.reference)}%", escape="\\"))
    if query.text is not None:
        pattern = f"%{_escaped(query.text)}%"
        if dialect == "postgresql":
            where.append(
                c.title.ilike(pattern, escape="\\") | c.description.ilike(pattern, escape="\\")
            )
        else:
            where.append(
                c.title.like(pattern, escape="\\") | c.description.like(pattern, escape="\\")
            )
    return AuditSearch(org_id, where, query)


def _order(query: AuditQuery, names: Any = None) -> list[Any]:
    c = _DOC.c
    by: dict[str, Any] = {
        "reference": c.reference,
        "kind": c.kind,
        "title": c.title,
        "requester": names.c.name if names is not None else c.requester_id,
        "amount": c.amount,
        "state": c.state,
        "created": c.created_at,
        "decided": c.state_entered_at,
    }
    column = by.get(query.sort_key, c.created_at)
    # The id breaks ties, in the same direction: a page boundary never repeats a row.
    if query.descending:
        return [column.desc(), c.id.desc()]
    return [column.asc(), c.id.asc()]


def _select(search: AuditSearch) -> Select[Any]:
    stmt = select(*_COLUMNS).where(and_(*search.where))
    if search.query.sort_key != "requester":
        return stmt.order_by(*_order(search.query))
    # By the requester's name: the organization's names joined once (a hash join of a
    # few hundred members), not looked up again for each of thousands of rows.
    names = member_names_of(search.org_id)
    stmt = stmt.join_from(_DOC, names, names.c.member_id == _DOC.c.requester_id, isouter=True)
    return stmt.order_by(*_order(search.query, names))


def count_audit_in(session: Session, search: AuditSearch, *, cap: int | None = None) -> int:
    """How many documents match; with ``cap``, counting stops at ``cap + 1`` (a huge
    organization's "10,000+" costs what 10,001 rows cost, not a million)."""
    inner = select(_DOC.c.id).where(and_(*search.where))
    if cap is not None:
        inner = inner.limit(cap + 1)
    counted = session.connection().scalar(select(func.count()).select_from(inner.subquery()))
    return int(counted or 0)


def audit_page_in(
    session: Session, search: AuditSearch, *, limit: int, offset: int
) -> list[AuditRow]:
    """One page of matches, in the search's order."""
    rows = session.connection().execute(_select(search).limit(limit).offset(offset))
    return [AuditRow(*row) for row in rows]


def audit_batches_in(
    session: Session, search: AuditSearch, *, batch: int = 2_000, limit: int | None = None
) -> Iterator[Sequence[Row[Any]]]:
    """Every match in the search's order, ``batch`` rows at a time through a server-side
    cursor (PostgreSQL): memory holds one batch, whatever the count. Each row holds the
    ``AuditRow`` fields in that order."""
    # Options on the statement, not the connection: a connection's options would
    # stay with it (the request's, the pool's) after this export.
    statement = _select(search) if limit is None else _select(search).limit(limit)
    result = session.connection().execute(
        statement, execution_options={"stream_results": True, "yield_per": batch}
    )
    try:
        yield from result.partitions()
    finally:
        result.close()
