"""Outbox rows as the Operations page and the operator's commands meet them: an
invitation's mail, delivered, still pending, or dead after its last attempt failed."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update

from portal.accounts import services as accounts
from portal.core.clock import clock
from portal.core.outbox import MAX_ATTEMPTS, OutboxEvent
from portal.core.uow import unit_of_work
from portal.domain.actor import Actor


def invite(admin: Actor, email: str) -> int:
    """Invite ``email``; returns the id of the mail event it wrote."""
    accounts.invite_member(admin, email=email, name="Invited Person")
    with unit_of_work(admin.org_id) as uow:
        return uow.session.scalars(
            select(OutboxEvent.id)
            .where(OutboxEvent.topic == "mail.invitation")
            .order_by(OutboxEvent.id.desc())
            .limit(1)
        ).one()


def make_dead(org_id: int, outbox_id: int, error: str = "SMTPRecipientsRefused: 550 no") -> None:
    """What the dispatcher leaves after the last attempt failed."""
    with unit_of_work(org_id) as uow:
        uow.session.execute(
            update(OutboxEvent)
            .where(OutboxEvent.id == outbox_id)
            .values(attempts=MAX_ATTEMPTS, dead_at=clock.now(), last_error=error)
        )


def make_delivered(org_id: int, outbox_id: int, at: datetime | None = None) -> None:
    with unit_of_work(org_id) as uow:
        uow.session.execute(
            update(OutboxEvent)
            .where(OutboxEvent.id == outbox_id)
            .values(attempts=1, dispatched_at=at or clock.now())
        )


def event(org_id: int, outbox_id: int) -> OutboxEvent | None:
    with unit_of_work(org_id) as uow:
        found = uow.session.scalars(select(OutboxEvent).where(OutboxEvent.id == outbox_id)).first()
        if found is not None:
            uow.session.expunge(found)
        return found
