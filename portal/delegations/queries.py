"""Reading covers: whose authority a member holds today, and which covers touch a
document — what the authority check, visibility, the inbox and the banners need.

Days are the organization's (the caller passes its ``today``). A cover is active from
the start of ``valid_from`` to the end of ``valid_to`` there, unless revoked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, or_, select
from sqlalchemy.engine import Connection

from portal.core.db import table_of
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
_LENT_TO_DELEGATORS = select(_DEL.c.delegator_id).where(
    _DEL.c.org_id == bindparam("org"),
    _DEL.c.delegate_id.in_(bindparam("delegators", expanding=True)),
    active_clause(bindparam("today")),
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
    active = sorted({c.delegator for c in covers if c.active})
    chained: frozenset[int] = frozenset()
    if active:
        chained = frozenset(
            conn.scalars(_LENT_TO_DELEGATORS, {"org": org_id, "delegators": active, "today": today})
        ) - {member_id}
    return DocumentCovers(covers, chained)
