"""`portal bench transitions`: decisions per second through the service layer, beside
the same statements issued by a minimal hand-written loop on the same database.

The engine's transition (lock the document, resolve the bands over the cached chart,
check, advance, close and open tasks, append the hash-chained decision, write the
outbox) is timed on N submitted expense claims. The hand-written loop then moves N more
claims through the very same SQL — the locking read with the chart version, the
actor's tasks, the conditional UPDATE, the task, decision and outbox writes — with no
ORM and no rules, as the floor to compare with.
The benchmark organization is removed afterwards.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.bench.cleanup import purge_organizations
from portal.bench.transitions_floor import raw_connection, raw_rate
from portal.domain.actor import Role, SystemActor
from portal.orgchart import services as chart
from portal.provisioning import provision_organization

FIELDS = {"category": "travel", "expense_date": "2026-11-20"}
TEAMS = 5
PER_TEAM = 8


@dataclass(frozen=True)
class Figures:
    documents: int
    engine_per_second: float
    raw_per_second: float

    @property
    def ratio(self) -> float:
        return self.engine_per_second / self.raw_per_second if self.raw_per_second else 0.0


@dataclass
class _World:
    slug: str
    org_id: int
    requesters: list[Any]
    superiors: dict[int, Any]  # requester member id -> their superior's Actor
    executive_unit: int
    heads: dict[int, Any]  # requester member id -> their unit's head
    emails: dict[int, str]  # member id -> the address they sign in with


def build_world(prefix: str = "bench-", teams: int = TEAMS, per_team: int = PER_TEAM) -> _World:
    """An organization with TEAMS units, each a head over a lead over PER_TEAM staff, and
    two admins: under the expense claim's exclusive approval every claim has four
    different people to review (the lead), approve (the head), commit and pay it."""
    from portal.accounts.models import Organization  # noqa: F401 - mapped before use

    slug = f"{prefix}{uuid.uuid4().hex[:8]}"
    org = provision_organization(slug, "Benchmark Sdn Bhd", base_currency="MYR")
    system = SystemActor(org_id=org.id, org_slug=slug)
    admin_email = f"admin@{slug}.test"
    accounts.create_user(admin_email, "Bench Admin", "bench-pass-123")
    accounts.enrol_member(system, email=admin_email, roles=[Role.ADMIN])
    treasurer_email = f"treasurer@{slug}.test"
    accounts.create_user(treasurer_email, "Bench Treasurer", "bench-pass-123")
    accounts.enrol_member(system, email=treasurer_email, roles=[Role.ADMIN])
    ceo_unit = chart.create_unit(system, code="EXEC", name="Executive")
    ceo = chart.create_position(system, code="CEO", title="CEO", unit_id=ceo_unit.id)
    chart.update_unit(
        system, ceo_unit.id, code="EXEC", name="Executive", parent_id=None, head_position_id=ceo.id
    )

    emails: dict[int, str] = {}

    def person(email: str, name: str) -> Any:
        accounts.create_user(email, name, "bench-pass-123")
        accounts.enrol_member(system, email=email)
        user = account_queries.find_user(email)
        assert user is not None
        actor = account_queries.actor_for(slug, user.id, None)
        assert actor is not None
        emails[actor.member_id] = email
        return actor

    boss = person(f"ceo@{slug}.test", "Chief")
    chart.assign_position(system, member_id=boss.member_id, position_id=ceo.id)
    requesters, superiors, heads = [], {}, {}
    for t in range(teams):
        unit = chart.create_unit(system, code=f"T{t}", name=f"Team {t}", parent_id=ceo_unit.id)
        head_seat = chart.create_position(
            system, code=f"T{t}-HEAD", title="Team head", unit_id=unit.id, reports_to_id=ceo.id
        )
        chart.update_unit(
            system,
            unit.id,
            code=f"T{t}",
            name=f"Team {t}",
            parent_id=ceo_unit.id,
            head_position_id=head_seat.id,
        )
        head = person(f"head{t}@{slug}.test", f"Head {t}")
        chart.assign_position(system, member_id=head.member_id, position_id=head_seat.id)
        lead_seat = chart.create_position(
            system,
            code=f"T{t}-LEAD",
            title="Team lead",
            unit_id=unit.id,
            reports_to_id=head_seat.id,
        )
        lead = person(f"lead{t}@{slug}.test", f"Lead {t}")
        chart.assign_position(system, member_id=lead.member_id, position_id=lead_seat.id)
        for n in range(per_team):
            seat = chart.create_position(
                system,
                code=f"T{t}-S{n}",
                title="Staff",
                unit_id=unit.id,
                reports_to_id=lead_seat.id,
            )
            staff = person(f"s{t}-{n}@{slug}.test", f"Staff {t}.{n}")
            chart.assign_position(system, member_id=staff.member_id, position_id=seat.id)
            requesters.append(staff)
            superiors[staff.member_id] = lead
            heads[staff.member_id] = head
    return _World(slug, org.id, requesters, superiors, ceo_unit.id, heads, emails)


def _submitted(world: _World, count: int) -> list[tuple[Any, str]]:
    from portal.documents import services as documents
    from portal.documents.transitions import transition_document

    out = []
    for i in range(count):
        requester = world.requesters[i % len(world.requesters)]
        doc = documents.create_document(
            requester,
            kind="expense_claim",
            title=f"Claim {i}",
            amount=Decimal("120.00"),
            fields=FIELDS,
        )
        transition_document(requester, doc.reference, "submit", seen_state="draft")
        out.append((requester, doc.reference))
    return out


def _engine_rate(world: _World, claims: list[tuple[Any, str]]) -> float:
    from portal.documents.transitions import transition_document

    start = time.perf_counter()
    for requester, reference in claims:
        transition_document(
            world.superiors[requester.member_id], reference, "review", seen_state="pending_review"
        )
    return len(claims) / (time.perf_counter() - start)


def _remove(world: _World, owner_url: str) -> None:
    purge_organizations(owner_url, slug_like=world.slug, email_like=f"%@{world.slug}.test")


WARM_UP = 10
ROUNDS = 5


def bench_transitions(
    count: int, url: str, owner_url: str, progress: Callable[[str], None] = print
) -> Figures:
    """Build the world, time both loops on ``count`` claims each, remove the world (as
    the schema owner, ``owner_url``: the app may delete no organization).

    Both loops first warm up (caches, prepared statements), then run in alternating
    rounds, so that a noisy neighbour slows both alike."""
    progress(f"building a benchmark organization and {2 * (count + WARM_UP)} submitted claims …")
    world = build_world()
    try:
        claims = _submitted(world, 2 * (count + WARM_UP))
        engine_claims, raw_claims = claims[: count + WARM_UP], claims[count + WARM_UP :]
        raw = raw_connection(url)
        _engine_rate(world, engine_claims[:WARM_UP])
        raw_rate(world, raw_claims[:WARM_UP], raw)
        engine_claims, raw_claims = engine_claims[WARM_UP:], raw_claims[WARM_UP:]
        progress(f"timing both loops in {ROUNDS} alternating rounds …")
        engine_seconds = raw_seconds = 0.0
        size = max(1, count // ROUNDS)
        for start in range(0, count, size):
            chunk = engine_claims[start : start + size]
            engine_seconds += len(chunk) / _engine_rate(world, chunk)
            chunk = raw_claims[start : start + size]
            raw_seconds += len(chunk) / raw_rate(world, chunk, raw)
        raw.close()
        return Figures(count, count / engine_seconds, count / raw_seconds)
    finally:
        _remove(world, owner_url)
