"""Marking a member's notifications read."""

from __future__ import annotations

from sqlalchemy import update

from portal.core.clock import clock
from portal.core.db import rows_changed, storable_ids
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor
from portal.notifications.models import Notification


def mark_notifications_read(actor: Actor, ids: list[int] | None = None) -> int:
    """Mark the member's notifications read: the given ones, or all of them. Another
    member's ids are simply not theirs to mark (nothing happens)."""
    with unit_of_work_for(actor) as uow:
        stmt = (
            update(Notification)
            .where(Notification.member_id == actor.member_id, Notification.read_at.is_(None))
            .values(read_at=clock.now())
            .execution_options(synchronize_session=False)
        )
        if ids is not None:
            stmt = stmt.where(Notification.id.in_(storable_ids(ids)))
        return rows_changed(uow.session.execute(stmt))
