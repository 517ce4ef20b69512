"""Moving a document through its flow: DESIGN §5 in one unit of work.

``transition_document`` locks the document row, lets the engine check the state the
client saw, the transition, the comment, the guard and the actor's authority
(``domain.engine``), advances the state with a conditional UPDATE, closes the old tasks,
appends the hash-chained decision, opens the next step's tasks (or refuses the whole
transition naming the gap), and writes the outbox rows — all or nothing. Side effects
leave only after commit, through the outbox.

The statements run on SQLAlchemy Core, prebuilt, with explicit tenant predicates
(row-level security behind them): this is the hot path.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from portal.accounts.queries import today_in
from portal.core import metrics, outbox
from portal.core.clock import clock
from portal.core.db import table_of
from portal.core.outbox import event_rows
from portal.core.uow import UnitOfWork, unit_of_work_for
from portal.documents.access import (
    DocumentRecord,
    DocumentView,
    document_view_in,
    facts_of,
    load_visible,
    principal_of,
)
from portal.documents.decision_write import write_decision
from portal.documents.models import OPEN_STATUS as OPEN_STATUS
from portal.documents.models import Decision, Document, Task, TaskStatus
from portal.documents.queries.deciders import steps_decided_in
from portal.documents.queries.detail import DocumentDetail, document_detail_in
from portal.domain import deadlines, engine
from portal.domain.actor import Actor, SystemActor
from portal.domain.chain import link_hash, money_text
from portal.domain.errors import DomainError, NotFound
from portal.domain.graph import Graph, Transition
from portal.flows.queries import version_in
from portal.orgchart.queries import gap_names_in, load_chart

_DOC = table_of(Document)
_TASK = table_of(Task)
_DECISION = table_of(Decision)
# The deadline sweep reads documents and writes tasks beside the pipeline, under the
# same document lock (``deadlines.services``); its history rows go through ``links``.
DOCUMENT_TABLE, TASK_TABLE = _DOC, _TASK


@dataclass(frozen=True)
class Moved:
    document: DocumentView
    decision_seq: int
    opened_tasks: int


def transition_document(
    actor: Actor | SystemActor,
    reference: str,
    transition: str,
    *,
    seen_state: str,
    comment: str = "",
    request_id: str | None = None,
) -> Moved:
    """Take ``transition`` on the document at ``reference``, which the client saw in
    ``seen_state``. One transaction; every refusal is a ``TransitionRefused`` (a gap
    that would strand the document carries the names of what it is about)."""
    with unit_of_work_for(actor) as uow:
        return _transition_in(uow, actor, reference, transition, seen_state, comment, request_id)


def transition_in(
    uow: UnitOfWork,
    actor: Actor | SystemActor,
    reference: str,
    transition: str,
    *,
    seen_state: str,
    comment: str = "",
    request_id: str | None = None,
) -> Moved:
    """``transition_document`` inside a unit of work the caller holds (the deadline
    sweep, with the document row locked already): no transaction of its own."""
    return _transition_in(uow, actor, reference, transition, seen_state, comment, request_id)


@dataclass(frozen=True)
class Decided:
    """What a decision on the document page came to, and the page to show after it
    (always after a refusal; after a move only when asked for)."""

    detail: DocumentDetail | None
    # The move, when the decision went through; else why not.
    moved: Moved | None
    refusal: DomainError | None


def decide_on_page(
    actor: Actor | SystemActor,
    reference: str,
    transition: str,
    *,
    seen_state: str,
    comment: str = "",
    request_id: str | None = None,
    page_after: bool = True,
) -> Decided:
    """The document page's decision and the page as it stands afterwards, in one unit
    of work: a refused decision has written nothing, and the page is read in the same
    transaction. Without ``page_after`` a decision that goes through reads no page (the
    caller redirects). A document the actor may not see is ``NotFound``."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        moved: Moved | None = None
        refusal: DomainError | None = None
        try:
            # No savepoint (two round trips): every refusal is raised before the one
            # write, or by it having written nothing (``write_decision``: all or none).
            moved = _transition_in(
                uow, actor, reference, transition, seen_state, comment, request_id
            )
        except NotFound:
            raise
        except DomainError as refused:
            refusal = refused
        if refusal is None and not page_after:
            return Decided(None, moved, None)
        return Decided(document_detail_in(s, actor, reference), moved, refusal)


def _transition_in(
    uow: UnitOfWork,
    actor: Actor | SystemActor,
    reference: str,
    transition: str,
    seen_state: str,
    comment: str,
    request_id: str | None,
) -> Moved:
    session = uow.session
    comment = comment.strip()
    loaded = load_visible(session, actor, reference, lock=True)
    doc = loaded.doc
    graph = version_in(session, actor.org_id, doc.kind, doc.version).graph
    now = clock.now()
    # The chart as it stands on the organization's day, not UTC's.
    chart = load_chart(session, today_in(session, actor), version=loaded.chart_version)
    try:
        plan = engine.decide(
            graph,
            facts_of(doc, steps_decided_in(session, doc, graph)),
            transition,
            seen_state=seen_state,
            comment=comment,
            principal=principal_of(actor, chart, loaded),
            chart=chart,
            now=now,
            task_transitions=loaded.task_transitions,
            locale=actor.locale,
        )
    except engine.TransitionRefused as refused:
        if refused.code == "route_has_gap":
            refused.params.update(gap_names_in(session, chart, refused.params))
        raise
    decision = _decision(doc, plan.transition, actor, plan.authority, comment, request_id, now)
    # Advance, conditional on the state and row version read under the lock, moving the
    # head of the decision chain with it.
    advanced = {
        "state": plan.transition.to_state,
        "state_entered_at": now,
        "row_version": doc.row_version + 1,
        "dispute_raiser_id": plan.dispute_raiser,
        "updated_at": now,
        "chain_seq": decision["seq"],
        "chain_hash": decision["hash"],
    }
    seq = decision["seq"]
    tasks = task_rows(doc, graph, plan.tasks, now, lead_of(actor))
    written = write_decision(
        session.connection(),
        advance={
            **{k: v for k, v in advanced.items() if k not in ("state_entered_at", "updated_at")},
            "now": now,
            "org": actor.org_id,
            "document": doc.id,
            "from_state": doc.state,
            "seen_row_version": doc.row_version,
        },
        # Under cover, the delegator's task is completed (by the delegate) too, and so
        # is a task handed to the delegate, whose work it was.
        close={"actor": actor.member_id, "authority": plan.authority.authority_member},
        decision=decision,
        tasks=tasks,
        events=event_rows(actor.org_id, outbox_events(doc, plan, actor, seq), now),
    )
    if not written:
        current = session.connection().scalar(
            select(_DOC.c.state).where(_DOC.c.org_id == actor.org_id, _DOC.c.id == doc.id)
        )
        raise engine.TransitionRefused("stale_state", seen=seen_state, current=current)
    opened = len(tasks)
    uow.after_commit(lambda: outbox.nudge(actor.org_id))
    uow.after_commit(metrics.decision_committed)
    return Moved(document_view_in(session, loaded.changed(**advanced)), seq, opened)


def _decision(
    doc: DocumentRecord,
    chosen: Transition,
    actor: Actor | SystemActor,
    authority: engine.Authority,
    comment: str,
    request_id: str | None,
    now: datetime,
) -> dict[str, Any]:
    """The next link of the document's hash chain, from the chain head on the document
    row (read under its lock)."""
    row: dict[str, Any] = {
        "org_id": doc.org_id,
        "document_id": doc.id,
        "seq": doc.chain_seq + 1,
        "flow_version_id": doc.flow_version_id,
        "from_state": chosen.from_state,
        "to_state": chosen.to_state,
        "transition": chosen.key,
        "gate": chosen.gate,
        "actor_id": actor.member_id,
        "authority_member_id": authority.authority_member,
        "via": authority.via,
        "delegation_id": authority.delegation_id,
        "amount": doc.amount,
        "currency": doc.currency,
        "winning_floor": authority.winning_floor,
        "eligible": list(authority.eligible),
        "resolution": [r.to_json() for r in authority.resolution],
        "comment": comment,
        "request_id": request_id,
        "decided_at": now,
        "prev_hash": doc.chain_hash,
    }
    row["hash"] = link_hash(row)
    return row


def lead_of(actor: Actor | SystemActor) -> timedelta | None:
    """The organization's reminder before a deadline (None: it sends none)."""
    minutes = actor.reminder_lead_minutes
    return timedelta(minutes=minutes) if minutes > 0 else None


def open_tasks(
    session: Session,
    doc: DocumentRecord,
    graph: Graph,
    plans: tuple[engine.TaskPlan, ...],
    now: datetime,
    lead: timedelta | None,
    *,
    level: int = 0,
    via: str | None = None,
    ids: list[int] | None = None,
) -> int:
    """Open the planned tasks, each with the moment the deadline sweep first has work
    for it (``domain.deadlines``); returns how many. ``level`` and ``via``: tasks the
    sweep opens above a step's own approvers (an escalation, a reassignment); ``ids``
    receives the new tasks' ids (the decision's own path needs none, and reads none)."""
    rows = task_rows(doc, graph, plans, now, lead, level=level, via=via)
    if rows and ids is not None:
        ids.extend(session.connection().scalars(insert(_TASK).returning(_TASK.c.id), rows))
    elif rows:
        session.connection().execute(insert(_TASK), rows)
    return len(rows)


def task_rows(
    doc: DocumentRecord,
    graph: Graph,
    plans: tuple[engine.TaskPlan, ...],
    now: datetime,
    lead: timedelta | None,
    *,
    level: int = 0,
    via: str | None = None,
) -> list[dict[str, Any]]:
    """The rows of the planned tasks (``open_tasks``), each with the moment the deadline
    sweep first has work for it."""
    rows = []
    for plan in plans:
        escalated = {m for m, _gap in plan.escalated}
        effects = deadlines.schedule(graph.state(plan.state), now, plan.due_at, lead)
        sweep_at = deadlines.next_sweep_at(effects, ())
        for member_id in plan.assignees:
            # Reached only past a gap (a vacant seat): the task says so.
            how = engine.Via.ESCALATION if member_id in escalated else engine.Via.GRANT
            rows.append(
                {
                    "org_id": doc.org_id,
                    "document_id": doc.id,
                    "state": plan.state,
                    "assignee_id": member_id,
                    "via": via or how,
                    "transitions": list(plan.transitions),
                    "band_floor": plan.band_floor,
                    "due_at": plan.due_at,
                    "status": TaskStatus.OPEN,
                    "created_at": now,
                    "level": level,
                    "sweep_at": sweep_at,
                }
            )
    return rows


def outbox_events(
    doc: DocumentRecord, plan: engine.Plan, actor: Actor | SystemActor, seq: int
) -> list[tuple[str, dict[str, Any]]]:
    """The side effects of this decision, as outbox rows written in its transaction:
    ``notify.*`` for people, ``posting.*`` for the ledger."""
    chosen, plans = plan.transition, plan.tasks
    base = {"document_id": doc.id, "reference": doc.reference, "decision": seq}
    events: list[tuple[str, dict[str, Any]]] = []
    assignees = sorted({m for plan in plans for m in plan.assignees})
    if assignees:
        assigned: dict[str, Any] = {**base, "members": assignees, "state": chosen.to_state}
        # Who was reached only by escalating past a gap, and past which (told to them).
        escalated = {str(m): gap.to_json() for p in plans for m, gap in p.escalated}
        if escalated:
            assigned["escalated"] = escalated
        events.append(("notify.task_assigned", assigned))
    if actor.member_id != doc.requester_id:
        events.append(
            (
                "notify.document_moved",
                {
                    **base,
                    "members": [doc.requester_id],
                    "transition": chosen.key,
                    "state": chosen.to_state,
                },
            )
        )
    if plan.posting is not None:
        events.append(
            (
                f"posting.{plan.posting}",
                {
                    **base,
                    "kind": doc.kind,
                    "amount": money_text(doc.amount),
                    "currency": doc.currency,
                    "state": chosen.to_state,
                },
            )
        )
    return events
