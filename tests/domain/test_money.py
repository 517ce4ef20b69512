"""Money as a type with rules (``domain.money``), with no app and no Babel: the reader's
way of writing numbers is handed in as a ``NumberForm``.

- A typed amount is read strictly in the reader's form: their decimal sign once, digit
  groups only where their grouping puts them, ASCII digits only. Text another reader
  would take for another amount is refused with an example, never guessed at.
- An amount of a currency has at most that currency's decimals (MYR 2, JPY 0, KWD 3):
  more are refused naming the currency and its decimals, never rounded; the range is
  below 10^15, and the refusal states the limit.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from portal.domain.errors import DomainError
from portal.domain.fields import FieldErrors, check_fields
from portal.domain.graph import DocumentField, FieldType, Graph
from portal.domain.labels import Labels
from portal.domain.money import (
    LIMIT,
    PLAIN,
    NumberForm,
    check_amount,
    minor_digits,
    parse_amount,
)

ENGLISH = NumberForm(decimal=".", group=",", example="1,234.50", signs=("MYR", "RM"))
GERMAN = NumberForm(decimal=",", group=".", example="1.234,50", signs=("EUR", "€"))
FRENCH = NumberForm(decimal=",", group="\u202f", example="1\u202f234,50")
INDIAN = NumberForm(decimal=".", group=",", grouping=(3, 2), example="1,234.50")


def _refusal(call, *args, **kwargs) -> DomainError:
    with pytest.raises(DomainError) as refused:
        call(*args, **kwargs)
    return refused.value


# --- reading ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "form", "read"),
    [
        ("1234.50", ENGLISH, "1234.50"),  # a plain amount is always fine
        ("1,234.50", ENGLISH, "1234.50"),
        ("1,234,567.5", ENGLISH, "1234567.5"),
        ("1,234", ENGLISH, "1234"),  # grouping, not decimals, for this reader
        (" 1 234.50 ", ENGLISH, "1234.50"),  # spaces between groups, as people type
        ("1\u00a0234", ENGLISH, "1234"),
        (".5", ENGLISH, "0.5"),
        ("7.", ENGLISH, "7"),
        ("RM1,234.50", ENGLISH, "1234.50"),  # money as the reader sees it shown
        ("MYR\u00a01,234.50", ENGLISH, "1234.50"),
        ("-0.01", ENGLISH, "-0.01"),  # the sign is check_amount's to refuse
        ("1.234,50", GERMAN, "1234.50"),
        ("1234,5", GERMAN, "1234.5"),
        ("1.234,50\u00a0€", GERMAN, "1234.50"),
        ("1\u202f234,50", FRENCH, "1234.50"),
        ("1 234,50", FRENCH, "1234.50"),
        ("12,34,567.25", INDIAN, "1234567.25"),
        ("999999999999999.9999", PLAIN, "999999999999999.9999"),
        (Decimal("86.40"), PLAIN, "86.40"),  # a JSON number, read exactly
    ],
)
def test_a_typed_amount_is_read_as_its_reader_writes_it(typed, form, read):
    assert parse_amount(typed, form) == Decimal(read)


@pytest.mark.parametrize(
    ("typed", "form"),
    [
        ("12,34", ENGLISH),  # 1,234 or 12.34?
        ("1.234,50", ENGLISH),  # a German 1,234.50, read by an English reader
        ("1234,50", ENGLISH),
        ("1,23,456", ENGLISH),  # grouping this reader does not use
        ("1,234 567", ENGLISH),  # two kinds of group separator
        ("1.2.3", ENGLISH),
        ("1'234.50", ENGLISH),
        ("1234.50", GERMAN),  # an English amount, read by a German reader
        ("1,234.50", GERMAN),
        ("1,234,567.25", INDIAN),
    ],
)
def test_what_could_mean_another_amount_is_refused_with_the_readers_example(typed, form):
    error = _refusal(parse_amount, typed, form, field="amount")
    assert (error.code, error.field, error.params) == (
        "amount_ambiguous",
        "amount",
        {"example": form.example},
    )


@pytest.mark.parametrize(
    "typed",
    [
        "",
        " ",
        ",",
        ".",
        "-",
        "abc",
        "NaN",
        "Infinity",
        "1e5",
        "1_000",
        "١٢٣",  # other scripts' digits
        "１２",
        "1\x002",
        "12\u00ad3",
        "$12",  # another currency's sign
        "1" * 10_001,
        True,
        None,
        1.5,  # a float is never an amount
        Decimal("NaN"),
    ],
)
def test_what_is_not_an_amount_is_refused_naming_the_field(typed):
    error = _refusal(parse_amount, typed, ENGLISH, field="fields.total")
    assert (error.code, error.field, error.params) == (
        "amount_invalid",
        "fields.total",
        {"example": "1,234.50"},
    )


def test_five_thousand_digits_are_read_so_that_their_size_can_be_refused():
    huge = parse_amount("9" * 5000)
    error = _refusal(check_amount, huge, "MYR")
    assert (error.code, error.params) == ("amount_too_large", {"limit": LIMIT})


# --- the currency's rules --------------------------------------------------------------


def test_each_currency_has_its_minor_unit():
    assert [minor_digits(c) for c in ("MYR", "USD", "EUR", "CNY", "JPY", "KWD", "IDR")] == [
        2,
        2,
        2,
        2,
        0,
        3,
        0,
    ]
    assert minor_digits("myr") == 2
    assert minor_digits("XYZ") == 2  # a code nobody knows: cents, as Babel assumes


@pytest.mark.parametrize(
    ("amount", "currency", "stored"),
    [
        ("9999.99", "MYR", "9999.99"),
        ("9999.9", "MYR", "9999.90"),
        ("9999.990", "MYR", "9999.99"),  # trailing zeros are the same amount
        ("0", "MYR", "0.00"),
        ("-0", "MYR", "0.00"),
        ("123456789012345.67", "MYR", "123456789012345.67"),
        ("999999999999999.99", "USD", "999999999999999.99"),
        ("1250", "JPY", "1250"),
        ("1250.000", "JPY", "1250"),
        ("1.234", "KWD", "1.234"),
    ],
)
def test_an_amount_is_kept_at_its_currencys_decimals(amount, currency, stored):
    kept = check_amount(Decimal(amount), currency)
    assert format(kept, "f") == stored


@pytest.mark.parametrize(
    ("amount", "currency", "code", "params"),
    [
        ("9999.999", "MYR", "amount_too_precise", {"currency": "MYR", "num": 2}),
        ("0.005", "MYR", "amount_too_precise", {"currency": "MYR", "num": 2}),
        ("0.5", "JPY", "amount_whole_units", {"currency": "JPY", "num": 0}),
        ("1.2345", "KWD", "amount_too_precise", {"currency": "KWD", "num": 3}),
        ("0." + "0" * 5000 + "1", "MYR", "amount_too_precise", {"currency": "MYR", "num": 2}),
        ("1000000000000000", "MYR", "amount_too_large", {"limit": LIMIT}),
        ("1E+15", "MYR", "amount_too_large", {"limit": LIMIT}),
        ("-0.01", "MYR", "amount_negative", {}),
        ("NaN", "MYR", "amount_invalid", {"example": "1234.50"}),
        ("Infinity", "MYR", "amount_invalid", {"example": "1234.50"}),
    ],
)
def test_more_decimals_than_the_currency_has_are_refused_never_rounded(
    amount, currency, code, params
):
    error = _refusal(check_amount, Decimal(amount), currency, field="amount")
    assert (error.code, error.field, error.params) == (code, "amount", params)


def test_the_value_read_is_the_value_checked_is_the_value_kept():
    # "9999.999" was once kept as typed, shown as 10,000.00 and routed below 10,000.
    typed = parse_amount("9,999.99", ENGLISH)
    assert check_amount(typed, "MYR") == typed == Decimal("9999.99")
    assert _refusal(check_amount, parse_amount("9,999.999", ENGLISH), "MYR").code == (
        "amount_too_precise"
    )


# --- declared fields -------------------------------------------------------------------


def _graph_with(*fields: DocumentField) -> Graph:
    return Graph(kind="claim", labels=Labels({"en": "Claim"}), states=(), fields=fields)


TOTAL = DocumentField(key="total", type=FieldType.MONEY, labels=Labels({"en": "Total"}))
COUNT = DocumentField(key="count", type=FieldType.NUMBER, labels=Labels({"en": "Count"}))


def test_a_money_field_is_an_amount_of_the_documents_currency():
    graph = _graph_with(TOTAL, COUNT)
    assert check_fields(graph, {"total": "1,234.5", "count": "-2.5"}, currency="MYR") == {
        "total": "1234.50",
        "count": "-2.5",
    }
    assert check_fields(graph, {"total": "1234"}, currency="JPY") == {"total": "1234"}

    with pytest.raises(FieldErrors) as refused:
        check_fields(graph, {"total": "1.005", "count": "9" * 5000}, currency="MYR")
    assert {(e.field, e.code) for e in refused.value.errors} == {
        ("fields.total", "amount_too_precise"),
        ("fields.count", "field_number_too_large"),
    }

    with pytest.raises(FieldErrors) as refused:
        check_fields(graph, {"total": "0.5", "count": "0.00001"}, currency="JPY")
    assert {(e.field, e.code) for e in refused.value.errors} == {
        ("fields.total", "amount_whole_units"),
        ("fields.count", "field_number_too_precise"),
    }
