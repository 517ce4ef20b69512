"""Marking a member's notifications read (one, all, or the one being opened), and keeping
how they choose to hear of things."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sqlalchemy import select, update

from portal.accounts.queries import lock_membership_in
from portal.core.clock import clock
from portal.core.db import rows_changed, storable_ids
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor
from portal.domain.errors import NotFound
from portal.domain.notice_preferences import (
    NoticeSettings,
    offered_kinds,
    read_preference_form,
    settings_of,
)
from portal.notifications.models import NoticePreference, Notification


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


def open_notification(actor: Actor, notification_id: int) -> str | None:
    """The member opens one of their notifications (follows its link): it is marked
    read, and the reference of its document comes back (None: it names none). Another
    member's notification, or none at all, is ``NotFound``: whether it exists is not
    theirs to learn."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        found = (
            s.scalars(
                select(Notification).where(
                    Notification.id == notification_id,
                    Notification.member_id == actor.member_id,
                )
            ).first()
            if notification_id in storable_ids([notification_id])
            else None
        )
        if found is None:
            raise NotFound("notification")
        if found.read_at is None:
            found.read_at = clock.now()
        reference = found.params.get("reference")
        return reference if isinstance(reference, str) else None


def save_notice_preferences(actor: Actor, settings: NoticeSettings) -> NoticeSettings:
    """Keep the member's choices as given (``submit_notice_preferences`` reads a form)."""
    return _keep(actor, lambda _current: settings)


def submit_notice_preferences(actor: Actor, form: Iterable[tuple[str, str]]) -> NoticeSettings:
    """Read the submitted preferences form over the member's current choices and keep
    them. A form that cannot be read is refused whole (``read_preference_form``) and
    nothing is written."""
    offered = offered_kinds(actor.is_admin)
    return _keep(actor, lambda current: read_preference_form(form, shown=offered, current=current))


def _keep(actor: Actor, choose: Callable[[NoticeSettings], NoticeSettings]) -> NoticeSettings:
    """One unit of work: only what differs from the defaults is stored, so a better
    default later reaches whoever never chose otherwise. The member's row is locked
    first, so two saves at once are taken one after the other (never a second row)."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        lock_membership_in(s, actor.member_id)
        row = s.scalars(
            select(NoticePreference).where(NoticePreference.member_id == actor.member_id)
        ).first()
        chosen = choose(
            settings_of(row.channels if row else None, row.email_digest if row else False)
        )
        if row is None:
            row = NoticePreference(member_id=actor.member_id, channels={})
            s.add(row)
        row.channels = chosen.overrides()
        row.email_digest = chosen.email_digest
        row.updated_at = clock.now()
    return chosen
