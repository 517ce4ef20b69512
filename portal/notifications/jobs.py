"""The notifications' periodic jobs (``core.schedule``): the daily digest, and the
announcement of covers as their days come and go.

The daily digest: one mail a day to each member who takes a digest instead of single
mails, listing the notices of the kinds they take by mail since their last digest. Safe
to run as often as the scheduler likes and by two schedulers at once: a member's digest
for a day is a ``mail_digest`` row, unique per (member, day in their zone), written in
the same transaction as the mail's outbox row, so a second run that day finds the row
and sends nothing.

Covers: the delegate hears when a cover begins and when it ends; the delegator, when it
is over, gets a summary of what was decided on their behalf. Days are the
organization's: a cover begins at midnight of ``valid_from`` there and ends at midnight
after ``valid_to``. Each notice goes once, however often the job runs and however many
run at once: the cover is stamped (``start_noticed_at``, ``end_noticed_at``) by a
conditional UPDATE that only a row still unstamped matches, in the same transaction as
the notice's outbox row — a second run waits for the first's row lock, then finds it
stamped and writes nothing. Decided here:
- A cover set on (or after) its first day was announced by ``notify.cover_set``, which
  already says it is on: it is stamped as begun without a second notice.
- A revoked cover was announced by its own ``notify.cover_revoked``: the delegate hears
  nothing more. Its delegator gets the summary only if something was decided under it
  (a cover revoked before it began has nothing to say).
- A cover whose whole window passed before the job saw it begin (the job was down) is
  announced only as ended: never "begun" after it is over.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.queries import mail_recipients_in
from portal.core import outbox
from portal.core.clock import clock
from portal.core.heartbeat import beat
from portal.core.outbox import add_events
from portal.core.uow import operator_work, unit_of_work
from portal.delegations.queries import DELEGATION_TABLE as _DEL
from portal.documents.queries.covered import count_decided_under
from portal.domain.notice_preferences import codes_of, digest_day, mailed_kinds
from portal.domain.time_zones import local_day
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


# --- covers -------------------------------------------------------------------------------


def announce_covers() -> int:
    """Announce the covers that began or ended in every organization, one unit of work
    per organization (the operator may not read covers across organizations: each is
    read in its own); return how many notices were written."""
    with operator_work() as uow:
        orgs = [
            (org_id, zone_name or "UTC")
            for org_id, zone_name in uow.session.execute(
                text("SELECT id, time_zone FROM organization WHERE archived_at IS NULL ORDER BY id")
            )
        ]
    written = 0
    for org_id, zone_name in orgs:
        try:
            written += announce_covers_in(org_id, zone_name)
        except Exception:  # one organization's failure must not stop the others'
            log.exception("the cover notices of organization %s failed", org_id)
    return written


def announce_covers_in(org_id: int, zone_name: str) -> int:
    """The organization's covers that ended (or were revoked) and began since the last
    run, announced in one unit of work; how many notices were written."""
    now = clock.now()
    today = local_day(now, zone_name)
    with unit_of_work(org_id) as uow:
        s = uow.session
        events = _ended(s, org_id, today, now) + _begun(s, org_id, today, now, zone_name)
        if events:
            add_events(s, events)
            uow.after_commit(lambda: outbox.nudge(org_id))
    return len(events)


Event = tuple[str, dict[str, Any]]


def _ended(session: Session, org_id: int, today: Any, now: datetime) -> list[Event]:
    """Covers past their last day, or revoked, not yet announced as over: stamped (as
    begun too, so a late run never announces a beginning after the end)."""
    rows = session.execute(
        update(_DEL)
        .where(
            _DEL.c.org_id == org_id,
            _DEL.c.end_noticed_at.is_(None),
            or_(_DEL.c.valid_to < today, _DEL.c.revoked_at.is_not(None)),
        )
        .values(end_noticed_at=now, start_noticed_at=func.coalesce(_DEL.c.start_noticed_at, now))
        .returning(_DEL.c.id, _DEL.c.delegator_id, _DEL.c.delegate_id, _DEL.c.revoked_at)
    ).all()
    if not rows:
        return []
    decided = count_decided_under(session, org_id, [r.id for r in rows if r.revoked_at])
    events: list[Event] = []
    for r in sorted(rows, key=lambda r: r.id):
        if r.revoked_at is None:
            events.append(_event("notify.cover_ended", r.delegate_id, r.id))
        if r.revoked_at is None or decided.get(r.id):
            events.append(_event("notify.cover_summary", r.delegator_id, r.id))
    return events


def _begun(session: Session, org_id: int, today: Any, now: datetime, zone_name: str) -> list[Event]:
    """Covers in their window, not revoked, not yet announced as begun: stamped, and
    announced unless they were set on their first day or later."""
    rows = session.execute(
        update(_DEL)
        .where(
            _DEL.c.org_id == org_id,
            _DEL.c.start_noticed_at.is_(None),
            and_(_DEL.c.valid_from <= today, _DEL.c.valid_to >= today),
            _DEL.c.revoked_at.is_(None),
        )
        .values(start_noticed_at=now)
        .returning(_DEL.c.id, _DEL.c.delegate_id, _DEL.c.valid_from, _DEL.c.created_at)
    ).all()
    return [
        _event("notify.cover_started", r.delegate_id, r.id)
        for r in sorted(rows, key=lambda r: r.id)
        if local_day(r.created_at, zone_name) < r.valid_from
    ]


def _event(topic: str, member_id: int, delegation_id: int) -> Event:
    return topic, {"members": [member_id], "delegation_id": delegation_id}
