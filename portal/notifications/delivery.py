"""The outbox handler for ``notify.*`` events: who hears of it, and how.

The transition (or the deadline sweep) writes who should hear of it; this turns each
such event into one notification per member, and — for those who take that kind of
notice by mail one at a time — one ``mail.notice`` outbox row each. Both are written in
the event's own transaction (savepoint), so each mail is written exactly once per event:
a repeat of the event finds its notifications already there and adds nothing. The
outbox hands over a batch's events together: four statements for all of them.

Every notification is written, whatever the member chose: it is the record the digest
and the bell read. One whose in-app channel is off is written already read
(``read_at = created_at``), so it never rings the bell. A member who takes the daily
digest gets no single mail: the digest lists the notice.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from portal.accounts.queries import active_members_among
from portal.core import outbox
from portal.core.clock import clock
from portal.core.db import storable_ids, table_of
from portal.core.outbox import OutboxEvent, add_events
from portal.domain.notice_preferences import Channel, channels_for, kind_of
from portal.notifications.models import NoticePreference, Notification
from portal.notifications.preferences import StoredPreferences, stored_preferences

# The payload's keys a notification keeps: the words are made when it is read.
_KEPT = (
    "reference",
    "state",
    "transition",
    "decision",
    "due_at",
    "level",
    "reason",
    "from_member",
    "from_members",
    "to_members",
    "gap",
    "code",
    "delegation_id",
)


def deliver_notifications(session: Session, event: OutboxEvent) -> None:
    deliver_notification_batch(session, [event])


def deliver_notification_batch(session: Session, events: list[OutboxEvent]) -> None:
    """The events' notifications in four statements at most, however many events and
    members: who has heard already, who is to hear (with their preferences), the
    notifications, and the single mails."""
    org_id: int = session.info["org_id"]
    named = {event.id: _named(event) for event in events}
    hearing = _to_hear(session, org_id, {m for members in named.values() for m in members})
    reached = _reached(session, org_id, named)
    now = clock.now()
    rows: list[dict[str, Any]] = []
    mailed: set[tuple[int, int]] = set()
    for event in events:
        payload = event.payload
        code = "notice_" + event.topic.split(".", 1)[1]
        kind = kind_of(code)
        # Keys only (the decision's number, the state, the action): the words — in the
        # reader's language, with the document's title and amount — are made when read.
        params = {key: payload[key] for key in _KEPT if key in payload}
        escalated = payload.get("escalated") or {}
        for member_id in named[event.id]:
            if member_id not in hearing or (event.id, member_id) in reached:
                continue
            own = dict(params)
            # Why the task reached this member, when it came past a gap (a vacant seat).
            if str(member_id) in escalated:
                own["escalated_past"] = escalated[str(member_id)]
            chosen = hearing[member_id]
            channels = channels_for(chosen.channels if chosen else None, kind)
            rows.append(
                {
                    "org_id": org_id,
                    "member_id": member_id,
                    "document_id": payload.get("document_id"),
                    "outbox_id": event.id,
                    "code": code,
                    "params": own,
                    "created_at": now,
                    "read_at": None if Channel.IN_APP in channels else now,
                }
            )
            if Channel.EMAIL in channels and not (chosen and chosen.email_digest):
                mailed.add((event.id, member_id))
    if not rows:
        return
    # Below the ORM (its per-statement cost is most of a delivery's): the statements name
    # the organization themselves.
    written = (
        session.connection()
        .execute(
            insert(_NOTIFICATION).returning(
                _NOTIFICATION.c.outbox_id,
                _NOTIFICATION.c.member_id,
                _NOTIFICATION.c.id,
                sort_by_parameter_order=True,
            ),
            rows,
        )
        .all()
    )
    add_events(
        session,
        [("mail.notice", _mail_payload(m, n)) for e, m, n in written if (e, m) in mailed],
    )


_NOTIFICATION = table_of(Notification)
_PREFERENCE = table_of(NoticePreference)


def _named(event: OutboxEvent) -> list[int]:
    members = event.payload.get("members", [])
    return list(dict.fromkeys(m for m in members if isinstance(m, int)))


def _to_hear(session: Session, org_id: int, named: set[int]) -> dict[int, StoredPreferences | None]:
    """Of the members ``named``, those who are to hear of anything, with their stored
    preferences (None: the defaults): only the organization's active members (an id of
    another organization's, or of someone who has left since, is nobody here)."""
    ids = storable_ids(named)
    if not ids:
        return {}
    active = active_members_among(org_id, ids).subquery()
    rows = session.connection().execute(
        select(active.c.id, _PREFERENCE.c.id, _PREFERENCE.c.channels, _PREFERENCE.c.email_digest)
        .select_from(active)
        .outerjoin(
            _PREFERENCE,
            (_PREFERENCE.c.org_id == org_id) & (_PREFERENCE.c.member_id == active.c.id),
        )
    )
    return {
        member_id: None if stored is None else stored_preferences(member_id, channels, digest)
        for member_id, stored, channels, digest in rows
    }


def _reached(session: Session, org_id: int, named: dict[int, list[int]]) -> set[tuple[int, int]]:
    """The (event, member) pairs already notified: a repeated delivery adds nothing."""
    if not any(named.values()):
        return set()
    rows = session.connection().execute(
        select(_NOTIFICATION.c.outbox_id, _NOTIFICATION.c.member_id).where(
            _NOTIFICATION.c.org_id == org_id,
            _NOTIFICATION.c.outbox_id.in_(named),
        )
    )
    return {(e, m) for e, m in rows}


def _mail_payload(member_id: int, notification_id: int) -> dict[str, Any]:
    # Ids only: the mail is worded when it is sent, in the reader's language then.
    return {"member_id": member_id, "notification_id": notification_id}


def register() -> None:
    outbox.register("notify.", deliver_notifications, together=deliver_notification_batch)
