"""Who hears what, by which channel: the kinds of notice a member can choose about, the
channels (in the portal, by mail), the defaults, and the reading of a submitted
preferences form.

A member's stored preferences hold only what differs from ``DEFAULTS``, so a better
default reaches everyone who never chose otherwise. A notice whose in-app channel is off
is still written (the digest and the record read it), only already read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from enum import StrEnum
from typing import Any

from portal.domain.errors import DomainError
from portal.domain.text_input import MAX_NAME, clean_text
from portal.domain.time_zones import zone


class NoticeKind(StrEnum):
    # A task is waiting for you: assigned, escalated to you, reassigned.
    ASSIGNED = "assigned"
    # A reminder before a task's deadline.
    DUE_SOON = "due_soon"
    # A task's deadline passed.
    OVERDUE = "overdue"
    # One of your documents moved on.
    DOCUMENT_MOVED = "document_moved"
    # Your task was escalated above you (you may still decide it).
    ESCALATED_AWAY = "escalated_away"
    # Out-of-office cover: set for you, starting, ending, revoked; what was decided on
    # your behalf while you were away.
    COVER = "cover"
    # For the organization's admins: an escalation found nobody, an automatic step failed.
    ADMIN = "admin"


class Channel(StrEnum):
    IN_APP = "in_app"
    EMAIL = "email"


KINDS: tuple[NoticeKind, ...] = tuple(NoticeKind)
CHANNELS: tuple[Channel, ...] = tuple(Channel)


def offered_kinds(is_admin: bool) -> tuple[NoticeKind, ...]:
    """The kinds a member chooses about: the admins' alerts only for admins."""
    return tuple(k for k in KINDS if k is not NoticeKind.ADMIN or is_admin)


# In the portal: everything. By mail: what asks something of the reader or cannot wait
# for their next visit — a task, its reminder before the deadline (a reminder that only
# shows inside the portal reaches only people already looking at it, which defeats its
# purpose), a breach, and the admins' alerts. Not by mail: the document-moved news
# (frequent, and the requester sees it at their next visit) and an escalation above
# the reader (their task stays theirs; it is for their information). Cover, by mail
# too: a delegate must know the days they decide for someone, and a delegator what was
# decided in their name.
DEFAULTS: Mapping[NoticeKind, frozenset[Channel]] = {
    NoticeKind.ASSIGNED: frozenset({Channel.IN_APP, Channel.EMAIL}),
    NoticeKind.DUE_SOON: frozenset({Channel.IN_APP, Channel.EMAIL}),
    NoticeKind.OVERDUE: frozenset({Channel.IN_APP, Channel.EMAIL}),
    NoticeKind.DOCUMENT_MOVED: frozenset({Channel.IN_APP}),
    NoticeKind.ESCALATED_AWAY: frozenset({Channel.IN_APP}),
    NoticeKind.COVER: frozenset({Channel.IN_APP, Channel.EMAIL}),
    NoticeKind.ADMIN: frozenset({Channel.IN_APP, Channel.EMAIL}),
}

_KIND_OF_CODE: Mapping[str, NoticeKind] = {
    "notice_task_assigned": NoticeKind.ASSIGNED,
    "notice_escalated": NoticeKind.ASSIGNED,
    "notice_reassigned": NoticeKind.ASSIGNED,
    # A handover is a task for its receiver (its holder hears of it the same way).
    "notice_task_handed_over": NoticeKind.ASSIGNED,
    "notice_due_soon": NoticeKind.DUE_SOON,
    "notice_overdue": NoticeKind.OVERDUE,
    "notice_document_moved": NoticeKind.DOCUMENT_MOVED,
    "notice_escalated_away": NoticeKind.ESCALATED_AWAY,
    "notice_cover_set": NoticeKind.COVER,
    "notice_cover_started": NoticeKind.COVER,
    "notice_cover_ended": NoticeKind.COVER,
    "notice_cover_summary": NoticeKind.COVER,
    "notice_cover_revoked": NoticeKind.COVER,
    "notice_escalation_gap": NoticeKind.ADMIN,
    "notice_auto_refused": NoticeKind.ADMIN,
}


def kind_of(notice_code: str) -> NoticeKind | None:
    """The kind a notification code belongs to; None for a code nobody can choose about
    (it is shown in the portal and never mailed)."""
    return _KIND_OF_CODE.get(notice_code)


def channels_for(
    overrides: Mapping[str, Any] | None, kind: NoticeKind | None
) -> frozenset[Channel]:
    """The channels on for ``kind``, given a member's stored overrides (``{"<kind>":
    {"<channel>": bool}}``). Anything stored that is not a known kind, channel and
    boolean is ignored: the defaults stand."""
    if kind is None:
        return frozenset({Channel.IN_APP})
    chosen = set(DEFAULTS[kind])
    stored = overrides.get(kind.value) if isinstance(overrides, Mapping) else None
    if isinstance(stored, Mapping):
        for channel in CHANNELS:
            value = stored.get(channel.value)
            if value is True:
                chosen.add(channel)
            elif value is False:
                chosen.discard(channel)
    return frozenset(chosen)


def mailed_kinds(overrides: Mapping[str, Any] | None) -> frozenset[NoticeKind]:
    """The kinds a member takes by mail (what their digest lists)."""
    return frozenset(k for k in KINDS if Channel.EMAIL in channels_for(overrides, k))


def codes_of(kinds: Iterable[NoticeKind]) -> frozenset[str]:
    """The notification codes of ``kinds``."""
    wanted = frozenset(kinds)
    return frozenset(code for code, kind in _KIND_OF_CODE.items() if kind in wanted)


@dataclass(frozen=True)
class NoticeSettings:
    """A member's choices, whole: each kind's channels, and the daily digest."""

    channels: Mapping[NoticeKind, frozenset[Channel]]
    email_digest: bool = False

    def overrides(self) -> dict[str, dict[str, bool]]:
        """What to store: only the channels that differ from the defaults."""
        stored: dict[str, dict[str, bool]] = {}
        for kind, chosen in self.channels.items():
            differs = {
                c.value: c in chosen for c in CHANNELS if (c in chosen) != (c in DEFAULTS[kind])
            }
            if differs:
                stored[kind.value] = differs
        return stored


def settings_of(overrides: Mapping[str, Any] | None, email_digest: bool) -> NoticeSettings:
    """A member's stored preferences read whole (no row: the defaults)."""
    return NoticeSettings({k: channels_for(overrides, k) for k in KINDS}, email_digest)


# A form names each checkbox "<kind>.<channel>"; a ticked one is sent as "on", an
# unticked one is not sent at all.
DIGEST_FIELD = "email_digest"
TICKED = "on"


def field_name(kind: NoticeKind, channel: Channel) -> str:
    return f"{kind.value}.{channel.value}"


def read_preference_form(
    pairs: Iterable[tuple[str, str]],
    *,
    shown: Iterable[NoticeKind] = KINDS,
    current: NoticeSettings | None = None,
) -> NoticeSettings:
    """The settings a submitted form chooses. ``shown`` are the kinds the form offered:
    their boxes not sent are off; the others keep ``current`` (or the defaults). A
    field the form never offered, a field sent twice, a value other than "on" or a
    control character is refused, naming the field; nothing is half-read."""
    offered = frozenset(shown)
    fields = {field_name(k, c): (k, c) for k in offered for c in CHANNELS}
    chosen: dict[NoticeKind, set[Channel]] = {k: set() for k in offered}
    seen: set[str] = set()
    digest = False
    for raw_name, raw_value in pairs:
        name = clean_text(raw_name, field="preferences", limit=MAX_NAME)
        value = clean_text(raw_value, field=name, limit=MAX_NAME)
        if name in seen:
            raise DomainError("notice_setting_repeated", field=name, name=name)
        seen.add(name)
        if name == DIGEST_FIELD:
            digest = _ticked(name, value)
            continue
        found = fields.get(name)
        if found is None:
            raise DomainError("unknown_notice_setting", field="preferences", name=name)
        if _ticked(name, value):
            kind, channel = found
            chosen[kind].add(channel)
    base = current or settings_of(None, False)
    whole = {
        k: frozenset(chosen[k]) if k in offered else base.channels.get(k, DEFAULTS[k])
        for k in KINDS
    }
    return NoticeSettings(whole, digest)


def _ticked(name: str, value: str) -> bool:
    if value != TICKED:
        raise DomainError("bad_notice_setting", field=name, name=name)
    return True


# The daily digest goes out once the member's day has begun in earnest.
DIGEST_AFTER = time(8, 0)


def digest_day(now: datetime, zone_name: str) -> date | None:
    """The member's day whose digest is due at ``now`` (aware), or None before 08:00
    there."""
    local = now.astimezone(zone(zone_name))
    return local.date() if local.time() >= DIGEST_AFTER else None
