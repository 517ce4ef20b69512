"""The column type every amount is stored in: exact on both databases.

PostgreSQL keeps ``NUMERIC(19,4)``. SQLite has no exact decimal type (a NUMERIC column
turns 9999.99 into a float), so there an amount is text of one fixed width — fifteen
integer digits, a point and four decimals — which is exact and, amounts never being
negative, sorts and compares in SQL as the numbers do (``amount >= :floor`` binds the
floor through this type too). Both hold the same range: below 10^15, four places, never
negative — and both refuse a value outside it when it is bound, rather than PostgreSQL
rounding a fifth decimal away or SQLite storing text that sorts wrong.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from typing import Any

from sqlalchemy import Numeric, String
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

SCALE = 4
# NUMERIC(19,4): fifteen digits before the point.
LIMIT = Decimal(10) ** (19 - SCALE)
_QUANTUM = Decimal(1).scaleb(-SCALE)
_WIDTH = 19 + 1  # digits and the point


def stored_amount(amount: Decimal) -> Decimal:
    """``amount`` at the column's four places, or ValueError when the column cannot hold
    it exactly: not finite, negative, 10^15 or more, or a fifth decimal."""
    if not amount.is_finite() or amount < 0 or amount >= LIMIT:
        raise ValueError(f"amount out of the stored range: {amount:.40}")
    with localcontext() as ctx:
        ctx.prec = 40  # below LIMIT a long fraction quantises without an error
        exact = amount.quantize(_QUANTUM)
    if exact != amount:
        raise ValueError(f"amount has more than {SCALE} decimal places: {amount:.40}")
    # -0 is 0: one spelling, or "-000…" would sort before every amount.
    return exact.copy_abs()


def sqlite_text(amount: Decimal) -> str:
    """``Decimal("12.5")`` -> ``"000000000000012.5000"``: SQLite's stored spelling."""
    return format(stored_amount(amount), "f").zfill(_WIDTH)


class Money(TypeDecorator[Decimal]):
    impl = Numeric(19, SCALE)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "sqlite":
            return dialect.type_descriptor(String(_WIDTH))
        return dialect.type_descriptor(Numeric(19, SCALE, asdecimal=True))

    def bind_processor(self, dialect: Dialect) -> Any:
        if dialect.name != "sqlite":
            # psycopg binds a Decimal as NUMERIC exactly; the check is all that is added.
            return _checked
        return super().bind_processor(dialect)

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        return sqlite_text(_decimal(value))

    def process_literal_param(self, value: Any, dialect: Dialect) -> Any:
        # A literal (``literal_binds``) compares as the bound value would: the stored
        # text on SQLite (the String type quotes it), a number elsewhere.
        if value is None:
            return None
        if dialect.name == "sqlite":
            return sqlite_text(_decimal(value))
        return stored_amount(_decimal(value))

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


def _decimal(value: Any) -> Decimal:
    # A float is refused (its binary value has more than four places), never rounded.
    return value if isinstance(value, Decimal) else Decimal(value)


def _checked(value: Any) -> Decimal | None:
    return None if value is None else stored_amount(_decimal(value))


def _sqlite_result(value: Any) -> Decimal | None:
    if value is None:
        return None
    # Decimal("000000000000012.5000") == Decimal("12.5000"); str() drops the zeros.
    return Decimal(str(value))
