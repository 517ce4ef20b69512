"""Handing an open task to another member (``domain.handover``): one unit of work.

``hand_over`` locks the document row, checks that the actor holds an open task on it in
the state they saw, that the receiver is an active member here (neither the holder nor
the requester) with authority of their own for a step the task authorises — the
engine's own check, run for the receiver with their covers and tasks — then cancels the
holder's task, opens the receiver's (``via`` handover: the work moves, not authority),
appends the handover to the document's hash chain and tells both people through the
outbox. All or nothing.

The decision row is written like the deadline sweep's (``deadlines.history``): the
state unchanged, the chain head moved on the document row under its lock, and the
``row_version`` left alone — nobody's view of the document is made stale by it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from portal.accounts.queries import MemberEntry, member_entry_in, today_in
from portal.core import outbox
from portal.core.clock import clock
from portal.core.db import table_of
from portal.core.outbox import add_events
from portal.core.uow import UnitOfWork, unit_of_work_for
from portal.documents.access import DocumentRecord, facts_of, load_visible, standing_in
from portal.documents.links import append_link
from portal.documents.models import OPEN_STATUS, Document, Task, TaskStatus
from portal.documents.queries.deciders import steps_decided_in
from portal.documents.queries.detail import DocumentDetail, document_detail_in
from portal.domain import engine
from portal.domain.actor import Actor
from portal.domain.authority import Principal
from portal.domain.errors import DomainError, NotFound
from portal.domain.handover import (
    HANDOVER_GATE,
    HANDOVER_TRANSITION,
    check_handover_reason,
    check_receiver,
)
from portal.flows.queries import version_in
from portal.orgchart.queries import load_chart

_DOC = table_of(Document)
_TASK = table_of(Task)

# The holder's open task in the document's current state (the first, should there be
# two): the one handed over.
_HOLDERS_TASK = (
    select(
        _TASK.c.id,
        _TASK.c.transitions,
        _TASK.c.band_floor,
        _TASK.c.due_at,
        _TASK.c.level,
        _TASK.c.sweep_at,
    )
    .where(
        _TASK.c.org_id == bindparam("org"),
        _TASK.c.document_id == bindparam("document"),
        _TASK.c.assignee_id == bindparam("member"),
        _TASK.c.state == bindparam("state"),
        _TASK.c.status == OPEN_STATUS,
    )
    .order_by(_TASK.c.id)
    .limit(1)
)
_CANCEL = (
    update(_TASK)
    .where(
        _TASK.c.org_id == bindparam("b_org"),
        _TASK.c.id == bindparam("b_id"),
        _TASK.c.status == OPEN_STATUS,
    )
    .values(
        status=TaskStatus.CANCELLED,
        completed_at=bindparam("completed_at"),
        completed_by=bindparam("completed_by"),
    )
)


@dataclass(frozen=True)
class HandedOver:
    reference: str
    receiver_id: int
    receiver_name: str
    # The handover's row in the history.
    decision_seq: int
    # The receiver's new task; None when they held an open one there already.
    task_id: int | None


def hand_over(
    actor: Actor,
    reference: str,
    *,
    to_member: int,
    reason: str,
    seen_state: str,
    request_id: str | None = None,
) -> HandedOver:
    """Hand the actor's open task on the document at ``reference`` (seen in
    ``seen_state``) to the member ``to_member``, saying why. One transaction; every
    refusal is a ``DomainError`` and writes nothing."""
    with unit_of_work_for(actor) as uow:
        return _hand_over_in(uow, actor, reference, to_member, reason, seen_state, request_id)


@dataclass(frozen=True)
class HandoverOnPage:
    """What a handover from the document page came to: the handover, or the refusal with
    the page as it stands (to show it beside the field it is about)."""

    handed: HandedOver | None
    refusal: DomainError | None
    detail: DocumentDetail | None


def hand_over_on_page(
    actor: Actor,
    reference: str,
    *,
    to_member: int,
    reason: str,
    seen_state: str,
    request_id: str | None = None,
) -> HandoverOnPage:
    """``hand_over`` for the document page, in one unit of work: a refusal is rolled back
    to a savepoint and the page is read in the same transaction; a handover that goes
    through reads no page (the caller redirects). A document the actor may not see is
    ``NotFound``."""
    with unit_of_work_for(actor) as uow:
        try:
            with uow.session.begin_nested():
                handed = _hand_over_in(
                    uow, actor, reference, to_member, reason, seen_state, request_id
                )
        except NotFound:
            raise
        except DomainError as refused:
            return HandoverOnPage(None, refused, document_detail_in(uow.session, actor, reference))
        return HandoverOnPage(handed, None, None)


def _hand_over_in(
    uow: UnitOfWork,
    actor: Actor,
    reference: str,
    to_member: int,
    reason: str,
    seen_state: str,
    request_id: str | None,
) -> HandedOver:
    session = uow.session
    loaded = load_visible(session, actor, reference, lock=True)
    doc = loaded.doc
    if seen_state != doc.state:
        raise engine.TransitionRefused("stale_state", seen=seen_state[:63], current=doc.state)
    conn = session.connection()
    task = conn.execute(
        _HOLDERS_TASK,
        {"org": doc.org_id, "document": doc.id, "member": actor.member_id, "state": doc.state},
    ).first()
    if task is None:
        raise DomainError("handover_not_holder")
    reason = check_handover_reason(reason)
    check_receiver(holder=actor.member_id, receiver=to_member, requester=doc.requester_id)
    # Scoped to the organization: another organization's member is nobody here.
    receiver = member_entry_in(session, to_member)
    if receiver is None:
        raise DomainError("handover_member_unknown", field="to_member")
    if not receiver.active:
        raise DomainError("handover_member_inactive", field="to_member")
    now = clock.now()
    conn.execute(
        _CANCEL,
        {
            "b_org": doc.org_id,
            "b_id": task.id,
            "completed_at": now,
            "completed_by": actor.member_id,
        },
    )
    # Checked with the holder's task gone, as the receiver will decide: a task the
    # holder held by escalation, lent by a cover from them, lends nothing once handed
    # over. A refusal rolls the cancellation back with the rest.
    holds_open = _check_eligible(session, actor, loaded.chart_version, doc, receiver, task)
    new_task = None if holds_open else _open_task(session, doc, receiver.id, task, now)
    seq = _append_decision(session, doc, actor, receiver.id, task, reason, request_id, now)
    add_events(
        session,
        [
            (
                "notify.task_handed_over",
                {
                    "members": [actor.member_id, receiver.id],
                    "document_id": doc.id,
                    "reference": doc.reference,
                    # The keys the notification keeps (``notifications.delivery``).
                    "from_member": actor.member_id,
                    "to_members": [receiver.id],
                    "state": doc.state,
                    "decision": seq,
                },
            )
        ],
    )
    uow.after_commit(lambda: outbox.nudge(actor.org_id))
    return HandedOver(doc.reference, receiver.id, receiver.name, seq, new_task)


def _check_eligible(
    session: Session,
    actor: Actor,
    chart_version: int,
    doc: DocumentRecord,
    receiver: MemberEntry,
    task: Any,
) -> bool:
    """Refuse ``handover_not_eligible`` unless the receiver could take one of the
    transitions the task authorises on authority of their own — the engine's check, as
    it would run were they deciding now; returns whether they hold an open task there
    already."""
    graph = version_in(session, actor.org_id, doc.kind, doc.version).graph
    chart = load_chart(session, today_in(session, actor), version=chart_version)
    standing = standing_in(session, doc, receiver.id, clock.today_in(actor.time_zone))
    facts = facts_of(doc, steps_decided_in(session, doc, graph))
    principal = Principal(receiver.id, covers=standing.covers, chained=standing.chained)
    keys = set(task.transitions)
    for transition in graph.transitions_from(doc.state):
        if transition.key not in keys:
            continue
        try:
            engine.authorize(
                graph,
                transition,
                facts,
                principal,
                chart,
                task_transitions=standing.task_transitions,
                locale=actor.locale,
            )
        except engine.TransitionRefused:
            continue
        return standing.holds_open
    raise DomainError("handover_not_eligible", field="to_member", name=receiver.name)


def _open_task(
    session: Session, doc: DocumentRecord, receiver: int, task: Any, now: datetime
) -> int:
    """The receiver's task: the holder's, moved (its state, transitions, band, deadline,
    level and next sweep), ``via`` handover."""
    return int(
        session.connection().scalar(
            insert(_TASK).returning(_TASK.c.id),
            {
                "org_id": doc.org_id,
                "document_id": doc.id,
                "state": doc.state,
                "assignee_id": receiver,
                "via": engine.Via.HANDOVER,
                "transitions": list(task.transitions),
                "band_floor": task.band_floor,
                "due_at": task.due_at,
                "status": TaskStatus.OPEN,
                "created_at": now,
                "level": task.level,
                "sweep_at": task.sweep_at,
            },
        )
    )


def _append_decision(
    session: Session,
    doc: DocumentRecord,
    actor: Actor,
    receiver: int,
    task: Any,
    reason: str,
    request_id: str | None,
    now: datetime,
) -> int:
    """The handover as the next link of the document's chain, from the head on its row
    (locked), and the head moved on; returns its ``seq``."""
    row: dict[str, Any] = {
        "org_id": doc.org_id,
        "document_id": doc.id,
        "seq": doc.chain_seq + 1,
        "flow_version_id": doc.flow_version_id,
        "from_state": doc.state,
        "to_state": doc.state,
        "transition": HANDOVER_TRANSITION,
        "gate": HANDOVER_GATE,
        "actor_id": actor.member_id,
        "authority_member_id": actor.member_id,
        # How the receiver came by the work; the authority stays theirs to have.
        "via": engine.Via.REASSIGNMENT,
        "delegation_id": None,
        "amount": doc.amount,
        "currency": doc.currency,
        "winning_floor": task.band_floor,
        "eligible": [receiver],
        "resolution": [{"handover": {"from": actor.member_id, "to": receiver, "task": task.id}}],
        "comment": reason,
        "request_id": request_id,
        "decided_at": now,
        "prev_hash": doc.chain_hash,
    }
    return append_link(session, row)[0]
