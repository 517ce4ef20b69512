"""A typed amount is read one way everywhere: grouping a person types is dropped, and
only ASCII digits, a decimal point and an exponent make a number."""

from __future__ import annotations

from decimal import Decimal

import pytest

from portal.domain.errors import DomainError
from portal.domain.money import parse_amount


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("1,234.50", Decimal("1234.50")),
        (" 1 234.50 ", Decimal("1234.50")),
        ("1\u00a0234", Decimal("1234")),
        (".5", Decimal("0.5")),
        ("-0.01", Decimal("-0.01")),  # the sign is check_amount's to refuse
        ("1e15", Decimal("1E+15")),  # so is the size
        (Decimal("86.40"), Decimal("86.40")),
    ],
)
def test_a_typed_amount_is_read_with_its_grouping_dropped(typed, read):
    assert parse_amount(typed) == read


@pytest.mark.parametrize(
    "typed", ["", " ", ",", "abc", "NaN", "Infinity", "1_000", "١٢٣", "１２", "1.2.3", True]
)
def test_what_is_not_an_amount_is_refused_naming_the_field(typed):
    with pytest.raises(DomainError) as refused:
        parse_amount(typed, field="fields.total")
    assert (refused.value.code, refused.value.field) == ("amount_invalid", "fields.total")
