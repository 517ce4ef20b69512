"""What notice mail says, composed when it is sent (the outbox's ``mail.notice`` and
``mail.digest`` events).

A composer reads the notifications the event names as they stand now and answers a
``Letter`` to the member, or None when there is nobody to write to any more: a member
who left or was deactivated, an account disabled, an archived organization. The words
are the in-app notice's own (``wording``), in the recipient's language (their own, else
the organization's), with times in their zone (their own here, else the
organization's). They are made while the letter is rendered, in that language: a
composer runs outside any language of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.queries import MailRecipient, mail_recipients_among, mail_recipients_in
from portal.core.db import storable_ids, table_of
from portal.core.mail import Letter
from portal.notifications.models import Notification
from portal.notifications.queries import NotificationView, notification_views_in
from portal.notifications.wording import NoticeText, notice_text
from portal.notifications.wording.deadlines import due_at_of, notice_subject
from portal.web.i18n import format_day, format_moment, locale_for

Composer = Callable[[Session, dict[str, Any]], Letter | None]
_NOTIFICATION = table_of(Notification)


@dataclass
class MailedNotice:
    """One notice as a mail says it. Its words are made on first use, which is while
    the letter is rendered in the recipient's language."""

    view: NotificationView
    reader: MailRecipient
    link: str

    @property
    def formats(self) -> str:
        return locale_for(self.reader.locale, self.reader.territory)

    @cached_property
    def said(self) -> NoticeText:
        return notice_text(
            self.view,
            self.reader.locale,
            self.reader.member_id,
            time_zone=self.reader.time_zone,
            formats=self.formats,
        )

    @cached_property
    def subject(self) -> str:
        return notice_subject(self.view, self.reader.member_id)

    def line_link(self, index: int) -> str:
        """The link's name for the ``index``-th document the notice lists."""
        return f"{self.link}_{index}"

    @cached_property
    def due(self) -> str:
        """The deadline in the reader's zone, with the zone named ("" when none)."""
        return self._moment(due_at_of(self.view))

    @cached_property
    def at(self) -> str:
        return self._moment(self.view.created_at)

    def _moment(self, value: datetime | None) -> str:
        if value is None:
            return ""
        shown = format_moment(value, self.formats, self.reader.time_zone)
        return f"{shown} ({self.reader.time_zone})"


def _recipient(session: Session, payload: dict[str, Any]) -> MailRecipient | None:
    member_id = payload.get("member_id")
    if not isinstance(member_id, int):
        return None
    return mail_recipients_in(session, [member_id]).get(member_id)


def _mailed(
    session: Session, reader: MailRecipient, rows: list[Notification]
) -> list[MailedNotice]:
    views = notification_views_in(session, session.info["org_id"], reader.member_id, rows)
    return [MailedNotice(v, reader, _link_name(i)) for i, v in enumerate(views)]


def _link_name(index: int) -> str:
    return f"document_{index}"


def _links(
    reader: MailRecipient, notices: list[MailedNotice]
) -> dict[str, tuple[str, dict[str, Any]]]:
    org = {"org": reader.org_slug}
    links: dict[str, tuple[str, dict[str, Any]]] = {
        "preferences": ("notifications.preferences", org),
        "notifications": ("notifications.index", org),
        "covers": ("delegations.index", org),
    }
    for notice in notices:
        reference = notice.view.document.reference if notice.view.document else None
        if reference:
            links[notice.link] = ("documents.detail", {**org, "reference": reference})
        # The documents a summary lists, in its order (``NoticeText.documents``).
        decided = notice.view.cover.decisions if notice.view.cover else ()
        for j, d in enumerate(decided):
            links[notice.line_link(j)] = ("documents.detail", {**org, "reference": d.reference})
    return links


def notice(session: Session, payload: dict[str, Any]) -> Letter | None:
    """One notice, mailed on its own: its reader and the notification in one statement."""
    member_id, notification_id = payload.get("member_id"), payload.get("notification_id")
    if not (isinstance(member_id, int) and isinstance(notification_id, int)):
        return None
    if not (storable_ids([member_id]) and storable_ids([notification_id])):
        return None
    recipients = mail_recipients_among({member_id})
    # Below the ORM (a mail is sent per event, and the ORM's per-statement cost is much
    # of one): the notification's organization is named here, and its member is one of
    # that organization's (the foreign key says so).
    found = (
        session.connection()
        .execute(
            recipients.add_columns(*_NOTIFICATION.c)
            .join(_NOTIFICATION, _NOTIFICATION.c.member_id == recipients.selected_columns[0])
            .where(
                _NOTIFICATION.c.org_id == session.info["org_id"],
                _NOTIFICATION.c.id == notification_id,
            )
        )
        .first()
    )
    if found is None:
        return None
    fields = len(recipients.selected_columns)
    reader = MailRecipient(*found[:fields])
    # A detached row, read only: what the notice says is made from it.
    row = Notification(**dict(zip(_NOTIFICATION.c.keys(), found[fields:], strict=True)))
    [mailed] = _mailed(session, reader, [row])
    return Letter(
        to=reader.email,
        name=reader.name,
        locale=reader.locale,
        template="notice",
        context={"name": reader.name, "organization": reader.org_name, "notice": mailed},
        links=_links(reader, [mailed]),
    )


def digest(session: Session, payload: dict[str, Any]) -> Letter | None:
    """The day's digest: the notices the member takes by mail, oldest first."""
    reader = _recipient(session, payload)
    ids = payload.get("notification_ids")
    if reader is None or not isinstance(ids, list) or not ids:
        return None
    rows = list(
        session.scalars(
            select(Notification)
            .where(
                Notification.id.in_([i for i in ids if isinstance(i, int)]),
                Notification.member_id == reader.member_id,
            )
            .order_by(Notification.id)
        )
    )
    if not rows:
        return None
    mailed = _mailed(session, reader, rows)
    return Letter(
        to=reader.email,
        name=reader.name,
        locale=reader.locale,
        template="digest",
        context={
            "name": reader.name,
            "organization": reader.org_name,
            "notices": mailed,
            "more": max(_count(payload.get("total"), len(ids)) - len(rows), 0),
            "day": format_day(
                _day(payload.get("day")), locale_for(reader.locale, reader.territory)
            ),
        },
        links=_links(reader, mailed),
    )


def _count(raw: object, otherwise: int) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else otherwise


def _day(raw: object) -> date | None:
    try:
        return date.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        return None


COMPOSERS: dict[str, Composer] = {"notice": notice, "digest": digest}
