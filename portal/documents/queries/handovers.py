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

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from portal.accounts.queries import (
    MemberEntry,
    member_directory_in,
    member_name_of,
    member_names,
    time_zone_in,
)
from portal.core.db import table_of
from portal.documents.access import DocumentRecord, VisibleDocument
from portal.documents.models import OPEN_STATUS, Decision, Task
from portal.domain.deadlines import DEADLINE_GATE
from portal.domain.handover import HANDOVER_GATE, HANDOVER_TRANSITION
from portal.domain.time_zones import local_day
from portal.orgchart.queries import gap_names_in, load_chart

_TASK = table_of(Task)


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


# The gates of the decisions that hand tasks on: the deadline sweep's, a holder's.
HANDING_GATES = (DEADLINE_GATE, HANDOVER_GATE)


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
            Decision.gate.in_(HANDING_GATES),
        )
        .order_by(Decision.document_id, Decision.seq)
    )
    found: dict[int, list[Handover]] = {}
    for row in rows:
        found.setdefault(row.document_id, []).extend(handovers_from((row,)))
    return found


def handovers_from(decisions: Iterable[Any]) -> list[Handover]:
    """The handovers among one document's decisions already read, in their order (rows
    or ``Decision`` objects with ``seq``, ``decided_at``, ``transition``, ``resolution``
    and ``gate``): those of the deadline sweep and of holders handing a task on."""
    found: list[Handover] = []
    for d in decisions:
        if d.gate == HANDOVER_GATE:
            found.extend(handed_over_of(d.seq, d.decided_at, d.resolution))
        elif d.gate == DEADLINE_GATE:
            found.extend(handovers_of(d.seq, d.decided_at, d.transition, d.resolution))
    return found


def handover_member_ids(handovers: Iterable[Handover]) -> set[int | None]:
    """Everyone the handovers name: the holders they came from and went to."""
    ids: set[int | None] = set()
    for h in handovers:
        ids.add(h.from_member)
        ids.update(h.to_members)
    return ids


def named_in(
    session: Session,
    org_id: int,
    handovers: list[Handover],
    names: Mapping[int, str] | None = None,
) -> list[Handover]:
    """The handovers with the names of the members they name (read here unless the
    caller has ``names`` for them all already), and of what each gap is about (the seat,
    as the chart stood on the day of the decision)."""
    if not handovers:
        return []
    if names is None:
        names = member_names(session, handover_member_ids(handovers))
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


# The document's open tasks in its current state with their holders' names, by name:
# who the page says it waits for, and the open tasks it lists. Built once.
_OPEN_TASKS = (
    select(
        _TASK.c.id,
        _TASK.c.assignee_id,
        _TASK.c.via,
        _TASK.c.due_at,
        _TASK.c.transitions,
        member_name_of(_TASK.c.assignee_id, _TASK.c.org_id).label("name"),
    )
    .where(
        _TASK.c.org_id == bindparam("org"),
        _TASK.c.document_id == bindparam("document"),
        _TASK.c.state == bindparam("state"),
        _TASK.c.status == OPEN_STATUS,
    )
    .order_by("name", _TASK.c.id)
)


def open_task_rows_in(session: Session, doc: DocumentRecord) -> list[Any]:
    """The document's open tasks in its current state (``id``, ``assignee_id``, ``via``,
    ``due_at``, ``transitions`` and the holder's ``name``), by the holder's name."""
    return list(
        session.connection().execute(
            _OPEN_TASKS, {"org": doc.org_id, "document": doc.id, "state": doc.state}
        )
    )


def open_tasks_of(
    doc: DocumentRecord, tasks: list[Any], handovers: list[Handover], names: Mapping[int, str]
) -> list[OpenTask]:
    """The open tasks ``tasks`` (``open_task_rows_in``'s) with what the document's
    ``handovers`` did with them, the soonest due first; ``names`` has everyone the
    handovers name."""
    if not tasks:
        return []
    # Only handovers made in the current state's visit: an earlier visit's are history.
    handovers = [h for h in handovers if h.decided_at >= doc.state_entered_at]
    holders = {t.assignee_id: t.name for t in tasks if t.name is not None}

    def name(member: int | None) -> str:
        if member is None:
            return ""
        if member in holders:
            return holders[member]
        return names.get(member, f"#{member}")

    out = []
    for task in tasks:
        task_id, member = task.id, task.assignee_id
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
                via=task.via,
                due_at=task.due_at,
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
