"""How long before a deadline its holder is reminded: an organization's setting, kept by
its admins on the settings page ("4h", "90m", "1d", "1:30"; 0 or nothing for no reminder
before the deadline; at most 30 days). Bad input is refused beside the field and
changes nothing; globex's lead is never touched."""

from __future__ import annotations

import pytest

from portal.accounts import queries as account_queries
from portal.accounts.services import settings as org_settings
from portal.domain.errors import DomainError
from tests.factories import actor_of, sign_in

SETTINGS = "/o/acme-test/settings/"


def _form(lead: str) -> dict[str, str]:
    return {
        "name": "Acme Test",
        "default_locale": "en",
        "time_zone": "UTC",
        "territory": "",
        "reminder_lead": lead,
    }


def _lead(slug: str) -> int:
    org = account_queries.find_organization(slug)
    assert org is not None
    return org.reminder_lead_minutes


@pytest.mark.parametrize(
    ("typed", "minutes", "shown"),
    [
        ("4h", 240, "4h"),
        ("90m", 90, "90m"),
        ("1m", 1, "1m"),
        ("1:30", 90, "90m"),
        (" 1d ", 1440, "1d"),
        ("30d", 43_200, "30d"),
        ("0", 0, "0"),
        ("", 0, "0"),
    ],
)
def test_an_admin_sets_the_reminder_lead(app, acme, globex, typed, minutes, shown):
    browser, token = sign_in(app, acme.admin)
    page = browser.get(SETTINGS).get_data(as_text=True)
    assert 'name="reminder_lead"' in page and 'value="4h"' in page  # the default

    saved = browser.post(SETTINGS, data={**_form(typed), "csrf_token": token})

    assert saved.status_code == 303
    assert _lead("acme-test") == minutes
    assert actor_of("acme-test", acme.admin.email).reminder_lead_minutes == minutes
    assert f'value="{shown}"' in browser.get(SETTINGS).get_data(as_text=True)
    assert _lead("globex-test") == 240


@pytest.mark.parametrize(
    "typed",
    [
        "4h\x00",
        "５h",  # full-width digit
        "1" * 5000,
        "9" * 40 + "h",
        "-4h",
        "31d",
        "4 hours",
        "4h30m",
        "1:75",
        "0:00:01",
        "\u0664h",  # Arabic-Indic four
    ],
)
def test_a_bad_reminder_lead_is_refused_beside_the_field_and_changes_nothing(app, acme, typed):
    browser, token = sign_in(app, acme.admin)
    refused = browser.post(SETTINGS, data={**_form(typed), "csrf_token": token})
    assert refused.status_code in (400, 422)
    if refused.status_code == 422 and len(typed) < 100:
        html = refused.get_data(as_text=True)
        assert 'id="reminder_lead-error"' in html
        assert "Write the time before the deadline as a duration such as 4h" in html
    assert _lead("acme-test") == 240


def test_a_settings_form_without_the_field_keeps_the_lead(app, acme):
    org_settings.update_organization_settings(
        acme.admin.actor,
        name="Acme Test",
        default_locale="en",
        time_zone="UTC",
        territory=None,
        reminder_lead="2h",
    )
    browser, token = sign_in(app, acme.admin)
    form = _form("")
    del form["reminder_lead"]
    assert browser.post(SETTINGS, data={**form, "csrf_token": token}).status_code == 303
    assert _lead("acme-test") == 120


def test_only_admins_set_it_and_the_service_refuses_what_the_page_refuses(acme, make_member):
    from portal.domain.errors import Forbidden

    mo = make_member(acme.org, "Mo Member")
    with pytest.raises(Forbidden):
        org_settings.update_organization_settings(
            mo.actor, name="x", default_locale="en", time_zone="UTC", territory=None,
            reminder_lead="1h",
        )  # fmt: skip
    for typed in ("５h", "-1h", "31d", "bad\x00"):
        with pytest.raises(DomainError):
            org_settings.update_organization_settings(
                acme.admin.actor, name="Acme Test", default_locale="en", time_zone="UTC",
                territory=None, reminder_lead=typed,
            )  # fmt: skip
    assert _lead("acme-test") == 240
