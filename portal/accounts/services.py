"""Organizations, accounts, memberships and sign-in.

Each public function is one unit of work. Admin functions take the ``Actor`` first and
refuse non-admins themselves; views check too, but the rule lives here.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from babel.numbers import list_currencies
from sqlalchemy import bindparam, func, select, update
from sqlalchemy.exc import IntegrityError

from portal.accounts.models import Membership, Organization, User
from portal.config import SUPPORTED_LOCALES
from portal.core.clock import clock
from portal.core.ratelimit import FailureWindow
from portal.core.security import hash_password, needs_rehash, verify_password
from portal.core.uow import platform_work, unit_of_work_for
from portal.domain.actor import Actor, Role, require_admin
from portal.domain.errors import DomainError, NotFound
from portal.domain.naming import normalise_email, normalise_name, normalise_slug
from portal.flows import services as flow_services

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
    # Every organization starts with the seeded flows. A second transaction: the tenant
    # is fixed when a transaction begins, and the organization did not exist yet. Seeding
    # is idempotent, so `portal seed-flows` repairs an interrupted one.
    flow_services.seed_flows(org.id)
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


def find_user(email: str) -> User | None:
    with platform_work() as uow:
        return uow.session.scalar(select(User).where(User.email == email.strip().lower()))


def find_organization(slug: str) -> Organization | None:
    with platform_work() as uow:
        return uow.session.scalar(select(Organization).where(Organization.slug == slug))


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


@dataclass(frozen=True)
class MyMembership:
    """One of a signed-in user's active memberships, with its organization."""

    slug: str
    name: str
    org_id: int
    default_locale: str
    member_id: int
    roles: tuple[str, ...]


@dataclass(frozen=True)
class SessionUserRow:
    id: int
    email: str
    name: str
    locale: str | None
    session_version: int
    # Every active membership: the request's actor and the org switcher come from
    # here, read in the same statement as the user.
    memberships: tuple[MyMembership, ...] = ()


_MEMBERSHIP_COLUMNS = (
    Organization.slug,
    Organization.name.label("org_name"),
    Organization.id.label("org_id"),
    Organization.default_locale,
    Membership.id.label("member_id"),
    Membership.roles,
)
# Read on every signed-in request, so prebuilt (SQLAlchemy Core, bound parameters):
# the user and their active memberships in one statement, through the user's own
# memberships, which row-level security's app.current_user policy also enforces.
_SESSION_USER = (
    select(
        User.id,
        User.email,
        User.name,
        User.locale,
        User.session_version,
        User.active,
        *_MEMBERSHIP_COLUMNS,
    )
    .select_from(User)
    .outerjoin(Membership, (Membership.user_id == User.id) & Membership.active.is_(True))
    .outerjoin(Organization, Organization.id == Membership.org_id)
    .where(User.id == bindparam("user"))
    .order_by(Organization.name, Organization.id)
)
_MY_MEMBERSHIPS = (
    select(*_MEMBERSHIP_COLUMNS)
    .join(Membership, Membership.org_id == Organization.id)
    .where(Membership.user_id == bindparam("user"), Membership.active.is_(True))
    .order_by(Organization.name, Organization.id)
)


def _membership(row: Any) -> MyMembership:
    return MyMembership(
        row.slug, row.org_name, row.org_id, row.default_locale, row.member_id, tuple(row.roles)
    )


def load_session_user(user_id: int, session_version: int) -> SessionUserRow | None:
    """The user behind a session cookie, if the session is still valid on the server,
    with their active memberships."""
    with platform_work(user_id=user_id) as uow:
        rows = list(uow.session.connection().execute(_SESSION_USER, {"user": user_id}))
    if not rows or not rows[0].active or rows[0].session_version != session_version:
        return None
    user = rows[0]
    memberships = tuple(_membership(row) for row in rows if row.member_id is not None)
    return SessionUserRow(
        user.id, user.email, user.name, user.locale, user.session_version, memberships
    )


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


@dataclass(frozen=True)
class OrgChoice:
    slug: str
    name: str
    roles: tuple[str, ...]


def my_memberships(user_id: int) -> tuple[MyMembership, ...]:
    """The user's active memberships, each with its organization."""
    with platform_work(user_id=user_id) as uow:
        rows = uow.session.connection().execute(_MY_MEMBERSHIPS, {"user": user_id})
        return tuple(_membership(row) for row in rows)


def organizations_of(memberships: Iterable[MyMembership]) -> list[OrgChoice]:
    """The org switcher's list."""
    return [OrgChoice(m.slug, m.name, m.roles) for m in memberships]


def list_my_organizations(user_id: int) -> list[OrgChoice]:
    """The organizations where this user has an active membership (the org switcher)."""
    return organizations_of(my_memberships(user_id))


def actor_in(
    memberships: Iterable[MyMembership], org_slug: str, user_id: int, user_locale: str | None
) -> Actor | None:
    """The Actor for this user in the organization at ``org_slug``, from their active
    memberships; None when there is no such organization or the user is not an active
    member of it (callers answer 404 for both, so an outsider learns nothing)."""
    for m in memberships:
        if m.slug == org_slug:
            return Actor(
                org_id=m.org_id,
                org_slug=org_slug,
                user_id=user_id,
                member_id=m.member_id,
                roles=frozenset(m.roles),
                locale=user_locale or m.default_locale,
            )
    return None


def actor_for(org_slug: str, user_id: int, user_locale: str | None) -> Actor | None:
    """The Actor for this user in the organization at ``org_slug``, or None."""
    return actor_in(my_memberships(user_id), org_slug, user_id, user_locale)


# --- members (org admin) -------------------------------------------------------------


@dataclass(frozen=True)
class MemberRow:
    id: int
    user_id: int
    email: str
    name: str
    roles: tuple[str, ...]
    active: bool


@dataclass(frozen=True)
class NewMember:
    member: MemberRow
    # Shown once to the admin; None when an existing account was added (it keeps its own).
    temporary_password: str | None


def _check_locale(locale: str, *, field: str) -> None:
    if locale not in SUPPORTED_LOCALES:
        raise DomainError("unsupported_locale", field=field, locale=locale)


def _check_roles(roles: Iterable[str]) -> list[str]:
    cleaned = sorted(set(roles))
    for role in cleaned:
        if role not in Role.ALL:
            raise DomainError("unknown_role", field="roles", role=role)
    return cleaned


def _member_rows(session, where=None) -> list[MemberRow]:  # type: ignore[no-untyped-def]
    stmt = (
        select(Membership.id, User.id, User.email, User.name, Membership.roles, Membership.active)
        .join(User, User.id == Membership.user_id)
        .order_by(func.lower(User.name), User.id)
    )
    if where is not None:
        stmt = stmt.where(where)
    return [MemberRow(m, u, e, n, tuple(r), a) for m, u, e, n, r, a in session.execute(stmt)]


def list_members(actor: Actor) -> list[MemberRow]:
    with unit_of_work_for(actor) as uow:
        return _member_rows(uow.session)


def get_member(actor: Actor, member_id: int) -> MemberRow:
    with unit_of_work_for(actor) as uow:
        rows = _member_rows(uow.session, Membership.id == member_id)
    if not rows:
        raise NotFound("member")
    return rows[0]


def create_member(actor: Actor, *, email: str, name: str, roles: Iterable[str] = ()) -> NewMember:
    require_admin(actor)
    email = normalise_email(email)
    name = normalise_name(name)
    roles_list = _check_roles(roles)
    with unit_of_work_for(actor) as uow:
        created = add_member_in(uow.session, email=email, name=name, roles=roles_list)
    return created


def add_member_in(session, *, email: str, name: str, roles: list[str]) -> NewMember:  # type: ignore[no-untyped-def]
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


def _active_admin_ids(session) -> set[int]:  # type: ignore[no-untyped-def]
    rows = session.execute(
        select(Membership.id, Membership.roles).where(Membership.active.is_(True))
    )
    return {mid for mid, roles in rows if Role.ADMIN in roles}


def _load_member_for_update(session, member_id: int) -> Membership:  # type: ignore[no-untyped-def]
    member = session.scalar(select(Membership).where(Membership.id == member_id).with_for_update())
    if member is None:
        raise NotFound("member")
    return member


def set_member_roles(actor: Actor, member_id: int, roles: Iterable[str]) -> MemberRow:
    require_admin(actor)
    roles_list = _check_roles(roles)
    with unit_of_work_for(actor) as uow:
        member = _load_member_for_update(uow.session, member_id)
        admins = _active_admin_ids(uow.session)
        if Role.ADMIN not in roles_list and admins <= {member.id}:
            raise DomainError("last_admin", field="roles")
        member.roles = roles_list
    return get_member(actor, member_id)


def deactivate_member(actor: Actor, member_id: int) -> MemberRow:
    require_admin(actor)
    if member_id == actor.member_id:
        raise DomainError("cannot_deactivate_self")
    with unit_of_work_for(actor) as uow:
        member = _load_member_for_update(uow.session, member_id)
        if _active_admin_ids(uow.session) <= {member.id}:
            raise DomainError("last_admin")
        member.active = False
    return get_member(actor, member_id)


def reactivate_member(actor: Actor, member_id: int) -> MemberRow:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        member = _load_member_for_update(uow.session, member_id)
        member.active = True
    return get_member(actor, member_id)
