"""What the services about a person's own account share: their credential row, locked
for a change, a second factor spent, and mail about the account itself (which belongs
to no organization)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.models import Credential
from portal.core.clock import clock
from portal.core.outbox import add_events, nudge
from portal.core.uow import UnitOfWork
from portal.domain.credentials import accepted_step, spend_recovery_code
from portal.domain.errors import DomainError


def credential_for_update_in(session: Session, user_id: int) -> Credential:
    credential = session.scalar(
        select(Credential).where(Credential.user_id == user_id).with_for_update()
    )
    if credential is None:  # pragma: no cover - every account has one
        raise DomainError("invalid_credentials")
    return credential


def spend_second_factor(credential: Credential, code: str) -> bool:
    """Take ``code`` as the second factor: a time-based code later than the last one
    taken, or one of the recovery codes (which is then gone)."""
    if credential.totp_secret is None:
        return False
    step = accepted_step(
        credential.totp_secret, code, at=clock.now(), last_step=credential.totp_last_step
    )
    if step is not None:
        credential.totp_last_step = step
        return True
    remaining = spend_recovery_code(code, list(credential.recovery_codes or []))
    if remaining is None:
        return False
    credential.recovery_codes = remaining
    return True


def account_mail_in(uow: UnitOfWork, topic: str, user_id: int, **payload: object) -> None:
    """Mail about the account itself: an outbox row of no organization, sent after commit."""
    add_events(uow.session, [(topic, {"user_id": user_id, **payload})])
    uow.after_commit(lambda: nudge(None))
