"""Who would approve? The flows' side of the route preview: which graph to route — a
flow's current version (the org chart's "Who would approve?" page) or the saved draft
(the editor) — handed to the org chart's ``preview_route_in`` in one unit of work."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy.orm import Session

from portal.accounts.queries import (
    MemberEntry,
    base_currency_in,
    member_directory_in,
    today_in,
)
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, require_admin
from portal.domain.errors import DomainError, NotFound
from portal.domain.labels import Labels
from portal.domain.money import check_amount
from portal.flows.queries import current_version_in, published_kinds_in, version_in
from portal.flows.services.drafts import draft_graph_in
from portal.flows.services.references import References
from portal.flows.services.validation import check_kind
from portal.orgchart.routing import RoutePreview, preview_route_in


@dataclass(frozen=True)
class FlowChoice:
    kind: str
    labels: Labels
    version: int


@dataclass(frozen=True)
class PreviewChoices:
    """What the preview form offers: published flows, active members, the currency."""

    flows: list[FlowChoice]
    members: list[MemberEntry]
    currency: str


def _choices_in(session: Session, org_id: int) -> PreviewChoices:
    flows = [
        FlowChoice(kind, version_in(session, org_id, kind, number).graph.labels, number)
        for kind, number in published_kinds_in(session)
    ]
    return PreviewChoices(flows, member_directory_in(session), base_currency_in(session, org_id))


def _current_route_in(
    session: Session,
    org_id: int,
    *,
    kind: str,
    member_id: int,
    amount: Decimal,
    currency: str | None,
    day: date,
) -> RoutePreview:
    # An amount that is not money of the base currency is refused before the flow is
    # looked up.
    check_amount(amount, base_currency_in(session, org_id))
    try:
        _, current = current_version_in(session, org_id, kind)
    except NotFound:
        raise DomainError("unknown_flow", field="kind", kind=kind[:64]) from None
    return preview_route_in(
        session,
        current.graph,
        version=current.version,
        member_id=member_id,
        amount=amount,
        currency=currency,
        day=day,
    )


def preview_choices(actor: Actor) -> PreviewChoices:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        return _choices_in(uow.session, actor.org_id)


def preview_route(
    actor: Actor,
    *,
    kind: str,
    member_id: int,
    amount: Decimal,
    currency: str | None = None,
    on: date | None = None,
) -> RoutePreview:
    """Who would approve ``member_id``'s document of ``amount``, step by step, under the
    current version of ``kind`` as of ``on`` (today by default) — and what would
    strand it."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        return _current_route_in(
            uow.session,
            actor.org_id,
            kind=kind,
            member_id=member_id,
            amount=amount,
            currency=currency,
            day=on or today_in(uow.session, actor),
        )


def preview_draft_route(
    actor: Actor, kind: str, *, member_id: int, amount: Decimal
) -> RoutePreview:
    """The same under the saved draft (or the current version when there is none), as
    of today: the editor's "Who would approve?". The preview's version is 0."""
    require_admin(actor)
    check_kind(kind)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        graph = draft_graph_in(s, kind)
        return preview_route_in(
            s, graph, version=0, member_id=member_id, amount=amount, day=today_in(s, actor)
        )


@dataclass(frozen=True)
class RouteQuery:
    """What the "Who would approve?" form asks, once it reads as a query."""

    kind: str
    member_id: int
    amount: Decimal
    currency: str | None
    on: date | None


@dataclass(frozen=True)
class RoutingPage:
    """The "Who would approve?" page: the form's choices and, when a query was asked,
    its route and the names its grants need — or why it cannot be shown (a refusal
    the page shows beside the field at fault)."""

    choices: PreviewChoices
    preview: RoutePreview | None = None
    names: References | None = None
    refusal: DomainError | None = None


def routing_page(actor: Actor, query: RouteQuery | None) -> RoutingPage:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        choices = _choices_in(s, actor.org_id)
        if query is None:
            return RoutingPage(choices)
        try:
            preview = _current_route_in(
                s,
                actor.org_id,
                kind=query.kind,
                member_id=query.member_id,
                amount=query.amount,
                currency=query.currency,
                day=query.on or today_in(s, actor),
            )
        except DomainError as refused:  # the preview reads only: nothing to roll back
            return RoutingPage(choices, refusal=refused)
        return RoutingPage(choices, preview, References(preview.members, preview.seat_labels()))
