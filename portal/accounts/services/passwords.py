"""A person's password: changed with the current one, or reset through a link sent to
their address. Either way every session of the account ends, and the owner is told by
mail, so a change they did not make does not go unnoticed.

"Forgot password" answers the same for a known and an unknown address, and is throttled
per address and per client: asking again and again neither floods a mailbox nor tells
a stranger anything.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from portal.accounts.models import AccountToken, Credential, User
from portal.accounts.services.credentials import account_mail_in, credential_for_update_in
from portal.accounts.services.people import bump_session_version_in
from portal.core.clock import clock
from portal.core.links import link_signer
from portal.core.queue import enqueue
from portal.core.ratelimit import FailureWindow
from portal.core.scope import rescope
from portal.core.security import hash_password, verify_password
from portal.core.uow import UnitOfWork, platform_work
from portal.domain.credentials import check_new_password
from portal.domain.errors import DomainError
from portal.domain.invitations import PASSWORD_RESET_VALID
from portal.domain.naming import lookup_email

LINK_PURPOSE = "password_reset"


@dataclass(frozen=True)
class ResetThrottle:
    by_email: FailureWindow  # mails asked for one address
    by_address: FailureWindow  # requests from one client


def _set_password_in(uow: UnitOfWork, credential: Credential, password: str) -> int:
    credential.password_hash = hash_password(password)
    credential.password_changed_at = clock.now()
    version = bump_session_version_in(uow.session, credential.user_id)
    account_mail_in(uow, "mail.password_changed", credential.user_id)
    return version


def change_password(user_id: int, *, current: str, new: str) -> int:
    """Set a new password given the current one; returns the new session version (the
    caller's own session carries on, every other one has ended)."""
    with platform_work(user_id=user_id) as uow:
        s = uow.session
        email = s.scalar(select(User.email).where(User.id == user_id))
        credential = credential_for_update_in(s, user_id)
        if email is None or not verify_password(credential.password_hash, current):
            raise DomainError("wrong_password", field="current_password")
        check_new_password(new, email=email, field="new_password")
        return _set_password_in(uow, credential, new)


def request_password_reset(email: str, *, address: str, throttle: ResetThrottle) -> None:
    """Queue a reset link for ``email``; the caller answers the same whether it has an
    account or not, and at once: the look-up happens on a worker
    (``issue_password_reset``), so not even the time taken tells. A client asking too
    often is told to wait (that says nothing about any account); an address asked for
    too often silently gets no more mail for a while."""
    email = lookup_email(email)
    wait = throttle.by_address.blocked_for(address)
    if wait:
        raise DomainError("reset_throttled", num=max(1, -(-wait // 60)), seconds=wait)
    throttle.by_address.record_failure(address)
    if throttle.by_email.blocked_for(email):
        return
    throttle.by_email.record_failure(email)
    enqueue("portal.accounts.jobs.send_password_reset", email)


def issue_password_reset(email: str) -> None:
    """A reset link for the account ``email`` names, if there is one (a worker's job)."""
    email = lookup_email(email)
    with platform_work(email=email) as uow:
        s = uow.session
        user = s.scalar(select(User).where(User.email == email, User.active.is_(True)))
        if user is None:
            return
        rescope(s, user_id=user.id)
        now = clock.now()
        # One link at a time: an older one dies when a new one is asked for.
        s.execute(
            update(AccountToken)
            .where(
                AccountToken.user_id == user.id,
                AccountToken.purpose == LINK_PURPOSE,
                AccountToken.used_at.is_(None),
            )
            .values(used_at=now)
        )
        token = AccountToken(
            user_id=user.id,
            purpose=LINK_PURPOSE,
            selector=secrets.token_urlsafe(24),
            expires_at=now + PASSWORD_RESET_VALID,
            created_at=now,
        )
        s.add(token)
        s.flush()
        account_mail_in(uow, "mail.password_reset", user.id, selector=token.selector)


def reset_link(user_id: int, selector: str) -> str:
    return link_signer.sign_selector(LINK_PURPOSE, user_id, selector)


def _read_link(token: str) -> tuple[int, str]:
    found = link_signer.read_selector(LINK_PURPOSE, token)
    if found is None:
        raise DomainError("reset_link_invalid")
    return found


def _usable_token(session: Session, user_id: int, selector: str) -> AccountToken:
    token = session.scalar(
        select(AccountToken)
        .where(
            AccountToken.user_id == user_id,
            AccountToken.selector == selector,
            AccountToken.purpose == LINK_PURPOSE,
        )
        .with_for_update()
    )
    if token is None or token.used_at is not None or clock.now() >= token.expires_at:
        raise DomainError("reset_link_invalid")
    return token


def check_reset_link(token: str) -> str:
    """The address a reset link is for, if it can still be used."""
    user_id, selector = _read_link(token)
    with platform_work(user_id=user_id) as uow:
        _usable_token(uow.session, user_id, selector)
        email = uow.session.scalar(select(User.email).where(User.id == user_id))
        return email or ""


def reset_password(token: str, new: str) -> None:
    """Set the password through a reset link, once; every session of the account ends."""
    user_id, selector = _read_link(token)
    with platform_work(user_id=user_id) as uow:
        s = uow.session
        link = _usable_token(s, user_id, selector)
        email = s.scalar(select(User.email).where(User.id == user_id))
        check_new_password(new, email=email or "", field="new_password")
        link.used_at = clock.now()
        _set_password_in(uow, credential_for_update_in(s, user_id), new)
