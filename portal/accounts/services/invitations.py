"""Invitations: how people are asked to join an organization (``joining`` is how they
accept).

An admin invites an address; the answer is the same whether an account exists for it
anywhere or not, and nothing about such an account is read. The invitation mail carries
a signed, single-use link that expires. Whoever follows it either makes their account,
with a password only they know, or — when the address already has an account — signs
in with it and accepts. Resending draws a new link (the old one dies); revoking ends it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.models import Invitation, Membership, User
from portal.accounts.queries import MemberRow, member_names, member_rows_in
from portal.core.clock import clock
from portal.core.outbox import OutboxEvent, add_events, nudge
from portal.core.uow import UnitOfWork, unit_of_work_for
from portal.domain.actor import Actor, SystemActor, check_roles, require_admin
from portal.domain.errors import DomainError, NotFound
from portal.domain.invitations import (
    INVITATION_VALID,
    RESEND_PAUSE,
    invitation_state,
)
from portal.domain.naming import normalise_email, normalise_name


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


def invite_member(
    actor: Actor | SystemActor, *, email: str, name: str, roles: Iterable[str] = ()
) -> None:
    """Invite one person (the page that asked is shown again by a redirect)."""
    require_admin(actor)
    email = normalise_email(email)
    name = normalise_name(name)
    roles_list = check_roles(roles)
    with unit_of_work_for(actor) as uow:
        invite_in(uow, actor, email=email, name=name, roles=roles_list)


def members_overview(actor: Actor) -> MembersOverview:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        return MembersOverview(member_rows_in(uow.session), open_invitations_in(uow.session))


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
