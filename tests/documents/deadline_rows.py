"""What the deadline sweep leaves behind, written directly for the pages' tests: a
deadline decision (hash-chained under the document's lock, the chain head moved, the
state unchanged) with the tasks it opened, and reminder rows (``deadline_effect``).
The rows have the shapes the sweep writes ("The contract between the parts")."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.deadlines.models import DeadlineEffect
from portal.documents.models import Decision, Document, Task, TaskStatus
from portal.domain.chain import link_hash


def _document(session, org_id: int, reference: str) -> Document:
    return session.scalars(
        select(Document)
        .where(Document.org_id == org_id, Document.reference == reference)
        .with_for_update()
    ).one()


def _open_task(session, doc: Document, member_id: int) -> Task:
    return session.scalars(
        select(Task).where(
            Task.org_id == doc.org_id,
            Task.document_id == doc.id,
            Task.assignee_id == member_id,
            Task.status == TaskStatus.OPEN,
        )
    ).one()


def record_handover(
    org_id: int,
    reference: str,
    from_member: int,
    to_members: list[int],
    *,
    action: str = "escalate_up",
    kind: str = "breach",
    gap: dict[str, Any] | None = None,
    at: datetime | None = None,
    resolution: object = None,
) -> int:
    """A deadline decision moving ``from_member``'s task up (``escalate_up``: they keep
    theirs; ``reassign``: theirs is closed) to ``to_members`` — or, with ``gap``,
    finding nobody. ``resolution``: recorded instead of the one the sweep would
    write (a row written by hand). Answers the decision's seq."""
    now = at or clock.now()
    with unit_of_work(org_id) as uow:
        s = uow.session
        doc = _document(s, org_id, reference)
        task = _open_task(s, doc, from_member)
        via = "reassignment" if action == "reassign" else "escalation"
        row = _append_decision(
            s,
            doc,
            now,
            to_state=doc.state,
            transition=action,
            gate="deadline",
            via=via,
            eligible=[] if gap else list(to_members),
            resolution=resolution
            if resolution is not None
            else [
                {
                    "from_member": from_member,
                    "task": task.id,
                    "kind": kind,
                    "position_id": None,
                    "members": [] if gap else list(to_members),
                    "gap": gap,
                }
            ],
        )
        if not gap:
            for member in to_members:
                s.add(
                    Task(
                        org_id=org_id,
                        document_id=doc.id,
                        state=doc.state,
                        assignee_id=member,
                        via=via,
                        transitions=list(task.transitions),
                        band_floor=task.band_floor,
                        due_at=task.due_at,
                        status=TaskStatus.OPEN,
                        created_at=now,
                        level=task.level + 1,
                    )
                )
            if action == "reassign":
                task.status = TaskStatus.CANCELLED
        return int(row["seq"])


def record_system_move(org_id: int, reference: str, transition: str, to_state: str) -> None:
    """The system taking ``transition`` when a deadline passed, as recorded in the
    history (the document's state itself is left alone: only the page is read)."""
    with unit_of_work(org_id) as uow:
        s = uow.session
        doc = _document(s, org_id, reference)
        _append_decision(
            s,
            doc,
            clock.now(),
            to_state=to_state,
            transition=transition,
            gate="source",
            via="system",
            eligible=[],
            resolution=[],
        )


def _append_decision(
    session, doc: Document, now: datetime, *, to_state: str, **fields: Any
) -> dict[str, Any]:
    """The next link of the document's chain, by the system (no actor), the chain head
    moved on the document row (held under its lock by the caller)."""
    row: dict[str, Any] = {
        "org_id": doc.org_id,
        "document_id": doc.id,
        "seq": doc.chain_seq + 1,
        "flow_version_id": doc.flow_version_id,
        "from_state": doc.state,
        "to_state": to_state,
        "actor_id": None,
        "authority_member_id": None,
        "delegation_id": None,
        "amount": doc.amount,
        "currency": doc.currency,
        "winning_floor": None,
        "comment": "",
        "request_id": None,
        "decided_at": now,
        "prev_hash": doc.chain_hash,
        **fields,
    }
    row["hash"] = link_hash(row)
    session.add(Decision(**row))
    doc.chain_seq, doc.chain_hash = row["seq"], row["hash"]
    return row


def record_reminder(
    org_id: int,
    reference: str,
    member_id: int,
    *,
    kind: str = "breach",
    level: int = 1,
    action: str = "remind",
    at: datetime | None = None,
) -> None:
    """A reminder (or, with another ``action``, an effect that was not one) on the
    member's open task."""
    with unit_of_work(org_id) as uow:
        s = uow.session
        doc = _document(s, org_id, reference)
        task = _open_task(s, doc, member_id)
        s.add(
            DeadlineEffect(
                org_id=org_id,
                task_id=task.id,
                document_id=doc.id,
                kind=kind,
                level=level,
                action=action,
                outcome={"members": [member_id]},
                applied_at=at or clock.now(),
            )
        )
