"""Dates, times and money as the reader's organization writes them: the language plus
the organization's country (en-MY, zh-MY, ms-MY), one date format and one date-and-time
format on every page, times in the reader's zone, and no currency code glued to digits."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from flask import g

from portal.accounts import services as accounts
from portal.core.clock import clock
from portal.domain.actor import Actor
from portal.web.i18n import (
    NBSP,
    format_day,
    format_moment,
    format_money,
    locale_for,
    select_timezone,
    unglue_currency_code,
)
from tests.factories import sign_in

# 10:29 UTC on 1 December is 18:29 in Kuala Lumpur.
MOMENT = datetime(2026, 12, 1, 10, 29, tzinfo=UTC)


def _plain(text: str) -> str:
    """CLDR writes a narrow no-break space before am/pm: compare as plain spaces."""
    return text.replace("\u202f", " ").replace(NBSP, " ")


def _reader(language: str, territory: str | None, zone: str = "Asia/Kuala_Lumpur", own=None):
    return Actor(
        1, "acme", 1, 1, locale=language, time_zone=zone, territory=territory, own_time_zone=own
    )


@pytest.fixture
def as_reader(app):
    """Formats inside a request of ``actor`` (its language, country and zone)."""

    def read(actor: Actor, produce):
        with app.test_request_context("/"):
            g.actor = actor
            return produce()

    return read


def test_babel_locale_is_the_language_with_the_country_when_babel_has_the_pair():
    assert locale_for("en", "MY") == "en_MY"
    assert locale_for("zh", "MY") == "zh_Hans_MY"
    assert locale_for("ms", "MY") == "ms_MY"
    assert locale_for("en", None) == "en"
    # A pair Babel does not know falls back to the language, never to another country.
    assert locale_for("ms", "US") == "ms"
    assert locale_for("en", "ZZ") == "en"


@pytest.mark.parametrize(
    ("language", "territory", "expected"),
    [
        ("en", "MY", "RM345.60"),
        ("ms", "MY", "RM345.60"),
        ("zh", "MY", f"MYR{NBSP}345.60"),
        ("en", None, f"MYR{NBSP}345.60"),
        ("zh", None, f"MYR{NBSP}345.60"),
    ],
)
def test_ringgit_is_written_as_the_readers_locale_writes_it(
    as_reader, language, territory, expected
):
    text = as_reader(_reader(language, territory), lambda: format_money(Decimal("345.60"), "MYR"))
    assert text == expected
    assert not re.search(r"[A-Z]{3}\d", text)


def test_a_code_glued_to_digits_gets_a_no_break_space_on_either_side():
    assert unglue_currency_code("MYR345.60", "MYR") == f"MYR{NBSP}345.60"
    assert unglue_currency_code("-MYR345.60", "MYR") == f"-MYR{NBSP}345.60"
    assert unglue_currency_code("345,60MYR", "MYR") == f"345,60{NBSP}MYR"
    assert unglue_currency_code("RM345.60", "MYR") == "RM345.60"
    assert unglue_currency_code(f"MYR{NBSP}345.60", "MYR") == f"MYR{NBSP}345.60"


def test_dates_and_times_are_the_readers_zone_in_one_medium_format(as_reader):
    kl_en = _reader("en", "MY")
    assert _plain(as_reader(kl_en, lambda: format_moment(MOMENT))) == "1 Dec 2026, 6:29 pm"
    assert as_reader(kl_en, lambda: format_day(date(2026, 11, 28))) == "28 Nov 2026"
    kl_zh = _reader("zh", "MY")
    assert _plain(as_reader(kl_zh, lambda: format_moment(MOMENT))) == "2026年12月1日 下午6:29"
    # Late in the UTC day the reader's day is already the next one.
    late = datetime(2026, 12, 1, 23, 30, tzinfo=UTC)
    assert as_reader(kl_en, lambda: format_day(late)) == "2 Dec 2026"
    # A member's own zone wins over the organization's, for what they see.
    london = _reader("en", "MY", own="Europe/London")
    assert _plain(as_reader(london, lambda: format_moment(MOMENT))) == "1 Dec 2026, 10:29 am"
    assert as_reader(london, select_timezone) == "Europe/London"
    # Without a country: the language's own medium formats (never "12/1/26, 6:29 PM").
    plain = _reader("en", None, zone="UTC")
    assert _plain(as_reader(plain, lambda: format_moment(MOMENT))) == "Dec 1, 2026, 10:29 AM"


def _flows_page(app, person) -> str:
    browser, _ = sign_in(app, person)
    page = browser.get(f"/o/{person.actor.org_slug}/flows/")
    assert page.status_code == 200
    return _plain(page.get_data(as_text=True))


def test_each_organization_reads_its_own_zone_and_formats(app, make_org, make_member):
    clock.freeze(datetime(2026, 12, 1, 23, 30, tzinfo=UTC))  # 07:30 on 2 Dec in KL
    kl = make_org(
        "kl-org", "KL Org", base_currency="MYR", time_zone="Asia/Kuala_Lumpur", territory="MY"
    )
    ny = make_org("ny-org", "NY Org", time_zone="America/New_York")
    kl_admin = make_member(kl, "Kay Admin", roles=("admin",))
    ny_admin = make_member(ny, "Nye Admin", roles=("admin",))

    kl_page = _flows_page(app, kl_admin)
    assert "2 Dec 2026, 7:30 am" in kl_page
    ny_page = _flows_page(app, ny_admin)
    assert "Dec 1, 2026, 6:30 PM" in ny_page
    assert "7:30 am" not in ny_page
    for page in (kl_page, ny_page):
        assert not re.search(r"\b\d{1,2}/\d{1,2}/\d{2}\b", page)  # no short numeric dates

    # The same reader in Chinese: the same day, as zh-MY writes it.
    accounts.set_user_locale(kl_admin.user_id, "zh")
    assert "2026年12月2日 上午7:30" in _flows_page(app, kl_admin)
