"""Reads of the org chart that other features make inside their own unit of work: the
``ChartSnapshot`` of one day as the rules see it (the transition engine's, the route
preview's, the readiness check's), cached by the organization's chart version; and the
seats a flow's grants name, with the one wording of a seat (``seat_label``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import TypeVar

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from portal.accounts.queries import chart_version_in, member_names, member_roles_in
from portal.core.cache import LruCache
from portal.core.db import TenantNotSet, storable_ids, table_of
from portal.domain.errors import NotFound
from portal.domain.orgchart import ChartSnapshot, Seat, Unit
from portal.orgchart.models import HoldingKind, OrgUnit, Position, PositionHolding

_P = table_of(Position)
_OU = table_of(OrgUnit)
_H = table_of(PositionHolding)
_SEATS = select(
    _P.c.id, _P.c.code, _P.c.title, _P.c.unit_id, _P.c.reports_to_id, _P.c.active
).where(_P.c.org_id == bindparam("org"))
_UNITS = select(_OU.c.id, _OU.c.code, _OU.c.name, _OU.c.parent_id, _OU.c.head_position_id).where(
    _OU.c.org_id == bindparam("org")
)
_HOLDINGS = (
    select(_H.c.member_id, _H.c.position_id, _H.c.kind)
    .where(
        _H.c.org_id == bindparam("org"),
        _H.c.valid_from <= bindparam("day"),
        (_H.c.valid_to.is_(None)) | (_H.c.valid_to >= bindparam("day")),
    )
    .order_by(_H.c.id)
)


ChartRow = TypeVar("ChartRow", OrgUnit, Position, PositionHolding)


def row_in(session: Session, model: type[ChartRow], row_id: int | None, what: str) -> ChartRow:
    """The unit, seat or holding with ``row_id`` in this organization; ``NotFound``
    (naming ``what``) otherwise."""
    row = session.scalar(select(model).where(model.id == row_id)) if row_id is not None else None
    if row is None:
        raise NotFound(what)
    return row


def seat_label(code: str, title: str) -> str:
    """A seat as every page and picker names it: "CFO — Chief financial officer"."""
    return f"{code} — {title}"


def active_position_ids_in(session: Session, position_ids: Iterable[int | None]) -> set[int]:
    """Those of ``position_ids`` that are seats here and not retired."""
    ids = storable_ids(position_ids)
    if not ids:
        return set()
    return set(
        session.scalars(select(Position.id).where(Position.id.in_(ids), Position.active.is_(True)))
    )


def seat_labels_in(session: Session, position_ids: Iterable[int | None]) -> dict[int, str]:
    """``seat_label`` by id for those of ``position_ids`` that are seats here, retired or
    not; unknown ids are left out."""
    ids = storable_ids(position_ids)
    if not ids:
        return {}
    rows = session.execute(
        select(Position.id, Position.code, Position.title).where(Position.id.in_(ids))
    )
    return {i: seat_label(code, title) for i, code, title in rows}


def gap_names(
    *,
    position_id: object,
    member_id: object,
    unit_id: object,
    role: object,
    seats: Mapping[int, str],
    members: Mapping[int, str],
    units: Mapping[int, str],
) -> dict[str, object]:
    """The names a gap's sentence needs (``gap_<reason>``): the seat, the member, the
    unit or the role it is about, from names the caller already has (an id it has no
    name for is shown as "#id")."""
    names: dict[str, object] = {}
    if isinstance(position_id, int):
        names["position"] = seats.get(position_id, f"#{position_id}")
    if isinstance(member_id, int):
        names["member"] = members.get(member_id, f"#{member_id}")
    if isinstance(unit_id, int):
        names["unit"] = units.get(unit_id, f"#{unit_id}")
    if role is not None:
        names["role"] = role
    return names


def gap_names_in(
    session: Session, chart: ChartSnapshot, gap: Mapping[str, object]
) -> dict[str, object]:
    """``gap_names`` for a gap as a refusal carries it (``Gap.to_json``), from the chart
    already loaded and one read for a member's name."""
    position_id, member_id, unit_id = (gap.get(k) for k in ("position_id", "member_id", "unit_id"))
    seat = chart.seats.get(position_id) if isinstance(position_id, int) else None
    unit = chart.units.get(unit_id) if isinstance(unit_id, int) else None
    return gap_names(
        position_id=position_id,
        member_id=member_id,
        unit_id=unit_id,
        role=gap.get("role"),
        seats={seat.id: seat_label(seat.code, seat.title)} if seat else {},
        members=member_names(session, [member_id]) if isinstance(member_id, int) else {},
        units={unit.id: unit.name} if unit else {},
    )


@dataclass(frozen=True)
class Choice:
    """One entry of a picker: what is submitted, and what the admin reads."""

    id: int
    label: str


def position_choices_in(
    session: Session, *, active_only: bool = True, unit_id: int | None = None
) -> list[Choice]:
    """Seats to pick from, by code; ``unit_id`` narrows them to one unit."""
    stmt = select(Position.id, Position.code, Position.title).order_by(Position.code)
    if active_only:
        stmt = stmt.where(Position.active.is_(True))
    if unit_id is not None:
        stmt = stmt.where(Position.unit_id == unit_id)
    return [Choice(i, seat_label(code, title)) for i, code, title in session.execute(stmt)]


# Snapshots by (org, chart version, day). The version changes with every chart or
# membership row (database triggers) and is never reused, so an entry never goes stale;
# the org is part of the key, so no tenant reads another's.
chart_cache: LruCache[tuple[int, int, date], ChartSnapshot] = LruCache(256)


def last_primary_seat(session: Session, org_id: int, member_id: int, day: date) -> int | None:
    """The seat of ``member_id``'s most recent primary holding begun by ``day`` (ended or
    not, the member active or not), or None when they never had one: where a task they
    still hold climbs from once they are off the chart."""
    return session.connection().scalar(
        select(_H.c.position_id)
        .where(
            _H.c.org_id == org_id,
            _H.c.member_id == member_id,
            _H.c.kind == HoldingKind.PRIMARY,
            _H.c.valid_from <= day,
        )
        .order_by(_H.c.valid_from.desc(), _H.c.id.desc())
        .limit(1)
    )


def load_chart(session: Session, day: date, *, version: int | None = None) -> ChartSnapshot:
    """The chart on ``day``: every seat and unit, the holdings that cover the day
    (active members only: a holding can outlive its membership), and the roles —
    from the cache when the organization's chart version has not moved. Pass the
    ``version`` when it was read already (the engine reads it with the document)."""
    org_id = session.info.get("org_id")
    if org_id is None:
        raise TenantNotSet()
    if version is None:
        version = chart_version_in(session, org_id)
    key = (org_id, version, day)
    cached = chart_cache.get(key)
    if cached is not None:
        return cached
    chart = _read_chart(session, org_id, day)
    chart_cache.put(key, chart)
    return chart


def _read_chart(session: Session, org_id: int, day: date) -> ChartSnapshot:
    # Core reads with an explicit tenant predicate (row-level security behind it on
    # PostgreSQL): ORM entities for a whole chart would cost more than the rules.
    conn = session.connection()
    seats = {
        r.id: Seat(r.id, r.code, r.title, r.unit_id, r.reports_to_id, r.active)
        for r in conn.execute(_SEATS, {"org": org_id})
    }
    units = {
        r.id: Unit(r.id, r.code, r.name, r.parent_id, r.head_position_id)
        for r in conn.execute(_UNITS, {"org": org_id})
    }
    memberships = member_roles_in(session)
    active = frozenset(m.id for m in memberships if m.active)
    roles: dict[str, set[int]] = {}
    for m in memberships:
        if m.active:
            for role in m.roles:
                roles.setdefault(role, set()).add(m.id)
    holders: dict[int, set[int]] = {}
    primary: dict[int, int] = {}
    holdings = conn.execute(_HOLDINGS, {"org": org_id, "day": day})
    for h in holdings:
        if h.member_id not in active:
            continue
        holders.setdefault(h.position_id, set()).add(h.member_id)
        if h.kind == HoldingKind.PRIMARY:
            # Overlapping primaries are refused when seated; the first one stands.
            primary.setdefault(h.member_id, h.position_id)
    return ChartSnapshot(
        day=day,
        seats=seats,
        units=units,
        holders={p: tuple(sorted(ms)) for p, ms in holders.items()},
        primary=primary,
        active_members=active,
        roles={r: tuple(sorted(ms)) for r, ms in roles.items()},
    )


@dataclass(frozen=True)
class ChartGaps:
    """Where the chart cannot route on a day: active seats nobody (active) holds, and
    units without a head seat (or whose head seat is retired)."""

    vacant_seats: int
    units_without_head: int

    @property
    def count(self) -> int:
        return self.vacant_seats + self.units_without_head


def chart_gaps_in(session: Session, day: date) -> ChartGaps:
    """From the (cached) chart of ``day``."""
    chart = load_chart(session, day)
    vacant = sum(
        1 for seat in chart.seats.values() if seat.active and not chart.holders_of(seat.id)
    )
    headless = 0
    for unit in chart.units.values():
        head = chart.seats.get(unit.head_position_id) if unit.head_position_id else None
        if head is None or not head.active:
            headless += 1
    return ChartGaps(vacant, headless)
