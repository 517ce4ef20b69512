"""What the deadline tests share: documents of the seeded flows started by the demo
people, and reads of what the sweep did (tasks, history rows, outbox rows, effects)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from portal.core.outbox import OutboxEvent
from portal.core.uow import unit_of_work
from portal.deadlines.queries import RecordedEffect, effects_of
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.access import DocumentView
from portal.documents.models import Decision, Task
from portal.domain.actor import Actor
from portal.domain.graph import Deadline, Graph
from portal.flows import queries as flow_queries
from portal.flows import services as flows


def _next_wednesday_morning() -> datetime:
    """09:00 in Kuala Lumpur on the first Wednesday after today: later than the day
    the tests' people take their seats (today), whenever the suite runs — a fixed date
    would fall before the seats once it is past."""
    today = datetime.now(UTC).date()
    ahead = (2 - today.weekday()) % 7 or 7
    return datetime.combine(today + timedelta(days=ahead), time(1, 0), tzinfo=UTC)


# A Wednesday morning in Kuala Lumpur.
START = _next_wednesday_morning()
PURCHASE_FIELDS = {"supplier": "Office Depot", "category": "goods"}
LEAVE_FIELDS = {
    "leave_type": "annual",
    "first_day": (START + timedelta(days=19)).date().isoformat(),
    "last_day": (START + timedelta(days=22)).date().isoformat(),
}
CLAIM_FIELDS = {
    "category": "travel",
    "expense_date": (START - timedelta(days=12)).date().isoformat(),
}


def submitted(actor: Actor, kind: str = "purchase_request", amount: str = "500.00") -> DocumentView:
    """A document of ``kind`` that ``actor`` created and submitted."""
    fields = {
        "purchase_request": PURCHASE_FIELDS,
        "leave_request": LEAVE_FIELDS,
        "expense_claim": CLAIM_FIELDS,
    }[kind]
    doc = documents.create_document(
        actor, kind=kind, title="Deadline test", amount=Decimal(amount), fields=fields
    )
    return move(actor, doc, "submit")


def move(actor: Actor, doc: DocumentView, key: str, comment: str = "") -> DocumentView:
    return transitions.transition_document(
        actor, doc.reference, key, seen_state=doc.state, comment=comment
    ).document


def publish(admin: Actor, graph: Graph) -> None:
    current = flows.get_draft(admin, graph.kind).revision
    draft = flows.save_draft(admin, graph.kind, graph, revision=current)
    flows.publish_draft(admin, graph.kind, revision=draft.revision)


def with_deadline(admin: Actor, kind: str, state: str, deadline: Deadline | None, **more: Any):
    """Publish the current ``kind`` flow with ``state``'s deadline (and other settings
    of the state) changed."""
    graph = flow_queries.current_version(admin, kind).graph
    states = tuple(
        replace(s, deadline=deadline, **more) if s.key == state else s for s in graph.states
    )
    publish(admin, replace(graph, states=states))


def open_tasks(org_id: int, doc: DocumentView) -> list[tuple[int, str, int]]:
    """(assignee, via, level) of the document's open tasks, sorted."""
    with unit_of_work(org_id) as uow:
        rows = uow.session.execute(
            select(Task.assignee_id, Task.via, Task.level).where(
                Task.document_id == doc.id, Task.status == "open"
            )
        )
        return sorted((r[0], r[1], r[2]) for r in rows)


def task_rows(org_id: int, doc: DocumentView) -> list[Task]:
    with unit_of_work(org_id) as uow:
        rows = list(
            uow.session.scalars(select(Task).where(Task.document_id == doc.id).order_by(Task.id))
        )
        uow.session.expunge_all()
        return rows


def decisions(org_id: int, doc: DocumentView) -> list[Decision]:
    with unit_of_work(org_id) as uow:
        rows = list(
            uow.session.scalars(
                select(Decision).where(Decision.document_id == doc.id).order_by(Decision.seq)
            )
        )
        uow.session.expunge_all()
        return rows


def sweep_rows(org_id: int, doc: DocumentView) -> list[Decision]:
    return [d for d in decisions(org_id, doc) if d.gate == "deadline"]


def events(org_id: int, topic: str, doc: DocumentView | None = None) -> list[dict[str, Any]]:
    """The payloads of the outbox rows of ``topic`` (about ``doc``), in order."""
    with unit_of_work(org_id) as uow:
        payloads = list(
            uow.session.scalars(
                select(OutboxEvent.payload)
                .where(OutboxEvent.topic == topic)
                .order_by(OutboxEvent.id)
            )
        )
    return [p for p in payloads if doc is None or p.get("document_id") == doc.id]


def effects(org_id: int, doc: DocumentView) -> list[RecordedEffect]:
    with unit_of_work(org_id) as uow:
        return effects_of(uow.session, org_id, doc.id)


def globex_request(globex: Any, make_member: Any) -> tuple[Actor, Actor, DocumentView]:
    """A leave request in Globex: Gina (who reports to Gus, its admin) asks; Gus decides."""
    from portal.orgchart import services as orgchart

    gus = globex.admin.actor
    unit = orgchart.create_unit(gus, code="HQ", name="Head office")
    boss = orgchart.create_position(gus, code="BOSS", title="Boss", unit_id=unit.id)
    staff = orgchart.create_position(
        gus, code="STAFF", title="Staff", unit_id=unit.id, reports_to_id=boss.id
    )
    gina = make_member(globex.org, "Gina Globex").actor
    orgchart.assign_position(gus, member_id=gus.member_id, position_id=boss.id)
    orgchart.assign_position(gus, member_id=gina.member_id, position_id=staff.id)
    return gina, gus, submitted(gina, "leave_request", "0")
