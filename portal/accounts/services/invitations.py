"""Invitations: how people join an organization.

An admin invites an address; the answer is the same whether an account exists for it
anywhere or not, and nothing about such an account is read. The invitation mail carries
a signed, single-use link that expires. Whoever follows it either makes their account,
with a password only they know, or — when the address already has an account — signs
in with it and accepts. Resending draws a new link (the old one dies); revoking ends it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.models import Invitation, Membership, Organization, User
from portal.accounts.queries import MemberRow, member_names, member_rows_in
from portal.accounts.services.people import new_account_in
from portal.core.clock import clock
from portal.core.links import link_signer
from portal.core.outbox import OutboxEvent, add_events, nudge
from portal.core.scope import rescope
from portal.core.uow import UnitOfWork, platform_work, unit_of_work, unit_of_work_for
from portal.domain.actor import Actor, SystemActor, check_roles, require_admin
from portal.domain.credentials import check_new_password
from portal.domain.errors import DomainError, NotFound
from portal.domain.invitations import (
    INVITATION_VALID,
    RESEND_PAUSE,
    invitation_state,
    require_pending,
)
from portal.domain.locales import check_locale
from portal.domain.naming import normalise_email, normalise_name

LINK_PURPOSE = "invitation"

# Called in the accepting unit of work with (session, member id, invitation id): the
# org chart seats people its CSV import reserved a place for. Wired by create_app.
JoinedHook = Callable[[Session, int, int], None]
_joined_hooks: list[JoinedHook] = []


def on_member_joined(hook: JoinedHook) -> None:
    if hook not in _joined_hooks:
        _joined_hooks.append(hook)


@dataclass(frozen=True)
class InvitationRow:
    """An open invitation as the members page lists it."""

    id: int
    email: str
    name: str
    roles: tuple[str, ...]
    state: str
    expires_at: datetime
    sent_at: datetime
    send_count: int
    invited_by: str | None
    # The last mail for it could not be delivered (dead letter): resend, or check the address.
    undeliverable: bool


def _new_selector() -> str:
    return secrets.token_urlsafe(24)


def _mail_event(invitation: Invitation) -> tuple[str, dict[str, object]]:
    return ("mail.invitation", {"invitation_id": invitation.id, "selector": invitation.selector})


def _send(uow: UnitOfWork, invitation: Invitation) -> None:
    add_events(uow.session, [_mail_event(invitation)])
    org_id = invitation.org_id
    uow.after_commit(lambda: nudge(org_id))


def invite_in(
    uow: UnitOfWork,
    actor: Actor | SystemActor,
    *,
    email: str,
    name: str,
    roles: list[str],
    resend: bool = True,
) -> Invitation:
    """Invite ``email`` inside the caller's unit of work (the members page, the CSV
    import): a new invitation, or the open one for that address with these name and
    roles. An open one is sent again with a new link when ``resend`` (an admin asking
    again, never twice within a minute) or when it has expired; otherwise (a file
    imported again) it keeps its link and nobody is mailed twice. Refused only for what
    this organization itself knows: the address is already one of its members."""
    s = uow.session
    member = s.execute(
        select(Membership.active, Membership.left_at)
        .join(User, User.id == Membership.user_id)
        .where(User.email == email)
    ).first()
    if member is not None and member.left_at is None:
        raise DomainError(
            "duplicate_email" if member.active else "member_inactive_invite",
            field="email",
            email=email,
        )
    now = clock.now()
    invitation = s.scalar(
        select(Invitation)
        .where(
            Invitation.email == email,
            Invitation.accepted_at.is_(None),
            Invitation.revoked_at.is_(None),
        )
        .with_for_update()
    )
    send = True
    if invitation is None:
        invitation = Invitation(email=email, send_count=0, created_at=now)
        s.add(invitation)
    elif invitation.expires_at > now:
        if resend and now - invitation.sent_at < RESEND_PAUSE:
            raise DomainError("resent_just_now", field="email", email=email)
        send = resend
    invitation.name = name
    invitation.roles = roles
    invitation.invited_by = actor.member_id
    if send:
        invitation.selector = _new_selector()
        invitation.sent_at = now
        invitation.expires_at = now + INVITATION_VALID
        invitation.send_count += 1
    try:
        with s.begin_nested():
            s.flush()
    except IntegrityError as exc:  # another admin invited the same address a moment ago
        raise DomainError("already_invited", field="email", email=email) from exc
    if send:
        _send(uow, invitation)
    return invitation


@dataclass(frozen=True)
class MembersOverview:
    """The members page: who belongs, and who is invited."""

    members: list[MemberRow]
    invitations: list[InvitationRow]


def _overview_in(session: Session) -> MembersOverview:
    return MembersOverview(member_rows_in(session), open_invitations_in(session))


def invite_member(
    actor: Actor | SystemActor, *, email: str, name: str, roles: Iterable[str] = ()
) -> MembersOverview:
    """Invite one person; answers the members page with this invitation on it."""
    require_admin(actor)
    email = normalise_email(email)
    name = normalise_name(name)
    roles_list = check_roles(roles)
    with unit_of_work_for(actor) as uow:
        invite_in(uow, actor, email=email, name=name, roles=roles_list)
        return _overview_in(uow.session)


def members_overview(actor: Actor) -> MembersOverview:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        return _overview_in(uow.session)


def _load_open(session: Session, invitation_id: int) -> Invitation:
    invitation = session.scalar(
        select(Invitation)
        .where(
            Invitation.id == invitation_id,
            Invitation.accepted_at.is_(None),
            Invitation.revoked_at.is_(None),
        )
        .with_for_update()
    )
    if invitation is None:
        raise NotFound("invitation")
    return invitation


def resend_invitation(actor: Actor, invitation_id: int) -> list[InvitationRow]:
    """A new link, good for another week; the previous link stops working."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        invitation = _load_open(uow.session, invitation_id)
        now = clock.now()
        if now - invitation.sent_at < RESEND_PAUSE:
            raise DomainError("resent_just_now", email=invitation.email)
        invitation.selector = _new_selector()
        invitation.sent_at = now
        invitation.expires_at = now + INVITATION_VALID
        invitation.send_count += 1
        invitation.invited_by = actor.member_id
        uow.session.flush()
        _send(uow, invitation)
        return open_invitations_in(uow.session)


def revoke_invitation(actor: Actor, invitation_id: int) -> list[InvitationRow]:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        invitation = _load_open(uow.session, invitation_id)
        invitation.revoked_at = clock.now()
        invitation.revoked_by = actor.member_id
        uow.session.flush()
        return open_invitations_in(uow.session)


def open_invitations_in(session: Session) -> list[InvitationRow]:
    now = clock.now()
    rows = list(
        session.scalars(
            select(Invitation)
            .where(Invitation.accepted_at.is_(None), Invitation.revoked_at.is_(None))
            .order_by(func.lower(Invitation.name), Invitation.id)
        )
    )
    inviters = member_names(session, (r.invited_by for r in rows))
    dead = _undeliverable(session, rows)
    return [
        InvitationRow(
            r.id,
            r.email,
            r.name,
            tuple(r.roles),
            invitation_state(accepted_at=None, revoked_at=None, expires_at=r.expires_at, now=now),
            r.expires_at,
            r.sent_at,
            r.send_count,
            inviters.get(r.invited_by) if r.invited_by is not None else None,
            r.id in dead,
        )
        for r in rows
    ]


def _undeliverable(session: Session, rows: list[Invitation]) -> set[int]:
    """Invitations whose latest mail is a dead letter."""
    if not rows:
        return set()
    latest = {r.id: r.selector for r in rows}
    dead = session.scalars(
        select(OutboxEvent.payload).where(
            OutboxEvent.topic == "mail.invitation", OutboxEvent.dead_at.is_not(None)
        )
    )
    return {
        p["invitation_id"] for p in dead if latest.get(p.get("invitation_id")) == p.get("selector")
    }


# --- following the link ---------------------------------------------------------------------


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
