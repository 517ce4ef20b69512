"""Money as a type with rules: what counts as an amount of a currency, and the one way
a typed amount is read.

An amount is a ``Decimal`` of its currency's minor unit (ISO 4217 as Babel knows it:
MYR and USD 2 decimals, JPY 0, KWD 3). More decimals than the currency has are refused,
never rounded, so the value shown, routed on, guarded and stored is one value. The range
is what the column holds (``NUMERIC(19,4)``): below 10^15.

Reading is strict, in the reader's way of writing numbers (``NumberForm``, built by the
web layer from the reader's locale): ASCII digits, the reader's decimal sign once, and
digit groups only where the reader's grouping puts them. Text that another reader would
take for another amount ("12,34" or "1.234,50" where the point is the decimal sign) is
refused with an example of the expected form, never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, localcontext

from portal.domain.errors import DomainError

# NUMERIC(19,4): fifteen digits before the point, four after.
LIMIT = Decimal(10) ** 15
STORED_PLACES = 4
# What Babel (CLDR) gives as a currency's decimals where it is not 2; a test keeps this
# table equal to Babel's for every currency Babel knows.
_WHOLE_UNITS = """ADP AFN ALL BIF BYR CLP COP DJF ESP GNF HUF IDR IQD IRR ISK ITL JPY KMF KPW
KRW LAK LBP LUF MGA MGF MMK MRO PYG RWF SLL SOS STD SYP TMM TRL UGX UYI VND VUV XAF XOF XPF YER
ZMK ZWD"""
_MINOR_UNITS: dict[str, int] = {
    **{code: 0 for code in _WHOLE_UNITS.split()},
    **{code: 3 for code in ("BHD", "JOD", "KWD", "LYD", "OMR", "TND")},
    **{code: 4 for code in ("CLF", "UYW")},
}
# Bounds the work on text that is no amount anyone typed; a long run of digits is still
# read, so that check_amount can say it is too large.
MAX_TYPED = 10_000


def minor_digits(currency: str) -> int:
    """The decimals of ``currency``'s minor unit: ``MYR`` 2, ``JPY`` 0, ``KWD`` 3."""
    return _MINOR_UNITS.get(currency.strip().upper(), 2)


@dataclass(frozen=True)
class NumberForm:
    """How one reader writes an amount. ``example`` is 1234.50 written that way (with the
    currency's decimals), for messages; ``signs`` are the currency's code and symbol,
    which may stand before or after the number (as the reader sees money shown)."""

    decimal: str = "."
    group: str = ","
    # The locale's digit groups: (primary, secondary), from the right. (3, 3) for
    # "1,234,567"; (3, 2) for "12,34,567".
    grouping: tuple[int, int] = (3, 3)
    example: str = "1234.50"
    signs: tuple[str, ...] = ()


# The wire's form (JSON, a service called directly): a point for decimals, commas for
# groups if any.
PLAIN = NumberForm()

# The spaces a locale groups with, or people type between groups: all the same here.
_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2009": " "})
_MINUS = ("-", "\u2212")
_DIGITS = re.compile(r"[0-9]+")


def _refused(code: str, form: NumberForm, field: str) -> DomainError:
    return DomainError(code, field=field, example=form.example)


def _without_sign(text: str, form: NumberForm) -> str:
    """``text`` without one currency sign of ``form`` before or after the number."""
    for sign in sorted(form.signs, key=len, reverse=True):
        sign = sign.translate(_SPACES)
        if sign and text.startswith(sign):
            return text[len(sign) :].strip()
        if sign and text.endswith(sign):
            return text[: -len(sign)].strip()
    return text


def _grouped_ok(groups: list[str], grouping: tuple[int, int]) -> bool:
    """Digit groups as the locale writes them: the last ``primary`` long, the others
    ``secondary`` long, the first 1 to ``secondary`` digits."""
    primary, secondary = grouping
    if len(groups) < 2 or not all(_DIGITS.fullmatch(g) for g in groups):
        return False
    *head, last = groups
    first, *middle = head
    return (
        len(last) == primary
        and all(len(g) == secondary for g in middle)
        and 1 <= len(first) <= secondary
    )


def parse_amount(text: object, form: NumberForm = PLAIN, *, field: str = "amount") -> Decimal:
    """A typed amount as the reader (``form``) wrote it, as a Decimal — or a refusal
    naming ``field``: ``amount_invalid`` for what is not a number in ASCII digits,
    ``amount_ambiguous`` for digits and separators placed where this reader would not
    put them (another reader's amount). Both carry ``form.example``. Sign, size and
    precision are ``check_amount``'s to judge. A Decimal (a JSON number) is taken as
    it is."""
    if isinstance(text, Decimal):
        if not text.is_finite():
            raise _refused("amount_invalid", form, field)
        return text
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise _refused("amount_invalid", form, field)
    if isinstance(text, int):
        return Decimal(text)
    typed = text.translate(_SPACES).strip()
    if not typed or len(typed) > MAX_TYPED:
        raise _refused("amount_invalid", form, field)
    typed = _without_sign(typed, form)
    negative = typed.startswith(_MINUS)
    if negative or typed.startswith("+"):
        typed = typed[1:].lstrip()
    group = form.group.translate(_SPACES)
    separators = {form.decimal, group, " ", ",", ".", "'"} - {""}
    # Only ASCII digits and separators: no letters, other scripts' digits ("١٢٣",
    # "１２"), exponents, NaN, underscores or control characters.
    if not typed or any(not ("0" <= c <= "9") and c not in separators for c in typed):
        raise _refused("amount_invalid", form, field)
    if not any("0" <= c <= "9" for c in typed):
        raise _refused("amount_invalid", form, field)
    whole, _, fraction = typed.partition(form.decimal)
    if fraction and not _DIGITS.fullmatch(fraction):
        # A second decimal sign, or a group after it ("1.234,50" read with a point).
        raise _refused("amount_ambiguous", form, field)
    if not _DIGITS.fullmatch(whole or "0"):
        # Groups: one kind of separator, the reader's own or a space, where the
        # reader's grouping puts them ("12,34" is not 1234 nor 12.34: refused).
        used = {c for c in whole if not ("0" <= c <= "9")}
        if len(used) != 1 or used.pop() not in {group, " "}:
            raise _refused("amount_ambiguous", form, field)
        sep = group if group in whole else " "
        if not _grouped_ok(whole.split(sep), form.grouping):
            raise _refused("amount_ambiguous", form, field)
        whole = whole.replace(sep, "")
    if not (whole or fraction):
        raise _refused("amount_invalid", form, field)
    plain = f"{whole or '0'}.{fraction}" if fraction else whole
    return Decimal(f"-{plain}" if negative else plain)


def check_amount(amount: Decimal, currency: str, *, field: str = "amount") -> Decimal:
    """``amount`` as money of ``currency``: finite, not negative, below ``LIMIT`` and
    with at most the currency's decimals — returned at exactly those decimals (what is
    stored, shown and routed on). Otherwise a refusal naming ``field``: more decimals
    are refused (``amount_too_precise``, or ``amount_whole_units`` for a currency
    without a minor unit), never rounded."""
    if not isinstance(amount, Decimal) or not amount.is_finite():
        raise DomainError("amount_invalid", field=field, example=PLAIN.example)
    if amount < 0:
        raise DomainError("amount_negative", field=field)
    if amount >= LIMIT:
        raise DomainError("amount_too_large", field=field, limit=LIMIT)
    digits = minor_digits(currency)
    # Below LIMIT, the quantised value has at most 19 digits; the context is wide
    # enough that quantize never rounds a long fraction into an error.
    with localcontext() as ctx:
        ctx.prec = 40
        exact = amount.quantize(Decimal(1).scaleb(-digits))
        if exact != amount:
            code = "amount_whole_units" if digits == 0 else "amount_too_precise"
            raise DomainError(code, field=field, currency=currency.upper()[:8], num=digits)
    # -0 is 0 (one spelling stored).
    return exact.copy_abs()


def check_number(number: Decimal, *, field: str, label: str) -> Decimal:
    """A declared number field's value: any sign, below ``LIMIT`` in size, at most the
    four decimals an amount is stored with."""
    if not number.is_finite():
        raise DomainError("field_not_number", field=field, label=label)
    if abs(number) >= LIMIT:
        raise DomainError("field_number_too_large", field=field, label=label, limit=LIMIT)
    with localcontext() as ctx:
        ctx.prec = 40
        if number.quantize(Decimal(1).scaleb(-STORED_PLACES)) != number:
            raise DomainError(
                "field_number_too_precise", field=field, label=label, num=STORED_PLACES
            )
    return number
