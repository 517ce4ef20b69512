"""Following an invitation's link: the person with no account makes one, with a
password only they know, and joins; the person with one signs in with it and accepts.
The link is signed and names a selector the invitation holds until it is resent,
accepted or revoked; it works once, until it expires, and only while the organization
is open.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.models import Invitation, Membership, Organization, User
from portal.accounts.queries import member_names
from portal.accounts.services.people import new_account_in
from portal.core.clock import clock
from portal.core.links import link_signer
from portal.core.scope import rescope
from portal.core.uow import platform_work, unit_of_work
from portal.domain.credentials import check_new_password
from portal.domain.errors import DomainError
from portal.domain.invitations import invitation_state, require_pending
from portal.domain.locales import check_locale
from portal.domain.naming import normalise_name

LINK_PURPOSE = "invitation"

# Called in the accepting unit of work with (session, member id, invitation id): the
# org chart seats people its CSV import reserved a place for. Wired by create_app.
JoinedHook = Callable[[Session, int, int], None]
_joined_hooks: list[JoinedHook] = []


def on_member_joined(hook: JoinedHook) -> None:
    if hook not in _joined_hooks:
        _joined_hooks.append(hook)


def invitation_link(org_id: int, selector: str) -> str:
    """The token a mail's link carries (signed; the database holds only the selector)."""
    return link_signer.sign_selector(LINK_PURPOSE, org_id, selector)


def _read_link(token: str) -> tuple[int, str]:
    found = link_signer.read_selector(LINK_PURPOSE, token)
    if found is None:
        raise DomainError("invitation_invalid")
    return found


@dataclass(frozen=True)
class InvitationView:
    """What the person following the link is shown."""

    organization: str
    email: str
    name: str
    roles: tuple[str, ...]
    invited_by: str | None
    expires_at: datetime
    # An account already uses this address: its owner signs in to accept.
    has_account: bool


def _load_by_link(session: Session, selector: str) -> Invitation:
    invitation = session.scalar(
        select(Invitation).where(Invitation.selector == selector).with_for_update()
    )
    if invitation is None:  # a link replaced by a resend, or never ours
        raise DomainError("invitation_invalid")
    archived = session.scalar(
        select(Organization.archived_at).where(Organization.id == invitation.org_id)
    )
    if archived is not None:
        raise DomainError("organization_closed")
    require_pending(
        invitation_state(
            accepted_at=invitation.accepted_at,
            revoked_at=invitation.revoked_at,
            expires_at=invitation.expires_at,
            now=clock.now(),
        )
    )
    return invitation


def _account_id_in(session: Session, email: str) -> int | None:
    rescope(session, email=email)
    return session.scalar(select(User.id).where(User.email == email))


def read_invitation(token: str) -> InvitationView:
    """The invitation a link names, for the person who holds the link; refusals say
    whether it was used, revoked, replaced or has expired."""
    org_id, selector = _read_link(token)
    with unit_of_work(org_id) as uow:
        s = uow.session
        invitation = _load_by_link(s, selector)
        organization = s.scalar(select(Organization.name).where(Organization.id == org_id))
        inviter = member_names(s, [invitation.invited_by]).get(invitation.invited_by or 0)
        return InvitationView(
            organization or "",
            invitation.email,
            invitation.name,
            tuple(invitation.roles),
            inviter,
            invitation.expires_at,
            _account_id_in(s, invitation.email) is not None,
        )


@dataclass(frozen=True)
class Joined:
    """The account that joined (to start its session) and where it joined."""

    org_slug: str
    id: int
    email: str
    name: str
    locale: str | None
    session_version: int


def _join_in(session: Session, invitation: Invitation, user_id: int) -> Joined:
    """Make (or bring back) the membership and close the invitation."""
    member = session.scalar(
        select(Membership).where(Membership.user_id == user_id).with_for_update()
    )
    if member is None:
        member = Membership(user_id=user_id, roles=list(invitation.roles), created_at=clock.now())
        session.add(member)
    else:
        member.roles, member.active, member.left_at = list(invitation.roles), True, None
    session.flush()
    invitation.accepted_at = clock.now()
    invitation.member_id = member.id
    for hook in _joined_hooks:
        hook(session, member.id, invitation.id)
    slug = session.scalar(select(Organization.slug).where(Organization.id == invitation.org_id))
    user = session.scalar(select(User).where(User.id == user_id))
    assert slug is not None and user is not None
    return Joined(slug, user.id, user.email, user.name, user.locale, user.session_version)


def accept_with_new_account(
    token: str, *, name: str, password: str, locale: str | None = None
) -> Joined:
    """Accept as someone with no account yet: the account is made with the password the
    person chose, then joins. Refused when the address has an account (its owner signs
    in and accepts instead)."""
    org_id, selector = _read_link(token)
    name = normalise_name(name)
    if locale is not None:
        check_locale(locale)
    with unit_of_work(org_id) as uow:
        s = uow.session
        invitation = _load_by_link(s, selector)
        check_new_password(password, email=invitation.email, field="new_password")
        if _account_id_in(s, invitation.email) is not None:
            raise DomainError("invitation_has_account")
        try:
            with s.begin_nested():
                user = new_account_in(
                    s, email=invitation.email, name=name, password=password, locale=locale
                )
        except IntegrityError as exc:  # made a moment ago, through another invitation
            raise DomainError("invitation_has_account") from exc
        rescope(s, user_id=user.id)
        return _join_in(s, invitation, user.id)


def accept_as_account(user_id: int, token: str) -> Joined:
    """Accept as the signed-in account, which must be the one the invitation was sent
    to: a link forwarded to someone else does not let them join."""
    org_id, selector = _read_link(token)
    with platform_work(user_id=user_id) as uow:
        email = uow.session.scalar(select(User.email).where(User.id == user_id))
    with unit_of_work(org_id, user_id=user_id) as uow:
        s = uow.session
        invitation = _load_by_link(s, selector)
        if email != invitation.email:
            raise DomainError("invitation_other_account", email=invitation.email, current=email)
        return _join_in(s, invitation, user_id)
