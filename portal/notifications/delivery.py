"""In-app notifications: the outbox handler for ``notify.*`` events.

The transition writes who should hear of it; this turns each such event into one
notification per member. Delivery is at least once, so a repeat of the same event
finds its notifications already there and adds nothing.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.core import outbox
from portal.core.clock import clock
from portal.core.outbox import OutboxEvent
from portal.notifications.models import Notification

_KEPT = ("reference", "state", "transition", "decision")


def deliver_notifications(session: Session, event: OutboxEvent) -> None:
    payload = event.payload
    code = "notice_" + event.topic.split(".", 1)[1]
    already = set(
        session.scalars(select(Notification.member_id).where(Notification.outbox_id == event.id))
    )
    # Keys only (the decision's number, the state, the action): the words — in the
    # reader's language, with the document's title and amount — are made when read.
    params = {key: payload[key] for key in _KEPT if key in payload}
    escalated = payload.get("escalated") or {}
    for member_id in payload.get("members", []):
        if member_id in already:
            continue
        own = dict(params)
        # Why the task reached this member, when it came past a gap (a vacant seat).
        if str(member_id) in escalated:
            own["escalated_past"] = escalated[str(member_id)]
        session.add(
            Notification(
                member_id=member_id,
                document_id=payload.get("document_id"),
                outbox_id=event.id,
                code=code,
                params=own,
                created_at=clock.now(),
            )
        )
    session.flush()


def register() -> None:
    outbox.register("notify.", deliver_notifications)
