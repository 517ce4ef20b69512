"""What accounts' mail says, composed when it is sent (the outbox's ``mail.*`` events).

A composer reads what the event names as it stands now and answers a ``Letter``, or
None when there is nothing to send any more: an invitation revoked, accepted or renewed
since (the newer mail carries the newer link), a reset link already used. Links are
signed here, at sending time: the outbox holds ids, never a usable link.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.models import AccountToken, Invitation, Organization, User
from portal.accounts.queries import member_names
from portal.accounts.services.joining import invitation_link
from portal.accounts.services.passwords import reset_link
from portal.core.clock import clock
from portal.core.mail import Letter
from portal.domain.invitations import PASSWORD_RESET_VALID

Composer = Callable[[Session, dict[str, Any]], Letter | None]


def invitation(session: Session, payload: dict[str, Any]) -> Letter | None:
    found = session.execute(
        select(Invitation, Organization.name, Organization.default_locale)
        .join(Organization, Organization.id == Invitation.org_id)
        .where(Invitation.id == payload["invitation_id"])
    ).first()
    if found is None:
        return None
    invite, organization, locale = found
    if (
        invite.selector != payload.get("selector")
        or invite.accepted_at is not None
        or invite.revoked_at is not None
        or clock.now() >= invite.expires_at
    ):
        return None
    inviter = member_names(session, [invite.invited_by]).get(invite.invited_by or 0)
    return Letter(
        to=invite.email,
        name=invite.name,
        locale=locale,
        template="invitation",
        context={
            "organization": organization,
            "name": invite.name,
            "inviter": inviter,
            "roles": list(invite.roles),
            "expires_at": invite.expires_at,
        },
        links={
            "accept": (
                "invitations.accept",
                {"token": invitation_link(invite.org_id, invite.selector)},
            )
        },
    )


def _account(session: Session, user_id: int) -> User | None:
    return session.scalar(select(User).where(User.id == user_id, User.active.is_(True)))


def password_reset(session: Session, payload: dict[str, Any]) -> Letter | None:
    user = _account(session, payload["user_id"])
    token = session.scalar(
        select(AccountToken).where(
            AccountToken.user_id == payload["user_id"],
            AccountToken.selector == payload.get("selector"),
        )
    )
    if user is None or token is None or token.used_at is not None:
        return None
    if clock.now() >= token.expires_at:
        return None
    return Letter(
        to=user.email,
        name=user.name,
        locale=user.locale or "en",
        template="password_reset",
        context={"name": user.name, "minutes": int(PASSWORD_RESET_VALID.total_seconds() // 60)},
        links={
            "reset": ("accounts.reset_password", {"token": reset_link(user.id, token.selector)}),
            "forgot": ("accounts.forgot_password", {}),
        },
    )


def _notice(template: str) -> Composer:
    """A notice to the account's owner about a change to their own sign-in."""

    def compose(session: Session, payload: dict[str, Any]) -> Letter | None:
        user = _account(session, payload["user_id"])
        if user is None:
            return None
        return Letter(
            to=user.email,
            name=user.name,
            locale=user.locale or "en",
            template=template,
            context={"name": user.name, "at": clock.now()},
            links={
                "forgot": ("accounts.forgot_password", {}),
                "account": ("account.overview", {}),
            },
        )

    return compose


COMPOSERS: dict[str, Composer] = {
    "invitation": invitation,
    "password_reset": password_reset,
    "password_changed": _notice("password_changed"),
    "two_factor_on": _notice("two_factor_on"),
    "two_factor_off": _notice("two_factor_off"),
}
