"""Reads about members and organizations that other features make inside their own unit
of work. Another feature reads accounts through this module, never its models: the
column names below are accounts' business.

Two kinds of read: functions that run a statement in the caller's session, and SQL
pieces (``member_name_of``, ``chart_version_of``) that a hot path folds into a statement
of its own, so reading a requester's name costs no statement of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import ColumnElement, ScalarSelect, select
from sqlalchemy.orm import Session

from portal.accounts.models import Membership, Organization, User
from portal.domain.errors import NotFound

_MEMBER = Membership.__table__
_USER = User.__table__
_ORG = Organization.__table__

# No id outside BIGINT exists; the database could not even compare one.
MAX_ID = 2**63 - 1


def member_names(session: Session, member_ids: Iterable[int | None]) -> dict[int, str]:
    """Display name by membership id, in one query; ids that are None or unknown are left out."""
    ids = {m for m in member_ids if m is not None and 0 < m <= MAX_ID}
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


def chart_version_of(org_id: ColumnElement[int]) -> ScalarSelect[int]:
    """The organization's chart version (moved by database triggers on every chart or
    membership change), as a scalar subquery for a statement of the caller's."""
    return select(_ORG.c.chart_version).where(_ORG.c.id == org_id).scalar_subquery()


def chart_version_in(session: Session, org_id: int) -> int:
    """The organization's chart version, read on its own."""
    return int(
        session.execute(select(_ORG.c.chart_version).where(_ORG.c.id == org_id)).scalar_one()
    )


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


def member_directory_in(session: Session, *, active_only: bool = True) -> list[MemberEntry]:
    """The organization's members by name (the active ones unless told otherwise)."""
    stmt = (
        select(Membership.id, User.name, User.email, Membership.active)
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


def active_member_ids_in(session: Session, member_ids: Iterable[int | None]) -> set[int]:
    """Those of ``member_ids`` that are active members here."""
    ids = {m for m in member_ids if m is not None and 0 < m <= MAX_ID}
    if not ids:
        return set()
    return set(
        session.scalars(
            select(Membership.id).where(Membership.id.in_(ids), Membership.active.is_(True))
        )
    )
