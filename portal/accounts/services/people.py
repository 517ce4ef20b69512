"""Accounts and memberships: the platform's own enrolment (CLI, demo), what an admin may
change about a membership, and what a person may change about their own account.

An admin never creates an account nor learns anything about one beyond its membership
here: people join by invitation (``services.invitations``).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.models import Credential, Membership, Organization, User
from portal.accounts.queries import MemberRow, member_rows_in
from portal.core.clock import clock
from portal.core.db import rows_changed
from portal.core.scope import rescope
from portal.core.security import hash_password
from portal.core.uow import operator_work, platform_work, unit_of_work_for
from portal.domain.actor import Actor, Role, SystemActor, check_roles, require_admin
from portal.domain.credentials import check_new_password
from portal.domain.errors import DomainError, NotFound
from portal.domain.locales import check_locale
from portal.domain.naming import normalise_email, normalise_name

# --- the platform's own -----------------------------------------------------------------


def create_user(email: str, name: str, password: str, *, locale: str | None = None) -> User:
    """An account with a chosen password: the platform operator's (the CLI, the demo's
    seeding, tests). People make their own by accepting an invitation."""
    email = normalise_email(email)
    name = normalise_name(name)
    check_new_password(password, email=email)
    if locale is not None:
        check_locale(locale)
    with operator_work() as uow:
        if uow.session.scalar(select(User.id).where(User.email == email)):
            raise DomainError("duplicate_email", field="email", email=email)
        return new_account_in(uow.session, email=email, name=name, password=password, locale=locale)


def new_account_in(
    session: Session, *, email: str, name: str, password: str, locale: str | None
) -> User:
    """An account and its credential, in the caller's unit of work (which from here on
    acts as that account: only the account itself may write its credential)."""
    now = clock.now()
    user = User(email=email, name=name, locale=locale, created_at=now)
    session.add(user)
    session.flush()
    rescope(session, user_id=user.id)
    session.add(
        Credential(
            user_id=user.id,
            password_hash=hash_password(password),
            password_changed_at=now,
            recovery_codes=[],
        )
    )
    session.flush()
    return user


def enrol_member(system: SystemActor, *, email: str, roles: Iterable[str] = ()) -> MemberRow:
    """The platform adds an existing account to an organization (the demo, tests, an
    organization's first admin from the CLI when the account exists)."""
    email = normalise_email(email)
    roles_list = check_roles(roles)
    with operator_work(system.org_id) as uow:
        user = uow.session.scalar(select(User).where(User.email == email))
        if user is None:
            raise DomainError("unknown_member", field="email", email=email)
        if uow.session.scalar(select(Membership.id).where(Membership.user_id == user.id)):
            raise DomainError("duplicate_email", field="email", email=email)
        member = Membership(user_id=user.id, roles=roles_list, created_at=clock.now())
        uow.session.add(member)
        try:
            uow.session.flush()
        except IntegrityError as exc:  # enrolled a moment ago by someone else
            raise DomainError("duplicate_email", field="email", email=email) from exc
        return _member_row(uow.session, member.id)


def set_account_active(email: str, active: bool) -> None:
    """The platform disables an account everywhere (a compromised or departed person),
    or enables it again; a disabled account's sessions end at once."""
    email = normalise_email(email)
    with operator_work() as uow:
        changed = uow.session.execute(
            update(User)
            .where(User.email == email)
            .values(active=active, session_version=User.session_version + 1)
        )
        if rows_changed(changed) == 0:
            raise NotFound("account")


# --- what an admin may change -----------------------------------------------------------


def _member_row(session: Session, member_id: int) -> MemberRow:
    """The member as the admin pages show them, after a change in this unit of work."""
    session.flush()
    return member_rows_in(session, Membership.id == member_id)[0]


def active_admin_ids_in(session: Session) -> set[int]:
    """The organization's active admins, counted under a lock on the organization: two
    admins demoting or leaving at once are taken one after the other, so the second
    sees the first's change and an organization is never left without an admin."""
    session.execute(
        select(Organization.id).where(Organization.id == session.info["org_id"]).with_for_update()
    )
    rows = session.execute(
        select(Membership.id, Membership.roles).where(Membership.active.is_(True))
    )
    return {mid for mid, roles in rows if Role.ADMIN in roles}


def _load_member_for_update(session: Session, member_id: int) -> Membership:
    member = session.scalar(select(Membership).where(Membership.id == member_id).with_for_update())
    if member is None:
        raise NotFound("member")
    return member


def set_member_roles(actor: Actor | SystemActor, member_id: int, roles: Iterable[str]) -> MemberRow:
    require_admin(actor)
    roles_list = check_roles(roles)
    with unit_of_work_for(actor) as uow:
        member = _load_member_for_update(uow.session, member_id)
        admins = active_admin_ids_in(uow.session)
        if Role.ADMIN not in roles_list and admins <= {member.id}:
            raise DomainError("last_admin", field="roles")
        member.roles = roles_list
        return _member_row(uow.session, member.id)


def deactivate_member(actor: Actor | SystemActor, member_id: int) -> MemberRow:
    require_admin(actor)
    if member_id == actor.member_id:
        raise DomainError("cannot_deactivate_self")
    with unit_of_work_for(actor) as uow:
        member = _load_member_for_update(uow.session, member_id)
        if _remaining_admins(uow.session, member) == set():
            raise DomainError("last_admin")
        member.active = False
        return _member_row(uow.session, member.id)


def _remaining_admins(session: Session, leaving: Membership) -> set[int]:
    return active_admin_ids_in(session) - {leaving.id}


def reactivate_member(actor: Actor | SystemActor, member_id: int) -> MemberRow:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        member = _load_member_for_update(uow.session, member_id)
        if member.left_at is not None:
            # They chose to leave: only they can come back, by accepting an invitation.
            raise DomainError("member_left")
        member.active = True
        return _member_row(uow.session, member.id)


# --- what a person may change about their own account --------------------------------------


def leave_organization(actor: Actor) -> None:
    """The person leaves this organization: their membership ends (kept, for the history
    that names them); an admin may invite them again, never simply bring them back."""
    with unit_of_work_for(actor) as uow:
        member = _load_member_for_update(uow.session, actor.member_id)
        if Role.ADMIN in member.roles and _remaining_admins(uow.session, member) == set():
            raise DomainError("last_admin_leaving")
        member.active = False
        member.left_at = clock.now()


def set_user_locale(user_id: int, locale: str) -> None:
    check_locale(locale)
    with platform_work(user_id=user_id) as uow:
        uow.session.execute(update(User).where(User.id == user_id).values(locale=locale))


def rename_account(user_id: int, name: str) -> None:
    """The person's own name, as every organization they belong to shows it."""
    name = normalise_name(name)
    with platform_work(user_id=user_id) as uow:
        uow.session.execute(update(User).where(User.id == user_id).values(name=name))


def end_sessions(user_id: int) -> int:
    """Invalidate every session of this user (sign-out); returns the new version."""
    with platform_work(user_id=user_id) as uow:
        return bump_session_version_in(uow.session, user_id)


def bump_session_version_in(session: Session, user_id: int) -> int:
    session.execute(
        update(User).where(User.id == user_id).values(session_version=User.session_version + 1)
    )
    version = session.scalar(select(User.session_version).where(User.id == user_id))
    if version is None:  # pragma: no cover - the account is the caller's own
        raise NotFound("account")
    return version
