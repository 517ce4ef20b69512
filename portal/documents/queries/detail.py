"""One document, read for someone who may see it: its exits for them, who holds it,
and its verified history — the detail page in one unit of work."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.accounts.queries import MemberEntry, member_name_of, member_names, today_in
from portal.core.db import table_of
from portal.core.uow import unit_of_work_for
from portal.documents.access import (
    DocumentRecord,
    DocumentView,
    VisibleDocument,
    document_view_in,
    facts_of,
    load_visible,
    principal_of,
)
from portal.documents.models import Decision, Task, TaskStatus
from portal.documents.queries.deciders import steps_decided_in
from portal.documents.queries.escalations import Escalated, escalations_in
from portal.documents.queries.handovers import (
    DEADLINE_GATE,
    Handover,
    OpenTask,
    colleagues_in,
    handovers_of,
    named_in,
    open_tasks_in,
)
from portal.documents.queries.history import (
    EditEntry,
    ReminderEntry,
    edits_in,
    interleaved,
    reminders_in,
)
from portal.documents.queries.on_behalf import (
    ActingFor,
    CoverWindow,
    acting_for_in,
    cover_windows_in,
)
from portal.domain import engine
from portal.domain.actor import Actor, SystemActor
from portal.domain.chain import CHAINED_FIELDS, ChainCheck, verify_chain
from portal.domain.editing import check_discardable, check_requester, may_discard, may_edit
from portal.domain.errors import DomainError
from portal.domain.graph import CommentPolicy, Graph
from portal.orgchart.queries import load_chart

_TASK = table_of(Task)


def get_document(actor: Actor | SystemActor, reference: str) -> DocumentView:
    with unit_of_work_for(actor) as uow:
        return document_view_in(uow.session, load_visible(uow.session, actor, reference))


def document_for_editing(actor: Actor, reference: str) -> DocumentView:
    """The document its requester is about to edit: ``not_requester`` for anyone else
    who may see it. A document past its draft state comes back too (the page says it is
    frozen); ``update_document`` refuses to change it."""
    with unit_of_work_for(actor) as uow:
        document = document_view_in(uow.session, load_visible(uow.session, actor, reference))
    check_requester(requester=document.requester_id, member=actor.member_id)
    return document


def document_for_discarding(actor: Actor, reference: str) -> DocumentView:
    """The draft its requester is asked to confirm throwing away: refused as
    ``discard_draft`` would refuse it (``not_requester``, ``discard_after_submission``,
    ``document_discarded``), so the question is never asked in vain."""
    with unit_of_work_for(actor) as uow:
        loaded = load_visible(uow.session, actor, reference)
        document = document_view_in(uow.session, loaded)
    check_discardable(
        document.graph,
        document.state,
        requester=document.requester_id,
        member=actor.member_id,
        decisions=loaded.doc.chain_seq,
    )
    return document


# --- what an actor may do ------------------------------------------------------------------


@dataclass(frozen=True)
class Available:
    key: str
    to_state: str
    allowed: bool
    comment_required: bool
    # Why not, when not: a refusal code and its parameters.
    refusal: DomainError | None
    # Allowed only by a cover: the cover, and whose authority it lends.
    delegation_id: int | None = None
    on_behalf_of: int | None = None


def available_transitions(actor: Actor | SystemActor, reference: str) -> list[Available]:
    """Every exit of the document's current state, each allowed or with the reason it
    is not (authority and guard), in display order."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        loaded = load_visible(s, actor, reference)
        return _available_in(s, actor, loaded, document_view_in(s, loaded).graph)


def _available_in(
    session: Session, actor: Actor | SystemActor, loaded: VisibleDocument, graph: Graph
) -> list[Available]:
    doc = loaded.doc
    facts = facts_of(doc, steps_decided_in(session, doc, graph))
    chart = load_chart(session, today_in(session, actor), version=loaded.chart_version)
    principal = principal_of(actor, chart, loaded)
    tasks = loaded.task_transitions
    out = []
    for t in graph.transitions_from(doc.state):
        refusal: DomainError | None = None
        authority = None
        try:  # in the pipeline's order: the guard, then authority
            engine.check_guard(t, facts, principal, locale=actor.locale)
            authority = engine.authorize(
                graph, t, facts, principal, chart, task_transitions=tasks, locale=actor.locale
            )
        except engine.TransitionRefused as refused:
            refusal = refused
        # Allowed by a cover alone: the page says on whose behalf.
        lent = authority if authority and authority.delegation_id is not None else None
        out.append(
            Available(
                t.key,
                t.to_state,
                refusal is None,
                t.comment == CommentPolicy.REQUIRED,
                refusal,
                delegation_id=lent.delegation_id if lent else None,
                on_behalf_of=lent.authority_member if lent else None,
            )
        )
    return out


# --- history -------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryEntry:
    seq: int
    from_state: str
    to_state: str
    transition: str
    actor_id: int | None
    actor_name: str | None
    # Whose authority was relied on, when it was not the actor's own (a delegator).
    authority_name: str | None
    via: str
    comment: str
    decided_at: datetime
    eligible: list[int]
    # The approver set considered, by name, as it stood then.
    eligible_names: list[str]
    hash: str
    # The amount the decision was taken on, as it stood then.
    amount: Decimal
    currency: str
    # "deadline" for what a passing deadline did (``queries.handovers``).
    gate: str = ""
    # What a deadline decision did to each task (empty for any other decision).
    handovers: tuple[Handover, ...] = ()
    # The cover a decision was taken under ("on behalf of … (cover 8–19 Dec: leave)").
    cover: CoverWindow | None = None

    # Told apart from an edit or a reminder in the timeline (``queries.history``).
    is_edit: ClassVar[bool] = False
    is_reminder: ClassVar[bool] = False


def history(actor: Actor | SystemActor, reference: str) -> list[HistoryEntry]:
    with unit_of_work_for(actor) as uow:
        s = uow.session
        doc = load_visible(s, actor, reference, discarded=True).doc
        return history_in(s, decisions_in(s, doc))


def decisions_in(session: Session, doc: DocumentRecord) -> list[Decision]:
    """The document's decisions in chain order, every column (the audit reads them all)."""
    return list(
        session.scalars(
            select(Decision).where(Decision.document_id == doc.id).order_by(Decision.seq)
        )
    )


def history_in(session: Session, rows: list[Decision]) -> list[HistoryEntry]:
    """The decisions in words: who, on whose behalf, the approver set by name, what a
    deadline did."""
    ids = {r.actor_id for r in rows if r.actor_id is not None}
    ids |= {r.authority_member_id for r in rows if r.authority_member_id is not None}
    ids |= {m for r in rows for m in r.eligible}
    names = member_names(session, ids)
    org_id = rows[0].org_id if rows else 0
    covers = cover_windows_in(session, org_id, {r.delegation_id for r in rows})
    return [
        HistoryEntry(
            seq=r.seq,
            from_state=r.from_state,
            to_state=r.to_state,
            transition=r.transition,
            actor_id=r.actor_id,
            actor_name=names.get(r.actor_id) if r.actor_id else None,
            authority_name=(
                names.get(r.authority_member_id)
                if r.authority_member_id and r.authority_member_id != r.actor_id
                else None
            ),
            via=r.via,
            comment=r.comment,
            decided_at=r.decided_at,
            eligible=list(r.eligible),
            eligible_names=[names.get(m, f"#{m}") for m in r.eligible],
            hash=r.hash,
            amount=r.amount,
            currency=r.currency,
            gate=r.gate,
            handovers=tuple(
                named_in(
                    session, org_id, handovers_of(r.seq, r.decided_at, r.transition, r.resolution)
                )
                if r.gate == DEADLINE_GATE
                else ()
            ),
            cover=covers.get(r.delegation_id) if r.delegation_id is not None else None,
        )
        for r in rows
    ]


def waiting_for(actor: Actor | SystemActor, reference: str) -> dict[str, list[str]]:
    """Who holds the document's open tasks now, by the transitions they may take: so a
    requester knows whom they are waiting for."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        return _waiting_in(s, load_visible(s, actor, reference).doc)


def _waiting_in(session: Session, doc: DocumentRecord) -> dict[str, list[str]]:
    name = member_name_of(_TASK.c.assignee_id, _TASK.c.org_id).label("name")
    rows = session.execute(
        select(Task.transitions, name)
        .where(
            Task.document_id == doc.id,
            Task.state == doc.state,
            Task.status == TaskStatus.OPEN,
        )
        .order_by(name)
    ).all()
    waiting: dict[str, list[str]] = {}
    for keys, holder in rows:
        for key in keys:
            waiting.setdefault(key, []).append(holder)
    return waiting


def verify_history(actor: Actor | SystemActor, reference: str) -> ChainCheck:
    """Recompute the document's hash chain from the stored records, and check it ends
    where the document says it does."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        doc = load_visible(s, actor, reference, discarded=True).doc
        return chain_check_of(doc, decisions_in(s, doc))


def chain_check_of(doc: DocumentRecord, rows: list[Decision]) -> ChainCheck:
    """The stored decisions' chain, checked against the head the document row records."""
    stored: list[dict[str, Any]] = [
        {name: getattr(r, name) for name in (*CHAINED_FIELDS, "hash")} for r in rows
    ]
    return verify_chain(stored, doc.chain_seq, doc.chain_hash)


# --- the page ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentDetail:
    """Everything the document page shows, read in one unit of work."""

    document: DocumentView
    actions: list[Available]
    waiting: dict[str, list[str]]
    history: list[HistoryEntry]
    chain: ChainCheck
    # Whether the reader may edit the document now (``domain.editing``).
    may_edit: bool
    # Whether the reader may throw the draft away (never submitted, theirs).
    may_discard: bool = False
    # The decisions, the edits and the reminders (``queries.history``), in the order
    # they happened.
    timeline: list[HistoryEntry | EditEntry | ReminderEntry] = field(default_factory=list)
    # Who the open step reached only past a gap (a vacant seat), and why.
    escalations: list[Escalated] = field(default_factory=list)
    # The open tasks, with their due dates and what a deadline did with them.
    tasks: list[OpenTask] = field(default_factory=list)
    # Whom the reader may hand their open task to (empty unless they hold one).
    colleagues: list[MemberEntry] = field(default_factory=list)
    # The covers the reader's allowed actions rely on, when they act on someone's behalf.
    acting_for: list[ActingFor] = field(default_factory=list)


def document_detail(actor: Actor | SystemActor, reference: str) -> DocumentDetail:
    """The document, its exits for this actor, who holds it, and its verified history:
    one visibility check, one read of the decisions."""
    with unit_of_work_for(actor) as uow:
        return document_detail_in(uow.session, actor, reference)


def document_detail_in(
    session: Session, actor: Actor | SystemActor, reference: str
) -> DocumentDetail:
    # Admins and auditors still read a discarded draft (marked so); nothing is open.
    loaded = load_visible(session, actor, reference, discarded=True)
    view = document_view_in(session, loaded)
    decisions = decisions_in(session, loaded.doc)
    entries = history_in(session, decisions)
    live = view.discarded_at is None
    requester, member = view.requester_id, actor.member_id
    actions = _available_in(session, actor, loaded, view.graph) if live else []
    return DocumentDetail(
        document=view,
        actions=actions,
        acting_for=acting_for_in(
            session,
            loaded.doc.org_id,
            {a.delegation_id: a.on_behalf_of for a in actions if a.delegation_id is not None},
        ),
        waiting=_waiting_in(session, loaded.doc),
        escalations=escalations_in(session, loaded.doc, view.graph) if live else [],
        history=entries,
        chain=chain_check_of(loaded.doc, decisions),
        may_edit=live and may_edit(view.graph, view.state, requester=requester, member=member),
        may_discard=live
        and may_discard(
            view.graph,
            view.state,
            requester=requester,
            member=member,
            decisions=loaded.doc.chain_seq,
        ),
        timeline=interleaved(
            entries, edits_in(session, loaded.doc), reminders_in(session, loaded.doc)
        ),
        tasks=open_tasks_in(session, loaded.doc) if live else [],
        colleagues=colleagues_in(session, loaded, member) if live else [],
    )


def count_open_tasks_on(actor: Actor | SystemActor, reference: str) -> int:
    """How many open tasks the document has, whoever holds them."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        doc = load_visible(s, actor, reference).doc
        return (
            s.scalar(
                select(func.count(Task.id)).where(
                    Task.document_id == doc.id, Task.status == TaskStatus.OPEN
                )
            )
            or 0
        )
