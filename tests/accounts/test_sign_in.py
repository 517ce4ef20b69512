"""Signing in: the password, the second factor, and a throttle that slows an attacker
without letting a stranger lock the owner out."""

from __future__ import annotations

import time

import pytest

from portal.accounts.queries import find_user
from portal.accounts.services import set_account_active, two_factor
from portal.accounts.services.sign_in import (
    LoginThrottle,
    SignInAttempt,
    authenticate,
    complete_second_factor,
)
from portal.core.clock import clock
from portal.core.queue import redis_holder
from portal.core.ratelimit import FailureWindow
from portal.core.uow import platform_work
from portal.domain.credentials import time_step, totp_code
from portal.domain.errors import DomainError
from portal.web.messages import message_for
from tests.factories import PASSWORD

ADDRESS = "198.51.100.7"
STRANGER = "203.0.113.66"


def _throttle(*, per_account: int = 5, per_address: int = 20, seconds: int = 900) -> LoginThrottle:
    redis = redis_holder.get()

    def window(name: str, limit: int) -> FailureWindow:
        return FailureWindow(redis, f"test-login-fail:{name}", limit, seconds)

    return LoginThrottle(
        by_account=window("account", per_account),
        by_address=window("address", per_address),
        by_device=window("device", per_account),
        second_step=window("code", per_account),
    )


def _sign_in(email: str, password: str, throttle: LoginThrottle, **attempt):
    return authenticate(
        SignInAttempt(email, password, attempt.pop("address", ADDRESS), **attempt),
        throttle=throttle,
    )


def _refusal(email: str, password: str, throttle: LoginThrottle, **attempt) -> DomainError:
    with pytest.raises(DomainError) as caught:
        _sign_in(email, password, throttle, **attempt)
    return caught.value


def _turn_on_two_factor(user_id: int) -> str:
    """Two-factor sign-in as its owner turns it on; returns the secret the app holds."""
    from sqlalchemy import select

    from portal.accounts.models import Credential

    two_factor.start_two_factor(user_id, password=PASSWORD)
    with platform_work(user_id=user_id) as uow:
        secret = uow.session.scalar(
            select(Credential.totp_pending_secret).where(Credential.user_id == user_id)
        )
    assert secret is not None
    two_factor.confirm_two_factor(user_id, totp_code(secret, time_step(clock.now())))
    return secret


def _version(email: str) -> int:
    user = find_user(email)
    assert user is not None
    return user.session_version


def _code(secret: str, steps_ahead: int = 0) -> str:
    return totp_code(secret, time_step(clock.now()) + steps_ahead)


# --- the password ---------------------------------------------------------------------------


def test_the_right_password_signs_the_user_in(acme):
    user = _sign_in(acme.admin.email, PASSWORD, _throttle())
    assert user.id == acme.admin.user_id and not user.needs_second_factor


def test_sign_in_ignores_the_case_and_spaces_around_the_email(acme):
    user = _sign_in(f"  {acme.admin.email.upper()} ", PASSWORD, _throttle())
    assert user.id == acme.admin.user_id


def test_a_wrong_password_is_refused_without_saying_whether_the_email_exists(acme):
    throttle = _throttle()
    assert _sign_in(acme.admin.email, PASSWORD, throttle)

    wrong_password = _refusal(acme.admin.email, "not the password", throttle)
    unknown_email = _refusal("nobody@example.test", PASSWORD, throttle)
    assert wrong_password.code == unknown_email.code == "invalid_credentials"
    assert wrong_password.params == unknown_email.params == {}
    assert wrong_password.field is unknown_email.field is None


def test_an_inactive_account_cannot_sign_in_even_with_the_right_password(acme):
    throttle = _throttle()
    assert _sign_in(acme.admin.email, PASSWORD, throttle)

    set_account_active(acme.admin.email, False)
    assert _refusal(acme.admin.email, PASSWORD, throttle).code == "invalid_credentials"


# --- the throttle ---------------------------------------------------------------------------


def test_five_failures_protect_the_account_from_strangers(app, acme):
    throttle = _throttle()
    for _ in range(4):
        assert _refusal(acme.admin.email, "wrong", throttle).code == "invalid_credentials"
    # Four failures: the right password still works, and clears the count.
    assert _sign_in(acme.admin.email, PASSWORD, throttle)

    for _ in range(5):
        assert _refusal(acme.admin.email, "wrong", throttle).code == "invalid_credentials"
    protected = _refusal(acme.admin.email, PASSWORD, throttle)
    assert protected.code == "login_protected"
    assert protected.params["num"] == 15 and 899 <= protected.params["seconds"] <= 900
    with app.test_request_context():
        assert "or try again in 15 minutes." in message_for(protected)
    # An address nobody has an account for is protected alike: nothing is given away.
    for _ in range(5):
        _refusal("nobody@example.test", "wrong", throttle, address=STRANGER)
    assert _refusal("nobody@example.test", PASSWORD, throttle).code == "login_protected"


def test_a_stranger_cannot_lock_the_owner_out_of_a_device_they_signed_in_with(acme):
    throttle = _throttle()
    # The owner's laptop has signed in before: it carries its id and the password's stamp.
    stamp = _sign_in(acme.admin.email, PASSWORD, throttle).password_stamp
    laptop = {"device": "laptop-1", "device_stamp": stamp}

    for _ in range(10):  # anyone, from anywhere
        _refusal(acme.admin.email, "guess", throttle, address=STRANGER)
    assert _refusal(acme.admin.email, PASSWORD, throttle).code == "login_protected"

    owner = _sign_in(acme.admin.email, PASSWORD, throttle, **laptop)
    assert owner.id == acme.admin.user_id
    # A device id with another stamp (from before a password change) is a stranger's.
    stale = {"device": "laptop-1", "device_stamp": stamp - 1}
    assert _refusal(acme.admin.email, PASSWORD, throttle, **stale).code == "login_protected"
    # The owner's own typos on that device are counted on their own.
    for _ in range(5):
        _refusal(acme.admin.email, "typo", throttle, **laptop)
    assert _refusal(acme.admin.email, PASSWORD, throttle, **laptop).code == "login_throttled"


def test_a_protected_account_still_opens_with_a_second_factor_given_with_the_password(acme):
    secret = _turn_on_two_factor(acme.admin.user_id)
    throttle = _throttle()
    for _ in range(6):
        _refusal(acme.admin.email, "guess", throttle, address=STRANGER)
    assert _refusal(acme.admin.email, PASSWORD, throttle).code == "login_protected"

    # A wrong code with the right password is just a failure: nothing says which was wrong.
    wrong = _refusal(acme.admin.email, PASSWORD, throttle, code="000000")
    assert wrong.code == "invalid_credentials"
    owner = _sign_in(acme.admin.email, PASSWORD, throttle, code=_code(secret, 1))
    assert owner.id == acme.admin.user_id and not owner.needs_second_factor
    # A guessed password with the owner's code does nothing for the stranger.
    assert _refusal(acme.admin.email, "guess", throttle, code=_code(secret, 1)).code == (
        "invalid_credentials"
    )


def test_codes_given_with_the_password_count_against_the_account_from_any_address(acme):
    secret = _turn_on_two_factor(acme.admin.user_id)
    throttle = _throttle(per_address=1000)
    for _ in range(6):
        _refusal(acme.admin.email, "guess", throttle, address=STRANGER)
    # Someone who knows the password guesses codes, each from another address.
    for n in range(5):
        wrong = _refusal(acme.admin.email, PASSWORD, throttle, code="000000", address=f"10.0.0.{n}")
        assert wrong.code == "invalid_credentials"
    # Past the account's limit even the right code is refused, from a fresh address too.
    late = _refusal(acme.admin.email, PASSWORD, throttle, code=_code(secret, 1), address="10.9.9.9")
    assert late.code == "invalid_credentials"


def test_an_account_throttle_names_at_least_one_minute_and_rounds_up(app, acme):
    throttle = _throttle(seconds=61)
    for _ in range(5):
        _refusal(acme.admin.email, "wrong", throttle)
    protected = _refusal(acme.admin.email, PASSWORD, throttle)
    assert protected.params["num"] == 2
    with app.test_request_context():
        assert "try again in 2 minutes." in message_for(protected)


def test_the_account_throttle_does_not_block_other_accounts(acme, make_member):
    bob = make_member(acme.org, "Bob Builder")
    throttle = _throttle()
    for _ in range(5):
        _refusal(acme.admin.email, "wrong", throttle)
    assert _refusal(acme.admin.email, PASSWORD, throttle).code == "login_protected"
    assert _sign_in(bob.email, PASSWORD, throttle)


def test_an_account_pause_ends_with_its_window_so_there_is_no_permanent_lock_out(acme):
    throttle = _throttle(seconds=1)
    for _ in range(5):
        _refusal(acme.admin.email, "wrong", throttle)
    assert _refusal(acme.admin.email, PASSWORD, throttle).code == "login_protected"
    # Attempts during the pause are not counted and do not push its end further out.
    for _ in range(3):
        assert _refusal(acme.admin.email, "wrong", throttle).code == "login_protected"
    failures = redis_holder.get().get(f"test-login-fail:account:{acme.admin.email}")
    assert failures is not None and int(failures) == 5
    assert throttle.by_account.blocked_for(acme.admin.email) <= 1

    deadline = time.monotonic() + 3
    while throttle.by_account.blocked_for(acme.admin.email) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sign_in(acme.admin.email, PASSWORD, throttle).id == acme.admin.user_id


def test_twenty_failures_from_one_address_throttle_every_account_from_it(acme):
    throttle = _throttle()
    assert _sign_in(acme.admin.email, PASSWORD, throttle)

    # Spread over many emails, so no single account reaches its own limit.
    for n in range(20):
        _refusal(f"guess.{n}@example.test", "wrong", throttle)
    throttled = _refusal(acme.admin.email, PASSWORD, throttle)
    assert throttled.code == "login_throttled"
    assert throttled.params["num"] == 15
    # Another address is not affected.
    assert _sign_in(acme.admin.email, PASSWORD, throttle, address=STRANGER).id == (
        acme.admin.user_id
    )


def test_nineteen_failures_from_one_address_do_not_throttle_it(acme):
    throttle = _throttle()
    for n in range(19):
        _refusal(f"guess.{n}@example.test", "wrong", throttle)
    assert _sign_in(acme.admin.email, PASSWORD, throttle)


# --- the second factor ----------------------------------------------------------------------


def test_with_two_factor_on_the_password_alone_does_not_start_a_session(acme):
    throttle = _throttle()
    assert not _sign_in(acme.admin.email, PASSWORD, throttle).needs_second_factor
    secret = _turn_on_two_factor(acme.admin.user_id)

    halfway = _sign_in(acme.admin.email, PASSWORD, throttle)
    assert halfway.needs_second_factor

    version = _version(acme.admin.email)
    done = complete_second_factor(
        acme.admin.user_id, _code(secret, 1), session_version=version, throttle=throttle
    )
    assert done.id == acme.admin.user_id and not done.needs_second_factor
    # The same code is good once.
    with pytest.raises(DomainError, match="invalid_code"):
        complete_second_factor(
            acme.admin.user_id, _code(secret, 1), session_version=version, throttle=throttle
        )


def test_a_second_step_after_signing_out_everywhere_spends_nothing(acme):
    from portal.accounts.services import end_sessions

    secret = _turn_on_two_factor(acme.admin.user_id)
    throttle = _throttle()
    before = _version(acme.admin.email)
    end_sessions(acme.admin.user_id)  # the owner signs out everywhere meanwhile

    with pytest.raises(DomainError, match="sign_in_expired"):
        complete_second_factor(
            acme.admin.user_id, _code(secret, 1), session_version=before, throttle=throttle
        )
    # The code was not spent: the current sign-in still takes it.
    assert complete_second_factor(
        acme.admin.user_id,
        _code(secret, 1),
        session_version=_version(acme.admin.email),
        throttle=throttle,
    )


def test_a_recovery_code_works_once_in_place_of_the_app(acme):
    from sqlalchemy import select

    from portal.accounts.models import Credential

    two_factor.start_two_factor(acme.admin.user_id, password=PASSWORD)
    with platform_work(user_id=acme.admin.user_id) as uow:
        secret = uow.session.scalar(
            select(Credential.totp_pending_secret).where(Credential.user_id == acme.admin.user_id)
        )
    codes = two_factor.confirm_two_factor(acme.admin.user_id, _code(secret or "")).codes
    throttle = _throttle()
    version = _version(acme.admin.email)

    assert complete_second_factor(
        acme.admin.user_id, codes.shown[3].upper(), session_version=version, throttle=throttle
    )
    with pytest.raises(DomainError, match="invalid_code"):
        complete_second_factor(
            acme.admin.user_id, codes.shown[3], session_version=version, throttle=throttle
        )
    assert two_factor.two_factor_status(acme.admin.user_id).recovery_codes_left == 9


def test_wrong_codes_at_the_second_step_are_throttled(acme):
    secret = _turn_on_two_factor(acme.admin.user_id)
    throttle = _throttle()
    version = _version(acme.admin.email)
    for _ in range(5):
        with pytest.raises(DomainError, match="invalid_code"):
            complete_second_factor(
                acme.admin.user_id, "123456", session_version=version, throttle=throttle
            )
    with pytest.raises(DomainError) as paused:
        complete_second_factor(
            acme.admin.user_id, _code(secret, 1), session_version=version, throttle=throttle
        )
    assert paused.value.code == "login_throttled"
