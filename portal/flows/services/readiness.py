"""Readiness: the grants of the current versions that can no longer resolve to anybody
— a member who left, a retired or missing seat, a vacant seat that refuses to
escalate, a role nobody holds — and seeded kinds that have no version at all."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy.orm import Session

from portal.accounts.queries import member_names, today_in
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, SystemActor, require_admin
from portal.domain.graph import Grant, GranteeKind, OnVacancy
from portal.domain.orgchart import ChartSnapshot
from portal.flows import seeded
from portal.flows.queries import published_kinds_in, version_in
from portal.orgchart.queries import load_chart, seat_label


@dataclass(frozen=True)
class ReadinessWarning:
    """A grant of a current version that can no longer resolve to anybody."""

    kind: str
    version: int
    grant: int  # index in the version's grants
    state: str | None
    code: str
    params: dict[str, Any]


def _problem(
    grant: Grant, chart: ChartSnapshot, names: dict[int, str]
) -> tuple[str, dict[str, Any]] | None:
    """Why ``grant`` finds nobody on the chart's day, as a message code and its names."""
    grantee = grant.grantee
    if grantee.kind == GranteeKind.MEMBER and grantee.member not in chart.active_members:
        member = grantee.member
        name = (names.get(member) if member is not None else None) or f"#{member}"
        return ("readiness_member_inactive", {"name": name})
    if grantee.kind == GranteeKind.POSITION:
        seat = chart.seats.get(grantee.position) if grantee.position is not None else None
        label = seat_label(seat.code, seat.title) if seat else f"#{grantee.position}"
        if seat is None or not seat.active:
            return ("readiness_position_retired", {"position": label})
        if seat.id not in chart.holders and grant.on_vacancy == OnVacancy.REFUSE:
            return ("readiness_position_vacant", {"position": label})
    if grantee.kind == GranteeKind.ROLE and grantee.role not in chart.roles:
        return ("readiness_role_empty", {"role": grantee.role})
    return None


def readiness_in(session: Session, org_id: int, day: date) -> list[ReadinessWarning]:
    """``flow_readiness`` inside the caller's unit of work, against the chart of ``day``."""
    numbers = dict(published_kinds_in(session))
    chart = load_chart(session, day)
    views = [version_in(session, org_id, kind, numbers[kind]) for kind in sorted(numbers)]
    names = member_names(
        session,
        {
            g.grantee.member
            for view in views
            for g in view.graph.grants
            if g.grantee.kind == GranteeKind.MEMBER and g.grantee.member not in chart.active_members
        },
    )
    warnings = [
        ReadinessWarning(kind, 0, -1, None, "readiness_flow_missing", {"kind": kind})
        for kind in seeded.SEEDED_KINDS
        if kind not in numbers
    ]
    for view in views:
        for i, grant in enumerate(view.graph.grants):
            found = _problem(grant, chart, names)
            if found is not None:
                warnings.append(
                    ReadinessWarning(view.kind, view.version, i, grant.state, found[0], found[1])
                )
    return warnings


def flow_readiness(
    actor: Actor | SystemActor, *, as_of: date | None = None
) -> list[ReadinessWarning]:
    """Every grant of the current versions that can no longer resolve (as of ``as_of``,
    today by default), and every seeded kind with no version."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        return readiness_in(uow.session, actor.org_id, as_of or today_in(uow.session, actor))
