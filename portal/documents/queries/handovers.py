"""Who a passing deadline handed a task to, and from whom: read from the deadline
sweep's decision rows (gate ``deadline``), whose ``resolution`` names, for each task it
acted on, the holder it came from and the members it went to (or the gap that stopped
it). The inbox says "escalated to you from Nurul Huda"; the document page says it of
each open task, with its due date; the history tells each act. A task its holder handed
to a colleague (gate ``handover``, ``domain.handover``) is read the same way: "handed
over by Nurul Huda".

Read-only, and no Flask. A row written by hand (or by an older release) is read
defensively: what cannot be understood is left out, never a broken page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.queries import MemberEntry, member_directory_in, member_names, time_zone_in
from portal.documents.access import DocumentRecord, VisibleDocument
from portal.documents.models import Decision, Task, TaskStatus
from portal.domain.deadlines import DEADLINE_GATE
from portal.domain.handover import HANDOVER_GATE, HANDOVER_TRANSITION
from portal.domain.time_zones import local_day
from portal.orgchart.queries import gap_names_in, load_chart


@dataclass(frozen=True)
class Handover:
    """One task a deadline decision acted on."""

    seq: int
    decided_at: datetime
    # The decision's transition: "escalate_up" or "reassign" (or "handover": its
    # holder handed it on).
    action: str
    # "breach" (the deadline passed) or "escalate_after" (it stood untouched).
    reason: str
    from_member: int | None
    # The task acted on (the holder's).
    task_id: int | None
    # Who got new tasks; empty when a gap stopped it.
    to_members: tuple[int, ...]
    # ``Gap.to_json()`` when nobody was found above; None otherwise.
    gap: Mapping[str, object] | None
    # Filled by ``named_in`` for the history: the names its sentence needs.
    from_name: str = ""
    to_names: tuple[str, ...] = ()
    gap_names: Mapping[str, object] = field(default_factory=dict)

    @property
    def by_deadline(self) -> bool:
        """A deadline's act, not a holder's handover."""
        return self.action != HANDOVER_TRANSITION


def _ids(value: object) -> tuple[int, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, int) and not isinstance(v, bool))


def _id(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def handovers_of(seq: int, decided_at: datetime, action: str, resolution: object) -> list[Handover]:
    """The tasks one deadline decision acted on, from its recorded ``resolution``."""
    if not isinstance(resolution, list):
        return []
    out = []
    for item in resolution:
        if not isinstance(item, dict):
            continue
        gap = item.get("gap")
        reason = item.get("kind")
        out.append(
            Handover(
                seq=seq,
                decided_at=decided_at,
                action=action,
                reason=reason if isinstance(reason, str) else "breach",
                from_member=_id(item.get("from_member")),
                task_id=_id(item.get("task")),
                to_members=_ids(item.get("members")),
                gap=gap if isinstance(gap, dict) and isinstance(gap.get("reason"), str) else None,
            )
        )
    return out


def handed_over_of(seq: int, decided_at: datetime, resolution: object) -> list[Handover]:
    """The task a holder handed over (a ``handover`` row), from its recorded
    ``resolution``: ``[{"handover": {"from": …, "to": …, "task": …}}]``."""
    if not isinstance(resolution, list):
        return []
    out = []
    for item in resolution:
        moved = item.get("handover") if isinstance(item, dict) else None
        if not isinstance(moved, dict):
            continue
        to = _id(moved.get("to"))
        out.append(
            Handover(
                seq=seq,
                decided_at=decided_at,
                action=HANDOVER_TRANSITION,
                reason=HANDOVER_TRANSITION,
                from_member=_id(moved.get("from")),
                task_id=_id(moved.get("task")),
                to_members=(to,) if to is not None else (),
                gap=None,
            )
        )
    return out


def handovers_in(
    session: Session, org_id: int, document_ids: Iterable[int]
) -> dict[int, list[Handover]]:
    """Every deadline handover on the documents, and every task a holder handed on,
    oldest first, by document id."""
    ids = sorted(set(document_ids))
    if not ids:
        return {}
    rows = session.execute(
        select(
            Decision.document_id,
            Decision.seq,
            Decision.decided_at,
            Decision.transition,
            Decision.resolution,
            Decision.gate,
        )
        .where(
            Decision.org_id == org_id,
            Decision.document_id.in_(ids),
            Decision.gate.in_((DEADLINE_GATE, HANDOVER_GATE)),
        )
        .order_by(Decision.document_id, Decision.seq)
    )
    found: dict[int, list[Handover]] = {}
    for document_id, seq, decided_at, action, resolution, gate in rows:
        acts = (
            handed_over_of(seq, decided_at, resolution)
            if gate == HANDOVER_GATE
            else handovers_of(seq, decided_at, action, resolution)
        )
        found.setdefault(document_id, []).extend(acts)
    return found


def named_in(session: Session, org_id: int, handovers: list[Handover]) -> list[Handover]:
    """The handovers with the names of the members they name, and of what each gap is
    about (the seat, as the chart stood on the day of the decision)."""
    if not handovers:
        return []
    ids: set[int | None] = {h.from_member for h in handovers}
    ids |= {m for h in handovers for m in h.to_members}
    names = member_names(session, ids)
    zone = time_zone_in(session, org_id) if any(h.gap for h in handovers) else "UTC"
    out = []
    for h in handovers:
        gap_names: Mapping[str, object] = {}
        if h.gap is not None:
            chart = load_chart(session, local_day(h.decided_at, zone))
            gap_names = gap_names_in(session, chart, h.gap)
        out.append(
            replace(
                h,
                from_name=names.get(h.from_member, f"#{h.from_member}")
                if h.from_member is not None
                else "",
                to_names=tuple(names.get(m, f"#{m}") for m in h.to_members),
                gap_names=gap_names,
            )
        )
    return out


def handed_from(handovers: Iterable[Handover], member_id: int) -> Handover | None:
    """The latest handover that gave ``member_id`` a task (escalated or reassigned to them)."""
    latest = None
    for h in handovers:
        if member_id in h.to_members and h.from_member is not None:
            latest = h
    return latest


@dataclass(frozen=True)
class OpenTask:
    """An open task on a document as its page shows it: who holds it, until when, and
    what a deadline did with it."""

    task_id: int
    member_id: int
    name: str
    # grant, delegation, escalation, reassignment, handover
    via: str
    due_at: datetime | None
    # Who it was escalated or reassigned from (a deadline handover), or who handed it
    # over, if anyone.
    from_name: str | None
    # Whom a deadline brought in above this holder ("escalated to …").
    escalated_to: tuple[str, ...]


def open_tasks_in(session: Session, doc: DocumentRecord) -> list[OpenTask]:
    """The document's open tasks in its current state, the soonest due first."""
    tasks = list(
        session.execute(
            select(Task.id, Task.assignee_id, Task.via, Task.due_at)
            .where(
                Task.org_id == doc.org_id,
                Task.document_id == doc.id,
                Task.state == doc.state,
                Task.status == TaskStatus.OPEN,
            )
            .order_by(Task.id)
        )
    )
    if not tasks:
        return []
    handovers = handovers_in(session, doc.org_id, [doc.id]).get(doc.id, [])
    # Only handovers made in the current state's visit: an earlier visit's are history.
    handovers = [h for h in handovers if h.decided_at >= doc.state_entered_at]
    ids: set[int | None] = {t.assignee_id for t in tasks}
    ids |= {h.from_member for h in handovers} | {m for h in handovers for m in h.to_members}
    names = member_names(session, ids)

    def name(member: int | None) -> str:
        return names.get(member, f"#{member}") if member is not None else ""

    out = []
    for task_id, member, via, due_at in tasks:
        source = handed_from(handovers, member)
        above: dict[int, None] = {}
        for h in handovers:
            if h.by_deadline and h.from_member == member and (h.task_id in (None, task_id)):
                above.update(dict.fromkeys(h.to_members))
        out.append(
            OpenTask(
                task_id=task_id,
                member_id=member,
                name=name(member),
                via=via,
                due_at=due_at,
                from_name=name(source.from_member) if source is not None else None,
                escalated_to=tuple(name(m) for m in above if m != member),
            )
        )
    return sorted(out, key=_soonest)


def _soonest(task: OpenTask) -> tuple[int, Any, str]:
    return (task.due_at is None, task.due_at or 0, task.name)


def colleagues_in(
    session: Session, loaded: VisibleDocument, member_id: int | None
) -> list[MemberEntry]:
    """Whom the reader may hand their open task on the document to, by name: every
    active member but themselves and the requester — empty when they hold no open task
    there. Whether the one chosen may decide the step is checked when it is handed
    (``documents.handover``): a list that ran the authority check for every member
    would cost a page load a read per member."""
    if member_id is None or not loaded.task_transitions:
        return []
    excluded = {member_id, loaded.doc.requester_id}
    return [m for m in member_directory_in(session) if m.id not in excluded]
