"""What the deadline notices say: a reminder before the deadline, a breach, a task
escalated to the reader or above them, a task reassigned, and the admins' alerts (an
escalation that found nobody, an automatic step that was refused). Due times are in
the reader's zone; the people named are read with the notice.
"""

from __future__ import annotations

from datetime import datetime

from flask_babel import gettext as _

from portal.documents.queries.notices import NoticeDocument
from portal.notifications.queries import (
    AUTO_REFUSED,
    COVER_CODES,
    DOCUMENT_MOVED,
    DUE_SOON,
    ESCALATED,
    ESCALATED_AWAY,
    ESCALATION_GAP,
    OVERDUE,
    REASSIGNED,
    TASK_ASSIGNED,
    TASK_HANDED_OVER,
    NotificationView,
)
from portal.notifications.wording.covers import cover_subject, handover_subject
from portal.web.i18n import format_moment
from portal.web.messages import gap_message, message_for

DEADLINE_CODES = (
    DUE_SOON,
    OVERDUE,
    ESCALATED,
    ESCALATED_AWAY,
    REASSIGNED,
    ESCALATION_GAP,
    AUTO_REFUSED,
)


def due_at_of(n: NotificationView) -> datetime | None:
    """The deadline a reminder or a breach notice names (stored as ISO 8601, UTC)."""
    raw = n.params.get("due_at")
    if not isinstance(raw, str):
        return None
    try:
        return datetime.fromisoformat(raw)
    except ValueError:
        return None


def _names(n: NotificationView, key: str) -> str:
    value = n.params.get(key)
    ids = value if isinstance(value, list) else [value]
    return ", ".join(n.people[i] for i in ids if isinstance(i, int) and i in n.people)


def reassigned_to_reader(n: NotificationView, me: int | None) -> bool:
    """A reassignment notice goes to the new holder and the old: is the reader the new?"""
    to = n.params.get("to_members")
    return isinstance(to, list) and me in to


def deadline_text(
    n: NotificationView,
    document: NoticeDocument,
    locale: str,
    me: int | None,
    facts: dict[str, str],
    time_zone: str | None,
    formats: str | None,
) -> tuple[str, str | None]:
    """The sentence, and why (or None: the caller's own reason, if any)."""
    state = str(n.params.get("state", document.state))
    words = {**facts, "state": document.graph.state_label(state, locale)}
    due = format_moment(due_at_of(n), formats, time_zone)
    if n.code == DUE_SOON:
        return _(
            "%(reference)s “%(title)s” (%(amount)s) from %(requester)s is waiting for your decision at “%(state)s”; it is due by %(due)s.",
            due=due,
            **words,
        ), None
    if n.code == OVERDUE:
        return _(
            "%(reference)s “%(title)s” (%(amount)s) from %(requester)s was due by %(due)s and is still waiting for your decision at “%(state)s”.",
            due=due,
            **words,
        ), None
    if n.code == ESCALATED:
        return _escalated(n, words)
    if n.code == ESCALATED_AWAY:
        return _(
            "%(reference)s “%(title)s” (%(amount)s) from %(requester)s waited too long at “%(state)s” and was escalated to %(to)s. You can still decide it.",
            to=_names(n, "to_members") or _("the next seat up"),
            **words,
        ), None
    if n.code == REASSIGNED:
        if reassigned_to_reader(n, me):
            return _(
                "%(reference)s “%(title)s” (%(amount)s) from %(requester)s was reassigned to you from %(from)s and is waiting for your decision at “%(state)s”.",
                **{"from": _names(n, "from_member") or "—"},
                **words,
            ), None
        return _(
            "%(reference)s “%(title)s” (%(amount)s) from %(requester)s waited too long at “%(state)s” and was reassigned from you to %(to)s.",
            to=_names(n, "to_members") or "—",
            **words,
        ), None
    if n.code == ESCALATION_GAP:
        reason = (
            gap_message(n.escalated_reason, n.escalated_names or {}) if n.escalated_reason else None
        )
        return _(
            "%(reference)s “%(title)s” (%(amount)s) from %(requester)s waits too long at “%(state)s”, and nobody above could take it over.",
            **words,
        ), reason
    # AUTO_REFUSED: the flow's automatic step could not be taken.
    key = str(n.params.get("transition", ""))
    return _(
        "The automatic “%(action)s” on %(reference)s “%(title)s” (%(amount)s) from %(requester)s was refused; it still waits at “%(state)s”.",
        action=document.graph.transition_label(state, key, locale) if key else "—",
        **words,
    ), _refusal(n)


def _escalated(n: NotificationView, words: dict[str, str]) -> tuple[str, str | None]:
    who = _names(n, "from_members")
    if who:
        text = _(
            "%(reference)s “%(title)s” (%(amount)s) from %(requester)s was escalated to you from %(from)s and is waiting for your decision at “%(state)s”.",
            **{"from": who},
            **words,
        )
    else:
        text = _(
            "%(reference)s “%(title)s” (%(amount)s) from %(requester)s was escalated to you and is waiting for your decision at “%(state)s”.",
            **words,
        )
    reason = n.params.get("reason")
    if reason == "breach":
        return text, _("Its deadline passed without a decision.")
    if reason == "escalate_after":
        return text, _("Nobody decided it in the time the flow allows.")
    return text, None


class _Refusal:
    def __init__(self, code: str) -> None:
        self.code = code
        self.params: dict[str, object] = {}


def _refusal(n: NotificationView) -> str | None:
    code = n.params.get("code")
    if not isinstance(code, str):
        return None
    try:
        said = message_for(_Refusal(code))
    except (KeyError, TypeError, ValueError):
        said = None
    if said is None or "%(" in said:  # the message needs details the event does not keep
        return _("The flow's rules refused it (%(code)s).", code=code)
    return said


def notice_subject(n: NotificationView, me: int | None) -> str:
    """A mail's subject line: what happened, then the document ("Overdue: EXP-2026-00042
    Taxi to client")."""
    if n.code in COVER_CODES:
        return cover_subject(n, me)
    document = n.document
    what = {
        "reference": document.reference if document else str(n.params.get("reference", "")),
        "title": document.title if document else "",
    }
    if n.code == TASK_ASSIGNED:
        return _("Waiting for your decision: %(reference)s %(title)s", **what)
    if n.code == DUE_SOON:
        return _("Due soon: %(reference)s %(title)s", **what)
    if n.code == OVERDUE:
        return _("Overdue: %(reference)s %(title)s", **what)
    if n.code == ESCALATED:
        return _("Escalated to you: %(reference)s %(title)s", **what)
    if n.code == ESCALATED_AWAY:
        return _("Escalated above you: %(reference)s %(title)s", **what)
    if n.code == REASSIGNED:
        if reassigned_to_reader(n, me):
            return _("Reassigned to you: %(reference)s %(title)s", **what)
        return _("Reassigned from you: %(reference)s %(title)s", **what)
    if n.code == ESCALATION_GAP:
        return _("Nobody to escalate to: %(reference)s %(title)s", **what)
    if n.code == AUTO_REFUSED:
        return _("Automatic step refused: %(reference)s %(title)s", **what)
    if n.code == DOCUMENT_MOVED:
        return _("Moved on: %(reference)s %(title)s", **what)
    if n.code == TASK_HANDED_OVER:
        return handover_subject(n, me, what)
    return _("News about %(reference)s %(title)s", **what)
