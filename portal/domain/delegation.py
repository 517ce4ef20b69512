"""Out-of-office cover (DESIGN §4 "Delegation"): the rules, pure.

A member lends their own authority to a colleague for whole days of the organization's
zone, ``valid_from``..``valid_to`` with both days included — a cover that ends today
works until midnight there. Optionally for one kind of document. Never backdated, never
to oneself or to a member who has left, never more than a year long or starting more
than a year ahead. An admin may set cover for an absent member (recorded as set by
the admin).

Applied at read time: while a cover is active its delegate may act on the delegator's
tasks, on the delegator's bands, recorded "on behalf of". One hop only: what a delegate
holds by cover is never lent on (A → B and B → C: C gets nothing of A's). A delegate
never acts on a document whose requester is the delegate or the delegator.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from portal.domain.errors import DomainError
from portal.domain.text_input import clean_text

MAX_REASON = 500
# The longest cover, and how far ahead one may be set.
MAX_WINDOW_DAYS = 366
MAX_DAYS_AHEAD = 366
# A cover that ended (or was revoked) this recently still explains a refusal
# ("your cover for Daniel ended on …") instead of a bare "not assigned".
LAPSED_DAYS = 30


class CoverStatus:
    UPCOMING = "upcoming"
    ACTIVE = "active"
    ENDED = "ended"
    REVOKED = "revoked"


@dataclass(frozen=True)
class CoverRequest:
    """A cover as a form or an admin asks for it, read but not yet checked."""

    delegator: int
    delegate: int
    kind: str | None
    valid_from: date
    valid_to: date
    reason: str


def check_cover(
    request: CoverRequest,
    *,
    today: date,
    delegate_active: bool,
    delegator_active: bool = True,
    kinds: Collection[str],
) -> CoverRequest:
    """The cover with its reason cleaned, or the first refusal, naming its field:
    ``delegation_self``, ``delegate_inactive``, ``delegation_unknown_kind``,
    ``delegation_backdated``, ``delegation_too_far_ahead``,
    ``delegation_window_invalid``, ``delegation_too_long``, ``reason_required``,
    ``reason_too_long`` (and ``clean_text``'s refusals of control characters).
    ``today`` is the organization's day."""
    if request.delegate == request.delegator:
        raise DomainError("delegation_self", field="delegate")
    if not delegate_active:
        raise DomainError("delegate_inactive", field="delegate")
    if not delegator_active:
        raise DomainError("delegator_inactive", field="delegator")
    if request.kind is not None and request.kind not in kinds:
        raise DomainError("delegation_unknown_kind", field="kind")
    if request.valid_from < today:
        raise DomainError("delegation_backdated", field="valid_from", today=today.isoformat())
    if request.valid_from > today + timedelta(days=MAX_DAYS_AHEAD):
        raise DomainError("delegation_too_far_ahead", field="valid_from", days=MAX_DAYS_AHEAD)
    if request.valid_to < request.valid_from:
        raise DomainError("delegation_window_invalid", field="valid_to")
    if (request.valid_to - request.valid_from).days + 1 > MAX_WINDOW_DAYS:
        raise DomainError("delegation_too_long", field="valid_to", days=MAX_WINDOW_DAYS)
    reason = clean_text(
        request.reason, field="reason", multiline=False, limit=MAX_REASON * 4
    ).strip()
    if not reason:
        raise DomainError("reason_required", field="reason")
    if len(reason) > MAX_REASON:
        raise DomainError("reason_too_long", field="reason", limit=MAX_REASON)
    return CoverRequest(
        request.delegator,
        request.delegate,
        request.kind,
        request.valid_from,
        request.valid_to,
        reason,
    )


def status_of(valid_from: date, valid_to: date, revoked_at: datetime | None, *, today: date) -> str:
    """Where a cover stands on the organization's ``today``. A revoked cover is revoked
    from the moment of its revocation, whatever its window said."""
    if revoked_at is not None:
        return CoverStatus.REVOKED
    if today < valid_from:
        return CoverStatus.UPCOMING
    if today > valid_to:
        return CoverStatus.ENDED
    return CoverStatus.ACTIVE


def is_active(
    valid_from: date, valid_to: date, revoked_at: datetime | None, *, today: date
) -> bool:
    return status_of(valid_from, valid_to, revoked_at, today=today) == CoverStatus.ACTIVE


def covers_kind(cover_kind: str | None, document_kind: str) -> bool:
    """A cover for every kind, or for this one."""
    return cover_kind is None or cover_kind == document_kind


def revoke_refusal(
    *, delegator: int, actor: int | None, actor_is_admin: bool, status: str
) -> str | None:
    """Why this actor may not revoke the cover (None: they may). The delegator revokes
    their own; an admin any; nobody revokes one that is over."""
    if not (actor_is_admin or actor == delegator):
        return "not_found"
    if status in (CoverStatus.ENDED, CoverStatus.REVOKED):
        return "delegation_over"
    return None


@dataclass(frozen=True)
class Cover:
    """A delegation to the acting member, as the authority check sees it for one
    document: whose authority, whether it is active today, and what the delegator's
    own open tasks on the document authorise (transition key -> how they came by it)."""

    delegation_id: int
    delegator: int
    active: bool
    tasks: Mapping[str, str] = field(default_factory=dict)
