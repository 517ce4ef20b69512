"""Amounts as a reader types them: how an amount is read from an input box, and how one
is written back into it.

The rules live in ``domain.money``; this module hands them what only Babel knows about
the reader's locale: the decimal sign, the grouping sign and sizes, the currency's code
and symbol, and 1234.50 written that way for messages. An input's value is the amount
without its currency sign, at the currency's decimals, grouped as the reader groups
("1,234.50" in English, "1.234,50" in German, "1,234" for yen): what is read back is
exactly what was written.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal
from functools import lru_cache

from babel import Locale
from babel.numbers import format_decimal, get_currency_symbol

from portal.domain.money import NumberForm, minor_digits
from portal.web.i18n import format_locale


def _example(currency: str | None) -> Decimal:
    # 1234.5 at the currency's decimals: 1234.50, 1234 for yen, 1234.500 for dinars.
    digits = minor_digits(currency) if currency else 2
    return Decimal("1234.5").quantize(Decimal(1).scaleb(-digits), rounding=ROUND_DOWN)


def reader_locale() -> str:
    """The locale numbers are read and written in for this request: the one money is
    shown in (the reader's language and the organization's territory, ``en_MY``), so
    what a reader types is read as they see amounts written."""
    return format_locale()


@lru_cache(maxsize=256)
def number_form(locale: str, currency: str | None = None) -> NumberForm:
    """How a reader of ``locale`` writes an amount of ``currency`` (any currency with
    two decimals when None)."""
    loc = Locale.parse(locale)
    symbols = loc.number_symbols.get("latn", {})
    grouping = loc.decimal_formats[None].grouping
    signs: tuple[str, ...] = ()
    if currency:
        code = currency.strip().upper()
        signs = tuple(dict.fromkeys([code, get_currency_symbol(code, locale=loc)]))
    return NumberForm(
        decimal=symbols.get("decimal", "."),
        group=symbols.get("group", ","),
        grouping=(int(grouping[0]), int(grouping[1])),
        example=input_text(_example(currency), currency or "USD", locale),
        signs=signs,
    )


def input_text(amount: Decimal | None, currency: str, locale: str) -> str:
    """``amount`` as an input box holds it: the currency's decimals, the reader's
    grouping, no currency sign. An amount with more decimals than its currency (never
    stored: ``check_amount`` refuses them) shows them all rather than a rounded value."""
    if amount is None:
        return ""
    loc = Locale.parse(locale)
    # With the currency, Babel writes its decimals (the same table as minor_digits);
    # without quantisation, extra decimals are shown rather than rounded away.
    return loc.decimal_formats[None].apply(
        amount, loc, currency=currency, currency_digits=True, decimal_quantization=False
    )


def number_text(number: Decimal, locale: str) -> str:
    """A declared number field's value as its input holds it: every decimal it has, the
    reader's grouping."""
    return format_decimal(number, locale=locale, decimal_quantization=False)
