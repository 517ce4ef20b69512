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
from portal.accounts.services.credentials import spend_second_factor
from portal.core.ratelimit import FailureWindow
from portal.core.scope import rescope
from portal.core.security import hash_password, needs_rehash, verify_password
from portal.core.uow import platform_work
from portal.domain.errors import DomainError
from portal.domain.naming import lookup_email


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
    # A device that signed in to this email before (from its signed cookie): its id,
    # and the password it signed in with (when that password was set). A device that
    # signed in before the password last changed counts as a stranger.
    device: str | None = None
    device_stamp: int | None = None
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
    # When the password was set (whole seconds): what a device cookie is bound to.
    password_stamp: int


def _minutes(seconds: int) -> int:
    return max(1, -(-seconds // 60))


def _paused(code: str, seconds: int) -> DomainError:
    return DomainError(code, num=_minutes(seconds), seconds=seconds)


def password_stamp(credential: Credential) -> int:
    return int(credential.password_changed_at.timestamp())


def _known_device(email: str, attempt: SignInAttempt) -> bool:
    """Whether the attempt's device signed in to this account with its current password."""
    if attempt.device is None or attempt.device_stamp is None:
        return False
    with platform_work(email=email) as uow:
        user_id = uow.session.scalar(select(User.id).where(User.email == email))
        if user_id is None:
            return False
        rescope(uow.session, user_id=user_id)
        changed = uow.session.scalar(
            select(Credential.password_changed_at).where(Credential.user_id == user_id)
        )
    return changed is not None and int(changed.timestamp()) == attempt.device_stamp


def authenticate(attempt: SignInAttempt, *, throttle: LoginThrottle) -> SignedIn:
    """The account whose email and password these are, or a refusal:
    ``invalid_credentials`` (the same whether the email exists or not),
    ``login_throttled`` (this address or this device tried too often) or
    ``login_protected`` (the account is paused for strangers: a device it used before,
    or a code along with the password, still gets in)."""
    email = lookup_email(attempt.email)
    device_key = f"{email}:{attempt.device}" if _known_device(email, attempt) else None
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
    signed_in = _check_password(
        email, attempt.password, code=attempt.code if with_code else None, throttle=throttle
    )
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


def _signed_in(user: User, credential: Credential, *, needs_second_factor: bool) -> SignedIn:
    return SignedIn(
        user.id,
        user.email,
        user.name,
        user.locale,
        user.session_version,
        needs_second_factor,
        password_stamp(credential),
    )


def _check_password(
    email: str, password: str, *, code: str | None, throttle: LoginThrottle
) -> SignedIn | None:
    """The account if the password (and ``code``, when given) is right; None otherwise.
    An unknown email costs the same hashing as a known one. A code given with the
    password counts against the account's second-step limit, from whichever address:
    knowing the password does not buy unlimited guesses at the code."""
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
        if code is not None:
            key = str(user.id)
            if not two_factor or throttle.second_step.blocked_for(key):
                return None
            if not spend_second_factor(credential, code):
                throttle.second_step.record_failure(key)
                return None
        if needs_rehash(credential.password_hash):
            credential.password_hash = hash_password(password)
        return _signed_in(user, credential, needs_second_factor=two_factor and code is None)


def complete_second_factor(
    user_id: int, code: str, *, session_version: int, throttle: LoginThrottle
) -> SignedIn:
    """The second step of a sign-in whose password was right: the account if ``code``
    is good; ``sign_in_expired`` if the account signed out everywhere since the
    password step (nothing is spent then), ``invalid_code`` or, after too many,
    ``login_throttled``."""
    key = str(user_id)
    wait = throttle.second_step.blocked_for(key)
    if wait:
        raise _paused("login_throttled", wait)
    with platform_work(user_id=user_id) as uow:
        s = uow.session
        user = s.scalar(select(User).where(User.id == user_id))
        if user is None or not user.active or user.session_version != session_version:
            raise DomainError("sign_in_expired")
        credential = s.scalar(
            select(Credential).where(Credential.user_id == user_id).with_for_update()
        )
        if (
            credential is not None
            and credential.totp_secret is not None
            and spend_second_factor(credential, code)
        ):
            throttle.second_step.reset(key)
            return _signed_in(user, credential, needs_second_factor=False)
    throttle.second_step.record_failure(key)
    raise DomainError("invalid_code", field="code")
