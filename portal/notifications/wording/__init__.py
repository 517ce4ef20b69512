"""What a notification says, in the reader's language of the moment: the action's label
from the document's pinned flow (falling back to English), the document's title,
amount and requester, the comment that came with the decision — and, for a "waiting
for your decision" notice, whether it still stands and why it reached the reader.

Made at read time from the keys a notification stores, so a member who switches
language reads every notification in the new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flask_babel import gettext as _

from portal.documents.queries.notices import NoticeDecision, NoticeDocument
from portal.notifications.queries import (
    COVER_CODES,
    DOCUMENT_MOVED,
    TASK_ASSIGNED,
    TASK_HANDED_OVER,
    NotificationView,
)
from portal.notifications.wording.covers import NoticeLine, cover_text, handover_text
from portal.notifications.wording.deadlines import DEADLINE_CODES, deadline_text
from portal.web.i18n import format_money
from portal.web.messages import message_for


@dataclass(frozen=True)
class NoticeText:
    # The sentence.
    text: str
    # The comment that came with the decision (the person's own words), or "".
    comment: str
    # For a superseded notice: who decided, or that it no longer waits.
    status: str | None
    # For an escalated task: why it reached the reader.
    reason: str | None
    # The documents it lists, each linked (the summary of what was decided on the
    # reader's behalf).
    documents: tuple[NoticeLine, ...] = field(default_factory=tuple)


def _action(document: NoticeDocument, decision: NoticeDecision, locale: str) -> str:
    return document.graph.transition_label(decision.from_state, decision.transition, locale)


def _moved(
    n: NotificationView, document: NoticeDocument, locale: str, facts: dict[str, str]
) -> str:
    cause = n.cause
    if cause is None:
        # An older notice that named no decision: its action and state as stored.
        state = str(n.params.get("state", document.state))
        key = str(n.params.get("transition", ""))
        into = [t for t in document.graph.transitions if t.key == key and t.to_state == state]
        action = into[0].labels.text(locale) if into else key
        return _(
            "“%(action)s” on your %(reference)s “%(title)s” (%(amount)s); it is now “%(state)s”.",
            action=action,
            state=document.graph.state_label(state, locale),
            **facts,
        )
    words = {
        "action": _action(document, cause, locale),
        "state": document.graph.state_label(cause.to_state, locale),
        **facts,
    }
    if cause.actor_id is None:
        return _(
            "Your %(reference)s “%(title)s” (%(amount)s) was moved on automatically (“%(action)s”); it is now “%(state)s”.",
            **words,
        )
    return _(
        # i18n: %(action)s is the flow's own name for the action, e.g. "Reject".
        "%(actor)s chose “%(action)s” on your %(reference)s “%(title)s” (%(amount)s); it is now “%(state)s”.",
        actor=cause.actor_name or "—",
        **words,
    )


def _status(n: NotificationView, document: NoticeDocument, locale: str, me: int | None) -> str:
    by = n.superseded_by
    if by is None:
        return _("No longer waiting for you.")
    action = _action(document, by, locale)
    if by.actor_id is None:
        return _("Moved on automatically: “%(action)s”.", action=action)
    if by.actor_id == me:
        return _("You decided it: “%(action)s”.", action=action)
    return _("Decided by %(name)s: “%(action)s”.", name=by.actor_name or "—", action=action)


def _reason(n: NotificationView) -> str | None:
    if n.escalated_reason is None:
        return None
    names = n.escalated_names or {}
    if n.escalated_reason == "vacant" and "position" in names:
        return _("It reached you because the seat of %(position)s is vacant.", **names)
    if n.escalated_reason == "only_the_requester" and "member" in names:
        return _(
            "It reached you because only %(member)s could decide this step, and nobody approves their own document.",
            **names,
        )
    return _("It reached you by escalation.")


def notice_text(
    n: NotificationView,
    locale: str,
    me: int | None,
    *,
    time_zone: str | None = None,
    formats: str | None = None,
) -> NoticeText:
    """``n`` in the reader's ``locale``; ``me`` is the reader (so "you decided it").
    Times are in ``time_zone`` and money and dates follow ``formats`` (a Babel locale);
    both default to the reader of the page (mail names the recipient's)."""
    if n.code in COVER_CODES:
        text, lines = cover_text(n, locale, me, formats, time_zone)
        return NoticeText(text, "", None, None, lines)
    document = n.document
    if document is None or n.code not in (
        TASK_ASSIGNED,
        DOCUMENT_MOVED,
        TASK_HANDED_OVER,
        *DEADLINE_CODES,
    ):
        # Nothing to name but the stored keys.
        return NoticeText(message_for(n), "", None, None)
    facts = {
        "reference": document.reference,
        "title": document.title,
        "amount": format_money(document.amount, document.currency, formats),
        "requester": document.requester_name,
    }
    comment = n.cause.comment if n.cause is not None else ""
    if n.code in DEADLINE_CODES:
        text, reason = deadline_text(n, document, locale, me, facts, time_zone, formats)
        status = _status(n, document, locale, me) if n.superseded else None
        return NoticeText(text, "", status, reason or _reason(n))
    if n.code == DOCUMENT_MOVED:
        return NoticeText(_moved(n, document, locale, facts), comment, None, None)
    state = str(n.params.get("state", document.state))
    if n.code == TASK_HANDED_OVER:
        # The comment is the handover's reason, written on its history row.
        label = document.graph.state_label(state, locale)
        return NoticeText(handover_text(n, me, facts, label), comment, None, None)
    text = _(
        "%(reference)s “%(title)s” (%(amount)s) from %(requester)s is waiting for your decision at “%(state)s”.",
        state=document.graph.state_label(state, locale),
        **facts,
    )
    status = _status(n, document, locale, me) if n.superseded else None
    return NoticeText(text, comment, status, _reason(n))
