"""An organization's settings (admins): name, default language, time zone and the
country its formats follow; and a member's own time zone there. Bad zones, countries,
NUL and huge values are refused with a message and change nothing; another
organization's settings are never touched."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.core.clock import clock
from portal.domain.errors import DomainError, Forbidden
from tests.factories import actor_of, sign_in

SETTINGS = "/o/acme-test/settings/"
MINE = "/o/acme-test/settings/mine"


def _org(slug: str):
    org = account_queries.find_organization(slug)
    assert org is not None
    return org


def _form(**changes: str) -> dict[str, str]:
    return {
        "name": "Acme Test",
        "default_locale": "en",
        "time_zone": "Asia/Kuala_Lumpur",
        "territory": "MY",
        **changes,
    }


def test_an_admin_sets_the_zone_and_country_and_members_read_them(app, acme, globex, make_member):
    mo = make_member(acme.org, "Mo Member")
    browser, token = sign_in(app, acme.admin)
    page = browser.get(SETTINGS)
    assert page.status_code == 200
    assert '<option value="Asia/Kuala_Lumpur">Asia/Kuala Lumpur</option>' in page.get_data(
        as_text=True
    )

    saved = browser.post(SETTINGS, data={**_form(name="Acme Malaysia"), "csrf_token": token})

    assert saved.status_code == 303
    org = _org("acme-test")
    assert (org.name, org.time_zone, org.territory) == ("Acme Malaysia", "Asia/Kuala_Lumpur", "MY")
    mo_actor = actor_of("acme-test", mo.email)
    assert (mo_actor.time_zone, mo_actor.territory, mo_actor.display_time_zone) == (
        "Asia/Kuala_Lumpur",
        "MY",
        "Asia/Kuala_Lumpur",
    )
    assert (_org("globex-test").time_zone, _org("globex-test").territory) == ("UTC", None)


def test_only_admins_reach_the_settings(app, acme, make_member):
    mo = make_member(acme.org, "Mo Member")
    browser, token = sign_in(app, mo)
    assert browser.get(SETTINGS).status_code == 403
    assert browser.post(SETTINGS, data={**_form(), "csrf_token": token}).status_code == 403
    with pytest.raises(Forbidden):
        accounts.update_organization_settings(
            mo.actor, name="x", default_locale="en", time_zone="UTC", territory=None
        )
    assert _org("acme-test").time_zone == "UTC"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"time_zone": "Mars/Olympus"}, "“Mars/Olympus” is not a time zone."),
        ({"time_zone": "../../etc/passwd"}, "is not a time zone"),
        ({"time_zone": "localtime"}, "is not a time zone"),
        ({"time_zone": "A" * 5000}, ""),
        ({"territory": "ZZ"}, "“ZZ” is not a country code we know"),
        ({"territory": "MYS"}, "is not a country code we know"),
        ({"default_locale": "fr"}, "is not a supported language"),
        ({"name": "   "}, ""),
        ({"name": "N" * 5000}, ""),
    ],
)
def test_bad_settings_are_refused_with_a_message_and_change_nothing(app, acme, changes, message):
    browser, token = sign_in(app, acme.admin)
    refused = browser.post(SETTINGS, data={**_form(**changes), "csrf_token": token})
    assert refused.status_code in (400, 422)
    if message:
        assert message in refused.get_data(as_text=True)
    org = _org("acme-test")
    assert (org.name, org.time_zone, org.territory) == ("Acme Test", "UTC", None)


def test_a_nul_in_a_setting_is_refused_before_anything_is_written(app, acme):
    browser, token = sign_in(app, acme.admin)
    for field in ("name", "time_zone", "territory"):
        refused = browser.post(
            SETTINGS, data={**_form(**{field: "Asia/Kuala_Lumpur\x00"}), "csrf_token": token}
        )
        assert refused.status_code in (400, 422)
    assert _org("acme-test").time_zone == "UTC"


def test_the_service_refuses_what_the_page_refuses(acme):
    admin = acme.admin.actor
    refusals = (
        lambda: accounts.update_organization_settings(
            admin, name="Acme", default_locale="en", time_zone="Nowhere/Else", territory=None
        ),
        lambda: accounts.update_organization_settings(
            admin, name="Acme", default_locale="en", time_zone="UTC", territory="xx"
        ),
        lambda: accounts.update_organization_settings(
            admin, name="bad\x00name", default_locale="en", time_zone="UTC", territory=None
        ),
    )
    for refused in refusals:
        with pytest.raises(DomainError):
            refused()
    assert _org("acme-test").name == "Acme Test"


def test_a_member_chooses_their_own_zone_and_can_go_back_to_the_organizations(
    app, acme, globex, make_member
):
    clock.freeze(datetime(2026, 12, 1, 10, 29, tzinfo=UTC))
    accounts.update_organization_settings(
        acme.admin.actor,
        name="Acme Test",
        default_locale="en",
        time_zone="Asia/Kuala_Lumpur",
        territory="MY",
    )
    mo = make_member(acme.org, "Mo Member")
    browser, token = sign_in(app, mo)
    page = browser.get(MINE).get_data(as_text=True)
    assert "Use the organization&#39;s (Asia/Kuala_Lumpur)" in page

    assert (
        browser.post(MINE, data={"time_zone": "Europe/London", "csrf_token": token}).status_code
        == 303
    )
    assert actor_of("acme-test", mo.email).display_time_zone == "Europe/London"
    # The organization's day is unchanged for everyone else.
    assert actor_of("acme-test", acme.admin.email).display_time_zone == "Asia/Kuala_Lumpur"
    assert actor_of("acme-test", mo.email).time_zone == "Asia/Kuala_Lumpur"

    refused = browser.post(MINE, data={"time_zone": "Atlantis/Deep", "csrf_token": token})
    assert refused.status_code == 422
    assert "“Atlantis/Deep” is not a time zone." in refused.get_data(as_text=True)
    assert actor_of("acme-test", mo.email).own_time_zone == "Europe/London"

    assert browser.post(MINE, data={"time_zone": "", "csrf_token": token}).status_code == 303
    assert actor_of("acme-test", mo.email).own_time_zone is None


def test_a_members_zone_is_their_own_in_each_organization(app, acme, globex, make_member):
    both = make_member(acme.org, "Bo Both", email="bo@example.test")
    make_member(globex.org, "Bo Both", email="bo@example.test")
    accounts.set_my_time_zone(both.actor, "Asia/Tokyo")
    assert actor_of("acme-test", "bo@example.test").own_time_zone == "Asia/Tokyo"
    assert actor_of("globex-test", "bo@example.test").own_time_zone is None
    # Another organization's settings page does not exist for a non-member.
    outsider, _ = sign_in(app, acme.admin)
    assert outsider.get("/o/globex-test/settings/").status_code == 404
    assert outsider.get("/o/globex-test/settings/mine").status_code == 404


def test_an_organization_is_created_with_its_zone_and_country(make_org):
    org = make_org("kl-new", "KL New", time_zone="Asia/Kuala_Lumpur", territory="my")
    assert (org.time_zone, org.territory) == ("Asia/Kuala_Lumpur", "MY")
    for bad in ({"time_zone": "Moon/Base"}, {"territory": "QQ"}):
        with pytest.raises(DomainError):
            make_org("kl-bad", "KL Bad", **bad)
    assert account_queries.find_organization("kl-bad") is None


def test_the_demo_organization_lives_in_kuala_lumpur(people):
    siti = people("siti")
    assert (siti.time_zone, siti.territory) == ("Asia/Kuala_Lumpur", "MY")


@pytest.fixture
def people(app, globex):
    from tests.factories import demo_people

    return demo_people()
