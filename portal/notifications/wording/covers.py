"""What the cover and handover notices say: cover set for the reader (by the delegator,
or by an admin for an absent member), begun, ended, revoked; the delegator's summary of
what was decided on their behalf; a task handed from one holder to another.

A cover notice stores only the cover's id: who, which kind, which days and why are read
with the notice (``NotificationView.cover``), so people are named as they are called
now, the kind in the reader's language and the days in the reader's locale.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from babel.dates import format_interval
from flask_babel import gettext as _
from flask_babel import ngettext

from portal.documents.queries.covered import CoverFacts
from portal.notifications.queries import (
    COVER_ENDED,
    COVER_REVOKED,
    COVER_SET,
    COVER_STARTED,
    COVER_SUMMARY,
    NotificationView,
)
from portal.web.i18n import format_day, format_locale
from portal.web.messages import message_for


@dataclass(frozen=True)
class NoticeLine:
    """One document a notice lists (the summary's decisions), linked by reference."""

    reference: str
    text: str


def format_days(first: date, last: date, formats: str | None = None) -> str:
    """A cover's days as the reader's locale writes a span: "8–19 Dec 2026", "2026年12月
    8日 – 19日"; one day alone when they are the same."""
    return format_interval(first, last, "yMMMd", locale=formats or format_locale())


def cover_text(
    n: NotificationView,
    locale: str,
    me: int | None,
    formats: str | None,
    time_zone: str | None,
) -> tuple[str, tuple[NoticeLine, ...]]:
    """The sentence, and the documents it lists (the summary's; none otherwise)."""
    cover = n.cover
    if cover is None:  # not this organization's, or a row nobody can read: the keys only
        return message_for(n), ()
    words = {
        "delegator": cover.name(cover.delegator_id),
        "delegate": cover.name(cover.delegate_id),
        "days": format_days(cover.valid_from, cover.valid_to, formats),
        "reason": cover.reason,
    }
    if n.code == COVER_SET:
        return _set(cover, locale, me, words), ()
    if n.code == COVER_STARTED:
        return _(
            "Your cover for %(delegator)s has begun: you decide on their behalf until the end of %(last)s (%(reason)s).",
            last=format_day(cover.valid_to, formats),
            **words,
        ), ()
    if n.code == COVER_ENDED:
        return _(
            "Your cover for %(delegator)s ended (%(days)s): you no longer decide on their behalf.",
            **words,
        ), ()
    if n.code == COVER_REVOKED:
        if me == cover.delegator_id:  # an admin revoked it for them
            return _(
                "%(revoker)s revoked your cover by %(delegate)s (%(days)s): they no longer decide on your behalf.",
                revoker=cover.name(cover.revoked_by),
                **words,
            ), ()
        if cover.revoked_by in (None, cover.delegator_id):
            return _(
                "%(delegator)s revoked your cover (%(days)s): you no longer decide on their behalf.",
                **words,
            ), ()
        return _(
            "%(revoker)s revoked your cover for %(delegator)s (%(days)s): you no longer decide on their behalf.",
            revoker=cover.name(cover.revoked_by),
            **words,
        ), ()
    if n.code == COVER_SUMMARY:
        return _summary(cover, locale, words, formats, time_zone)
    return message_for(n), ()


def _set(cover: CoverFacts, locale: str, me: int | None, words: dict[str, str]) -> str:
    kind = cover.kind_label(locale)
    by_admin = cover.created_by != cover.delegator_id
    if me == cover.delegator_id:  # an admin set it for them
        if kind:
            return _(
                "%(admin)s set cover for you: %(delegate)s decides your “%(kind)s” documents on your behalf, %(days)s (%(reason)s).",
                admin=cover.name(cover.created_by),
                kind=kind,
                **words,
            )
        return _(
            "%(admin)s set cover for you: %(delegate)s decides on your behalf, %(days)s (%(reason)s).",
            admin=cover.name(cover.created_by),
            **words,
        )
    if me != cover.delegate_id:
        return _("%(delegate)s covers for %(delegator)s, %(days)s (%(reason)s).", **words)
    if by_admin:
        if kind:
            return _(
                "%(admin)s set cover for %(delegator)s: you decide their “%(kind)s” documents on their behalf, %(days)s (%(reason)s).",
                admin=cover.name(cover.created_by),
                kind=kind,
                **words,
            )
        return _(
            "%(admin)s set cover for %(delegator)s: you decide on their behalf, %(days)s (%(reason)s).",
            admin=cover.name(cover.created_by),
            **words,
        )
    if kind:
        return _(
            # i18n: e.g. "Daniel Tan set cover: you decide their “Expense claim” documents
            # on their behalf, 8–19 Dec 2026 (annual leave)."
            "%(delegator)s set cover: you decide their “%(kind)s” documents on their behalf, %(days)s (%(reason)s).",
            kind=kind,
            **words,
        )
    return _("%(delegator)s set cover: you decide on their behalf, %(days)s (%(reason)s).", **words)


def _summary(
    cover: CoverFacts,
    locale: str,
    words: dict[str, str],
    formats: str | None,
    time_zone: str | None,
) -> tuple[str, tuple[NoticeLine, ...]]:
    decided = cover.decisions
    if not decided:
        return _(
            "While you were away (%(days)s), %(delegate)s decided nothing on your behalf.",
            **words,
        ), ()
    documents = len({d.document_id for d in decided})
    text = ngettext(
        "While you were away (%(days)s), %(delegate)s decided %(num)s document on your behalf:",
        "While you were away (%(days)s), %(delegate)s decided %(num)s documents on your behalf:",
        documents,
        **words,
    )
    lines = tuple(
        NoticeLine(
            d.reference,
            _(
                # i18n: one decision taken on the reader's behalf, e.g.
                # "EXP-2026-00012 “Taxi to client”: “Approve”, 10 Dec 2026".
                "%(reference)s “%(title)s”: “%(action)s”, %(day)s",
                reference=d.reference,
                title=d.title,
                action=d.action(locale),
                day=format_day(d.decided_at, formats, time_zone),
            ),
        )
        for d in decided
    )
    return text, lines


def cover_subject(n: NotificationView, me: int | None) -> str:
    """A cover mail's subject line."""
    cover = n.cover
    delegator = cover.name(cover.delegator_id) if cover else "—"
    if n.code == COVER_SET:
        if cover is not None and me == cover.delegator_id:
            return _("Cover set for you: %(delegate)s", delegate=cover.name(cover.delegate_id))
        return _("Cover set: you decide for %(delegator)s", delegator=delegator)
    if n.code == COVER_STARTED:
        return _("Your cover for %(delegator)s has begun", delegator=delegator)
    if n.code == COVER_ENDED:
        return _("Your cover for %(delegator)s ended", delegator=delegator)
    if n.code == COVER_REVOKED:
        return _("Your cover for %(delegator)s was revoked", delegator=delegator)
    delegate = cover.name(cover.delegate_id) if cover else "—"
    return _("Decided on your behalf by %(delegate)s", delegate=delegate)


def _names(n: NotificationView, key: str) -> str:
    value = n.params.get(key)
    ids = value if isinstance(value, list) else [value]
    return ", ".join(n.people[i] for i in ids if isinstance(i, int) and i in n.people)


def handed_to_reader(n: NotificationView, me: int | None) -> bool:
    to = n.params.get("to_members")
    return isinstance(to, list) and me in to


def handover_text(n: NotificationView, me: int | None, facts: dict[str, str], state: str) -> str:
    """A task handed over: to the receiver, to the holder who handed it, to anyone else."""
    words = {**facts, "state": state, "from": _names(n, "from_member") or "—"}
    if handed_to_reader(n, me):
        return _(
            "%(from)s handed %(reference)s “%(title)s” (%(amount)s) from %(requester)s to you; it is waiting for your decision at “%(state)s”.",
            **words,
        )
    to = _names(n, "to_members") or "—"
    if n.params.get("from_member") == me:
        return _(
            "You handed %(reference)s “%(title)s” (%(amount)s) from %(requester)s to %(to)s.",
            to=to,
            **words,
        )
    return _(
        "%(from)s handed %(reference)s “%(title)s” (%(amount)s) from %(requester)s to %(to)s.",
        to=to,
        **words,
    )


def handover_subject(n: NotificationView, me: int | None, what: dict[str, str]) -> str:
    if handed_to_reader(n, me):
        return _("Handed to you: %(reference)s %(title)s", **what)
    return _("Handed over: %(reference)s %(title)s", **what)
