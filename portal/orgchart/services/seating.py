"""Seats reserved by a CSV import for the people it invited: kept while the invitation
is open, taken when they accept it (accounts call this in the accepting unit of work)."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.core.clock import clock
from portal.orgchart.models import HoldingKind, Position, PositionHolding, SeatReservation
from portal.orgchart.services.editing import primary_clash_in


def settle_reservations_in(session: Session, member_id: int, invitation_id: int) -> None:
    """Seat the member who just accepted wherever the invitation's reservations say, if
    the seat is still open to them (active, and no primary seat of theirs overlaps);
    either way each reservation is settled."""
    now = clock.now()
    for reservation in session.scalars(
        select(SeatReservation)
        .where(
            SeatReservation.invitation_id == invitation_id,
            SeatReservation.settled_at.is_(None),
        )
        .order_by(SeatReservation.id)
        .with_for_update()
    ):
        reservation.settled_at = now
        position = session.scalar(select(Position).where(Position.id == reservation.position_id))
        if position is None or not position.active:
            continue
        if reservation.kind == HoldingKind.PRIMARY and primary_clash_in(
            session, member_id, reservation.valid_from, None
        ):
            continue
        session.add(
            PositionHolding(
                member_id=member_id,
                position_id=reservation.position_id,
                kind=reservation.kind,
                valid_from=reservation.valid_from,
                created_at=now,
            )
        )
    session.flush()


def reserve_seat_in(
    session: Session, invitation_id: int, position_id: int, kind: str, start: date
) -> None:
    """Keep a seat for an invitation until it is accepted (once: a second import of
    the same file adds nothing, and moves the start of a reservation not yet settled)."""
    kept = session.scalar(
        select(SeatReservation).where(
            SeatReservation.invitation_id == invitation_id,
            SeatReservation.position_id == position_id,
            SeatReservation.kind == kind,
        )
    )
    if kept is None:
        session.add(
            SeatReservation(
                invitation_id=invitation_id,
                position_id=position_id,
                kind=kind,
                valid_from=start,
                created_at=clock.now(),
            )
        )
    elif kept.settled_at is None:
        kept.valid_from = start
