"""Reading a member's notifications: the bell's list and its number.

A notification stores keys (its document, the decision that caused it, the state and
action); what it says is made when it is read (``wording``), from the facts read here
in the same unit of work. A "waiting for your decision" notice whose task has closed —
someone decided, or the document moved on — is *superseded*: shown as such, and not
counted by the bell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, or_, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.core.uow import unit_of_work_for
from portal.documents.queries.covered import CoverFacts, cover_facts_in
from portal.documents.queries.notices import (
    NoticeDecision,
    NoticeDocument,
    NoticeFacts,
    notice_facts_in,
    task_still_open,
)
from portal.domain.actor import Actor
from portal.domain.notice_preferences import NoticeKind, NoticeSettings, settings_of
from portal.domain.notice_preferences import offered_kinds as kinds_offered
from portal.notifications.models import Notification
from portal.notifications.preferences import stored_preferences_in
from portal.orgchart.queries import gap_names, seat_labels_in

NOTIFICATIONS_SHOWN = 50
TASK_ASSIGNED = "notice_task_assigned"
DOCUMENT_MOVED = "notice_document_moved"
DUE_SOON = "notice_due_soon"
OVERDUE = "notice_overdue"
ESCALATED = "notice_escalated"
ESCALATED_AWAY = "notice_escalated_away"
REASSIGNED = "notice_reassigned"
ESCALATION_GAP = "notice_escalation_gap"
AUTO_REFUSED = "notice_auto_refused"
# Out-of-office cover: set for the reader, started, ended, revoked; the delegator's
# summary of what was decided on their behalf. A task handed from one holder to another.
COVER_SET = "notice_cover_set"
COVER_STARTED = "notice_cover_started"
COVER_ENDED = "notice_cover_ended"
COVER_SUMMARY = "notice_cover_summary"
COVER_REVOKED = "notice_cover_revoked"
COVER_CODES = (COVER_SET, COVER_STARTED, COVER_ENDED, COVER_SUMMARY, COVER_REVOKED)
TASK_HANDED_OVER = "notice_task_handed_over"
# "Waiting for your decision" notices that name the decision that opened the task: once
# the task closes they are superseded, and the bell stops counting them.
WAITING = (TASK_ASSIGNED, ESCALATED)


@dataclass(frozen=True)
class NotificationView:
    id: int
    code: str
    params: dict[str, Any]
    reference: str | None
    created_at: datetime
    read: bool
    # What it is about, as it stands now (None: the document is gone from view).
    document: NoticeDocument | None = None
    # The decision that caused it (the move, or the one that opened the task).
    cause: NoticeDecision | None = None
    # A "waiting for your decision" notice whose task is no longer open, and the
    # decision that closed it when there was one ("decided by …").
    superseded: bool = False
    superseded_by: NoticeDecision | None = None
    # When the task reached the reader only past a gap: its reason and the names its
    # sentence needs (the vacant seat).
    escalated_reason: str | None = None
    escalated_names: dict[str, object] | None = None
    # The names of the members the notice speaks of (escalated from, reassigned to).
    people: dict[int, str] = field(default_factory=dict)
    # For a cover notice: the cover as it stands now (None: not this organization's),
    # with the decisions taken under it for the delegator's summary.
    cover: CoverFacts | None = None

    @property
    def needs_attention(self) -> bool:
        """Unread and still standing: what the bell counts."""
        return not self.read and not self.superseded


@dataclass(frozen=True)
class NotificationList:
    items: list[NotificationView]
    # What the bell counts: unread and not superseded.
    attention: int
    # Unread at all (superseded ones included): whether "mark all read" has work.
    unread: int


def list_notifications(actor: Actor) -> list[NotificationView]:
    """The member's latest notifications, newest first, with what each is about."""
    return notifications_page(actor).items


def notifications_page(actor: Actor) -> NotificationList:
    """The bell's page: the latest notifications and the counts, in one unit of work."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        rows = s.scalars(
            select(Notification)
            .where(Notification.member_id == actor.member_id)
            .order_by(Notification.created_at.desc(), Notification.id.desc())
            .limit(NOTIFICATIONS_SHOWN)
        ).all()
        assert actor.member_id is not None
        items = notification_views_in(s, actor.org_id, actor.member_id, rows)
        connection = s.connection()
        return NotificationList(
            items,
            count_unread_in(connection, actor),
            int(connection.execute(_ALL_UNREAD, _params(actor)).scalar_one()),
        )


def notification_views_in(
    session: Session, org_id: int, member_id: int, rows: Sequence[Notification]
) -> list[NotificationView]:
    """``rows`` (the member's notifications) with what each is about, as it stands now:
    the bell's page, a notice's mail and the digest read them alike."""
    facts = notice_facts_in(session, org_id, member_id, (n.document_id for n in rows))
    gaps = _escalation_names(session, {n.id: _gap_of(n) for n in rows})
    people = member_names(session, (m for n in rows for m in _people_in(n.params)))
    covers = cover_facts_in(
        session,
        org_id,
        (_id(n.params.get("delegation_id")) for n in rows if n.code in COVER_CODES),
        with_decisions=[
            i
            for n in rows
            if n.code == COVER_SUMMARY and (i := _id(n.params.get("delegation_id"))) is not None
        ],
    )
    return [_view(n, facts, gaps, people, covers) for n in rows]


def _gap_of(n: Notification) -> Any:
    # Why a task came past a gap, or — for the admins' notice — the gap itself.
    return n.params.get("gap") if n.code == ESCALATION_GAP else n.params.get("escalated_past")


def _people_in(params: dict[str, Any]) -> list[int]:
    found: list[int] = []
    for key in ("from_member", "from_members", "to_members"):
        value = params.get(key)
        values = value if isinstance(value, list) else [value]
        found.extend(i for i in map(_id, values) if i is not None)
    return found


def _view(
    n: Notification,
    facts: NoticeFacts,
    gaps: dict[int, tuple[str, dict[str, object]]],
    people: dict[int, str],
    covers: dict[int, CoverFacts],
) -> NotificationView:
    params = dict(n.params)
    document = facts.documents.get(n.document_id) if n.document_id is not None else None
    cause = facts.decision(n.document_id, params.get("decision")) if n.document_id else None
    superseded, superseded_by = False, None
    state = params.get("state")
    if n.code in WAITING and n.document_id is not None and isinstance(state, str):
        seq = params.get("decision")
        superseded = not facts.still_waiting(n.document_id, seq, state)
        if superseded:
            superseded_by = facts.left_after(n.document_id, seq, state)
    reason, names = gaps.get(n.id, (None, None))
    return NotificationView(
        n.id,
        n.code,
        params,
        params.get("reference"),
        n.created_at,
        n.read_at is not None,
        document,
        cause,
        superseded,
        superseded_by,
        reason,
        names,
        {m: name for m, name in people.items() if m in _people_in(params)},
        covers.get(delegation) if (delegation := _id(params.get("delegation_id"))) else None,
    )


def _escalation_names(
    session: Session, gaps: dict[int, Any]
) -> dict[int, tuple[str, dict[str, object]]]:
    """For each notification (by id) that records an escalation gap, its reason and the
    names of what it is about: one read of seat names and one of member names."""
    found = {
        n: g for n, g in gaps.items() if isinstance(g, dict) and isinstance(g.get("reason"), str)
    }
    if not found:
        return {}
    seats = seat_labels_in(session, [_id(g.get("position_id")) for g in found.values()])
    members = member_names(session, [_id(g.get("member_id")) for g in found.values()])
    return {
        n: (
            g["reason"],
            gap_names(
                position_id=_id(g.get("position_id")),
                member_id=_id(g.get("member_id")),
                unit_id=None,
                role=g.get("role"),
                seats=seats,
                members=members,
                units={},
            ),
        )
        for n, g in found.items()
    }


def _id(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# The bell's number, on every page: prebuilt, SQLAlchemy Core with an explicit tenant
# predicate (row-level security behind it). A "waiting for your decision" notice counts
# only while its task stands.
_MINE_UNREAD = (
    (Notification.org_id == bindparam("org"))
    & (Notification.member_id == bindparam("member"))
    & (Notification.read_at.is_(None))
)
_UNREAD = select(func.count(Notification.id)).where(
    _MINE_UNREAD,
    or_(
        Notification.code.not_in(WAITING),
        Notification.document_id.is_(None),
        task_still_open(
            bindparam("org"),
            Notification.document_id,
            Notification.member_id,
            Notification.params["state"].as_string(),
            Notification.params["decision"].as_integer(),
        ),
    ),
)
_ALL_UNREAD = select(func.count(Notification.id)).where(_MINE_UNREAD)


def _params(actor: Actor) -> dict[str, Any]:
    return {"org": actor.org_id, "member": actor.member_id}


def count_unread_notifications(actor: Actor) -> int:
    with unit_of_work_for(actor) as uow:
        return count_unread_in(uow.session.connection(), actor)


def count_unread_in(connection: Connection, actor: Actor) -> int:
    """The bell's number inside a unit of work the caller already holds (a page that
    reads other things in one transaction saves one of its own): unread notifications
    that still stand."""
    count = connection.execute(_UNREAD, _params(actor))
    return int(count.scalar_one())


def notice_preferences_of(actor: Actor) -> NoticeSettings:
    """The member's notice preferences, whole (the defaults where they chose nothing)."""
    with unit_of_work_for(actor) as uow:
        stored = stored_preferences_in(uow.session, [actor.member_id]).get(actor.member_id)
    if stored is None:
        return settings_of(None, False)
    return settings_of(stored.channels, stored.email_digest)


def offered_kinds(actor: Actor) -> tuple[NoticeKind, ...]:
    """The kinds a member chooses about: the admins' alerts only for admins."""
    return kinds_offered(actor.is_admin)
