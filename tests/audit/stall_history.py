"""A small history of purchase requests whose stall figures are known by hand, decided
through the real services with the clock moved between decisions — and Globex, with
requests in the same states, which must never be counted.

The demo organization (Kuala Lumpur, UTC+8) is seeded with the clock frozen on Sunday
1 November 2026, so its seats are held from then. Times below are UTC (KL = +8 h):

    P1 Siti    created Mon 2 Nov 01:00, submitted 02:00, approved by Nurul 12:00
    P2 Jason   created 03:00, submitted 04:00, rejected by Nurul Tue 3 Nov 10:00
    P3 Siti    created 05:00, submitted 07:00, approved by Nurul 09:00
    P4 Hannah  created and submitted 06:00, approved by Grace 12:00
    P5 Jason   created and submitted Tue 3 Nov 01:00 — still waiting, due Thu 5 Nov 01:00
    P6 Siti    created and submitted Sun 8 Nov 12:00 (20:00 in KL) — waiting, not yet due
    P8 Jason   created Sun 8 Nov 19:00, submitted 20:00 (Monday 9 Nov, 04:00 in KL)
    P7 Siti    a draft, never submitted
    now        Mon 9 Nov 01:00

Visits that ended (all in the week of 2 November):
    draft      P1 1 h, P2 1 h, P3 2 h, P4 0, P5 0, P6 0, P8 1 h -> median 1 h,
               p90 1 h 24 min (1 + 0.4 × 1 h), longest 2 h
    submitted  P3 2 h, P4 6 h, P1 10 h, P2 30 h -> median 8 h, p90 24 h (10 + 0.7 × 20),
               longest 30 h
Waiting now: 3 submitted (P5, P6, P8), 1 overdue (P5, waiting 6 days).
Approvals: Nurul 2 (P3, P1), Grace 1 (P4); Nurul's rejection of P2 is no approval.
Weeks in KL: week of 2 Nov — 6 submitted (P1–P6), 4 finished (P1–P4); week of 9 Nov —
1 submitted (P8, Sunday evening in UTC), 0 finished.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from portal.accounts.models import Organization
from portal.core.clock import clock
from portal.documents import services as documents
from portal.documents import transitions
from portal.domain.actor import Actor, Role, SystemActor
from portal.orgchart import services as orgchart
from tests.factories import Person, Tenant, demo_people

PURCHASE_FIELDS = {"supplier": "Paper Co", "category": "goods"}
SEEDED = datetime(2026, 11, 1, 0, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 9, 1, 0, tzinfo=UTC)
PERIOD = {"flow": "purchase_request", "from": "2026-11-02", "to": "2026-11-15"}

HOUR = 3600


def at(day: int, hour: int) -> datetime:
    return datetime(2026, 11, day, hour, 0, tzinfo=UTC)


def create(actor: Actor, title: str, amount: str = "100.00") -> Any:
    return documents.create_document(
        actor,
        kind="purchase_request",
        title=title,
        amount=Decimal(amount),
        fields=PURCHASE_FIELDS,
    )


def move(actor: Actor, doc: Any, key: str, comment: str = "") -> Any:
    return transitions.transition_document(
        actor, doc.reference, key, seen_state=doc.state, comment=comment
    ).document


@dataclass
class StallWorld:
    person: Callable[[str], Actor]
    globex_auditor: Person
    globex_boss: Person

    @property
    def auditor(self) -> Actor:
        return self.person("ravi")


def _globex_chart(org: Organization, make_member: Callable[..., Person]) -> tuple[Person, Person]:
    """A boss heading one unit and an employee under her, so Globex routes requests."""
    system = SystemActor(org_id=org.id, org_slug=org.slug)
    unit = orgchart.create_unit(system, code="HQ", name="Head office", parent_id=None)
    boss_seat = orgchart.create_position(
        system, code="BOSS", title="Boss", unit_id=unit.id, reports_to_id=None
    )
    seat = orgchart.create_position(
        system, code="EMP", title="Employee", unit_id=unit.id, reports_to_id=boss_seat.id
    )
    orgchart.update_unit(
        system,
        unit.id,
        code="HQ",
        name="Head office",
        parent_id=None,
        head_position_id=boss_seat.id,
    )
    boss = make_member(org, "Bea Boss")
    employee = make_member(org, "Eli Employee")
    orgchart.assign_position(system, member_id=boss.member_id, position_id=boss_seat.id)
    orgchart.assign_position(system, member_id=employee.member_id, position_id=seat.id)
    return boss, employee


def build_stall_world(globex: Tenant, make_member: Callable[..., Person]) -> StallWorld:
    clock.freeze(SEEDED)
    person = demo_people()
    boss, employee = _globex_chart(globex.org, make_member)
    globex_auditor = make_member(globex.org, "Gia Auditor", roles=(Role.AUDITOR,))
    siti, jason, hannah, nurul, grace = (
        person(n) for n in ("siti", "jason", "hannah", "nurul", "grace")
    )
    eli, bea = employee.actor, boss.actor

    clock.freeze(at(2, 1))
    p1 = create(siti, "P1 paper")
    # Globex: the same states, the same days — approved, rejected, waiting and overdue.
    g1 = move(eli, create(eli, "G1 paper"), "submit")
    g2 = move(eli, create(eli, "G2 paper"), "submit")
    g3 = move(eli, create(eli, "G3 paper"), "submit")
    clock.freeze(at(2, 2))
    p1 = move(siti, p1, "submit")
    clock.freeze(at(2, 3))
    p2 = create(jason, "P2 toner")
    clock.freeze(at(2, 4))
    p2 = move(jason, p2, "submit")
    clock.freeze(at(2, 5))
    p3 = create(siti, "P3 pens")
    clock.freeze(at(2, 6))
    p4 = move(hannah, create(hannah, "P4 stamps"), "submit")
    clock.freeze(at(2, 7))
    p3 = move(siti, p3, "submit")
    clock.freeze(at(2, 9))
    move(nurul, p3, "approve")
    clock.freeze(at(2, 12))
    move(nurul, p1, "approve")
    move(grace, p4, "approve")
    move(bea, g1, "approve")
    move(bea, g2, "reject", "Not in the budget")
    clock.freeze(at(3, 1))
    move(jason, create(jason, "P5 chairs"), "submit")
    clock.freeze(at(3, 10))
    move(nurul, p2, "reject", "Toner is in stock")
    clock.freeze(at(8, 12))
    move(siti, create(siti, "P6 desk"), "submit")
    clock.freeze(at(8, 19))
    p8 = create(jason, "P8 lamp")
    clock.freeze(at(8, 20))
    move(jason, p8, "submit")
    create(siti, "P7 draft")
    del g3  # waits, overdue by now, in Globex
    clock.freeze(NOW)
    return StallWorld(person, globex_auditor, boss)


@pytest.fixture
def stall_world(app, globex: Tenant, make_member: Callable[..., Person]) -> StallWorld:
    return build_stall_world(globex, make_member)
