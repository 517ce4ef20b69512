"""What the document page says of covers: the cover the reader would act under ("You
act on behalf of Daniel Tan (cover until 19 Dec)"), and the cover each decision was
taken under, with its days and reason ("… on behalf of Daniel Tan (cover 8–19 Dec:
annual leave)").

Covers are read by their ids from the delegations feature's table (it sits below
documents); nothing here decides who may act — ``engine.authorize`` did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.core.db import storable_ids
from portal.delegations.queries import DELEGATION_TABLE as _DEL


@dataclass(frozen=True)
class ActingFor:
    """A cover the reader may act on this document under."""

    delegation_id: int
    delegator_name: str
    # Its last day, in the organization's zone.
    valid_to: date


def acting_for_in(session: Session, org_id: int, lent: Mapping[int, int | None]) -> list[ActingFor]:
    """The covers ``lent`` names (cover id -> the delegator whose authority it lends), in
    id order: one read, and none when the reader acts on their own authority."""
    if not lent:
        return []
    ends = dict(
        session.execute(
            select(_DEL.c.id, _DEL.c.valid_to).where(
                _DEL.c.org_id == org_id, _DEL.c.id.in_(sorted(storable_ids(lent)))
            )
        ).all()
    )
    names = member_names(session, lent.values())
    return [
        ActingFor(cover, names.get(member or 0, f"#{member}"), ends[cover])
        for cover, member in sorted(lent.items())
        if cover in ends
    ]


@dataclass(frozen=True)
class CoverWindow:
    """A cover as a decision taken under it recalls it: its days and its reason."""

    valid_from: date
    valid_to: date
    reason: str


def cover_windows_in(
    session: Session, org_id: int, delegation_ids: Iterable[int | None]
) -> dict[int, CoverWindow]:
    """The covers decisions were taken under, by id: one read, only when there is one."""
    wanted = sorted(storable_ids(delegation_ids))
    if not wanted:
        return {}
    rows = session.execute(
        select(_DEL.c.id, _DEL.c.valid_from, _DEL.c.valid_to, _DEL.c.reason).where(
            _DEL.c.org_id == org_id, _DEL.c.id.in_(wanted)
        )
    )
    return {r.id: CoverWindow(r.valid_from, r.valid_to, r.reason) for r in rows}
