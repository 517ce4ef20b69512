"""What each org-chart form offers, read in one unit of work with the row it edits:
the units a unit may sit under and the seats that may head it, the units and superiors a
seat may have, the members and seats a holding joins."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.queries import member_directory_in
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, SystemActor
from portal.orgchart.models import OrgUnit, Position
from portal.orgchart.queries import Choice, position_choices_in, row_in


def _unit_choices_in(session: Session) -> list[Choice]:
    rows = session.execute(select(OrgUnit.id, OrgUnit.code, OrgUnit.name).order_by(OrgUnit.code))
    return [Choice(i, f"{code} — {name}") for i, code, name in rows]


@dataclass(frozen=True)
class UnitFormOffer:
    # The unit being edited; None for a new one.
    unit: OrgUnit | None
    parents: list[Choice]
    # Only the unit's own active seats can head it (the service enforces the same rule).
    heads: list[Choice]


def unit_form(actor: Actor | SystemActor, unit_id: int | None = None) -> UnitFormOffer:
    with unit_of_work_for(actor) as uow:
        s = uow.session
        unit = row_in(s, OrgUnit, unit_id, "unit") if unit_id is not None else None
        parents = [c for c in _unit_choices_in(s) if unit is None or c.id != unit.id]
        heads = position_choices_in(s, unit_id=unit.id) if unit is not None else []
        return UnitFormOffer(unit, parents, heads)


@dataclass(frozen=True)
class PositionFormOffer:
    position: Position | None
    units: list[Choice]
    superiors: list[Choice]


def position_form(actor: Actor | SystemActor, position_id: int | None = None) -> PositionFormOffer:
    with unit_of_work_for(actor) as uow:
        s = uow.session
        position = row_in(s, Position, position_id, "position") if position_id is not None else None
        superiors = [c for c in position_choices_in(s) if position is None or c.id != position.id]
        return PositionFormOffer(position, _unit_choices_in(s), superiors)


@dataclass(frozen=True)
class HoldingFormOffer:
    members: list[Choice]
    positions: list[Choice]


def holding_form(actor: Actor | SystemActor) -> HoldingFormOffer:
    with unit_of_work_for(actor) as uow:
        s = uow.session
        members = [Choice(m.id, f"{m.name} <{m.email}>") for m in member_directory_in(s)]
        return HoldingFormOffer(members, position_choices_in(s))
