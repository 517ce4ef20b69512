"""Small reads about members that every feature needs inside its own unit of work."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.models import Membership, User


def member_names(session: Session, member_ids: Iterable[int | None]) -> dict[int, str]:
    """Display name by membership id, in one query; ids that are None or unknown are left out."""
    ids = {m for m in member_ids if m is not None}
    if not ids:
        return {}
    rows = session.execute(
        select(Membership.id, User.name)
        .join(User, User.id == Membership.user_id)
        .where(Membership.id.in_(ids))
    )
    return {member_id: name for member_id, name in rows}
