"""Documents: create, edit while a draft, move through the flow, and read their history.

``transition_document`` is DESIGN §5 in one unit of work: lock the document row, check
the state the client saw, the transition, the comment, the guard and the actor's
authority (``domain.engine``), advance the state with a conditional UPDATE, close the
old tasks, append the hash-chained decision, open the next step's tasks (or refuse the
whole transition naming the gap), and write the outbox rows — all or nothing. Side
effects leave only after commit, through the outbox.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, case, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.models import Membership, Organization, User
from portal.accounts.queries import member_names
from portal.core import outbox
from portal.core.clock import clock
from portal.core.outbox import add_events
from portal.core.uow import unit_of_work_for
from portal.documents.models import (
    Decision,
    Document,
    ReferenceCounter,
    Task,
    TaskStatus,
)
from portal.domain import engine
from portal.domain.actor import Actor, SystemActor
from portal.domain.errors import DomainError, NotFound
from portal.domain.graph import DocumentField, FieldType, Graph, StateRole
from portal.domain.money import MAX_AMOUNT, check_amount
from portal.domain.orgchart import ChartSnapshot
from portal.flows import queries as flows
from portal.orgchart.queries import load_chart

MAX_TEXT_FIELD = 2000
PREFIXES = {"expense_claim": "EXP", "purchase_request": "PUR", "leave_request": "LVE"}


# --- input checks --------------------------------------------------------------------------


class FieldErrors(DomainError):
    """Several fields of one document are wrong; nothing was saved."""

    def __init__(self, errors: list[DomainError]) -> None:
        super().__init__("invalid_fields", num=len(errors))
        self.errors = errors


def reference_prefix(kind: str) -> str:
    """EXP for expense claims; otherwise the initials (or first letters) of the kind."""
    if kind in PREFIXES:
        return PREFIXES[kind]
    words = [w for w in kind.split("_") if w]
    letters = "".join(w[0] for w in words) if len(words) > 1 else kind
    return letters[:3].upper()


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _field_value(spec: DocumentField, value: object) -> object:
    """One declared field's value, as stored (JSON): refusals name the field."""
    where = f"fields.{spec.key}"
    label = spec.labels.get("en") or spec.key
    if spec.type == FieldType.TEXT:
        if not isinstance(value, str):
            raise DomainError("field_not_text", field=where, label=label)
        if len(value) > MAX_TEXT_FIELD:
            raise DomainError("field_too_long", field=where, label=label, limit=MAX_TEXT_FIELD)
        return value.strip()
    if spec.type in (FieldType.NUMBER, FieldType.MONEY):
        try:
            number = Decimal(str(value).replace(",", "").strip())
        except InvalidOperation:
            raise DomainError("field_not_number", field=where, label=label) from None
        if isinstance(value, bool) or not number.is_finite() or abs(number) >= MAX_AMOUNT:
            raise DomainError("field_not_number", field=where, label=label)
        if spec.type == FieldType.MONEY:
            check_amount(number, field=where)
        return str(number)  # exact, never a float
    if spec.type == FieldType.DATE:
        text = str(value).strip()
        try:
            if not _ISO_DATE.match(text):
                raise ValueError(text)
            date.fromisoformat(text)
        except ValueError:
            raise DomainError("field_not_date", field=where, label=label) from None
        return text
    if spec.type == FieldType.CHOICE:
        keys = [c.key for c in spec.choices]
        if value not in keys:
            raise DomainError("field_not_choice", field=where, label=label)
        return value
    if spec.type == FieldType.BOOL:
        if value in (True, "true", "on", "1", "yes"):
            return True
        if value in (False, "false", "off", "0", "no"):
            return False
        raise DomainError("field_not_bool", field=where, label=label)
    raise DomainError("field_unknown", field=where, key=spec.key)  # pragma: no cover


def check_fields(graph: Graph, values: Mapping[str, object]) -> dict[str, object]:
    """The declared fields, checked and normalised; every problem at once."""
    errors: list[DomainError] = []
    out: dict[str, object] = {}
    declared = {f.key: f for f in graph.fields}
    for key in values:
        if key not in declared:
            errors.append(DomainError("field_unknown", field=f"fields.{key}", key=str(key)[:63]))
    for key, spec in declared.items():
        value = values.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            if spec.required:
                label = spec.labels.get("en") or key
                errors.append(DomainError("field_required", field=f"fields.{key}", label=label))
            continue
        try:
            out[key] = _field_value(spec, value)
        except DomainError as error:
            errors.append(error)
    if errors:
        raise FieldErrors(errors)
    return out


def _check_title(title: str) -> str:
    cleaned = " ".join(title.split())
    if not cleaned:
        raise DomainError("title_required", field="title")
    if len(cleaned) > 200:
        raise DomainError("title_too_long", field="title", limit=200)
    return cleaned


# --- reading -------------------------------------------------------------------------------


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

    @property
    def is_draft(self) -> bool:
        state = self.graph.state(self.state)
        return state is not None and state.role == StateRole.DRAFT


def _facts(doc: Any) -> engine.DocumentFacts:
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
    )


# The transition's path runs on SQLAlchemy Core with explicit tenant predicates (and
# row-level security behind them on PostgreSQL): the ORM's per-statement cost would
# double the time of a decision. The statements are built once.
_DOC = Document.__table__
_TASK = Task.__table__
_DECISION = Decision.__table__
_MEMBER = Membership.__table__
_USER = User.__table__

_ORG = Organization.__table__
_SELECT_DOCUMENT = (
    select(
        _DOC,
        _USER.c.name.label("requester_name"),
        # Read with the document, so the chart snapshot costs no statement when cached.
        _ORG.c.chart_version.label("chart_version"),
    )
    .join_from(
        _DOC, _MEMBER, (_MEMBER.c.org_id == _DOC.c.org_id) & (_MEMBER.c.id == _DOC.c.requester_id)
    )
    .join(_USER, _USER.c.id == _MEMBER.c.user_id)
    .join(_ORG, _ORG.c.id == _DOC.c.org_id)
    .where(_DOC.c.org_id == bindparam("org"), _DOC.c.reference == bindparam("reference"))
)
_LOCK_DOCUMENT = _SELECT_DOCUMENT.with_for_update(of=_DOC)
_ADVANCE = (
    update(_DOC)
    .where(
        _DOC.c.org_id == bindparam("b_org"),
        _DOC.c.id == bindparam("b_id"),
        _DOC.c.state == bindparam("b_from"),
        _DOC.c.row_version == bindparam("b_row_version"),
    )
    .values(
        state=bindparam("state"),
        state_entered_at=bindparam("state_entered_at"),
        row_version=bindparam("row_version"),
        dispute_raiser_id=bindparam("dispute_raiser_id"),
        updated_at=bindparam("updated_at"),
        chain_seq=bindparam("chain_seq"),
        chain_hash=bindparam("chain_hash"),
    )
)
_CLOSE_TASKS = (
    update(_TASK)
    .where(
        _TASK.c.org_id == bindparam("b_org"),
        _TASK.c.document_id == bindparam("b_document"),
        _TASK.c.state == bindparam("b_state"),
        _TASK.c.status == TaskStatus.OPEN,
    )
    .values(
        status=case(
            (_TASK.c.assignee_id == bindparam("b_actor"), TaskStatus.COMPLETED),
            else_=TaskStatus.CANCELLED,
        ),
        completed_at=bindparam("completed_at"),
        completed_by=bindparam("completed_by"),
    )
)
_ACTOR_TASKS = select(_TASK.c.state, _TASK.c.status, _TASK.c.via, _TASK.c.transitions).where(
    _TASK.c.org_id == bindparam("org"),
    _TASK.c.document_id == bindparam("document"),
    _TASK.c.assignee_id == bindparam("member"),
)


@dataclass
class _Loaded:
    # The document's columns (a row, or a namespace of its values after a change).
    doc: Any
    requester_name: str
    # The transitions the actor's own open tasks in the current state authorise, and how
    # the task came to them (``engine.authorize``'s ``task_transitions``).
    task_transitions: dict[str, str]


def _load(
    session: Session, actor: Actor | SystemActor, reference: str, *, lock: bool = False
) -> _Loaded:
    """The document, if the actor may see it (DESIGN §4 Visibility: the requester,
    whoever holds or held a task on it, admins and auditors; to everyone else it does
    not exist), with what the pipeline needs to know about the actor's tasks. Two
    statements: this is on every transition's path."""
    conn = session.connection()
    row = conn.execute(
        _LOCK_DOCUMENT if lock else _SELECT_DOCUMENT,
        {"org": actor.org_id, "reference": reference[:32]},
    ).first()
    if row is None:
        raise NotFound("document")
    held = False
    task_transitions: dict[str, str] = {}
    if actor.member_id is not None:
        for state, status, via, keys in conn.execute(
            _ACTOR_TASKS, {"org": actor.org_id, "document": row.id, "member": actor.member_id}
        ):
            held = True
            if state == row.state and status == TaskStatus.OPEN:
                for key in keys:
                    task_transitions.setdefault(key, via)
    visible = actor.is_admin or actor.is_auditor or actor.member_id == row.requester_id or held
    if not visible:
        raise NotFound("document")
    return _Loaded(row, row.requester_name, task_transitions)


def _changed(loaded: _Loaded, values: Mapping[str, Any]) -> _Loaded:
    doc = (
        SimpleNamespace(**{**loaded.doc._asdict(), **values})
        if hasattr(loaded.doc, "_asdict")
        else SimpleNamespace(**{**vars(loaded.doc), **values})
    )
    return _Loaded(doc, loaded.requester_name, loaded.task_transitions)


def _view(session: Session, org_id: int, loaded: _Loaded) -> DocumentView:
    doc = loaded.doc
    graph = flows.version_in(session, org_id, doc.kind, doc.version).graph
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
        requester_name=loaded.requester_name,
        version=doc.version,
        state=doc.state,
        state_entered_at=doc.state_entered_at,
        created_at=doc.created_at,
        graph=graph,
    )


def get_document(actor: Actor | SystemActor, reference: str) -> DocumentView:
    with unit_of_work_for(actor) as uow:
        return _view(uow.session, actor.org_id, _load(uow.session, actor, reference))


# --- creating and editing ------------------------------------------------------------------


def _next_reference(session: Session, prefix: str, year: int) -> str:
    """The next number for (prefix, year), taken under the counter row's lock: a
    concurrent creation waits, and a rolled-back one gives its number back."""
    counter = session.scalars(
        select(ReferenceCounter)
        .where(ReferenceCounter.prefix == prefix, ReferenceCounter.year == year)
        .with_for_update()
    ).first()
    if counter is None:
        try:
            with session.begin_nested():
                session.add(ReferenceCounter(prefix=prefix, year=year, last_number=0))
        except IntegrityError:
            pass  # a concurrent first creation made the row: take it, under its lock
        counter = session.scalars(
            select(ReferenceCounter)
            .where(ReferenceCounter.prefix == prefix, ReferenceCounter.year == year)
            .with_for_update()
        ).one()
    counter.last_number += 1
    session.flush()
    return f"{prefix}-{year}-{counter.last_number:05d}"


def create_document(
    actor: Actor,
    *,
    kind: str,
    title: str,
    amount: Decimal,
    currency: str | None = None,
    description: str = "",
    fields: Mapping[str, object] | None = None,
) -> DocumentView:
    """A new document in its flow's draft state, pinned to the current version."""
    title = _check_title(title)
    check_amount(amount)
    now = clock.now()
    with unit_of_work_for(actor) as uow:
        s = uow.session
        base = s.scalars(
            select(Organization.base_currency).where(Organization.id == actor.org_id)
        ).one()
        if currency is not None and currency.strip().upper() != base:
            raise DomainError(
                "amount_currency_mismatch", field="currency", currency=currency[:8], base=base
            )
        try:
            version_id, version = flows.current_version_in(s, actor.org_id, kind)
        except NotFound:
            raise DomainError("unknown_flow", field="kind", kind=kind[:64]) from None
        initial = version.graph.initial_state()
        assert initial is not None  # a published graph has exactly one draft state
        values = check_fields(version.graph, fields or {})
        doc = Document(
            kind=kind,
            reference=_next_reference(s, reference_prefix(kind), now.year),
            title=title,
            description=description.strip(),
            amount=amount,
            currency=base,
            fields=values,
            requester_id=actor.member_id,
            flow_version_id=version_id,
            version=version.version,
            state=initial.key,
            state_entered_at=now,
            created_at=now,
            updated_at=now,
        )
        s.add(doc)
        s.flush()
        name = member_names(s, [actor.member_id]).get(actor.member_id, "")
        return _view(s, actor.org_id, _Loaded(doc, name, {}))


def update_document(
    actor: Actor,
    reference: str,
    *,
    title: str | None = None,
    description: str | None = None,
    amount: Decimal | None = None,
    fields: Mapping[str, object] | None = None,
) -> DocumentView:
    """Edit a draft. Only the requester may, and only while it is in its draft state:
    the amount is frozen once the document has left it."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        loaded = _load(s, actor, reference, lock=True)
        doc = loaded.doc
        if actor.member_id != doc.requester_id:
            raise engine.TransitionRefused("not_requester")
        graph = flows.version_in(s, actor.org_id, doc.kind, doc.version).graph
        state = graph.state(doc.state)
        if state is None or state.role != StateRole.DRAFT:
            raise DomainError("document_frozen", state=doc.state)
        values: dict[str, Any] = {"updated_at": clock.now()}
        if title is not None:
            values["title"] = _check_title(title)
        if description is not None:
            values["description"] = description.strip()
        if amount is not None:
            values["amount"] = check_amount(amount)
        if fields is not None:
            values["fields"] = check_fields(graph, fields)
        s.execute(update(Document).where(Document.id == doc.id).values(**values))
        return _view(s, actor.org_id, _changed(loaded, values))


# --- moving --------------------------------------------------------------------------------


def _principal(actor: Actor | SystemActor, chart: ChartSnapshot) -> engine.Principal:
    unit = None
    if actor.member_id is not None:
        seat_id = chart.primary.get(actor.member_id)
        if seat_id is not None and seat_id in chart.seats:
            unit_row = chart.units.get(chart.seats[seat_id].unit_id)
            unit = unit_row.code if unit_row else None
    return engine.Principal(actor.member_id, frozenset(actor.roles), unit)


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
    ``seen_state``. One transaction; every refusal is a ``TransitionRefused``."""
    comment = comment.strip()
    with unit_of_work_for(actor) as uow:
        s = uow.session
        loaded = _load(s, actor, reference, lock=True)
        doc = loaded.doc
        graph = flows.version_in(s, actor.org_id, doc.kind, doc.version).graph
        now = clock.now()
        chart = load_chart(s, now.date(), version=doc.chart_version)
        plan = engine.decide(
            graph,
            _facts(doc),
            transition,
            seen_state=seen_state,
            comment=comment,
            actor=_principal(actor, chart),
            chart=chart,
            now=now,
            task_transitions=loaded.task_transitions,
            locale=actor.locale,
        )
        chosen, authority, plans = plan.transition, plan.authority, list(plan.tasks)

        decision = _decision(doc, chosen, actor, authority, comment, request_id, now)
        # Advance, conditional on the state and row version read under the lock, moving
        # the head of the decision chain with it.
        advanced = {
            "state": chosen.to_state,
            "state_entered_at": now,
            "row_version": doc.row_version + 1,
            "dispute_raiser_id": plan.dispute_raiser,
            "updated_at": now,
            "chain_seq": decision["seq"],
            "chain_hash": decision["hash"],
        }
        conn = s.connection()
        moved = conn.execute(
            _ADVANCE,
            {
                "b_org": actor.org_id,
                "b_id": doc.id,
                "b_from": doc.state,
                "b_row_version": doc.row_version,
                **advanced,
            },
        )
        if moved.rowcount != 1:
            current = conn.scalar(select(_DOC.c.state).where(_DOC.c.id == doc.id))
            raise engine.TransitionRefused("stale_state", seen=seen_state, current=current)

        _close_tasks(s, doc, actor.member_id, now)
        conn.execute(insert(_DECISION), decision)
        opened = _open_tasks(s, doc, plans, now)
        seq = decision["seq"]
        _write_outbox(s, doc, plan, actor, seq)
        uow.after_commit(lambda: outbox.nudge(actor.org_id))
        return Moved(_view(s, actor.org_id, _changed(loaded, advanced)), seq, opened)


def _close_tasks(session: Session, doc: Any, actor_id: int | None, now: datetime) -> None:
    """The decision that leaves a state completes the actor's task there and cancels
    everyone else's (one statement: this is the hot path)."""
    session.execute(
        update(Task)
        .where(Task.document_id == doc.id, Task.state == doc.state, Task.status == TaskStatus.OPEN)
        .values(
            status=case(
                (Task.assignee_id == actor_id, TaskStatus.COMPLETED), else_=TaskStatus.CANCELLED
            ),
            completed_at=now,
            completed_by=actor_id,
        )
        .execution_options(synchronize_session=False)
    )


def _decision(
    doc: Any,
    chosen: Any,
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
        "delegation_id": None,
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
    row["hash"] = engine.decision_hash(doc.chain_hash, _chained(SimpleNamespace(**row)))
    return row


def _money_text(amount: Decimal) -> str:
    """One spelling per amount, at the precision money is stored with (NUMERIC(19,4))."""
    return format(Decimal(amount).quantize(Decimal("0.0001")), "f")


def _chained(row: Any) -> dict[str, Any]:
    """Everything a decision records, as hashed (the hash itself excepted)."""
    return {
        "document_id": row.document_id,
        "seq": row.seq,
        "flow_version_id": row.flow_version_id,
        "from_state": row.from_state,
        "to_state": row.to_state,
        "transition": row.transition,
        "gate": row.gate,
        "actor_id": row.actor_id,
        "authority_member_id": row.authority_member_id,
        "via": row.via,
        "delegation_id": row.delegation_id,
        "amount": _money_text(row.amount),
        "currency": row.currency,
        "winning_floor": (
            _money_text(row.winning_floor) if row.winning_floor is not None else None
        ),
        "eligible": list(row.eligible),
        "resolution": row.resolution,
        "comment": row.comment,
        "request_id": row.request_id,
        "decided_at": row.decided_at.isoformat(timespec="microseconds"),
        "prev_hash": row.prev_hash,
    }


def _open_tasks(session: Session, doc: Any, plans: list[engine.TaskPlan], now: datetime) -> int:
    rows = [
        {
            "org_id": doc.org_id,
            "document_id": doc.id,
            "state": plan.state,
            "assignee_id": member_id,
            "via": engine.Via.GRANT,
            "transitions": list(plan.transitions),
            "band_floor": plan.band_floor,
            "due_at": plan.due_at,
            "status": TaskStatus.OPEN,
            "created_at": now,
        }
        for plan in plans
        for member_id in plan.assignees
    ]
    if rows:
        session.connection().execute(insert(_TASK), rows)
    return len(rows)


def _write_outbox(
    session: Session,
    doc: Any,
    plan: engine.Plan,
    actor: Actor | SystemActor,
    seq: int,
) -> None:
    """The side effects of this decision, in its own transaction."""
    chosen, plans = plan.transition, plan.tasks
    base = {"document_id": doc.id, "reference": doc.reference, "decision": seq}
    events: list[tuple[str, dict[str, Any]]] = []
    assignees = sorted({m for plan in plans for m in plan.assignees})
    if assignees:
        events.append(
            ("notify.task_assigned", {**base, "members": assignees, "state": chosen.to_state})
        )
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
    posting = plan.posting
    if posting is not None:
        events.append(
            (
                f"posting.{posting}",
                {
                    **base,
                    "kind": doc.kind,
                    "amount": _money_text(doc.amount),
                    "currency": doc.currency,
                    "state": chosen.to_state,
                },
            )
        )
    add_events(session, events)


# --- what an actor may do ------------------------------------------------------------------


@dataclass(frozen=True)
class Available:
    key: str
    to_state: str
    allowed: bool
    comment_required: bool
    # Why not, when not: a refusal code and its parameters.
    refusal: DomainError | None


def available_transitions(actor: Actor | SystemActor, reference: str) -> list[Available]:
    """Every exit of the document's current state, each allowed or with the reason it
    is not (authority and guard), in display order."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        loaded = _load(s, actor, reference)
        graph = flows.version_in(s, actor.org_id, loaded.doc.kind, loaded.doc.version).graph
        return _available_in(s, actor, loaded, graph)


def _available_in(
    session: Session, actor: Actor | SystemActor, loaded: _Loaded, graph: Graph
) -> list[Available]:
    doc = loaded.doc
    facts = _facts(doc)
    chart = load_chart(session, clock.today())
    principal = _principal(actor, chart)
    tasks = loaded.task_transitions
    out = []
    for t in graph.transitions_from(doc.state):
        refusal: DomainError | None = None
        try:  # in the pipeline's order: the guard, then authority
            engine.check_guard(t, facts, principal, locale=actor.locale)
            engine.authorize(graph, t, facts, principal, chart, task_transitions=tasks)
        except engine.TransitionRefused as refused:
            refusal = refused
        out.append(Available(t.key, t.to_state, refusal is None, t.comment == "required", refusal))
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


def history(actor: Actor | SystemActor, reference: str) -> list[HistoryEntry]:
    with unit_of_work_for(actor) as uow:
        s = uow.session
        doc = _load(s, actor, reference).doc
        return _history_in(s, _decisions(s, doc))


def _decisions(session: Session, doc: Any) -> list[Any]:
    return list(
        session.scalars(
            select(Decision).where(Decision.document_id == doc.id).order_by(Decision.seq)
        )
    )


def _history_in(session: Session, rows: list[Any]) -> list[HistoryEntry]:
    ids = {r.actor_id for r in rows if r.actor_id is not None}
    ids |= {r.authority_member_id for r in rows if r.authority_member_id is not None}
    ids |= {m for r in rows for m in r.eligible}
    names = member_names(session, ids)
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
        )
        for r in rows
    ]


def waiting_for(actor: Actor | SystemActor, reference: str) -> dict[str, list[str]]:
    """Who holds the document's open tasks now, by the transitions they may take: so a
    requester knows whom they are waiting for."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        return _waiting_in(s, _load(s, actor, reference).doc)


def _waiting_in(session: Session, doc: Any) -> dict[str, list[str]]:
    rows = session.execute(
        select(Task.transitions, User.name)
        .join(Membership, Membership.id == Task.assignee_id)
        .join(User, User.id == Membership.user_id)
        .where(
            Task.document_id == doc.id,
            Task.state == doc.state,
            Task.status == TaskStatus.OPEN,
        )
        .order_by(User.name)
    ).all()
    waiting: dict[str, list[str]] = {}
    for keys, name in rows:
        for key in keys:
            waiting.setdefault(key, []).append(name)
    return waiting


@dataclass(frozen=True)
class ChainCheck:
    ok: bool
    decisions: int
    # The first decision whose hash does not follow from its record and predecessor.
    broken_at: int | None = None


def verify_history(actor: Actor | SystemActor, reference: str) -> ChainCheck:
    """Recompute the document's hash chain from the stored records, and check it ends
    where the document says it does."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        doc = _load(s, actor, reference).doc
        return _chain_check(doc, _decisions(s, doc))


def _chain_check(doc: Any, rows: list[Any]) -> ChainCheck:
    prev = engine.GENESIS_HASH
    for expected_seq, row in enumerate(rows, start=1):
        if row.seq != expected_seq or row.prev_hash != prev:
            return ChainCheck(False, len(rows), row.seq)
        if engine.decision_hash(prev, _chained(row)) != row.hash:
            return ChainCheck(False, len(rows), row.seq)
        prev = row.hash
    # The document row carries the chain's head: a missing last decision shows here.
    if (doc.chain_seq, doc.chain_hash) != (len(rows), prev):
        return ChainCheck(False, len(rows), min(doc.chain_seq, len(rows) + 1))
    return ChainCheck(True, len(rows))


@dataclass(frozen=True)
class DocumentPage:
    """Everything the detail page shows, read in one unit of work."""

    document: DocumentView
    actions: list[Available]
    waiting: dict[str, list[str]]
    history: list[HistoryEntry]
    chain: ChainCheck


def document_page(actor: Actor | SystemActor, reference: str) -> DocumentPage:
    """The document, its exits for this actor, who holds it, and its verified history:
    one visibility check, one read of the decisions."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        loaded = _load(s, actor, reference)
        view = _view(s, actor.org_id, loaded)
        decisions = _decisions(s, loaded.doc)
        return DocumentPage(
            document=view,
            actions=_available_in(s, actor, loaded, view.graph),
            waiting=_waiting_in(s, loaded.doc),
            history=_history_in(s, decisions),
            chain=_chain_check(loaded.doc, decisions),
        )


def count_open_tasks(actor: Actor | SystemActor, reference: str) -> int:
    with unit_of_work_for(actor) as uow:
        s = uow.session
        doc = _load(s, actor, reference).doc
        return (
            s.scalar(
                select(func.count(Task.id)).where(
                    Task.document_id == doc.id, Task.status == TaskStatus.OPEN
                )
            )
            or 0
        )


# --- lists ---------------------------------------------------------------------------------
# Appended as one section (the imports above belong to other sections' owners).

from portal.domain.graph import Labels  # noqa: E402

MAX_PER_PAGE = 100


@dataclass(frozen=True)
class StartableKind:
    """A kind a member may start a document of: it has a published version."""

    kind: str
    labels: Labels
    # The current version, the one a new document starts on.
    version: int


def startable_kinds(actor: Actor) -> list[StartableKind]:
    """Every kind with a published version, by kind; any member may start one."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        rows = flows.published_kinds_in(s)
        return [
            StartableKind(
                kind, flows.version_in(s, actor.org_id, kind, number).graph.labels, number
            )
            for kind, number in rows
        ]


@dataclass(frozen=True)
class NewDocument:
    """What the new-document form needs: the kind's current graph and the currency
    every amount is in."""

    kind: str
    version: int
    graph: Graph
    currency: str


def new_document_setup(actor: Actor, kind: str) -> NewDocument:
    """The form for a new ``kind`` document; ``NotFound`` when nothing is published."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        _, version = flows.current_version_in(s, actor.org_id, kind[:63])
        base = s.scalars(
            select(Organization.base_currency).where(Organization.id == actor.org_id)
        ).one()
        return NewDocument(version.kind, version.version, version.graph, base)


@dataclass(frozen=True)
class DocumentRow:
    reference: str
    kind: str
    title: str
    amount: Decimal
    currency: str
    state: str
    state_entered_at: datetime
    version: int


@dataclass(frozen=True)
class Page:
    rows: list[DocumentRow]
    total: int
    page: int
    pages: int


def list_my_documents(
    actor: Actor,
    *,
    state: str | None = None,
    kind: str | None = None,
    page: int = 1,
    per_page: int = 25,
) -> Page:
    """The actor's own documents (they are the requester), newest first."""
    per_page = min(max(per_page, 1), MAX_PER_PAGE)
    where = [_DOC.c.org_id == actor.org_id, _DOC.c.requester_id == actor.member_id]
    if kind:
        where.append(_DOC.c.kind == kind[:63])
    if state:
        where.append(_DOC.c.state == state[:63])
    with unit_of_work_for(actor) as uow:
        conn = uow.session.connection()
        total = conn.scalar(select(func.count()).select_from(_DOC).where(*where)) or 0
        pages = max(1, -(-total // per_page))
        page = min(max(page, 1), pages)
        rows = conn.execute(
            select(
                _DOC.c.reference,
                _DOC.c.kind,
                _DOC.c.title,
                _DOC.c.amount,
                _DOC.c.currency,
                _DOC.c.state,
                _DOC.c.state_entered_at,
                _DOC.c.version,
            )
            .where(*where)
            .order_by(_DOC.c.created_at.desc(), _DOC.c.id.desc())
            .limit(per_page)
            .offset((page - 1) * per_page)
        ).all()
    return Page([DocumentRow(*row) for row in rows], total, page, pages)
