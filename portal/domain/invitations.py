"""How long a link sent by mail stays good, and what an invitation's state allows."""

from __future__ import annotations

from datetime import datetime, timedelta

from portal.domain.errors import DomainError

INVITATION_VALID = timedelta(days=7)
PASSWORD_RESET_VALID = timedelta(hours=1)
# A resend is refused for a short while after the last one (a double click, an
# impatient admin) so one person is not flooded.
RESEND_PAUSE = timedelta(minutes=1)


class InvitationState:
    PENDING = "pending"
    EXPIRED = "expired"
    ACCEPTED = "accepted"
    REVOKED = "revoked"


def invitation_state(
    *,
    accepted_at: datetime | None,
    revoked_at: datetime | None,
    expires_at: datetime,
    now: datetime,
) -> str:
    if accepted_at is not None:
        return InvitationState.ACCEPTED
    if revoked_at is not None:
        return InvitationState.REVOKED
    if now >= expires_at:
        return InvitationState.EXPIRED
    return InvitationState.PENDING


def require_pending(state: str) -> None:
    """Refuse a link that can no longer be used, saying why in the reader's terms."""
    refusals = {
        InvitationState.ACCEPTED: "invitation_used",
        InvitationState.REVOKED: "invitation_revoked",
        InvitationState.EXPIRED: "invitation_expired",
    }
    if state in refusals:
        raise DomainError(refusals[state])
