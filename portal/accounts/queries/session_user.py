"""The signed-in user: their memberships, the organizations they may switch to, and the
actor they are in one: read once per request, in one statement."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, select

from portal.accounts.models import Credential, Membership, Organization, User
from portal.core.db import table_of
from portal.core.uow import carried_read, platform_work
from portal.domain.actor import Actor

_MEMBER = table_of(Membership)
_USER = table_of(User)
_ORG = table_of(Organization)

# --- the signed-in user, their organizations and the actor they are in one ---------


@dataclass(frozen=True)
class MyMembership:
    """One of a signed-in user's active memberships, with its organization."""

    slug: str
    name: str
    org_id: int
    default_locale: str
    member_id: int
    roles: tuple[str, ...]
    # The organization wants its admins signed in with a second factor.
    admin_two_factor: bool = False
    # The organization's zone and territory, and the member's own zone (None: the org's).
    time_zone: str = "UTC"
    territory: str | None = None
    own_time_zone: str | None = None
    # How long before a deadline the organization reminds a task's holder.
    reminder_lead_minutes: int = 240


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
    # Whether the account signs in with a second factor.
    two_factor: bool = False


_MEMBERSHIP_COLUMNS = (
    Organization.slug,
    Organization.name.label("org_name"),
    Organization.id.label("org_id"),
    Organization.default_locale,
    Membership.id.label("member_id"),
    Membership.roles,
    Organization.require_admin_two_factor,
    Organization.time_zone,
    Organization.territory,
    Membership.time_zone.label("own_time_zone"),
    Organization.reminder_lead_minutes,
)
# An archived organization is closed to its members.
_OPEN_ORGANIZATION = (Organization.id == Membership.org_id) & Organization.archived_at.is_(None)
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
        Credential.totp_enabled_at,
        *_MEMBERSHIP_COLUMNS,
    )
    .select_from(User)
    .outerjoin(Credential, Credential.user_id == User.id)
    .outerjoin(Membership, (Membership.user_id == User.id) & Membership.active.is_(True))
    .outerjoin(Organization, _OPEN_ORGANIZATION)
    .where(User.id == bindparam("user"))
    .order_by(Organization.name, Organization.id)
)
_MY_MEMBERSHIPS = (
    select(*_MEMBERSHIP_COLUMNS)
    .join(Membership, _OPEN_ORGANIZATION)
    .where(Membership.user_id == bindparam("user"), Membership.active.is_(True))
    .order_by(Organization.name, Organization.id)
)


def _membership(row: Any) -> MyMembership:
    return MyMembership(
        row.slug,
        row.org_name,
        row.org_id,
        row.default_locale,
        row.member_id,
        tuple(row.roles),
        bool(row.require_admin_two_factor),
        row.time_zone or "UTC",
        row.territory,
        row.own_time_zone,
        row.reminder_lead_minutes,
    )


def load_session_user(user_id: int, session_version: int) -> SessionUserRow | None:
    """The user behind a session cookie, if the session is still valid on the server,
    with their active memberships."""
    # In a web request, the transaction goes on into the request's unit of work.
    with carried_read(user_id=user_id) as connection:
        rows = list(connection.execute(_SESSION_USER, {"user": user_id}))
    if not rows or not rows[0].active or rows[0].session_version != session_version:
        return None
    user = rows[0]
    memberships = tuple(_membership(row) for row in rows if row.slug is not None)
    return SessionUserRow(
        user.id,
        user.email,
        user.name,
        user.locale,
        user.session_version,
        memberships,
        user.totp_enabled_at is not None,
    )


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
                time_zone=m.time_zone,
                territory=m.territory,
                own_time_zone=m.own_time_zone,
                reminder_lead_minutes=m.reminder_lead_minutes,
            )
    return None


def admin_two_factor_required(memberships: Iterable[MyMembership], org_slug: str) -> bool:
    """Whether the organization at ``org_slug`` asks its admins for a second factor."""
    return any(m.slug == org_slug and m.admin_two_factor for m in memberships)


def actor_for(org_slug: str, user_id: int, user_locale: str | None) -> Actor | None:
    """The Actor for this user in the organization at ``org_slug``, or None."""
    return actor_in(my_memberships(user_id), org_slug, user_id, user_locale)
