"""The org chart's side of routing: grants resolved and a graph routed over the chart as
it stood on a day, and the route preview's names.

The rules are pure (``domain.resolution``, ``domain.ladder``, ``domain.routing``); the
chart comes from ``orgchart.queries.load_chart``. Which graph to route (a flow's
current version, a draft) is the flows feature's business: ``preview_route_in`` is
handed it, inside the caller's unit of work. ``resolve_grants`` and ``route_document``
are one unit of work each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy.orm import Session

from portal.accounts.queries import base_currency_in, member_entry_in, member_names, today_in
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, SystemActor
from portal.domain.errors import DomainError
from portal.domain.graph import Grant, Graph
from portal.domain.money import check_amount
from portal.domain.resolution import Gap, Resolution, resolve_all
from portal.domain.routing import Route, route
from portal.orgchart.queries import gap_names, load_chart, seat_label


def resolve_grants(
    actor: Actor | SystemActor,
    grants: Sequence[tuple[int, Grant]],
    requester: int,
    *,
    on: date | None = None,
) -> list[Resolution]:
    """Resolve (index, grant) pairs for ``requester`` as of ``on`` (today by default)."""
    with unit_of_work_for(actor) as uow:
        chart = load_chart(uow.session, on or today_in(uow.session, actor))
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
        chart = load_chart(uow.session, on or today_in(uow.session, actor))
    return route(graph, requester, amount, chart)


# --- the route preview ------------------------------------------------------------------


@dataclass(frozen=True)
class SeatName:
    code: str
    title: str
    unit_id: int


@dataclass(frozen=True)
class RoutePreview:
    graph: Graph
    # The flow version ``graph`` is (0: a draft being edited), for the page to say.
    version: int
    route: Route
    currency: str
    requester_name: str
    # Names for everything the route mentions, so the page says who and where.
    members: dict[int, str]
    seats: dict[int, SeatName]
    units: dict[int, str]
    # Each member's primary seat that day, to show where an approver sits.
    seat_of: dict[int, int]

    @property
    def kind(self) -> str:
        return self.graph.kind

    def seat_labels(self) -> dict[int, str]:
        """``seat_label`` of every seat the route mentions."""
        return {i: seat_label(s.code, s.title) for i, s in self.seats.items()}

    def gap_names(self, gap: Gap) -> dict[str, object]:
        """The names a gap's sentence needs, from what the preview already loaded: no
        query."""
        return gap_names(
            position_id=gap.position_id,
            member_id=gap.member_id,
            unit_id=gap.unit_id,
            role=gap.role,
            seats=self.seat_labels(),
            members=self.members,
            units=self.units,
        )


def preview_route_in(
    session: Session,
    graph: Graph,
    *,
    version: int,
    member_id: int,
    amount: Decimal,
    day: date,
    currency: str | None = None,
) -> RoutePreview:
    """Who would approve ``member_id``'s document of ``amount`` under ``graph``, step by
    step, over the chart of ``day`` — and what would strand it — with the names of
    everyone and everything the route mentions. Under exclusive approval each step lists
    only who is left, and whom the rule leaves out and why (``Step.excluded``). Refuses an amount that is not money, a
    ``currency`` other than the base one, and a requester who is not an active member."""
    base = base_currency_in(session, session.info["org_id"])
    if currency is not None and currency.strip().upper() != base:
        raise DomainError(
            "amount_currency_mismatch", field="currency", currency=currency[:8], base=base
        )
    # Routed on exactly what a document of this amount would store.
    amount = check_amount(amount, base)
    requester = member_entry_in(session, member_id)
    if requester is None:
        raise DomainError("unknown_requester", field="member_id")
    if not requester.active:
        raise DomainError("member_inactive", field="member_id", name=requester.name)
    chart = load_chart(session, day)
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
    seats = {
        p: SeatName(chart.seats[p].code, chart.seats[p].title, chart.seats[p].unit_id)
        for p in position_ids
        if p in chart.seats
    }
    return RoutePreview(
        graph=graph,
        version=version,
        route=result,
        currency=base,
        requester_name=requester.name,
        members=member_names(session, member_ids),
        seats=seats,
        units={u: chart.units[u].name for u in unit_ids if u in chart.units},
        seat_of=seat_of,
    )
