"""Accounts services: sign-in and its throttle, sessions, locale, members administration."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import update

from portal.accounts import queries as account_queries
from portal.accounts import services
from portal.accounts.models import User
from portal.accounts.services import LoginThrottle
from portal.core.queue import redis_holder
from portal.core.ratelimit import FailureWindow
from portal.core.uow import platform_work
from portal.domain.actor import Role
from portal.domain.errors import DomainError, Forbidden, NotFound
from portal.web.messages import message_for
from tests.factories import PASSWORD, locale_of, system_actor

ADDRESS = "198.51.100.7"


def _throttle(*, per_account: int = 5, per_address: int = 20, seconds: int = 900) -> LoginThrottle:
    redis = redis_holder.get()
    return LoginThrottle(
        by_account=FailureWindow(redis, "test-login-fail:account", per_account, seconds),
        by_address=FailureWindow(redis, "test-login-fail:address", per_address, seconds),
    )


def _refusal(email: str, password: str, throttle: LoginThrottle, address: str = ADDRESS):
    with pytest.raises(DomainError) as caught:
        services.authenticate(email, password, address=address, throttle=throttle)
    return caught.value


def _minutes_named_in(error: DomainError) -> int:
    """The wait a throttle refusal names (its one parameter, whatever it is called)."""
    assert error.code == "login_throttled"
    (minutes,) = error.params.values()
    return minutes


def _set_user_active(user_id: int, active: bool) -> None:
    with platform_work(user_id=user_id) as uow:
        uow.session.execute(update(User).where(User.id == user_id).values(active=active))


# --- authenticate -----------------------------------------------------------------------


def test_the_right_password_signs_the_user_in(acme):
    user = services.authenticate(acme.admin.email, PASSWORD, address=ADDRESS, throttle=_throttle())
    assert user.id == acme.admin.user_id


def test_sign_in_ignores_the_case_and_spaces_around_the_email(acme):
    user = services.authenticate(
        f"  {acme.admin.email.upper()} ", PASSWORD, address=ADDRESS, throttle=_throttle()
    )
    assert user.id == acme.admin.user_id


def test_a_wrong_password_is_refused_without_saying_whether_the_email_exists(acme):
    throttle = _throttle()
    assert services.authenticate(acme.admin.email, PASSWORD, address=ADDRESS, throttle=throttle)

    wrong_password = _refusal(acme.admin.email, "not the password", throttle)
    unknown_email = _refusal("nobody@example.test", PASSWORD, throttle)
    assert wrong_password.code == unknown_email.code == "invalid_credentials"
    assert wrong_password.params == unknown_email.params == {}
    assert wrong_password.field is unknown_email.field is None


def test_an_inactive_account_cannot_sign_in_even_with_the_right_password(acme):
    throttle = _throttle()
    assert services.authenticate(acme.admin.email, PASSWORD, address=ADDRESS, throttle=throttle)

    _set_user_active(acme.admin.user_id, False)
    assert _refusal(acme.admin.email, PASSWORD, throttle).code == "invalid_credentials"


def test_five_failures_throttle_the_account_even_for_the_right_password(app, acme):
    throttle = _throttle()
    for _ in range(4):
        assert _refusal(acme.admin.email, "wrong", throttle).code == "invalid_credentials"
    # Four failures: the right password still works, and clears the count.
    assert services.authenticate(acme.admin.email, PASSWORD, address=ADDRESS, throttle=throttle)

    for _ in range(5):
        assert _refusal(acme.admin.email, "wrong", throttle).code == "invalid_credentials"
    throttled = _refusal(acme.admin.email, PASSWORD, throttle)
    assert throttled.code == "login_throttled"
    assert _minutes_named_in(throttled) == 15
    with app.test_request_context():
        assert "Try again in 15 minutes." in message_for(throttled)


def test_an_account_throttle_names_at_least_one_minute_and_rounds_up(app, acme):
    throttle = _throttle(seconds=61)
    for _ in range(5):
        _refusal(acme.admin.email, "wrong", throttle)
    throttled = _refusal(acme.admin.email, PASSWORD, throttle)
    assert _minutes_named_in(throttled) == 2
    with app.test_request_context():
        assert "Try again in 2 minutes." in message_for(throttled)


def test_the_account_throttle_does_not_block_other_accounts(acme, make_member):
    bob = make_member(acme.org, "Bob Builder")
    throttle = _throttle()
    for _ in range(5):
        _refusal(acme.admin.email, "wrong", throttle)
    assert _refusal(acme.admin.email, PASSWORD, throttle).code == "login_throttled"
    assert services.authenticate(bob.email, PASSWORD, address=ADDRESS, throttle=throttle)


def test_an_account_throttle_ends_with_its_window_so_there_is_no_permanent_lock_out(acme):
    throttle = _throttle(seconds=1)
    for _ in range(5):
        _refusal(acme.admin.email, "wrong", throttle)
    assert _refusal(acme.admin.email, PASSWORD, throttle).code == "login_throttled"
    # Attempts during the block are not counted and do not push its end further out.
    for _ in range(3):
        assert _refusal(acme.admin.email, "wrong", throttle).code == "login_throttled"
    failures = redis_holder.get().get(f"test-login-fail:account:{acme.admin.email}")
    assert failures is not None and int(failures) == 5
    assert throttle.by_account.blocked_for(acme.admin.email) <= 1

    deadline = time.monotonic() + 3
    while throttle.by_account.blocked_for(acme.admin.email) and time.monotonic() < deadline:
        time.sleep(0.05)
    user = services.authenticate(acme.admin.email, PASSWORD, address=ADDRESS, throttle=throttle)
    assert user.id == acme.admin.user_id


def test_twenty_failures_from_one_address_throttle_every_account_from_it(acme):
    throttle = _throttle()
    assert services.authenticate(acme.admin.email, PASSWORD, address=ADDRESS, throttle=throttle)

    # Spread over many emails, so no single account reaches its own limit.
    for n in range(20):
        _refusal(f"guess.{n}@example.test", "wrong", throttle)
    throttled = _refusal(acme.admin.email, PASSWORD, throttle)
    assert throttled.code == "login_throttled"
    assert _minutes_named_in(throttled) == 15
    # Another address is not affected.
    other = services.authenticate(
        acme.admin.email, PASSWORD, address="203.0.113.9", throttle=throttle
    )
    assert other.id == acme.admin.user_id


def test_nineteen_failures_from_one_address_do_not_throttle_it(acme):
    throttle = _throttle()
    for n in range(19):
        _refusal(f"guess.{n}@example.test", "wrong", throttle)
    assert services.authenticate(acme.admin.email, PASSWORD, address=ADDRESS, throttle=throttle)


# --- sessions ---------------------------------------------------------------------------


def test_a_session_user_comes_with_every_active_membership_and_its_organization(
    acme, globex, make_member
):
    # Alice is in acme; make her a member of globex too, then leave it.
    in_globex = make_member(globex.org, acme.admin.name, email=acme.admin.email)
    user = account_queries.find_user(acme.admin.email)
    assert user is not None

    loaded = account_queries.load_session_user(user.id, user.session_version)

    assert loaded is not None and loaded.name == "Alice Admin"
    assert [(m.slug, m.name) for m in loaded.memberships] == [
        ("acme-test", "Acme Test"),
        ("globex-test", "Globex Test"),
    ]
    actor = account_queries.actor_in(loaded.memberships, "globex-test", user.id, None)
    assert actor is not None and actor.org_id == globex.org.id
    # Nobody gets an actor for an organization they are not in, or one that is not there.
    assert account_queries.actor_in(loaded.memberships, "initech-test", user.id, None) is None

    services.deactivate_member(globex.admin.actor, in_globex.actor.member_id)
    reloaded = account_queries.load_session_user(user.id, user.session_version)
    assert reloaded is not None
    assert [m.slug for m in reloaded.memberships] == ["acme-test"]
    assert account_queries.actor_in(reloaded.memberships, "globex-test", user.id, None) is None


def test_ending_sessions_invalidates_every_earlier_session_of_the_user(acme):
    user = account_queries.find_user(acme.admin.email)
    assert user is not None
    assert account_queries.load_session_user(user.id, user.session_version) is not None

    services.end_sessions(user.id)
    assert account_queries.load_session_user(user.id, user.session_version) is None
    renewed = account_queries.load_session_user(user.id, user.session_version + 1)
    assert renewed is not None
    assert renewed.id == user.id


def test_a_deactivated_account_has_no_valid_session(acme):
    user = account_queries.find_user(acme.admin.email)
    assert user is not None
    assert account_queries.load_session_user(user.id, user.session_version) is not None

    _set_user_active(user.id, False)
    assert account_queries.load_session_user(user.id, user.session_version) is None


# --- locale -----------------------------------------------------------------------------


def test_a_user_can_save_a_supported_locale_but_not_another(acme):
    services.set_user_locale(acme.admin.user_id, "zh")
    assert locale_of(acme.admin.email) == "zh"

    with pytest.raises(DomainError) as caught:
        services.set_user_locale(acme.admin.user_id, "xx")
    assert caught.value.code == "unsupported_locale"
    assert locale_of(acme.admin.email) == "zh"


def test_the_actor_speaks_the_users_locale_else_the_organizations(make_org, make_member):
    org = make_org("kl-test", "KL Test", default_locale="ms")
    follows_org = make_member(org, "Mei Ling")
    chose_zh = make_member(org, "Zhang Wei", locale="zh")
    assert follows_org.actor.locale == "ms"
    assert chose_zh.actor.locale == "zh"


# --- organizations and the switcher -----------------------------------------------------


def test_a_user_sees_only_the_organizations_where_they_are_an_active_member(acme, globex):
    person = acme.admin
    services.create_member(system_actor(globex.org), email=person.email, name=person.name)
    slugs = [o.slug for o in account_queries.list_my_organizations(person.user_id)]
    assert slugs == ["acme-test", "globex-test"]

    in_globex = account_queries.actor_for("globex-test", person.user_id, None)
    assert in_globex is not None
    member_id = in_globex.member_id
    services.deactivate_member(globex.admin.actor, member_id)
    assert [o.slug for o in account_queries.list_my_organizations(person.user_id)] == ["acme-test"]


def test_an_actor_exists_only_for_an_active_membership_of_an_existing_org(acme, globex):
    assert account_queries.actor_for("acme-test", acme.admin.user_id, None) is not None
    assert account_queries.actor_for("globex-test", acme.admin.user_id, None) is None
    assert account_queries.actor_for("does-not-exist", acme.admin.user_id, None) is None


# --- members ----------------------------------------------------------------------------


def test_a_new_member_gets_a_temporary_password_that_signs_them_in(acme, globex):
    created = services.create_member(
        acme.admin.actor, email="New.Person@Example.test", name="  New   Person ", roles=["auditor"]
    )
    assert created.temporary_password
    assert created.member.email == "new.person@example.test"
    assert created.member.name == "New Person"
    assert created.member.roles == ("auditor",)
    user = services.authenticate(
        "new.person@example.test",
        created.temporary_password,
        address=ADDRESS,
        throttle=_throttle(),
    )
    assert user.id == created.member.user_id
    assert [m.email for m in account_queries.list_members(globex.admin.actor)] == [
        globex.admin.email
    ]


def test_the_same_email_cannot_join_one_organization_twice(acme):
    first = services.create_member(acme.admin.actor, email="twice@example.test", name="Twice")
    assert first.temporary_password

    with pytest.raises(DomainError) as caught:
        services.create_member(acme.admin.actor, email="TWICE@example.test", name="Again")
    assert caught.value.code == "duplicate_email"
    assert caught.value.field == "email"
    emails = [m.email for m in account_queries.list_members(acme.admin.actor)]
    assert emails.count("twice@example.test") == 1


def test_an_existing_account_joins_another_organization_with_its_own_password(acme, globex):
    created = services.create_member(
        acme.admin.actor, email=globex.admin.email, name="Someone Else"
    )
    assert created.temporary_password is None
    assert created.member.name == globex.admin.name  # the account keeps its own name
    user = services.authenticate(
        globex.admin.email, PASSWORD, address=ADDRESS, throttle=_throttle()
    )
    assert user.id == globex.admin.user_id
    assert [o.slug for o in account_queries.list_my_organizations(user.id)] == [
        "acme-test",
        "globex-test",
    ]


def test_only_an_admin_can_add_members(acme, make_member):
    bob = make_member(acme.org, "Bob Builder")
    assert services.create_member(acme.admin.actor, email="one@example.test", name="One")

    with pytest.raises(Forbidden) as caught:
        services.create_member(bob.actor, email="two@example.test", name="Two")
    assert caught.value.code == "admin_required"
    assert account_queries.find_user("two@example.test") is None


def test_an_admin_can_deactivate_and_reactivate_a_member(acme, make_member):
    bob = make_member(acme.org, "Bob Builder")
    assert services.deactivate_member(acme.admin.actor, bob.member_id).active is False
    assert account_queries.actor_for("acme-test", bob.user_id, None) is None
    assert services.reactivate_member(acme.admin.actor, bob.member_id).active is True
    assert account_queries.actor_for("acme-test", bob.user_id, None) is not None


def test_an_admin_cannot_deactivate_their_own_membership(acme, make_member):
    other_admin = make_member(acme.org, "Olga Other", roles=(Role.ADMIN,))
    assert services.deactivate_member(acme.admin.actor, other_admin.member_id).active is False

    with pytest.raises(DomainError) as caught:
        services.deactivate_member(acme.admin.actor, acme.admin.member_id)
    assert caught.value.code == "cannot_deactivate_self"
    assert account_queries.get_member(acme.admin.actor, acme.admin.member_id).active is True


def test_the_last_admin_cannot_lose_the_admin_role(acme, make_member):
    other_admin = make_member(acme.org, "Olga Other", roles=(Role.ADMIN,))
    demoted = services.set_member_roles(acme.admin.actor, other_admin.member_id, [])
    assert demoted.roles == ()

    with pytest.raises(DomainError) as caught:
        services.set_member_roles(acme.admin.actor, acme.admin.member_id, ["auditor"])
    assert caught.value.code == "last_admin"
    assert account_queries.get_member(acme.admin.actor, acme.admin.member_id).roles == ("admin",)


def test_the_last_active_admin_cannot_be_deactivated_by_the_platform(acme, make_member):
    bob = make_member(acme.org, "Bob Builder")
    platform = system_actor(acme.org)
    assert services.deactivate_member(platform, bob.member_id).active is False

    with pytest.raises(DomainError) as caught:
        services.deactivate_member(platform, acme.admin.member_id)
    assert caught.value.code == "last_admin"
    assert account_queries.get_member(acme.admin.actor, acme.admin.member_id).active is True


def test_an_unknown_role_is_refused(acme, make_member):
    bob = make_member(acme.org, "Bob Builder")
    assert services.set_member_roles(acme.admin.actor, bob.member_id, ["auditor"]).roles == (
        "auditor",
    )

    with pytest.raises(DomainError) as caught:
        services.set_member_roles(acme.admin.actor, bob.member_id, ["owner"])
    assert caught.value.code == "unknown_role"


def test_an_admin_cannot_touch_a_member_of_another_organization(acme, globex, make_member):
    bob = make_member(acme.org, "Bob Builder")
    assert account_queries.get_member(acme.admin.actor, bob.member_id).email == bob.email

    foreign = globex.admin.member_id
    for attempt in (
        lambda: account_queries.get_member(acme.admin.actor, foreign),
        lambda: services.deactivate_member(acme.admin.actor, foreign),
        lambda: services.reactivate_member(acme.admin.actor, foreign),
        lambda: services.set_member_roles(acme.admin.actor, foreign, []),
    ):
        with pytest.raises(NotFound):
            attempt()
    untouched = account_queries.get_member(globex.admin.actor, foreign)
    assert untouched.active is True
    assert untouched.roles == ("admin",)
