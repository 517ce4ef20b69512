"""Who approves: grants resolved over the org chart, and the routing preview.

The rules are pure (``domain.resolution``, ``domain.ladder``, ``domain.routing``); this
module loads the chart as it stood on a day into a ``ChartSnapshot`` and hands it to
them. One unit of work per public call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.models import Membership, Organization, User
from portal.accounts.queries import member_names
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, SystemActor, require_admin
from portal.domain.errors import DomainError, NotFound
from portal.domain.graph import Grant, Graph, Labels
from portal.domain.money import check_amount
from portal.domain.resolution import Gap, Resolution, resolve_all
from portal.domain.routing import Route, route
from portal.flows import queries as flow_queries
from portal.flows import services as flows
from portal.orgchart.models import OrgUnit, Position
from portal.orgchart.queries import load_chart


def resolve_grants(
    actor: Actor | SystemActor,
    grants: Sequence[tuple[int, Grant]],
    requester: int,
    *,
    on: date | None = None,
) -> list[Resolution]:
    """Resolve (index, grant) pairs for ``requester`` as of ``on`` (today by default)."""
    with unit_of_work_for(actor) as uow:
        chart = load_chart(uow.session, on or clock.today())
    return resolve_all(grants, requester, chart)


def route_document(
    actor: Actor | SystemActor,
    graph: Graph,
    requester: int,
    amount: Decimal,
    *,
    on: date | None = None,
) -> Route:
    """Every approval step of ``graph`` for this requester and amount."""
    with unit_of_work_for(actor) as uow:
        chart = load_chart(uow.session, on or clock.today())
    return route(graph, requester, amount, chart)


# --- the routing preview ---------------------------------------------------------------


@dataclass(frozen=True)
class FlowChoice:
    kind: str
    labels: Labels
    version: int


@dataclass(frozen=True)
class MemberChoice:
    id: int
    name: str
    email: str


@dataclass(frozen=True)
class PreviewChoices:
    flows: list[FlowChoice]
    members: list[MemberChoice]
    currency: str


def preview_choices(actor: Actor) -> PreviewChoices:
    """What the preview form offers: published flows, active members, the currency."""
    require_admin(actor)
    published = [
        FlowChoice(f.kind, f.labels, f.current_version)
        for f in flows.list_flows(actor)
        if f.current_version is not None
    ]
    with unit_of_work_for(actor) as uow:
        s = uow.session
        rows = s.execute(
            select(Membership.id, User.name, User.email)
            .join(User, User.id == Membership.user_id)
            .where(Membership.active.is_(True))
            .order_by(User.name)
        ).all()
        currency = _base_currency(s, actor.org_id)
    return PreviewChoices(published, [MemberChoice(*r) for r in rows], currency)


@dataclass(frozen=True)
class SeatName:
    code: str
    title: str
    unit_id: int


@dataclass(frozen=True)
class RoutePreview:
    kind: str
    version: int
    graph: Graph
    route: Route
    currency: str
    requester_name: str
    # Names for everything the route mentions, so the page says who and where.
    members: dict[int, str]
    seats: dict[int, SeatName]
    units: dict[int, str]
    # Each member's primary seat that day, to show where an approver sits.
    seat_of: dict[int, int]


def _base_currency(session: Session, org_id: int) -> str:
    return session.scalars(
        select(Organization.base_currency).where(Organization.id == org_id)
    ).one()


def preview_route(
    actor: Actor,
    *,
    kind: str,
    member_id: int,
    amount: Decimal,
    currency: str | None = None,
    on: date | None = None,
    graph: Graph | None = None,
) -> RoutePreview:
    """Who would approve ``member_id``'s document of ``amount``, step by step, under
    the current version of ``kind`` (or under ``graph``, a draft being edited: version
    0) — and what would strand it."""
    require_admin(actor)
    check_amount(amount)
    day = on or clock.today()
    if graph is None:
        try:
            current = flow_queries.current_version(actor, kind)
        except NotFound:
            raise DomainError("unknown_flow", field="kind", kind=kind[:64]) from None
        graph, number = current.graph, current.version
    else:
        number = 0
    with unit_of_work_for(actor) as uow:
        s = uow.session
        base = _base_currency(s, actor.org_id)
        if currency is not None and currency.strip().upper() != base:
            raise DomainError(
                "amount_currency_mismatch", field="currency", currency=currency[:8], base=base
            )
        requester = (
            s.execute(
                select(Membership.active, User.name)
                .join(User, User.id == Membership.user_id)
                .where(Membership.id == member_id)
            ).first()
            if 0 < member_id < 2**63  # no id outside BIGINT exists; the database cannot compare it
            else None
        )
        if requester is None:
            raise DomainError("unknown_requester", field="member_id")
        if not requester.active:
            raise DomainError("member_inactive", field="member_id", name=requester.name)
        chart = load_chart(s, day)
        result = route(graph, member_id, amount, chart)
        member_ids = {member_id}
        position_ids: set[int] = set()
        unit_ids: set[int] = set()
        for step in result.steps:
            for r in step.resolutions:
                member_ids.update(r.members)
                for seat_id in (r.position_id, r.grant.grantee.position):
                    if seat_id is not None:
                        position_ids.add(seat_id)
                if r.grant.grantee.member is not None:
                    member_ids.add(r.grant.grantee.member)
            for gap in (*step.gaps, *step.other_gaps, *(r.gap for r in step.resolutions if r.gap)):
                if gap.member_id is not None:
                    member_ids.add(gap.member_id)
                if gap.position_id is not None:
                    position_ids.add(gap.position_id)
                if gap.unit_id is not None:
                    unit_ids.add(gap.unit_id)
        seat_of = {m: chart.primary[m] for m in member_ids if m in chart.primary}
        position_ids.update(seat_of.values())
        names = member_names(s, member_ids)
    seats = {
        p: SeatName(chart.seats[p].code, chart.seats[p].title, chart.seats[p].unit_id)
        for p in position_ids
        if p in chart.seats
    }
    units = {u: chart.units[u].name for u in unit_ids if u in chart.units}
    return RoutePreview(
        kind=kind,
        version=number,
        graph=graph,
        route=result,
        currency=base,
        requester_name=requester.name,
        members=names,
        seats=seats,
        units=units,
        seat_of=seat_of,
    )


def preview_gap_params(gap: Gap, preview: RoutePreview) -> dict[str, object]:
    """The names a gap's sentence needs (``gap_<reason>``), from what the preview
    already loaded: no query."""
    params: dict[str, object] = {}
    if gap.position_id is not None:
        seat = preview.seats.get(gap.position_id)
        params["position"] = f"{seat.code} — {seat.title}" if seat else f"#{gap.position_id}"
    if gap.member_id is not None:
        params["member"] = preview.members.get(gap.member_id, f"#{gap.member_id}")
    if gap.unit_id is not None:
        params["unit"] = preview.units.get(gap.unit_id, f"#{gap.unit_id}")
    if gap.role is not None:
        params["role"] = gap.role
    return params


def gap_params(actor: Actor | SystemActor, gap: Mapping[str, object]) -> dict[str, object]:
    """The names a gap's sentence needs (``gap_<reason>`` in the messages): the seat,
    the member, the unit or the role it is about — for a refusal to read plainly."""
    params: dict[str, object] = {}
    with unit_of_work_for(actor) as uow:
        s = uow.session
        position_id = gap.get("position_id")
        if isinstance(position_id, int):
            seat = s.execute(
                select(Position.code, Position.title).where(Position.id == position_id)
            ).first()
            params["position"] = f"{seat.code} — {seat.title}" if seat else f"#{position_id}"
        member_id = gap.get("member_id")
        if isinstance(member_id, int):
            params["member"] = member_names(s, [member_id]).get(member_id, f"#{member_id}")
        unit_id = gap.get("unit_id")
        if isinstance(unit_id, int):
            params["unit"] = (
                s.scalar(select(OrgUnit.name).where(OrgUnit.id == unit_id)) or f"#{unit_id}"
            )
    if gap.get("role") is not None:
        params["role"] = gap["role"]
    return params
