"""Amounts in the reader's locale (``web.money_input``) against Babel: the currency table
the domain keeps is Babel's, and for every currency and every locale the product ships
(and two that write decimals with a comma) what is written is read back as the same
amount — in an input box and as money is shown — so routing agrees with what is shown."""

from __future__ import annotations

from decimal import Decimal

import pytest
from babel.numbers import get_currency_precision, list_currencies
from hypothesis import given, settings
from hypothesis import strategies as st

from portal.domain.graph import Grant, Grantee, GranteeKind
from portal.domain.ladder import band_for
from portal.domain.money import LIMIT, check_amount, minor_digits, parse_amount
from portal.domain.resolution import Resolution
from portal.web.i18n import format_money
from portal.web.money_input import input_text, number_form

CURRENCIES = ["MYR", "USD", "JPY", "KWD", "EUR", "CNY", "IDR"]
LOCALES = ["en", "zh", "ms", "en_MY", "zh_Hans_MY", "ms_MY", "de", "fr"]


def test_the_domains_minor_units_are_babels_for_every_currency():
    differing = {
        code: (minor_digits(code), get_currency_precision(code))
        for code in list_currencies()
        if minor_digits(code) != get_currency_precision(code)
    }
    assert differing == {}
    assert (minor_digits("MYR"), minor_digits("JPY"), minor_digits("KWD")) == (2, 0, 3)


@pytest.mark.parametrize(
    ("locale", "currency", "example", "decimal", "group"),
    [
        ("en", "MYR", "1,234.50", ".", ","),
        ("ms_MY", "MYR", "1,234.50", ".", ","),
        ("zh", "JPY", "1,234", ".", ","),
        ("en", "KWD", "1,234.500", ".", ","),
        ("de", "EUR", "1.234,50", ",", "."),
        ("fr", "EUR", "1\u202f234,50", ",", "\u202f"),
    ],
)
def test_the_readers_form_comes_from_their_locale(locale, currency, example, decimal, group):
    form = number_form(locale, currency)
    assert (form.example, form.decimal, form.group) == (example, decimal, group)
    assert currency in form.signs


def test_an_input_holds_the_currencys_decimals_grouped_without_a_sign():
    assert input_text(Decimal("1234.5"), "MYR", "en") == "1,234.50"
    assert input_text(Decimal("1234"), "JPY", "en") == "1,234"
    assert input_text(Decimal("1234.5"), "KWD", "de") == "1.234,500"
    assert input_text(Decimal("999999999999999.99"), "USD", "en") == "999,999,999,999,999.99"
    # Never a rounded value, even for one that should not have been stored.
    assert input_text(Decimal("9999.999"), "MYR", "en") == "9,999.999"
    assert input_text(None, "MYR", "en") == ""


@st.composite
def amounts(draw) -> tuple[str, Decimal]:
    """A currency and an amount of it, anywhere in the range, at its decimals."""
    currency = draw(st.sampled_from(CURRENCIES))
    digits = minor_digits(currency)
    units = draw(st.integers(min_value=0, max_value=int(LIMIT * 10**digits) - 1))
    return currency, Decimal(units).scaleb(-digits)


@settings(max_examples=400, deadline=None)
@given(amounts(), st.sampled_from(LOCALES))
def test_what_an_input_box_holds_is_read_back_as_the_same_amount(money, locale):
    currency, amount = money
    typed = input_text(amount, currency, locale)

    read = parse_amount(typed, number_form(locale, currency))

    assert read == amount
    assert check_amount(read, currency) == amount


def _ladder(*floors: str) -> list[Resolution]:
    return [
        Resolution(
            Grant(
                grantee=Grantee(kind=GranteeKind.ROLE, role="approver"),
                state="approved",
                min_amount=Decimal(floor),
            ),
            index,
            (100 + index,),
        )
        for index, floor in enumerate(floors)
    ]


# Floors at every decimal boundary a rounding could cross: 10,000 is the seeded
# purchase request's unit-head band.
LADDER = _ladder("0", "1", "9999.99", "10000", "10000.01", "1000000")


@settings(max_examples=400, deadline=None)
@given(amounts(), st.sampled_from(LOCALES))
def test_money_as_shown_is_read_back_as_the_amount_routed_on(money, locale):
    currency, amount = money
    stored = check_amount(amount, currency)  # what a document keeps
    shown = format_money(stored, currency, locale)

    read = parse_amount(shown, number_form(locale, currency))

    assert read == stored
    assert band_for(LADDER, stored, 1) == band_for(LADDER, read, 1)


@pytest.mark.parametrize("locale", LOCALES)
def test_just_below_a_band_is_shown_below_it_and_routed_below_it(locale):
    # Once "9999.999" was shown as 10,000.00 and routed below the 10,000 band.
    stored = check_amount(Decimal("9999.99"), "MYR")
    shown = format_money(stored, "MYR", locale)
    read = parse_amount(shown, number_form(locale, "MYR"))

    assert input_text(Decimal("9999.99"), "MYR", locale) in shown  # never 10,000.00
    assert read == Decimal("9999.99")
    band = band_for(_ladder("0", "10000"), read, 1)
    assert band is not None and band.floor == Decimal("0")
