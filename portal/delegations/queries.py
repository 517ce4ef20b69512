"""Reading covers: whose authority a member holds today, and which covers touch a
document — what the authority check, visibility, the inbox and the banners need.

Days are the organization's (the caller passes its ``today``). A cover is active from
the start of ``valid_from`` to the end of ``valid_to`` there, unless revoked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, ScalarSelect, Select, and_, bindparam, case, or_, select
from sqlalchemy.engine import Connection

from portal.accounts.queries import member_name_of
from portal.core.db import table_of
from portal.core.json_rows import json_rows, rows_of
from portal.delegations.models import Delegation
from portal.domain.delegation import LAPSED_DAYS, Cover, is_active

_DEL = table_of(Delegation)
DELEGATION_TABLE = _DEL


def active_clause(today: Any) -> ColumnElement[bool]:
    """The cover is active on the organization's ``today`` (a value or a bind)."""
    return and_(_DEL.c.valid_from <= today, _DEL.c.valid_to >= today, _DEL.c.revoked_at.is_(None))


def kind_clause(kind: Any) -> ColumnElement[bool]:
    """The cover reaches documents of ``kind`` (a value or a column)."""
    return or_(_DEL.c.kind.is_(None), _DEL.c.kind == kind)


def delegators_of(org_id: Any, member_id: Any, today: Any) -> Select[Any]:
    """The members whose authority ``member_id`` holds by an active cover today, with
    the cover's id and kind: for the inbox and the lists (join on ``delegator_id``)."""
    return select(_DEL.c.id, _DEL.c.delegator_id, _DEL.c.kind).where(
        _DEL.c.org_id == org_id, _DEL.c.delegate_id == member_id, active_clause(today)
    )


_TO_MEMBER = select(
    _DEL.c.id, _DEL.c.delegator_id, _DEL.c.valid_from, _DEL.c.valid_to, _DEL.c.revoked_at
).where(
    _DEL.c.org_id == bindparam("org"),
    _DEL.c.delegate_id == bindparam("member"),
    _DEL.c.valid_from <= bindparam("today"),
    _DEL.c.valid_to >= bindparam("since"),
    kind_clause(bindparam("kind")),
)
# Covers to the actor's delegators that reach the same kind: only those make a chain.
_LENT_TO_DELEGATORS = select(_DEL.c.delegator_id).where(
    _DEL.c.org_id == bindparam("org"),
    _DEL.c.delegate_id.in_(bindparam("delegators", expanding=True)),
    active_clause(bindparam("today")),
    kind_clause(bindparam("kind")),
)


@dataclass(frozen=True)
class DocumentCovers:
    """The covers to the acting member that reach one document's kind."""

    covers: tuple[Cover, ...]
    # Members who cover the actor's delegators (a second hop: never lent on).
    chained: frozenset[int]

    @property
    def delegators(self) -> list[int]:
        return sorted({c.delegator for c in self.covers if c.active})


NO_COVERS = DocumentCovers((), frozenset())


def covers_to_member_rows(
    org_id: Any, member_id: Any, today: Any, since: Any, kind: Any
) -> ScalarSelect[Any]:
    """``_TO_MEMBER`` as a correlated ``json_rows`` column of the caller's statement (the
    document's load): each cover's id, delegator, window and whether it was revoked."""
    return (
        select(
            json_rows(
                _DEL.c.id,
                _DEL.c.delegator_id,
                _DEL.c.valid_from,
                _DEL.c.valid_to,
                _DEL.c.revoked_at.is_not(None),
            )
        )
        .where(
            _DEL.c.org_id == org_id,
            _DEL.c.delegate_id == member_id,
            _DEL.c.valid_from <= today,
            _DEL.c.valid_to >= since,
            kind_clause(kind),
        )
        .scalar_subquery()
    )


def covers_from_rows(
    conn: Connection, rows: Any, org_id: int, member_id: int, kind: str, today: date
) -> DocumentCovers:
    """``covers_reaching`` from the rows ``covers_to_member_rows`` read: a second
    statement only when an active cover exists."""
    found = rows_of(rows)
    if not found:
        return NO_COVERS
    covers = tuple(
        Cover(
            cover_id,
            delegator,
            not revoked
            and is_active(
                date.fromisoformat(valid_from), date.fromisoformat(valid_to), None, today=today
            ),
        )
        for cover_id, delegator, valid_from, valid_to, revoked in found
    )
    return _with_chains(conn, covers, org_id, member_id, kind, today)


def covers_reaching(
    conn: Connection, org_id: int, member_id: int, kind: str, today: date
) -> DocumentCovers:
    """Covers to ``member_id`` that reach documents of ``kind``: active ones, and ones
    that lapsed in the last ``LAPSED_DAYS`` (they explain a refusal). One statement,
    and a second only when an active cover exists. Their ``tasks`` are filled in by
    the caller, who reads the document's tasks."""
    rows = conn.execute(
        _TO_MEMBER,
        {
            "org": org_id,
            "member": member_id,
            "today": today,
            "since": today - timedelta(days=LAPSED_DAYS),
            "kind": kind,
        },
    ).all()
    if not rows:
        return NO_COVERS
    covers = tuple(
        Cover(
            r.id,
            r.delegator_id,
            is_active(r.valid_from, r.valid_to, r.revoked_at, today=today),
        )
        for r in rows
    )
    return _with_chains(conn, covers, org_id, member_id, kind, today)


def _with_chains(
    conn: Connection,
    covers: tuple[Cover, ...],
    org_id: int,
    member_id: int,
    kind: str,
    today: date,
) -> DocumentCovers:
    active = sorted({c.delegator for c in covers if c.active})
    chained: frozenset[int] = frozenset()
    if active:
        chained = frozenset(
            conn.scalars(
                _LENT_TO_DELEGATORS,
                {"org": org_id, "delegators": active, "today": today, "kind": kind},
            )
        ) - {member_id}
    return DocumentCovers(covers, chained)


# --- the pages and the banners --------------------------------------------------------


@dataclass(frozen=True)
class CoverRow:
    """One cover as the pages list it, with the names of everyone it concerns."""

    id: int
    delegator_id: int
    delegator_name: str
    delegate_id: int
    delegate_name: str
    kind: str | None
    valid_from: date
    valid_to: date
    reason: str
    created_by: int
    created_by_name: str
    created_at: datetime
    revoked_at: datetime | None
    revoked_by_name: str | None


def _name(member_id: Any) -> Any:
    return member_name_of(member_id, _DEL.c.org_id)


_COVER_ROWS = select(
    _DEL.c.id,
    _DEL.c.delegator_id,
    _name(_DEL.c.delegator_id).label("delegator_name"),
    _DEL.c.delegate_id,
    _name(_DEL.c.delegate_id).label("delegate_name"),
    _DEL.c.kind,
    _DEL.c.valid_from,
    _DEL.c.valid_to,
    _DEL.c.reason,
    _DEL.c.created_by,
    _name(_DEL.c.created_by).label("created_by_name"),
    _DEL.c.created_at,
    _DEL.c.revoked_at,
    _name(_DEL.c.revoked_by).label("revoked_by_name"),
)
# The newest windows first: what is coming and going on comes before what is over.
_NEWEST_FIRST = (_DEL.c.valid_to.desc(), _DEL.c.valid_from.desc(), _DEL.c.id.desc())


def cover_rows_in(
    conn: Connection, org_id: int, where: ColumnElement[bool], *, limit: int
) -> list[CoverRow]:
    """The organization's covers that ``where`` picks, newest window first, at most
    ``limit``, in one statement (the names come as subqueries)."""
    rows = conn.execute(
        _COVER_ROWS.where(_DEL.c.org_id == org_id, where).order_by(*_NEWEST_FIRST).limit(limit)
    )
    return [CoverRow(**row._mapping) for row in rows]


def lent_or_held_by(member_id: int) -> ColumnElement[bool]:
    """Covers ``member_id`` lends or holds."""
    return or_(_DEL.c.delegator_id == member_id, _DEL.c.delegate_id == member_id)


def not_over(today: date) -> ColumnElement[bool]:
    """Covers that are active or still to come on the organization's ``today``."""
    return and_(_DEL.c.valid_to >= today, _DEL.c.revoked_at.is_(None))


def cover_row_in(conn: Connection, org_id: int, delegation_id: int) -> CoverRow | None:
    """One cover of the organization, or None when the id names none here."""
    found = cover_rows_in(conn, org_id, _DEL.c.id == delegation_id, limit=1)
    return found[0] if found else None


@dataclass(frozen=True)
class BannerCover:
    """Someone on the other side of an active cover, and its last day."""

    delegation_id: int
    member_id: int
    name: str
    valid_to: date
    kind: str | None


@dataclass(frozen=True)
class CoverBanner:
    """What the inbox and the home page say while a cover is active: who covers me now,
    whom I cover now."""

    covered_by: tuple[BannerCover, ...] = ()
    covering: tuple[BannerCover, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.covered_by or self.covering)


NO_BANNER = CoverBanner()

_BANNER = select(
    _DEL.c.id,
    _DEL.c.delegator_id,
    _DEL.c.delegate_id,
    _DEL.c.valid_to,
    _DEL.c.kind,
    _name(
        case(
            (_DEL.c.delegator_id == bindparam("member"), _DEL.c.delegate_id),
            else_=_DEL.c.delegator_id,
        )
    ).label("other_name"),
).where(
    _DEL.c.org_id == bindparam("org"),
    or_(_DEL.c.delegator_id == bindparam("member"), _DEL.c.delegate_id == bindparam("member")),
    active_clause(bindparam("today")),
)


def cover_banner_in(conn: Connection, org_id: int, member_id: int, today: date) -> CoverBanner:
    """The active covers ``member_id`` lends or holds on the organization's ``today``,
    with the other person's name: one statement on the two indexes."""
    covered_by: list[BannerCover] = []
    covering: list[BannerCover] = []
    rows = conn.execute(_BANNER, {"org": org_id, "member": member_id, "today": today})
    for r in sorted(rows, key=lambda r: (r.valid_to, r.id)):
        if r.delegator_id == member_id:
            covered_by.append(BannerCover(r.id, r.delegate_id, r.other_name, r.valid_to, r.kind))
        else:
            covering.append(BannerCover(r.id, r.delegator_id, r.other_name, r.valid_to, r.kind))
    return CoverBanner(tuple(covered_by), tuple(covering))
