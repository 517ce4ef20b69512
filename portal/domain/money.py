"""The one rule for what counts as an amount, and the one way a typed amount is read,
shared by documents, their forms and route previews."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from portal.domain.errors import DomainError

# 15 significant digits (11 + 4 decimals): exact even where SQLite stores a float.
MAX_AMOUNT = Decimal("1e11")
MAX_DECIMALS = 4


def check_amount(amount: Decimal, *, field: str = "amount") -> Decimal:
    """``amount`` if it is finite, non-negative, below MAX_AMOUNT and has at most
    MAX_DECIMALS places; otherwise a refusal naming ``field``."""
    if not amount.is_finite() or amount >= MAX_AMOUNT:
        raise DomainError("amount_invalid", field=field)
    if amount < 0:
        raise DomainError("amount_negative", field=field)
    if amount != amount.quantize(Decimal(1).scaleb(-MAX_DECIMALS)):
        raise DomainError("amount_too_precise", field=field, places=MAX_DECIMALS)
    return amount


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

# What people type between digit groups: commas and (no-break) spaces.
_GROUPING = str.maketrans("", "", " \u00a0\u202f,")


def plain_number(text: str | None) -> str:
    """``"1,234.50"`` -> ``"1234.50"``: the grouping a person types, removed."""
    return (text or "").translate(_GROUPING).strip()


def parse_amount(text: object, *, field: str = "amount") -> Decimal:
    """A typed amount as a Decimal, grouping removed; ``amount_invalid`` (naming
    ``field``) for anything that is not a finite decimal number. Sign and precision are
    ``check_amount``'s to judge."""
    plain = plain_number(str(text))
    # ASCII digits, a decimal point and an exponent only: Decimal() also reads "1_000",
    # "NaN" and other scripts' digits ("١٢٣"), none of which a person means as an amount
    # (an exponent gets as far as check_amount, which says why it is too large).
    if isinstance(text, bool) or not _DECIMAL.fullmatch(plain):
        raise DomainError("amount_invalid", field=field)
    try:
        return Decimal(plain)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        raise DomainError("amount_invalid", field=field) from None
