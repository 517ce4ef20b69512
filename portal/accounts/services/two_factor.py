"""Two-factor sign-in with an authenticator app (time-based codes), and recovery codes
for the day the phone is lost. Only the account's owner turns it on or off, and each
takes the password: a session someone else got hold of cannot take the account over.
Turning it on ends every other session; turning it off takes a code from the app or a
recovery code (the phone may be gone). The owner is told by mail either way."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from portal.accounts.models import Credential, User
from portal.accounts.services.credentials import (
    account_mail_in,
    credential_for_update_in,
    spend_second_factor,
)
from portal.accounts.services.people import bump_session_version_in
from portal.core.clock import clock
from portal.core.security import verify_password
from portal.core.uow import platform_work
from portal.domain.credentials import (
    RecoveryCodes,
    accepted_step,
    grouped,
    new_recovery_codes,
    new_totp_secret,
    provisioning_uri,
)
from portal.domain.errors import DomainError


@dataclass(frozen=True)
class Enrolment:
    """A secret waiting for its first code: shown as a QR code and typed by hand."""

    uri: str
    secret_grouped: str


@dataclass(frozen=True)
class TwoFactorStatus:
    enabled_at: datetime | None
    recovery_codes_left: int
    pending: Enrolment | None

    @property
    def enabled(self) -> bool:
        return self.enabled_at is not None


def two_factor_status(user_id: int) -> TwoFactorStatus:
    with platform_work(user_id=user_id) as uow:
        credential = uow.session.scalar(select(Credential).where(Credential.user_id == user_id))
        email = uow.session.scalar(select(User.email).where(User.id == user_id))
        if credential is None or email is None:  # pragma: no cover - every account has one
            raise DomainError("invalid_credentials")
        pending = None
        if credential.totp_pending_secret is not None and credential.totp_enabled_at is None:
            pending = _enrolment(credential.totp_pending_secret, email)
        return TwoFactorStatus(
            credential.totp_enabled_at, len(credential.recovery_codes or []), pending
        )


def _enrolment(secret: str, email: str) -> Enrolment:
    return Enrolment(provisioning_uri(secret, email), grouped(secret))


def start_two_factor(user_id: int, *, password: str) -> Enrolment:
    """A new secret to scan, given the password; nothing changes at sign-in until a code
    confirms it."""
    with platform_work(user_id=user_id) as uow:
        credential = credential_for_update_in(uow.session, user_id)
        if credential.totp_enabled_at is not None:
            raise DomainError("two_factor_already_on")
        if not verify_password(credential.password_hash, password):
            raise DomainError("wrong_password", field="password")
        email = uow.session.scalar(select(User.email).where(User.id == user_id)) or ""
        credential.totp_pending_secret = new_totp_secret()
        return _enrolment(credential.totp_pending_secret, email)


@dataclass(frozen=True)
class TurnedOn:
    # Shown to their owner once, from this answer.
    codes: RecoveryCodes
    # Every other session ended; the caller's carries on under this version.
    session_version: int


def confirm_two_factor(user_id: int, code: str) -> TurnedOn:
    """Turn two-factor sign-in on with the first code from the app."""
    with platform_work(user_id=user_id) as uow:
        credential = credential_for_update_in(uow.session, user_id)
        secret = credential.totp_pending_secret
        if credential.totp_enabled_at is not None:
            raise DomainError("two_factor_already_on")
        if secret is None:
            raise DomainError("two_factor_not_started")
        step = accepted_step(secret, code, at=clock.now(), last_step=None)
        if step is None:
            raise DomainError("invalid_code", field="code")
        codes = new_recovery_codes()
        credential.totp_secret, credential.totp_pending_secret = secret, None
        credential.totp_enabled_at, credential.totp_last_step = clock.now(), step
        credential.recovery_codes = list(codes.stored)
        account_mail_in(uow, "mail.two_factor_on", user_id)
        return TurnedOn(codes, bump_session_version_in(uow.session, user_id))


def _check_code(credential: Credential, code: str) -> None:
    """A code from the app, or a recovery code (spent)."""
    if not spend_second_factor(credential, code):
        raise DomainError("invalid_code", field="code")


def disable_two_factor(user_id: int, *, password: str, code: str) -> None:
    with platform_work(user_id=user_id) as uow:
        credential = credential_for_update_in(uow.session, user_id)
        if credential.totp_secret is None:
            raise DomainError("two_factor_not_on")
        if not verify_password(credential.password_hash, password):
            raise DomainError("wrong_password", field="password")
        _check_code(credential, code)
        credential.totp_secret = credential.totp_pending_secret = None
        credential.totp_enabled_at = credential.totp_last_step = None
        credential.recovery_codes = []
        account_mail_in(uow, "mail.two_factor_off", user_id)


def renew_recovery_codes(user_id: int, code: str) -> RecoveryCodes:
    """Ten new recovery codes (the old ones stop working), given a current code."""
    with platform_work(user_id=user_id) as uow:
        credential = credential_for_update_in(uow.session, user_id)
        if credential.totp_secret is None:
            raise DomainError("two_factor_not_on")
        _check_code(credential, code)
        codes = new_recovery_codes()
        credential.recovery_codes = list(codes.stored)
        return codes
