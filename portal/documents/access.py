"""Who may see a document, and loading it for them (DESIGN §4 "Visibility").

A document is visible to its requester, to whoever holds or held a task on it (and
their delegates while a cover for its kind is active), to whoever decided on it, to
admins and to auditors; to anyone else it does not exist (``NotFound``), in every read
and write. ``load_visible`` is the one place that rule is applied: every service that
touches a document by its reference starts here.

The load runs on SQLAlchemy Core with explicit tenant predicates (and row-level security
behind them on PostgreSQL): it is on every transition's path, where the ORM's
per-statement cost would double the time of a decision. The statements are built once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import bindparam, exists, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from portal.accounts.queries import chart_version_of, member_name_of
from portal.core.clock import clock
from portal.core.db import table_of
from portal.core.json_rows import json_rows, rows_of
from portal.delegations.queries import (
    DocumentCovers,
    covers_from_rows,
    covers_reaching,
    covers_to_member_rows,
)
from portal.documents.models import Decision, Document, Task, TaskStatus
from portal.domain import engine
from portal.domain.actor import Actor, SystemActor
from portal.domain.authority import Principal
from portal.domain.delegation import LAPSED_DAYS, Cover
from portal.domain.editing import is_draft
from portal.domain.errors import DomainError, NotFound
from portal.domain.graph import Graph
from portal.domain.orgchart import ChartSnapshot
from portal.flows.queries import version_in

# A reference is at most this long; a longer one names no document.
MAX_REFERENCE = 32

_DOC = table_of(Document)
_TASK = table_of(Task)
_DECISION = table_of(Decision)

_SELECT_DOCUMENT = select(
    _DOC,
    member_name_of(_DOC.c.requester_id, _DOC.c.org_id).label("requester_name"),
    # Read with the document, so the chart snapshot costs no statement when cached.
    chart_version_of(_DOC.c.org_id).label("chart_version"),
    # And the member's own tasks on it and the covers to them that reach its kind: the
    # load is one round trip (a second only when a cover is active).
    select(json_rows(_TASK.c.state, _TASK.c.status, _TASK.c.via, _TASK.c.transitions))
    .where(
        _TASK.c.org_id == _DOC.c.org_id,
        _TASK.c.document_id == _DOC.c.id,
        _TASK.c.assignee_id == bindparam("member"),
    )
    .scalar_subquery()
    .label("own_tasks"),
    covers_to_member_rows(
        _DOC.c.org_id, bindparam("member"), bindparam("today"), bindparam("since"), _DOC.c.kind
    ).label("cover_rows"),
).where(_DOC.c.org_id == bindparam("org"), _DOC.c.reference == bindparam("reference"))
_LOCK_DOCUMENT = _SELECT_DOCUMENT.with_for_update(of=_DOC)
_ACTOR_TASKS = select(_TASK.c.state, _TASK.c.status, _TASK.c.via, _TASK.c.transitions).where(
    _TASK.c.org_id == bindparam("org"),
    _TASK.c.document_id == bindparam("document"),
    _TASK.c.assignee_id == bindparam("member"),
)
# With a cover active: the tasks of the actor and of whoever they cover, in one read.
_COVERED_TASKS = select(
    _TASK.c.assignee_id, _TASK.c.state, _TASK.c.status, _TASK.c.via, _TASK.c.transitions
).where(
    _TASK.c.org_id == bindparam("org"),
    _TASK.c.document_id == bindparam("document"),
    _TASK.c.assignee_id.in_(bindparam("members", expanding=True)),
)
# Whoever decided on a document keeps seeing it (a delegate, after the cover ended).
_DECIDED = select(
    exists().where(
        _DECISION.c.org_id == bindparam("org"),
        _DECISION.c.document_id == bindparam("document"),
        _DECISION.c.actor_id == bindparam("member"),
    )
)


@dataclass(frozen=True)
class DocumentRecord:
    """A document's columns as the services work with them."""

    id: int
    org_id: int
    reference: str
    kind: str
    title: str
    description: str
    amount: Decimal
    currency: str
    fields: dict[str, Any]
    requester_id: int
    flow_version_id: int
    version: int
    state: str
    state_entered_at: datetime
    dispute_raiser_id: int | None
    row_version: int
    chain_seq: int
    chain_hash: str
    created_at: datetime
    updated_at: datetime
    # Set when its requester threw the draft away (``services.discard_draft``).
    discarded_at: datetime | None
    discarded_by: int | None


_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(DocumentRecord))


def record_of(row: Any) -> DocumentRecord:
    """The record of a loaded row or a just-created ``Document``."""
    return DocumentRecord(**{name: getattr(row, name) for name in _RECORD_FIELDS})


@dataclass(frozen=True)
class VisibleDocument:
    """A document the actor may see, with what the pipeline needs to know of them."""

    doc: DocumentRecord
    requester_name: str
    # The organization's chart version, read with the document.
    chart_version: int
    # The transitions the actor's own open tasks in the current state authorise, and how
    # the task came to them (``engine.authorize``'s ``task_transitions``).
    task_transitions: dict[str, str]
    # Covers to the actor that reach this document, each with what its delegator's own
    # open tasks here authorise; members whose authority would come by a second hop.
    covers: tuple[Cover, ...] = ()
    chained: frozenset[int] = frozenset()

    def changed(self, **values: Any) -> VisibleDocument:
        """The same document with some of its columns changed in this unit of work."""
        return dataclasses.replace(self, doc=dataclasses.replace(self.doc, **values))


def load_visible(
    session: Session,
    actor: Actor | SystemActor,
    reference: str,
    *,
    lock: bool = False,
    discarded: bool = False,
) -> VisibleDocument:
    """The document at ``reference`` if the actor may see it, else ``NotFound``; with
    ``lock``, its row is locked for the rest of the transaction. Two statements.

    A discarded draft is ``document_discarded`` to whoever could see it (its requester,
    admins, auditors): nothing more can be done with it. Only a read that passes
    ``discarded`` gets it, and only for admins and auditors, who keep the record."""
    conn = session.connection()
    today = clock.today_in(actor.time_zone)
    row = conn.execute(
        _LOCK_DOCUMENT if lock else _SELECT_DOCUMENT,
        {
            "org": actor.org_id,
            "reference": reference[:MAX_REFERENCE],
            "member": actor.member_id,
            "today": today,
            "since": today - timedelta(days=LAPSED_DAYS),
        },
    ).first()
    if row is None:
        raise NotFound("document")
    standing = NO_STANDING
    if actor.member_id is not None:
        member = actor.member_id
        found = covers_from_rows(conn, row.cover_rows, actor.org_id, member, row.kind, today)
        if found.delegators:
            tasks: Iterable[Any] = _covered_tasks(conn, row, actor.org_id, member, found)
        else:
            tasks = (_OwnTask(*task) for task in rows_of(row.own_tasks))
        standing = _standing_from(row, member, found, tasks)
    visible = (
        actor.is_admin or actor.is_auditor or actor.member_id == row.requester_id or standing.held
    )
    if not visible and actor.member_id is not None:
        visible = bool(
            conn.scalar(
                _DECIDED, {"org": actor.org_id, "document": row.id, "member": actor.member_id}
            )
        )
    if not visible:
        raise NotFound("document")
    if row.discarded_at is not None and not (discarded and (actor.is_admin or actor.is_auditor)):
        raise DomainError("document_discarded")
    return VisibleDocument(
        record_of(row),
        row.requester_name,
        row.chart_version,
        standing.task_transitions,
        standing.covers,
        standing.chained,
    )


@dataclass(frozen=True)
class Standing:
    """What one member holds on a document: whether they (or someone they cover today)
    ever held a task on it, what their own open tasks in its current state authorise
    (transition key -> how the task came to them), and the covers to them that reach
    it, each with what its delegator's open tasks there authorise."""

    held: bool
    task_transitions: dict[str, str]
    covers: tuple[Cover, ...] = ()
    chained: frozenset[int] = frozenset()
    # Whether they hold an open task in the current state (of any kind, a handed-over
    # one too).
    holds_open: bool = False


NO_STANDING = Standing(False, {})


class _OwnTask(NamedTuple):
    state: str
    status: str
    via: str
    transitions: list[str]


def _covered_tasks(
    conn: Connection, row: Any, org_id: int, member: int, found: DocumentCovers
) -> Iterable[Any]:
    """The tasks of the member and of whoever they cover on the document ``row``."""
    return conn.execute(
        _COVERED_TASKS,
        {"org": org_id, "document": row.id, "members": [member, *found.delegators]},
    )


def _standing(conn: Connection, row: Any, org_id: int, member: int, today: date) -> Standing:
    """The member's standing on the document ``row`` (its id, kind and state), on the
    organization's ``today``: one statement for the covers, one for the tasks."""
    found = covers_reaching(conn, org_id, member, row.kind, today)
    if found.delegators:
        tasks = _covered_tasks(conn, row, org_id, member, found)
    else:
        tasks = conn.execute(_ACTOR_TASKS, {"org": org_id, "document": row.id, "member": member})
    return _standing_from(row, member, found, tasks)


def _standing_from(row: Any, member: int, found: DocumentCovers, tasks: Iterable[Any]) -> Standing:
    """The standing the member's (and their delegators') ``tasks`` on ``row`` give."""
    held = holds_open = False
    task_transitions: dict[str, str] = {}
    lent: dict[int, dict[str, str]] = {}
    for task in tasks:
        assignee = getattr(task, "assignee_id", member)
        # A delegator's task under an active cover makes the document visible too.
        held = True
        if task.state != row.state or task.status != TaskStatus.OPEN:
            continue
        holds_open = holds_open or assignee == member
        authorised = task_transitions if assignee == member else lent.setdefault(assignee, {})
        for key in task.transitions:
            # A handed-over task authorises nothing: another task's way in wins over it.
            if authorised.get(key, engine.Via.HANDOVER) == engine.Via.HANDOVER:
                authorised[key] = task.via
    covers = tuple(
        dataclasses.replace(c, tasks=lent.get(c.delegator, {})) if c.active else c
        for c in found.covers
    )
    return Standing(held, task_transitions, covers, found.chained, holds_open)


def standing_in(session: Session, doc: DocumentRecord, member_id: int, today: date) -> Standing:
    """Another member's standing on a document the actor loaded (a handover's receiver,
    whose own authority must be checked before the task is theirs), on the
    organization's ``today``."""
    return _standing(session.connection(), doc, doc.org_id, member_id, today)


@dataclass(frozen=True)
class DocumentView:
    id: int
    reference: str
    kind: str
    title: str
    description: str
    amount: Decimal
    currency: str
    fields: dict[str, Any]
    requester_id: int
    requester_name: str
    version: int
    state: str
    state_entered_at: datetime
    created_at: datetime
    graph: Graph
    # When its requester threw the draft away; only admins and auditors see it then.
    discarded_at: datetime | None = None

    @property
    def is_draft(self) -> bool:
        return is_draft(self.graph, self.state)


def document_view_in(session: Session, loaded: VisibleDocument) -> DocumentView:
    """The document as pages and callers see it, with its pinned flow's graph."""
    doc = loaded.doc
    graph = version_in(session, doc.org_id, doc.kind, doc.version).graph
    return document_view(doc, loaded.requester_name, graph)


def document_view(doc: DocumentRecord, requester_name: str, graph: Graph) -> DocumentView:
    return DocumentView(
        id=doc.id,
        reference=doc.reference,
        kind=doc.kind,
        title=doc.title,
        description=doc.description,
        amount=doc.amount,
        currency=doc.currency,
        fields=dict(doc.fields),
        requester_id=doc.requester_id,
        requester_name=requester_name,
        version=doc.version,
        state=doc.state,
        state_entered_at=doc.state_entered_at,
        created_at=doc.created_at,
        graph=graph,
        discarded_at=doc.discarded_at,
    )


def facts_of(
    doc: DocumentRecord, decided: Mapping[int, frozenset[str]] | None = None
) -> engine.DocumentFacts:
    """What the rules need to know about the document (and, under exclusive approval,
    who decided which step: ``queries.deciders.steps_decided_in``)."""
    return engine.DocumentFacts(
        id=doc.id,
        reference=doc.reference,
        kind=doc.kind,
        title=doc.title,
        amount=doc.amount,
        currency=doc.currency,
        requester=doc.requester_id,
        state=doc.state,
        fields=doc.fields,
        dispute_raiser=doc.dispute_raiser_id,
        decided=decided or {},
    )


def principal_of(
    actor: Actor | SystemActor, chart: ChartSnapshot, loaded: VisibleDocument | None = None
) -> Principal:
    """The actor as guards and authority see them: their member id, roles and unit — and,
    for the document ``loaded`` for them, the covers that reach it."""
    unit = None
    if actor.member_id is not None:
        seat_id = chart.primary.get(actor.member_id)
        if seat_id is not None and seat_id in chart.seats:
            unit_row = chart.units.get(chart.seats[seat_id].unit_id)
            unit = unit_row.code if unit_row else None
    system = isinstance(actor, SystemActor) and actor.deadline_sweep
    if loaded is None:
        return Principal(actor.member_id, frozenset(actor.roles), unit, system=system)
    return Principal(
        actor.member_id,
        frozenset(actor.roles),
        unit,
        system=system,
        covers=loaded.covers,
        chained=loaded.chained,
    )
