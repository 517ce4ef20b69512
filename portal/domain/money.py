"""The one rule for what counts as an amount, shared by documents and route previews."""

from __future__ import annotations

from decimal import Decimal

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
