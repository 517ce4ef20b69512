"""Reading the org chart: the chart of one day ready to render, with its health flags.
What the forms offer is ``pickers``."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from functools import partial

from sqlalchemy import select

from portal.accounts.queries import member_directory_in, today_in
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, SystemActor
from portal.domain.orgchart import cycle_members
from portal.orgchart.models import HoldingKind, OrgUnit, Position, PositionHolding


@dataclass(frozen=True)
class HolderView:
    holding_id: int
    member_id: int
    name: str
    kind: str
    valid_from: date
    valid_to: date | None
    member_active: bool


@dataclass
class PositionView:
    id: int
    code: str
    title: str
    unit_id: int
    reports_to_id: int | None
    active: bool
    holders: list[HolderView] = field(default_factory=list)

    @property
    def vacant(self) -> bool:
        return self.active and not any(h.member_active for h in self.holders)


@dataclass
class UnitView:
    id: int
    code: str
    name: str
    parent_id: int | None
    head_position_id: int | None
    depth: int = 0
    positions: list[PositionView] = field(default_factory=list)


@dataclass
class ChartView:
    """The chart as of one day, ready to render; health flags computed once here."""

    as_of: date
    units: list[UnitView]
    positions: dict[int, PositionView]
    members_without_primary: list[tuple[int, str]]
    positions_on_cycle: set[int]

    @property
    def units_without_head(self) -> list[UnitView]:
        return [u for u in self.units if u.head_position_id is None]

    @property
    def vacant_positions(self) -> list[PositionView]:
        return [p for p in self.positions.values() if p.vacant]


def _tree_order(units: list[OrgUnit]) -> list[UnitView]:
    children: dict[int | None, list[OrgUnit]] = {}
    ids = {u.id for u in units}
    for unit in sorted(units, key=lambda u: u.code.lower()):
        parent = unit.parent_id if unit.parent_id in ids else None
        children.setdefault(parent, []).append(unit)
    ordered: list[UnitView] = []
    seen: set[int] = set()

    def walk(parent: int | None, depth: int) -> None:
        for unit in children.get(parent, []):
            if unit.id in seen:
                continue
            seen.add(unit.id)
            ordered.append(
                UnitView(
                    unit.id, unit.code, unit.name, unit.parent_id, unit.head_position_id, depth
                )
            )
            walk(unit.id, depth + 1)

    walk(None, 0)
    # Units stuck on a (corrupt) cycle have no root; list them rather than hide them.
    for unit in units:
        if unit.id not in seen:
            ordered.append(
                UnitView(unit.id, unit.code, unit.name, unit.parent_id, unit.head_position_id, 0)
            )
    return ordered


def _seat_order(head_position_id: int | None, p: PositionView) -> tuple[bool, str, str]:
    return (p.id != head_position_id, p.title.lower(), p.code)


def get_chart(actor: Actor | SystemActor, as_of: date | None = None) -> ChartView:
    with unit_of_work_for(actor) as uow:
        s = uow.session
        day = as_of or today_in(s, actor)
        units = list(s.scalars(select(OrgUnit)))
        positions = list(s.scalars(select(Position).order_by(Position.code)))
        holdings = list(
            s.scalars(
                select(PositionHolding).where(
                    PositionHolding.valid_from <= day,
                    (PositionHolding.valid_to.is_(None)) | (PositionHolding.valid_to >= day),
                )
            )
        )
        directory = member_directory_in(s, active_only=False)
        everyone = {m.id: m for m in directory}
    # Holders by name, in the database's collation (the directory's order).
    place = {m.id: i for i, m in enumerate(directory)}
    holdings.sort(key=lambda h: (place[h.member_id], h.id))
    unit_views = _tree_order(units)
    by_unit = {u.id: u for u in unit_views}
    position_views = {
        p.id: PositionView(p.id, p.code, p.title, p.unit_id, p.reports_to_id, p.active)
        for p in positions
    }
    with_primary: set[int] = set()
    for holding in holdings:
        member = everyone[holding.member_id]
        position_views[holding.position_id].holders.append(
            HolderView(
                holding.id,
                holding.member_id,
                member.name,
                holding.kind,
                holding.valid_from,
                holding.valid_to,
                member.active,
            )
        )
        if holding.kind == HoldingKind.PRIMARY:
            with_primary.add(holding.member_id)
    for view in position_views.values():
        by_unit[view.unit_id].positions.append(view)
    for unit_view in unit_views:  # the head's seat first, then by title
        head = unit_view.head_position_id
        unit_view.positions.sort(key=partial(_seat_order, head))
    return ChartView(
        as_of=day,
        units=unit_views,
        positions=position_views,
        members_without_primary=[
            (m.id, m.name) for m in everyone.values() if m.active and m.id not in with_primary
        ],
        positions_on_cycle=cycle_members({p.id: p.reports_to_id for p in positions}),
    )
