"""The outbox handler for ``notify.*`` events: who hears of it, and how.

The transition (or the deadline sweep) writes who should hear of it; this turns each
such event into one notification per member, and — for those who take that kind of
notice by mail one at a time — one ``mail.notice`` outbox row each. Both are written in
the event's own transaction, so each mail is written exactly once per event: a repeat
of the event finds its notifications already there and adds nothing.

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
from portal.core.db import storable_ids
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
)


def deliver_notifications(session: Session, event: OutboxEvent) -> None:
    """Three statements at most, however many members: who is to hear of it (with their
    preferences), their notifications, and their single mails."""
    payload = event.payload
    code = "notice_" + event.topic.split(".", 1)[1]
    kind = kind_of(code)
    # Keys only (the decision's number, the state, the action): the words — in the
    # reader's language, with the document's title and amount — are made when read.
    params = {key: payload[key] for key in _KEPT if key in payload}
    escalated = payload.get("escalated") or {}
    named = list(dict.fromkeys(m for m in payload.get("members", []) if isinstance(m, int)))
    hearing = _to_hear(session, event.id, named)
    members = [m for m in named if m in hearing]
    if not members:
        return
    now = clock.now()
    rows: list[dict[str, Any]] = []
    mailed: set[int] = set()
    for member_id in members:
        own = dict(params)
        # Why the task reached this member, when it came past a gap (a vacant seat).
        if str(member_id) in escalated:
            own["escalated_past"] = escalated[str(member_id)]
        chosen = hearing[member_id]
        channels = channels_for(chosen.channels if chosen else None, kind)
        rows.append(
            {
                "org_id": session.info["org_id"],
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
            mailed.add(member_id)
    written = session.execute(
        insert(Notification).returning(
            Notification.member_id, Notification.id, sort_by_parameter_order=True
        ),
        rows,
    ).all()
    add_events(
        session,
        [("mail.notice", _mail_payload(m, n)) for m, n in written if m in mailed],
    )


def _to_hear(
    session: Session, outbox_id: int, named: list[int]
) -> dict[int, StoredPreferences | None]:
    """Of the members ``named``, those who are to hear of the event, with their stored
    preferences (None: the defaults), in one statement: only the organization's active
    members (an id of another organization's, or of someone who has left since, is
    nobody here), and only those the event has not reached yet (a repeated delivery)."""
    ids = storable_ids(named)
    if not ids:
        return {}
    active = active_members_among(ids).subquery()
    reached = (
        select(Notification.id)
        .where(Notification.outbox_id == outbox_id, Notification.member_id == active.c.id)
        .exists()
    )
    rows = session.execute(
        select(
            active.c.id,
            NoticePreference.id,
            NoticePreference.channels,
            NoticePreference.email_digest,
        )
        .select_from(active)
        .outerjoin(NoticePreference, NoticePreference.member_id == active.c.id)
        .where(~reached)
    )
    return {
        member_id: None if stored is None else stored_preferences(member_id, channels, digest)
        for member_id, stored, channels, digest in rows
    }


def _mail_payload(member_id: int, notification_id: int) -> dict[str, Any]:
    # Ids only: the mail is worded when it is sent, in the reader's language then.
    return {"member_id": member_id, "notification_id": notification_id}


def register() -> None:
    outbox.register("notify.", deliver_notifications)
