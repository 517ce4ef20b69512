"""What the services about a person's own account share: their credential row, locked
for a change, and mail about the account itself (which belongs to no organization)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.models import Credential
from portal.core.outbox import add_events, nudge
from portal.core.uow import UnitOfWork
from portal.domain.errors import DomainError


def credential_for_update_in(session: Session, user_id: int) -> Credential:
    credential = session.scalar(
        select(Credential).where(Credential.user_id == user_id).with_for_update()
    )
    if credential is None:  # pragma: no cover - every account has one
        raise DomainError("invalid_credentials")
    return credential


def account_mail_in(uow: UnitOfWork, topic: str, user_id: int, **payload: object) -> None:
    """Mail about the account itself: an outbox row of no organization, sent after commit."""
    add_events(uow.session, [(topic, {"user_id": user_id, **payload})])
    uow.after_commit(lambda: nudge(None))
