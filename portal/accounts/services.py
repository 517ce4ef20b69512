"""Organizations, accounts, memberships and sign-in.

Each public function is one unit of work. Admin functions take the ``Actor`` first and
refuse non-admins themselves; views check too, but the rule lives here.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, replace

from babel.numbers import list_currencies
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.models import Membership, Organization, User
from portal.accounts.queries import MemberRow, member_rows_in
from portal.config import SUPPORTED_LOCALES
from portal.core.clock import clock
from portal.core.ratelimit import FailureWindow
from portal.core.security import hash_password, needs_rehash, verify_password
from portal.core.uow import platform_work, unit_of_work_for
from portal.domain.actor import Actor, Role, SystemActor, require_admin
from portal.domain.errors import DomainError, NotFound
from portal.domain.naming import normalise_email, normalise_name, normalise_slug

# --- organizations -------------------------------------------------------------------


def create_organization(
    slug: str, name: str, *, base_currency: str = "USD", default_locale: str = "en"
) -> Organization:
    slug = normalise_slug(slug)
    name = normalise_name(name)
    currency = base_currency.strip().upper()
    if currency not in list_currencies():
        raise DomainError("invalid_currency", field="base_currency", currency=base_currency)
    _check_locale(default_locale, field="default_locale")
    with platform_work() as uow:
        if uow.session.scalar(select(Organization.id).where(Organization.slug == slug)):
            raise DomainError("duplicate_slug", field="slug", slug=slug)
        org = Organization(
            slug=slug,
            name=name,
            base_currency=currency,
            default_locale=default_locale,
            created_at=clock.now(),
        )
        uow.session.add(org)
    return org


def create_user(email: str, name: str, password: str, *, locale: str | None = None) -> User:
    """A platform-level account with a chosen password (CLI and demo seeding only;
    admins in the web UI create members with temporary passwords instead)."""
    email = normalise_email(email)
    name = normalise_name(name)
    if locale is not None:
        _check_locale(locale, field="locale")
    with platform_work() as uow:
        if uow.session.scalar(select(User.id).where(User.email == email)):
            raise DomainError("duplicate_email", field="email", email=email)
        user = User(
            email=email,
            name=name,
            password_hash=hash_password(password),
            locale=locale,
            created_at=clock.now(),
        )
        uow.session.add(user)
    return user


# --- sign-in and sessions ------------------------------------------------------------


@dataclass(frozen=True)
class LoginThrottle:
    by_account: FailureWindow
    by_address: FailureWindow


def authenticate(email: str, password: str, *, address: str, throttle: LoginThrottle) -> User:
    """The active user with this email and password, or ``invalid_credentials``.

    The message never says whether the email exists. Failures are counted per account
    and per address; past the limit both are refused until the window ends.
    """
    account_key = email.strip().lower()
    wait = max(
        throttle.by_account.blocked_for(account_key), throttle.by_address.blocked_for(address)
    )
    if wait:
        raise DomainError("login_throttled", num=max(1, -(-wait // 60)))
    with platform_work() as uow:
        user = uow.session.scalar(select(User).where(User.email == account_key))
        ok = verify_password(user.password_hash if user else None, password)
        if user is not None and ok and user.active:
            if needs_rehash(user.password_hash):
                user.password_hash = hash_password(password)
            throttle.by_account.reset(account_key)
            return user
    throttle.by_account.record_failure(account_key)
    throttle.by_address.record_failure(address)
    raise DomainError("invalid_credentials")


def end_sessions(user_id: int) -> None:
    """Invalidate every session of this user (sign-out)."""
    with platform_work(user_id=user_id) as uow:
        uow.session.execute(
            update(User).where(User.id == user_id).values(session_version=User.session_version + 1)
        )


def set_user_locale(user_id: int, locale: str) -> None:
    _check_locale(locale, field="locale")
    with platform_work(user_id=user_id) as uow:
        uow.session.execute(update(User).where(User.id == user_id).values(locale=locale))


# --- members (org admin) -------------------------------------------------------------


@dataclass(frozen=True)
class NewMember:
    member: MemberRow
    # Shown once to the admin; None when an existing account was added (it keeps its own).
    temporary_password: str | None
    # Everyone in the organization afterwards, for the page that shows the addition.
    members: tuple[MemberRow, ...] = ()


def _check_locale(locale: str, *, field: str) -> None:
    if locale not in SUPPORTED_LOCALES:
        raise DomainError("unsupported_locale", field=field, locale=locale)


def _check_roles(roles: Iterable[str]) -> list[str]:
    cleaned = sorted(set(roles))
    for role in cleaned:
        if role not in Role.ALL:
            raise DomainError("unknown_role", field="roles", role=role)
    return cleaned


def create_member(
    actor: Actor | SystemActor, *, email: str, name: str, roles: Iterable[str] = ()
) -> NewMember:
    require_admin(actor)
    email = normalise_email(email)
    name = normalise_name(name)
    roles_list = _check_roles(roles)
    with unit_of_work_for(actor) as uow:
        created = add_member_in(uow.session, email=email, name=name, roles=roles_list)
        return replace(created, members=tuple(member_rows_in(uow.session)))


def add_member_in(session: Session, *, email: str, name: str, roles: list[str]) -> NewMember:
    """Add a member inside the caller's unit of work (also used by the CSV import).

    A new email gets an account with a temporary password. An email that already has an
    account (a member of another organization) joins with the password it has: an
    admin of one organization must never be able to reset another's sign-in.
    """
    user = session.scalar(select(User).where(User.email == email))
    temporary_password: str | None = None
    if user is None:
        temporary_password = secrets.token_urlsafe(12)
        user = User(
            email=email,
            name=name,
            password_hash=hash_password(temporary_password),
            created_at=clock.now(),
        )
        session.add(user)
        session.flush()
    elif session.scalar(select(Membership.id).where(Membership.user_id == user.id)):
        raise DomainError("duplicate_email", field="email", email=email)
    member = Membership(user_id=user.id, roles=roles, created_at=clock.now())
    session.add(member)
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError as exc:  # a concurrent admin added the same person
        raise DomainError("duplicate_email", field="email", email=email) from exc
    row = MemberRow(member.id, user.id, user.email, user.name, tuple(roles), True)
    return NewMember(row, temporary_password)


def _member_row(session: Session, member_id: int) -> MemberRow:
    """The member as the admin pages show them, after a change in this unit of work."""
    session.flush()
    return member_rows_in(session, Membership.id == member_id)[0]


def _active_admin_ids(session: Session) -> set[int]:
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
    roles_list = _check_roles(roles)
    with unit_of_work_for(actor) as uow:
        member = _load_member_for_update(uow.session, member_id)
        admins = _active_admin_ids(uow.session)
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
        if _active_admin_ids(uow.session) <= {member.id}:
            raise DomainError("last_admin")
        member.active = False
        return _member_row(uow.session, member.id)


def reactivate_member(actor: Actor | SystemActor, member_id: int) -> MemberRow:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        member = _load_member_for_update(uow.session, member_id)
        member.active = True
        return _member_row(uow.session, member.id)
