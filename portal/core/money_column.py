"""The column type every amount is stored in: exact on both databases.

PostgreSQL keeps ``NUMERIC(19,4)``. SQLite has no exact decimal type (a NUMERIC column
turns 9999.99 into a float), so there an amount is text of one fixed width — fifteen
integer digits, a point and four decimals — which is exact and, amounts never being
negative, sorts and compares in SQL as the numbers do (``amount >= :floor`` binds the
floor through this type too). Both hold the same range: below 10^15, four places.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import Numeric, String
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

SCALE = 4
# NUMERIC(19,4): fifteen digits before the point.
LIMIT = Decimal(10) ** (19 - SCALE)
_QUANTUM = Decimal(1).scaleb(-SCALE)
_WIDTH = 19 + 1  # digits and the point


def sqlite_text(amount: Decimal) -> str:
    """``Decimal("12.5")`` -> ``"000000000000012.5000"``: SQLite's stored spelling."""
    if not amount.is_finite() or amount < 0 or amount >= LIMIT:
        raise ValueError(f"amount out of the stored range: {amount}")
    exact = amount.quantize(_QUANTUM)
    if exact != amount:
        raise ValueError(f"amount has more than {SCALE} decimal places: {amount}")
    return format(exact, "f").zfill(_WIDTH)


class Money(TypeDecorator[Decimal]):
    impl = Numeric(19, SCALE)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "sqlite":
            return dialect.type_descriptor(String(_WIDTH))
        return dialect.type_descriptor(Numeric(19, SCALE, asdecimal=True))

    def bind_processor(self, dialect: Dialect) -> Any:
        if dialect.name != "sqlite":
            # psycopg binds a Decimal as NUMERIC exactly: no per-value Python call.
            return None
        return super().bind_processor(dialect)

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        return sqlite_text(Decimal(value))

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        if dialect.name != "sqlite":
            # psycopg already answers NUMERIC as Decimal.
            return self.load_dialect_impl(dialect).result_processor(dialect, coltype)
        return _sqlite_result

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        return _sqlite_result(value)

    @property
    def python_type(self) -> type[Decimal]:
        return Decimal


def _sqlite_result(value: Any) -> Decimal | None:
    if value is None:
        return None
    # Decimal("000000000000012.5000") == Decimal("12.5000"); str() drops the zeros.
    return Decimal(str(value))
