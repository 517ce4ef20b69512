"""Accounts services: sessions, locale, organizations, and what an admin may change about
a membership (people join by invitation: tests/accounts/test_invitations.py)."""

from __future__ import annotations

import pytest

from portal.accounts import queries as account_queries
from portal.accounts import services
from portal.domain.actor import Role
from portal.domain.errors import DomainError, NotFound
from tests.factories import locale_of, system_actor

ADDRESS = "198.51.100.7"


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

    services.set_account_active(acme.admin.email, False)
    assert account_queries.load_session_user(user.id, user.session_version) is None
    # Disabling ends the sessions too: enabling again does not bring the old one back.
    services.set_account_active(acme.admin.email, True)
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
    services.enrol_member(system_actor(globex.org), email=person.email)
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


# --- leaving, and organizations that close --------------------------------------------------


def test_a_member_leaves_and_only_a_new_invitation_brings_them_back(acme, globex, make_member):
    bob = make_member(acme.org, "Bob Builder")
    assert account_queries.actor_for("acme-test", bob.user_id, None) is not None

    services.leave_organization(bob.actor)

    assert account_queries.actor_for("acme-test", bob.user_id, None) is None
    row = account_queries.get_member(acme.admin.actor, bob.member_id)
    assert (row.active, row.left) == (False, True)
    with pytest.raises(DomainError) as refused:
        services.reactivate_member(acme.admin.actor, bob.member_id)
    assert refused.value.code == "member_left"
    assert account_queries.get_member(acme.admin.actor, bob.member_id).active is False


def test_the_only_admin_cannot_leave(acme, make_member):
    olga = make_member(acme.org, "Olga Other", roles=(Role.ADMIN,))
    services.leave_organization(olga.actor)  # another admin remains: fine

    with pytest.raises(DomainError) as refused:
        services.leave_organization(acme.admin.actor)
    assert refused.value.code == "last_admin_leaving"
    assert account_queries.actor_for("acme-test", acme.admin.user_id, None) is not None


def test_an_archived_organization_is_closed_to_its_members_and_keeps_everything(acme, globex):
    member_ids = [m.id for m in account_queries.list_members(acme.admin.actor)]
    assert account_queries.actor_for("acme-test", acme.admin.user_id, None) is not None

    services.archive_organization("acme-test")

    assert account_queries.actor_for("acme-test", acme.admin.user_id, None) is None
    assert account_queries.list_my_organizations(acme.admin.user_id) == []
    assert account_queries.actor_for("globex-test", globex.admin.user_id, None) is not None
    # Nothing of it is gone, and the platform can open it again.
    assert [m.id for m in account_queries.list_members(acme.admin.actor)] == member_ids
    services.restore_organization("acme-test")
    assert account_queries.actor_for("acme-test", acme.admin.user_id, None) is not None


def test_the_platform_alone_creates_organizations_and_never_inside_a_web_request(app, acme):
    from portal.core.db import db
    from portal.core.uow import OperatorInWebRequest

    with db.connection_scope(), pytest.raises(OperatorInWebRequest):
        services.create_organization("from-a-request", "From a request")
    assert account_queries.find_organization("from-a-request") is None
    assert services.create_organization("from-the-cli", "From the CLI").slug == "from-the-cli"
