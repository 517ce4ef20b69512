"""The daily digest, run periodically (``core.schedule``): one mail a day to each member
who takes a digest instead of single mails, listing the notices of the kinds they take
by mail since their last digest.

Safe to run as often as the scheduler likes and by two schedulers at once: a member's
digest for a day is a ``mail_digest`` row, unique per (member, day in their zone),
written in the same transaction as the mail's outbox row, so a second run that day
finds the row and sends nothing.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta

from sqlalchemy import func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.queries import mail_recipients_in
from portal.core import outbox
from portal.core.clock import clock
from portal.core.heartbeat import beat
from portal.core.outbox import add_events
from portal.core.uow import operator_work, unit_of_work
from portal.domain.notice_preferences import codes_of, digest_day, mailed_kinds
from portal.notifications.models import MailDigest, NoticePreference, Notification
from portal.notifications.preferences import StoredPreferences

# A first digest looks back this far (never at everything the member ever received).
FIRST_DIGEST_LOOKBACK = timedelta(days=1)
# The ids a digest's outbox row names; its mail says how many more there were.
DIGEST_LISTED = 100

log = logging.getLogger(__name__)


def send_digests() -> int:
    """Write the digests that are due in every organization, one unit of work per
    organization; beat the 'mail_digest' heartbeat; return how many were written."""
    with operator_work() as uow:
        org_ids = list(
            uow.session.scalars(
                text("SELECT id FROM organization WHERE archived_at IS NULL ORDER BY id")
            )
        )
    written = 0
    for org_id in org_ids:
        try:
            written += send_digests_in(org_id)
        except Exception:  # one organization's failure must not stop the others'
            log.exception("the digests of organization %s failed", org_id)
    with operator_work() as uow:
        beat(uow.session, "mail_digest", {"organizations": len(org_ids), "digests": written})
    return written


def send_digests_in(org_id: int) -> int:
    """The organization's due digests, in one unit of work."""
    now = clock.now()
    written = 0
    with unit_of_work(org_id) as uow:
        s = uow.session
        wanting = [
            StoredPreferences(m, channels if isinstance(channels, dict) else {}, True)
            for m, channels in s.execute(
                select(NoticePreference.member_id, NoticePreference.channels).where(
                    NoticePreference.email_digest.is_(True)
                )
            )
        ]
        reachable = mail_recipients_in(s, (p.member_id for p in wanting))
        for chosen in wanting:
            reader = reachable.get(chosen.member_id)
            day = digest_day(now, reader.time_zone) if reader else None
            if day is not None and _digest_in(s, chosen, day, now):
                written += 1
        if written:
            uow.after_commit(lambda: outbox.nudge(org_id))
    return written


def _digest_in(session: Session, chosen: StoredPreferences, day: date, now: datetime) -> bool:
    member = chosen.member_id
    if session.scalar(
        select(MailDigest.id).where(MailDigest.member_id == member, MailDigest.day == day)
    ):
        return False
    last = session.scalar(
        select(func.max(MailDigest.last_notification_id)).where(MailDigest.member_id == member)
    )
    codes = codes_of(mailed_kinds(chosen.channels))
    if not codes:
        return False
    since = (
        Notification.id > last
        if last is not None
        else (Notification.created_at > now - FIRST_DIGEST_LOOKBACK)
    )
    ids = list(
        session.scalars(
            select(Notification.id)
            .where(Notification.member_id == member, Notification.code.in_(codes), since)
            .order_by(Notification.id)
        )
    )
    if not ids:
        return False
    try:
        with session.begin_nested():
            session.add(
                MailDigest(member_id=member, day=day, last_notification_id=ids[-1], created_at=now)
            )
            session.flush()
            add_events(
                session,
                [
                    (
                        "mail.digest",
                        {
                            "member_id": member,
                            "day": day.isoformat(),
                            "notification_ids": ids[-DIGEST_LISTED:],
                            "total": len(ids),
                        },
                    )
                ],
            )
    except IntegrityError:  # another run wrote this day's digest a moment ago
        return False
    return True
