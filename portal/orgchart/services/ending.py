"""Ending a seat: what ending it would change (the confirmation), and ending it.

A holding's ``valid_to`` is its last day, inclusive, in the organization's zone: a seat
ended "today" is still held until the end of today there, and resolution as of
tomorrow no longer finds it. Days are the organization's, never UTC's: at 07:30 in
Kuala Lumpur it is already the next day, though UTC is still on the previous one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.orm import Session

from portal.accounts.queries import member_entry_in, org_time_zone_of
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, SystemActor, require_admin
from portal.domain.errors import DomainError
from portal.domain.time_zones import end_of_day
from portal.orgchart.models import Position, PositionHolding
from portal.orgchart.queries import row_in


@dataclass(frozen=True)
class HoldingEnding:
    """What ending a holding on ``last_day`` means, said before it is done."""

    holding_id: int
    member_name: str
    position_title: str
    position_code: str
    # The last day the seat is held (inclusive), and whether that is today.
    last_day: date
    is_today: bool
    # The organization's zone, and the first instant the seat is no longer held.
    time_zone: str
    ends_at: datetime


def preview_end_holding(
    actor: Actor | SystemActor, holding_id: int, *, last_day: date | None = None
) -> HoldingEnding:
    """The confirmation: who stops holding which seat, when, in which zone. Refuses
    what ``end_holding`` would refuse, so the page never offers a refused change."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        holding, zone_name, today = _holding_in(s, actor, holding_id)
        day = last_day or today
        _check_end(holding, day)
        position = row_in(s, Position, holding.position_id, "position")
        member = member_entry_in(s, holding.member_id)
        return HoldingEnding(
            holding_id=holding.id,
            member_name=member.name if member is not None else "",
            position_title=position.title,
            position_code=position.code,
            last_day=day,
            is_today=day == today,
            time_zone=zone_name,
            ends_at=end_of_day(day, zone_name),
        )


def end_holding(
    actor: Actor | SystemActor, holding_id: int, *, last_day: date | None = None
) -> PositionHolding:
    """Close a holding on ``last_day`` (inclusive; default today in the organization's
    zone). History is kept."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        holding, _zone, today = _holding_in(uow.session, actor, holding_id)
        day = last_day or today
        _check_end(holding, day)
        holding.valid_to = day
    return holding


def _holding_in(
    session: Session, actor: Actor | SystemActor, holding_id: int
) -> tuple[PositionHolding, str, date]:
    holding = row_in(session, PositionHolding, holding_id, "holding")
    zone_name = org_time_zone_of(session, actor)
    return holding, zone_name, clock.today_in(zone_name)


def _check_end(holding: PositionHolding, day: date) -> None:
    if holding.valid_to is not None and holding.valid_to <= day:
        raise DomainError("holding_already_ended")
    if day < holding.valid_from:
        raise DomainError("dates_out_of_order", field="valid_to")
