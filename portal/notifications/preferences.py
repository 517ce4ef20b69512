"""Members' stored notice preferences, read inside the caller's unit of work: by the
outbox handler (for every recipient of an event at once), the digest job, the
preferences page and its service. Only what differs from the defaults is stored; no row
means the defaults (``domain.notice_preferences``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.core.db import storable_ids
from portal.notifications.models import NoticePreference


@dataclass(frozen=True)
class StoredPreferences:
    member_id: int
    channels: dict[str, Any]
    email_digest: bool


def stored_preferences_in(
    session: Session, member_ids: Iterable[int | None]
) -> dict[int, StoredPreferences]:
    """The stored preferences of ``member_ids`` that have any, by member, in one
    statement."""
    ids = storable_ids(member_ids)
    if not ids:
        return {}
    rows = session.execute(
        select(
            NoticePreference.member_id, NoticePreference.channels, NoticePreference.email_digest
        ).where(NoticePreference.member_id.in_(ids))
    )
    return {m: stored_preferences(m, channels, digest) for m, channels, digest in rows}


def stored_preferences(member_id: int, channels: Any, digest: Any) -> StoredPreferences:
    """A member's preferences as a row of ``notice_preference`` holds them."""
    return StoredPreferences(
        member_id, channels if isinstance(channels, dict) else {}, bool(digest)
    )
