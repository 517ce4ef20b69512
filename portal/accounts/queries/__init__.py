"""Reading accounts: the signed-in user with their memberships and the actor they are
in an organization, the member lists, and the reads other features make inside their own
unit of work. Another feature reads accounts through this module, never its models: the
column names below are accounts' business.

Reads for other features come in two kinds: functions that run a statement in the
caller's session, and SQL pieces (``member_name_of``, ``chart_version_of``) that a hot
path folds into a statement of its own, so reading a requester's name costs no
statement of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from sqlalchemy import ColumnElement, ScalarSelect, Select, Subquery, func, select
from sqlalchemy.orm import Session

from portal.accounts.models import Membership, Organization, User
from portal.accounts.queries.session_user import (
    MyMembership as MyMembership,
)
from portal.accounts.queries.session_user import (
    OrgChoice as OrgChoice,
)
from portal.accounts.queries.session_user import (
    SessionUserRow as SessionUserRow,
)
from portal.accounts.queries.session_user import (
    actor_for as actor_for,
)
from portal.accounts.queries.session_user import (
    actor_in as actor_in,
)
from portal.accounts.queries.session_user import (
    admin_two_factor_required as admin_two_factor_required,
)
from portal.accounts.queries.session_user import (
    list_my_organizations as list_my_organizations,
)
from portal.accounts.queries.session_user import (
    load_session_user as load_session_user,
)
from portal.accounts.queries.session_user import (
    my_memberships as my_memberships,
)
from portal.accounts.queries.session_user import (
    organizations_of as organizations_of,
)
from portal.core.clock import clock
from portal.core.db import MAX_ID, storable_ids, table_of
from portal.core.uow import operator_work, unit_of_work_for
from portal.domain.actor import Actor, SystemActor
from portal.domain.errors import NotFound
from portal.domain.naming import lookup_email

_MEMBER = table_of(Membership)
_USER = table_of(User)
_ORG = table_of(Organization)


def member_names(session: Session, member_ids: Iterable[int | None]) -> dict[int, str]:
    """Display name by membership id, in one query; ids that are None or unknown are left out."""
    ids = storable_ids(member_ids)
    if not ids:
        return {}
    rows = session.execute(
        select(Membership.id, User.name)
        .join(User, User.id == Membership.user_id)
        .where(Membership.id.in_(ids))
    )
    return {member_id: name for member_id, name in rows}


def member_name_of(member_id: ColumnElement[int], org_id: ColumnElement[int]) -> ScalarSelect[str]:
    """The name of the member ``member_id`` of ``org_id`` names, as a scalar subquery for
    a statement of the caller's (one statement instead of a join the caller would have
    to know the accounts tables for)."""
    return (
        select(_USER.c.name)
        .join_from(_MEMBER, _USER, _USER.c.id == _MEMBER.c.user_id)
        .where(_MEMBER.c.org_id == org_id, _MEMBER.c.id == member_id)
        .scalar_subquery()
    )


def member_names_of(org_id: ColumnElement[int] | int) -> Subquery:
    """Every member of ``org_id`` with their name (columns ``member_id``, ``name``), as a
    subquery to join: sorting a long list by a person's name joins it once, where
    ``member_name_of`` would look the name up again for every row."""
    return (
        select(_MEMBER.c.id.label("member_id"), _USER.c.name.label("name"))
        .join_from(_MEMBER, _USER, _USER.c.id == _MEMBER.c.user_id)
        .where(_MEMBER.c.org_id == org_id)
        .subquery("member_names")
    )


def chart_version_of(org_id: ColumnElement[int]) -> ScalarSelect[int]:
    """The organization's chart version (moved by database triggers on every chart or
    membership change), as a scalar subquery for a statement of the caller's."""
    return select(_ORG.c.chart_version).where(_ORG.c.id == org_id).scalar_subquery()


def chart_version_in(session: Session, org_id: int) -> int:
    """The organization's chart version, read on its own."""
    return int(
        session.execute(select(_ORG.c.chart_version).where(_ORG.c.id == org_id)).scalar_one()
    )


def time_zone_in(session: Session, org_id: int) -> str:
    """The organization's IANA zone, read on its own."""
    return session.scalar(select(_ORG.c.time_zone).where(_ORG.c.id == org_id)) or "UTC"


def org_time_zone_of(session: Session, actor: Actor | SystemActor) -> str:
    """The actor's organization's zone: a person's actor carries it; the platform's
    (seeding, jobs) reads it."""
    if isinstance(actor, Actor):
        return actor.time_zone
    return time_zone_in(session, actor.org_id)


def today_in(session: Session, actor: Actor | SystemActor) -> date:
    """The day it is in the actor's organization (days are the organization's, whatever
    zone a member reads times in)."""
    return clock.today_in(org_time_zone_of(session, actor))


def base_currency_in(session: Session, org_id: int) -> str:
    """The organization's base currency (ISO 4217): amounts and grant floors are in it."""
    currency = session.scalar(select(Organization.base_currency).where(Organization.id == org_id))
    if currency is None:  # pragma: no cover - the unit of work names an existing org
        raise NotFound("organization")
    return currency


@dataclass(frozen=True)
class MemberEntry:
    """A member as pickers and lists show them."""

    id: int
    name: str
    email: str
    active: bool
    # Left on their own: only a new invitation brings them back.
    left: bool = False


def member_directory_in(session: Session, *, active_only: bool = True) -> list[MemberEntry]:
    """The organization's members by name (the active ones unless told otherwise)."""
    stmt = (
        select(
            Membership.id,
            User.name,
            User.email,
            Membership.active,
            Membership.left_at.is_not(None),
        )
        .join(User, User.id == Membership.user_id)
        .order_by(User.name, Membership.id)
    )
    if active_only:
        stmt = stmt.where(Membership.active.is_(True))
    return [MemberEntry(*row) for row in session.execute(stmt)]


def member_entry_in(session: Session, member_id: int) -> MemberEntry | None:
    """One member of the organization, or None when the id names nobody here."""
    if not 0 < member_id <= MAX_ID:
        return None
    row = session.execute(
        select(Membership.id, User.name, User.email, Membership.active)
        .join(User, User.id == Membership.user_id)
        .where(Membership.id == member_id)
    ).first()
    return MemberEntry(*row) if row is not None else None


@dataclass(frozen=True)
class MemberRoles:
    id: int
    active: bool
    roles: tuple[str, ...]


def member_roles_in(session: Session) -> list[MemberRoles]:
    """Every membership's id, whether it is active and its roles: what the org chart's
    resolution and the readiness check need of accounts."""
    return [
        MemberRoles(r.id, r.active, tuple(r.roles))
        for r in session.execute(
            select(_MEMBER.c.id, _MEMBER.c.active, _MEMBER.c.roles).where(
                _MEMBER.c.org_id == session.info["org_id"]
            )
        )
    ]


def acting_member_in(session: Session, member_id: int) -> Actor | None:
    """The member ``member_id`` as an Actor of the unit of work's organization (a job
    acting for the admin who started it), or None if they are no longer active."""
    row = session.execute(
        select(Membership.user_id, Membership.roles, Organization.slug)
        .join(Organization, Organization.id == Membership.org_id)
        .where(Membership.id == member_id, Membership.active.is_(True))
    ).first()
    if row is None:
        return None
    return Actor(
        org_id=session.info["org_id"],
        org_slug=row.slug,
        user_id=row.user_id,
        member_id=member_id,
        roles=frozenset(row.roles),
    )


def active_member_ids_in(session: Session, member_ids: Iterable[int | None]) -> set[int]:
    """Those of ``member_ids`` that are active members here."""
    ids = storable_ids(member_ids)
    if not ids:
        return set()
    return set(
        session.scalars(
            select(Membership.id).where(Membership.id.in_(ids), Membership.active.is_(True))
        )
    )


def active_members_among(org_id: int, member_ids: set[int]) -> Select[int]:
    """The ids of those of ``member_ids`` (storable ids) that are active members of
    ``org_id``, as a statement a caller may build on (one statement instead of two). It
    names the organization itself: it may run below the ORM's tenant filter."""
    return select(Membership.id).where(
        Membership.org_id == org_id, Membership.id.in_(member_ids), Membership.active.is_(True)
    )


# --- users, organizations, members ----------------------------------------------------


def find_user(email: str) -> User | None:
    """The platform's look-up of an account (the CLI, seeding, tests)."""
    with operator_work() as uow:
        return uow.session.scalar(select(User).where(User.email == lookup_email(email)))


def find_organization(slug: str) -> Organization | None:
    """The platform's look-up of an organization (the CLI, seeding, tests)."""
    with operator_work() as uow:
        return uow.session.scalar(select(Organization).where(Organization.slug == slug))


@dataclass(frozen=True)
class MemberRow:
    id: int
    user_id: int
    email: str
    name: str
    roles: tuple[str, ...]
    active: bool
    # Left on their own (an admin may invite them again, not reactivate them).
    left: bool = False


def member_rows_in(session: Session, where: ColumnElement[bool] | None = None) -> list[MemberRow]:
    """The organization's members as the admin pages list them, by name."""
    stmt = (
        select(
            Membership.id,
            User.id,
            User.email,
            User.name,
            Membership.roles,
            Membership.active,
            Membership.left_at,
        )
        .join(User, User.id == Membership.user_id)
        .order_by(func.lower(User.name), User.id)
    )
    if where is not None:
        stmt = stmt.where(where)
    return [
        MemberRow(m, u, e, n, tuple(r), a, left is not None)
        for m, u, e, n, r, a, left in session.execute(stmt)
    ]


def list_members(actor: Actor | SystemActor) -> list[MemberRow]:
    with unit_of_work_for(actor) as uow:
        return member_rows_in(uow.session)


def get_member(actor: Actor | SystemActor, member_id: int) -> MemberRow:
    with unit_of_work_for(actor) as uow:
        rows = member_rows_in(uow.session, Membership.id == member_id)
    if not rows:
        raise NotFound("member")
    return rows[0]


@dataclass(frozen=True)
class MailRecipient:
    """A member as mail to them is written: their address, their language (their own,
    else the organization's) and their zone (their own here, else the organization's)."""

    member_id: int
    email: str
    name: str
    locale: str
    time_zone: str
    territory: str | None
    org_slug: str
    org_name: str


def mail_recipients_in(
    session: Session, member_ids: Iterable[int | None]
) -> dict[int, MailRecipient]:
    """Those of ``member_ids`` that may be mailed, by id, in one statement: an active
    member with an active account of an organization that is not archived. Nobody else
    is mailed, whatever they were sent before they left."""
    ids = storable_ids(member_ids)
    if not ids:
        return {}
    rows = session.execute(mail_recipients_among(ids))
    return {row[0]: MailRecipient(*row) for row in rows}


def mail_recipients_among(
    member_ids: set[int],
) -> Select[int, str, str, str, str, str | None, str, str]:
    """The statement of ``mail_recipients_in`` (a row is a ``MailRecipient``'s fields,
    the member's id first), for a caller to add what it reads with them: one statement
    instead of two."""
    return (
        select(
            Membership.id,
            User.email,
            User.name,
            func.coalesce(User.locale, Organization.default_locale),
            func.coalesce(Membership.time_zone, Organization.time_zone),
            Organization.territory,
            Organization.slug,
            Organization.name,
        )
        .join(User, User.id == Membership.user_id)
        .join(Organization, Organization.id == Membership.org_id)
        .where(
            Membership.id.in_(member_ids),
            Membership.active.is_(True),
            User.active.is_(True),
            Organization.archived_at.is_(None),
        )
    )


def lock_membership_in(session: Session, member_id: int) -> None:
    """Lock the member's row for the rest of the transaction: what a member changes of
    their own (their notice preferences) is then changed one save after the other."""
    session.connection().execute(
        select(_MEMBER.c.id)
        .where(_MEMBER.c.org_id == session.info["org_id"], _MEMBER.c.id == member_id)
        .with_for_update()
    )
