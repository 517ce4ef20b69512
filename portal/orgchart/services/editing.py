"""Editing the org chart: units, positions (seats) and who holds them when. Admins only;
one unit of work per call."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.queries import member_entry_in, today_in
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, SystemActor, require_admin
from portal.domain.errors import DomainError, NotFound
from portal.domain.naming import normalise_code, normalise_name
from portal.domain.orgchart import would_form_cycle
from portal.orgchart.models import HoldingKind, OrgUnit, Position, PositionHolding
from portal.orgchart.queries import row_in


def get_unit(actor: Actor | SystemActor, unit_id: int) -> OrgUnit:
    with unit_of_work_for(actor) as uow:
        return row_in(uow.session, OrgUnit, unit_id, "unit")


def get_position(actor: Actor | SystemActor, position_id: int) -> Position:
    with unit_of_work_for(actor) as uow:
        return row_in(uow.session, Position, position_id, "position")


def _check_code_free(
    session: Session, model: type[OrgUnit] | type[Position], code: str, except_id: int | None = None
) -> None:
    stmt = select(model.id).where(model.code == code)
    if except_id is not None:
        stmt = stmt.where(model.id != except_id)
    if session.scalar(stmt):
        raise DomainError("duplicate_code", field="code", code=code)


def _check_unit_links(
    session: Session, unit_id: int | None, parent_id: int | None, head_position_id: int | None
) -> None:
    if parent_id is not None:
        parent = row_in(session, OrgUnit, parent_id, "unit")
        if unit_id is not None:
            if parent_id == unit_id:
                raise DomainError("unit_parent_self", field="parent_id")
            parents = dict(session.execute(select(OrgUnit.id, OrgUnit.parent_id)).all())
            if would_form_cycle(parents, unit_id, parent_id):
                unit = row_in(session, OrgUnit, unit_id, "unit")
                raise DomainError(
                    "unit_cycle", field="parent_id", unit=unit.code, parent=parent.code
                )
    if head_position_id is not None:
        head = row_in(session, Position, head_position_id, "position")
        if unit_id is None or head.unit_id != unit_id:
            raise DomainError("head_outside_unit", field="head_position_id")
        if not head.active:
            raise DomainError("position_retired", field="head_position_id", code=head.code)


def create_unit(
    actor: Actor | SystemActor, *, code: str, name: str, parent_id: int | None = None
) -> OrgUnit:
    """A new unit. Its head is chosen afterwards, among the unit's own positions."""
    require_admin(actor)
    code = normalise_code(code)
    name = normalise_name(name)
    with unit_of_work_for(actor) as uow:
        _check_code_free(uow.session, OrgUnit, code)
        _check_unit_links(uow.session, None, parent_id, None)
        unit = OrgUnit(code=code, name=name, parent_id=parent_id, created_at=clock.now())
        uow.session.add(unit)
    return unit


def update_unit(
    actor: Actor | SystemActor,
    unit_id: int,
    *,
    code: str,
    name: str,
    parent_id: int | None,
    head_position_id: int | None,
) -> OrgUnit:
    require_admin(actor)
    code = normalise_code(code)
    name = normalise_name(name)
    with unit_of_work_for(actor) as uow:
        unit = row_in(uow.session, OrgUnit, unit_id, "unit")
        _check_code_free(uow.session, OrgUnit, code, except_id=unit.id)
        _check_unit_links(uow.session, unit.id, parent_id, head_position_id)
        unit.code, unit.name = code, name
        unit.parent_id, unit.head_position_id = parent_id, head_position_id
    return unit


# --- editing positions -----------------------------------------------------------------


def _check_reports_to(
    session: Session, position: Position | None, reports_to_id: int | None
) -> None:
    if reports_to_id is None:
        return
    superior = row_in(session, Position, reports_to_id, "position")
    if position is None:
        return
    if superior.id == position.id:
        raise DomainError("reports_to_self", field="reports_to_id")
    edges = dict(session.execute(select(Position.id, Position.reports_to_id)).all())
    if would_form_cycle(edges, position.id, superior.id):
        raise DomainError(
            "reporting_cycle", field="reports_to_id", position=position.code, superior=superior.code
        )


def create_position(
    actor: Actor | SystemActor,
    *,
    code: str,
    title: str,
    unit_id: int,
    reports_to_id: int | None = None,
) -> Position:
    require_admin(actor)
    code = normalise_code(code)
    title = normalise_name(title, field="title")
    with unit_of_work_for(actor) as uow:
        _check_code_free(uow.session, Position, code)
        row_in(uow.session, OrgUnit, unit_id, "unit")
        _check_reports_to(uow.session, None, reports_to_id)
        position = Position(
            code=code,
            title=title,
            unit_id=unit_id,
            reports_to_id=reports_to_id,
            created_at=clock.now(),
        )
        uow.session.add(position)
    return position


def update_position(
    actor: Actor | SystemActor,
    position_id: int,
    *,
    code: str,
    title: str,
    unit_id: int,
    reports_to_id: int | None,
    active: bool = True,
) -> Position:
    require_admin(actor)
    code = normalise_code(code)
    title = normalise_name(title, field="title")
    with unit_of_work_for(actor) as uow:
        s = uow.session
        position = row_in(s, Position, position_id, "position")
        _check_code_free(s, Position, code, except_id=position.id)
        row_in(s, OrgUnit, unit_id, "unit")
        _check_reports_to(s, position, reports_to_id)
        if unit_id != position.unit_id and s.scalar(
            select(OrgUnit.id).where(OrgUnit.head_position_id == position.id)
        ):
            raise DomainError("head_outside_unit", field="unit_id")
        position.code, position.title, position.unit_id = code, title, unit_id
        position.reports_to_id, position.active = reports_to_id, active
    return position


# --- holdings ----------------------------------------------------------------------------


def _overlaps(a_from: date, a_to: date | None, b_from: date, b_to: date | None) -> bool:
    return (a_to is None or b_from <= a_to) and (b_to is None or a_from <= b_to)


def primary_clash_in(
    session: Session, member_id: int, start: date, end: date | None
) -> PositionHolding | None:
    """A primary seat the member holds at some point from ``start`` to ``end``."""
    for other in session.scalars(
        select(PositionHolding).where(
            PositionHolding.member_id == member_id,
            PositionHolding.kind == HoldingKind.PRIMARY,
        )
    ):
        if _overlaps(start, end, other.valid_from, other.valid_to):
            return other
    return None


def assign_position(
    actor: Actor | SystemActor,
    *,
    member_id: int,
    position_id: int,
    kind: str = HoldingKind.PRIMARY,
    valid_from: date | None = None,
    valid_to: date | None = None,
) -> PositionHolding:
    """Seat a member in a position for a dated window (open-ended without ``valid_to``)."""
    require_admin(actor)
    if kind not in HoldingKind.ALL:
        raise DomainError("invalid_holding_kind", field="kind")
    with unit_of_work_for(actor) as uow:
        s = uow.session
        # Seats start on the organization's day, not UTC's.
        start = valid_from or today_in(s, actor)
        if valid_to is not None and valid_to < start:
            raise DomainError("dates_out_of_order", field="valid_to")
        member = member_entry_in(s, member_id) if member_id is not None else None
        if member is None:
            raise NotFound("member")
        position = row_in(s, Position, position_id, "position")
        name = member.name
        if not member.active:
            raise DomainError("member_inactive", field="member_id", name=name)
        if not position.active:
            raise DomainError("position_retired", field="position_id", code=position.code)
        clash = (
            primary_clash_in(s, member_id, start, valid_to) if kind == HoldingKind.PRIMARY else None
        )
        if clash is not None:
            raise DomainError(
                "overlapping_primary", field="kind", name=name, start=clash.valid_from.isoformat()
            )
        holding = PositionHolding(
            member_id=member_id,
            position_id=position_id,
            kind=kind,
            valid_from=start,
            valid_to=valid_to,
            created_at=clock.now(),
        )
        s.add(holding)
    return holding
