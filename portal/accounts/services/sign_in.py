"""Signing in: the password, then the second factor when the account has one.

Failures slow an attacker without letting a stranger lock the owner out. A stranger's
failures count against the account and against their address; when the account is
paused, its owner still gets in from a device that signed in before (its failures are
counted on their own) or by giving a code from their authenticator along with the
password. The answer never says whether an account exists: an unknown address is paused
just like a known one. The counters live in Redis, shared by every web process.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from portal.accounts.models import Credential, User
from portal.core.clock import clock
from portal.core.db import rescope
from portal.core.ratelimit import FailureWindow
from portal.core.security import hash_password, needs_rehash, verify_password
from portal.core.uow import platform_work
from portal.domain.credentials import accepted_step, spend_recovery_code
from portal.domain.errors import DomainError


@dataclass(frozen=True)
class LoginThrottle:
    by_account: FailureWindow  # everyone's failures for an email
    by_address: FailureWindow  # one client address's failures, whatever the email
    by_device: FailureWindow  # failures from a device that signed in to the account before
    second_step: FailureWindow  # wrong codes at the second step, per account


@dataclass(frozen=True)
class SignInAttempt:
    email: str
    password: str
    address: str
    # The id of a device that signed in to this email before (a signed cookie), if any.
    device: str | None = None
    # A second-factor code given with the password (when the account is paused).
    code: str | None = None


@dataclass(frozen=True)
class SignedIn:
    id: int
    email: str
    name: str
    locale: str | None
    session_version: int
    # The password was right; a code is still to come before the session starts.
    needs_second_factor: bool


def _minutes(seconds: int) -> int:
    return max(1, -(-seconds // 60))


def _paused(code: str, seconds: int) -> DomainError:
    return DomainError(code, num=_minutes(seconds), seconds=seconds)


def authenticate(attempt: SignInAttempt, *, throttle: LoginThrottle) -> SignedIn:
    """The account whose email and password these are, or a refusal:
    ``invalid_credentials`` (the same whether the email exists or not),
    ``login_throttled`` (this address or this device tried too often) or
    ``login_protected`` (the account is paused for strangers: a device it used before,
    or a code along with the password, still gets in)."""
    email = attempt.email.strip().lower()
    device_key = f"{email}:{attempt.device}" if attempt.device else None
    with_code = False
    if device_key is not None:
        wait = throttle.by_device.blocked_for(device_key)
        if wait:
            raise _paused("login_throttled", wait)
    else:
        wait = throttle.by_address.blocked_for(attempt.address)
        if wait:
            raise _paused("login_throttled", wait)
        wait = throttle.by_account.blocked_for(email)
        if wait:
            if not attempt.code:
                raise _paused("login_protected", wait)
            with_code = True
    signed_in = _check_password(email, attempt.password, code=attempt.code if with_code else None)
    if signed_in is None:
        if device_key is not None:
            throttle.by_device.record_failure(device_key)
        else:
            throttle.by_account.record_failure(email)
            throttle.by_address.record_failure(attempt.address)
        raise DomainError("invalid_credentials")
    if device_key is not None:
        throttle.by_device.reset(device_key)
    elif not with_code:
        throttle.by_account.reset(email)
    return signed_in


def _check_password(email: str, password: str, *, code: str | None) -> SignedIn | None:
    """The account if the password (and ``code``, when given) is right; None otherwise.
    An unknown email costs the same hashing as a known one."""
    with platform_work(email=email) as uow:
        s = uow.session
        user = s.scalar(select(User).where(User.email == email))
        credential = None
        if user is not None:
            rescope(s, user_id=user.id)
            credential = s.scalar(
                select(Credential).where(Credential.user_id == user.id).with_for_update()
            )
        stored = credential.password_hash if credential is not None else None
        if not verify_password(stored, password) or user is None or credential is None:
            return None
        if not user.active:
            return None
        two_factor = credential.totp_secret is not None
        if code is not None and (not two_factor or not _spend_code(credential, code)):
            return None
        if needs_rehash(credential.password_hash):
            credential.password_hash = hash_password(password)
        return SignedIn(
            user.id,
            user.email,
            user.name,
            user.locale,
            user.session_version,
            needs_second_factor=two_factor and code is None,
        )


def _spend_code(credential: Credential, code: str) -> bool:
    """Take ``code`` as the second factor: a time-based code not used before, or one of
    the recovery codes (which is then gone)."""
    assert credential.totp_secret is not None
    step = accepted_step(
        credential.totp_secret, code, at=clock.now(), last_step=credential.totp_last_step
    )
    if step is not None:
        credential.totp_last_step = step
        return True
    remaining = spend_recovery_code(code, list(credential.recovery_codes))
    if remaining is None:
        return False
    credential.recovery_codes = remaining
    return True


def complete_second_factor(user_id: int, code: str, *, throttle: LoginThrottle) -> SignedIn:
    """The second step of a sign-in whose password was right: the account if ``code``
    is good; ``invalid_code`` or, after too many, ``login_throttled``."""
    key = str(user_id)
    wait = throttle.second_step.blocked_for(key)
    if wait:
        raise _paused("login_throttled", wait)
    with platform_work(user_id=user_id) as uow:
        s = uow.session
        user = s.scalar(select(User).where(User.id == user_id))
        credential = s.scalar(
            select(Credential).where(Credential.user_id == user_id).with_for_update()
        )
        ok = (
            user is not None
            and user.active
            and credential is not None
            and credential.totp_secret is not None
            and _spend_code(credential, code)
        )
        if ok and user is not None:
            throttle.second_step.reset(key)
            return SignedIn(
                user.id,
                user.email,
                user.name,
                user.locale,
                user.session_version,
                needs_second_factor=False,
            )
    throttle.second_step.record_failure(key)
    raise DomainError("invalid_code", field="code")
