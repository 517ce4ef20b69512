"""Where approvals stall, read from the history and the documents: how long the visits
to each state lasted, who moved documents on, how many were submitted and finished in
each week, and how many wait in each state now (and how many of those are overdue).

Read-only Core statements with explicit ``org_id`` predicates (row-level security backs
them on PostgreSQL). Each answers aggregated, so what leaves the database is a few
dozen rows whatever the period — except the visits on SQLite (the embedded mode), whose
durations come back one by one for their percentiles to be taken in Python
(``domain.stalls.percentile``, the same linear interpolation as PostgreSQL's
``percentile_cont``).

**Bounded by the period.** A move within [start, end) belongs to a document created
before ``end`` whose current state was entered at or after ``start`` (every move sets
``state_entered_at``, so a document that moved in the period last moved no earlier):
``ix_document_decided (org_id, state_entered_at)`` finds those, and their decisions come
by ``(org_id, document_id, seq)``.

**Moves** are the history's rows but a handover's and what a passing deadline recorded
(an escalation, a reassignment): those change no state. When a state was entered is the
move before (LAG over the document's moves in chain order), or the document's creation.
A document's first move is its decision number 1: nothing precedes the first submission
(handovers and deadlines need a task, and tasks open only once a document is submitted).

Two statements read the moves, both from the documents the period bounds (so the
planner walks from those documents to their decisions, never over the organization's
whole history): the visits' durations, and every move counted alike (approvals per
approver and the weekly trend come from the same groups).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import (
    Float,
    Select,
    and_,
    bindparam,
    case,
    cast,
    exists,
    func,
    literal_column,
    select,
    tuple_,
)
from sqlalchemy.orm import Session

from portal.core.db import UtcDateTime, table_of
from portal.documents.models import OPEN_STATUS, Decision, Document, Task
from portal.domain.deadlines import DEADLINE_GATE
from portal.domain.graph import Gate
from portal.domain.handover import HANDOVER_GATE
from portal.domain.stalls import StateTime, state_time

_DOC = table_of(Document)
_DECISION = table_of(Decision)
_TASK = table_of(Task)

# History rows that move nothing: a handover, and what a passing deadline recorded.
_NOT_MOVES = (DEADLINE_GATE, HANDOVER_GATE)

# (version, state key) pairs, as the callers name states of the flow's versions.
StateKeys = Sequence[tuple[int, str]]


def _moves(*columns: Any, kind: str, version: int | None) -> Select[Any]:
    """``columns`` over the moves of the period's documents (see the module's note)."""
    where = [
        _DOC.c.org_id == bindparam("org"),
        _DOC.c.kind == kind,
        _DOC.c.state_entered_at >= bindparam("start"),
        _DOC.c.created_at < bindparam("end"),
        # A discarded draft was never submitted (no move to count); saying so lets the
        # partial ``ix_document_decided`` (listed documents) find the period's.
        _DOC.c.discarded_at.is_(None),
        _DECISION.c.org_id == bindparam("org"),
        _DECISION.c.gate.not_in(_NOT_MOVES),
    ]
    if version is not None:
        where.append(_DOC.c.version == version)
    return (
        select(*columns)
        .join_from(
            _DECISION,
            _DOC,
            and_(_DOC.c.org_id == _DECISION.c.org_id, _DOC.c.id == _DECISION.c.document_id),
        )
        .where(*where)
    )


def visit_times_in(
    session: Session, org_id: int, kind: str, version: int | None, start: datetime, end: datetime
) -> list[StateTime]:
    """Per state left in [``start``, ``end``): how many visits ended, their median, 90th
    percentile and longest duration (a state's key across versions is one state)."""
    entered = func.coalesce(
        func.lag(_DECISION.c.decided_at, type_=UtcDateTime()).over(
            partition_by=_DECISION.c.document_id, order_by=_DECISION.c.seq
        ),
        _DOC.c.created_at,
        type_=UtcDateTime(),
    )
    visits = _moves(
        _DECISION.c.from_state.label("state"),
        _DECISION.c.decided_at.label("left_at"),
        entered.label("entered_at"),
        kind=kind,
        version=version,
    ).subquery("visits")
    period = {"org": org_id, "start": start, "end": end}
    in_period = and_(visits.c.left_at >= bindparam("start"), visits.c.left_at < bindparam("end"))
    conn = session.connection()
    if conn.dialect.name == "postgresql":
        seconds = cast(func.extract("epoch", visits.c.left_at - visits.c.entered_at), Float())
        rows = conn.execute(
            select(
                visits.c.state,
                func.count(),
                func.percentile_cont(0.5).within_group(seconds),
                func.percentile_cont(0.9).within_group(seconds),
                func.max(seconds),
            )
            .where(in_period)
            .group_by(visits.c.state),
            period,
        )
        return [
            StateTime(state, n, max(0.0, median), max(0.0, p90), max(0.0, longest))
            for state, n, median, p90, longest in rows
        ]
    durations: dict[str, list[float]] = {}
    for state, left_at, entered_at in conn.execute(
        select(visits.c.state, visits.c.left_at, visits.c.entered_at).where(in_period), period
    ):
        durations.setdefault(state, []).append((left_at - entered_at).total_seconds())
    return [state_time(state, values) for state, values in durations.items()]


class MoveRow(NamedTuple):
    """Moves counted alike: by the document's version, the member who moved it (None
    for the requester's own acts and the system's), the transition, and — for moves
    that submitted or finished a document — the week they fell in."""

    version: int
    actor_id: int | None
    from_state: str
    transition: str
    to_state: str
    gate: str
    via: str
    # The index in ``week_starts`` of a submission's or a finish's week, else None.
    week: int | None
    moves: int
    submitted: int
    finished: int


def moves_in(
    session: Session,
    org_id: int,
    kind: str,
    version: int | None,
    week_starts: Sequence[datetime],
    end: datetime,
    *,
    forward: StateKeys,
    terminal: StateKeys,
) -> list[MoveRow]:
    """The moves decided in the period (from ``week_starts[0]``, UTC instants ascending,
    to ``end``), counted alike (``MoveRow``). A document's first move submits it when
    it enters a state that moves it on (``forward``); its first entry into a
    ``terminal`` state finishes it."""
    into_end = tuple_(_DOC.c.version, _DECISION.c.to_state).in_(list(terminal))
    history = _moves(
        _DOC.c.version,
        _DECISION.c.seq,
        _DECISION.c.actor_id,
        _DECISION.c.from_state,
        _DECISION.c.transition,
        _DECISION.c.to_state,
        _DECISION.c.gate,
        _DECISION.c.via,
        _DECISION.c.decided_at,
        # The document's first entry into a terminal state (its chain number).
        func.min(case((into_end, _DECISION.c.seq)))
        .over(partition_by=_DECISION.c.document_id)
        .label("first_end"),
        kind=kind,
        version=version,
    ).subquery("history")
    h = history.c
    submits = and_(h.seq == 1, tuple_(h.version, h.to_state).in_(list(forward)))
    finishes = h.first_end == h.seq
    # The week a move falls in: the last one begun before it (the zone's Mondays, so no
    # arithmetic on UTC instants, which daylight saving would shift).
    later = [
        (h.decided_at >= bindparam(f"week_{i}", starts, type_=UtcDateTime()), i)
        for i, starts in reversed(list(enumerate(week_starts)))
        if i
    ]
    week = case(*later, else_=literal_column("0")) if later else literal_column("0")
    group = (
        h.version,
        # The requester's own acts approve nothing: one group for all requesters.
        case((h.gate == Gate.REQUESTER, None), else_=h.actor_id),
        h.from_state,
        h.transition,
        h.to_state,
        h.gate,
        h.via,
        case((submits | finishes, week), else_=None),
    )
    statement = (
        select(
            *group,
            func.count(),
            func.sum(case((submits, 1), else_=0)),
            func.sum(case((finishes, 1), else_=0)),
        )
        .where(h.decided_at >= bindparam("start"), h.decided_at < bindparam("end"))
        .group_by(*group)
    )
    period = {"org": org_id, "start": week_starts[0], "end": end}
    return [MoveRow(*row) for row in session.connection().execute(statement, period).all()]


def waiting_in(
    session: Session,
    org_id: int,
    kind: str,
    version: int | None,
    states: list[str],
    now: datetime,
) -> list[Any]:
    """Per (version, state) among ``states``: how many ``kind`` documents are in it now
    (``waiting``), how many of those hold an open task past its due time there
    (``overdue``), and since when the longest-waiting one is there (``oldest``).
    Discarded drafts wait for nobody."""
    if not states:
        return []
    overdue = exists().where(
        _TASK.c.org_id == _DOC.c.org_id,
        _TASK.c.document_id == _DOC.c.id,
        _TASK.c.state == _DOC.c.state,
        _TASK.c.status == OPEN_STATUS,
        _TASK.c.due_at < bindparam("now"),
    )
    where = [
        _DOC.c.org_id == bindparam("org"),
        _DOC.c.kind == kind,
        _DOC.c.state.in_(states),
        _DOC.c.discarded_at.is_(None),
    ]
    if version is not None:
        where.append(_DOC.c.version == version)
    statement = (
        select(
            _DOC.c.version,
            _DOC.c.state,
            func.count().label("waiting"),
            func.sum(case((overdue, 1), else_=0)).label("overdue"),
            func.min(_DOC.c.state_entered_at).label("oldest"),
        )
        .where(*where)
        .group_by(_DOC.c.version, _DOC.c.state)
    )
    return list(session.connection().execute(statement, {"org": org_id, "now": now}))
