"""One document, read for someone who may see it: its exits for them, who holds it,
and its verified history — the detail page in one unit of work."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.accounts.queries import MemberEntry, today_in
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
from portal.documents.models import Task, TaskStatus
from portal.documents.queries.deciders import steps_decided_in, steps_decided_of
from portal.documents.queries.escalations import Escalated, escalations_in
from portal.documents.queries.handovers import (
    OpenTask,
    colleagues_in,
    handovers_from,
    open_task_rows_in,
    open_tasks_of,
)
from portal.documents.queries.history import (
    EditEntry,
    HistoryEntry,
    ReminderEntry,
    decision_rows_in,
    decisions_in,
    edits_in,
    history_in,
    history_member_ids,
    interleaved,
    names_in,
    reminders_in,
)
from portal.documents.queries.on_behalf import ActingFor, acting_for_in
from portal.domain import engine
from portal.domain.actor import Actor, SystemActor
from portal.domain.authority import Via
from portal.domain.chain import CHAINED_FIELDS, ChainCheck, verify_chain
from portal.domain.editing import check_discardable, check_requester, may_discard, may_edit
from portal.domain.errors import DomainError
from portal.domain.graph import CommentPolicy, Graph
from portal.orgchart.queries import load_chart


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
    session: Session,
    actor: Actor | SystemActor,
    loaded: VisibleDocument,
    graph: Graph,
    decided: Mapping[int, frozenset[str]] | None = None,
) -> list[Available]:
    """``decided``: who decided which step, when the caller has it (``steps_decided_of``)."""
    doc = loaded.doc
    if decided is None:
        decided = steps_decided_in(session, doc, graph)
    facts = facts_of(doc, decided)
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


def history(actor: Actor | SystemActor, reference: str) -> list[HistoryEntry]:
    with unit_of_work_for(actor) as uow:
        s = uow.session
        doc = load_visible(s, actor, reference, discarded=True).doc
        return history_in(s, decisions_in(s, doc))


def waiting_for(actor: Actor | SystemActor, reference: str) -> dict[str, list[str]]:
    """Who holds the document's open tasks now, by the transitions they may take: so a
    requester knows whom they are waiting for."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        return _waiting_in(s, load_visible(s, actor, reference).doc)


def _waiting_in(session: Session, doc: DocumentRecord) -> dict[str, list[str]]:
    return waiting_of(open_task_rows_in(session, doc))


def waiting_of(tasks: Sequence[Any]) -> dict[str, list[str]]:
    """Who holds the open tasks ``tasks`` (``open_task_rows_in``'s, by name), by the
    transitions they may take."""
    waiting: dict[str, list[str]] = {}
    for task in tasks:
        for key in task.transitions:
            waiting.setdefault(key, []).append(task.name)
    return waiting


def verify_history(actor: Actor | SystemActor, reference: str) -> ChainCheck:
    """Recompute the document's hash chain from the stored records, and check it ends
    where the document says it does."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        doc = load_visible(s, actor, reference, discarded=True).doc
        return chain_check_of(doc, decisions_in(s, doc))


def chain_check_of(doc: DocumentRecord, rows: Sequence[Any]) -> ChainCheck:
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
    doc, view = loaded.doc, document_view_in(session, loaded)
    live = view.discarded_at is None
    requester, member = view.requester_id, actor.member_id
    # Each thing is read once and every part of the page is drawn from it: the
    # decisions (the history, the chain, who decided which step, what deadlines and
    # holders handed on), the open tasks (whom it waits for, their due dates, who came
    # by escalation), and the names of everyone they name.
    decisions = decision_rows_in(session, doc)
    tasks = open_task_rows_in(session, doc)
    handovers = handovers_from(decisions)
    names = names_in(session, doc.org_id, history_member_ids(decisions))
    entries = history_in(session, decisions, names)
    actions = (
        _available_in(session, actor, loaded, view.graph, steps_decided_of(view.graph, decisions))
        if live
        else []
    )
    escalated = {t.assignee_id for t in tasks if t.via == Via.ESCALATION}
    return DocumentDetail(
        document=view,
        actions=actions,
        acting_for=acting_for_in(
            session,
            doc.org_id,
            {a.delegation_id: a.on_behalf_of for a in actions if a.delegation_id is not None},
        ),
        waiting=waiting_of(tasks),
        escalations=escalations_in(session, doc, view.graph, escalated) if live else [],
        history=entries,
        chain=chain_check_of(doc, decisions),
        may_edit=live and may_edit(view.graph, view.state, requester=requester, member=member),
        may_discard=live
        and may_discard(
            view.graph, view.state, requester=requester, member=member, decisions=doc.chain_seq
        ),
        timeline=interleaved(entries, edits_in(session, doc), reminders_in(session, doc)),
        tasks=open_tasks_of(doc, tasks, handovers, names) if live else [],
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
