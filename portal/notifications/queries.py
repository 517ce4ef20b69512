"""Reading a member's notifications: the bell's list and its number."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Connection

from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor
from portal.notifications.models import Notification

NOTIFICATIONS_SHOWN = 50


@dataclass(frozen=True)
class NotificationView:
    id: int
    code: str
    params: dict[str, Any]
    reference: str | None
    created_at: datetime
    read: bool


def list_notifications(actor: Actor) -> list[NotificationView]:
    """The member's latest notifications, newest first."""
    with unit_of_work_for(actor) as uow:
        rows = uow.session.scalars(
            select(Notification)
            .where(Notification.member_id == actor.member_id)
            .order_by(Notification.created_at.desc(), Notification.id.desc())
            .limit(NOTIFICATIONS_SHOWN)
        ).all()
        return [
            NotificationView(
                n.id,
                n.code,
                dict(n.params),
                n.params.get("reference"),
                n.created_at,
                n.read_at is not None,
            )
            for n in rows
        ]


# The bell's number, on every page: prebuilt, SQLAlchemy Core with an explicit tenant
# predicate (row-level security behind it).
_UNREAD = select(func.count(Notification.id)).where(
    Notification.org_id == bindparam("org"),
    Notification.member_id == bindparam("member"),
    Notification.read_at.is_(None),
)


def count_unread_notifications(actor: Actor) -> int:
    with unit_of_work_for(actor) as uow:
        return count_unread_in(uow.session.connection(), actor)


def count_unread_in(connection: Connection, actor: Actor) -> int:
    """The bell's number inside a unit of work the caller already holds (a page that
    reads other things in one transaction saves one of its own)."""
    count = connection.execute(_UNREAD, {"org": actor.org_id, "member": actor.member_id})
    return int(count.scalar_one())
