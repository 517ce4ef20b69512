"""The amount column (``core.money_column.Money``) holds every amount exactly on both
databases — NUMERIC(19,4) on PostgreSQL, fixed-width text on SQLite — compares and sorts
in SQL as the numbers do, and refuses what it cannot hold instead of rounding it.

SQLite is always checked (in memory); PostgreSQL too when the suite runs on it, in a
temporary table of its own."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest
from sqlalchemy import (
    Column,
    Integer,
    MetaData,
    Table,
    bindparam,
    create_engine,
    insert,
    pool,
    select,
    text,
)
from sqlalchemy.engine import Connection
from sqlalchemy.exc import StatementError

from portal.core.money_column import LIMIT, Money, sqlite_text, stored_amount

EXACT = [
    Decimal("0"),
    Decimal("0.0001"),
    Decimal("0.01"),
    Decimal("9999.99"),
    Decimal("10000"),
    Decimal("123456789012345.67"),
    Decimal("999999999999999.9999"),
]

metadata = MetaData()
probe = Table(
    "money_probe",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("amount", Money()),
    prefixes=["TEMPORARY"],
)


@pytest.fixture(params=["sqlite", "postgresql"])
def conn(request, backend) -> Iterator[Connection]:
    """A connection with an empty temporary ``money_probe`` table, rolled back after."""
    if request.param == "postgresql" and not backend.postgres:
        pytest.skip("PostgreSQL is checked when the suite runs on it")
    url = "sqlite://" if request.param == "sqlite" else backend.owner_url
    engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as connection:
        outer = connection.begin()
        metadata.create_all(connection)
        try:
            yield connection
        finally:
            outer.rollback()
    engine.dispose()


def _store(conn: Connection, *amounts: Decimal) -> None:
    conn.execute(insert(probe), [{"id": i, "amount": a} for i, a in enumerate(amounts, 1)])


def test_amounts_come_back_exactly_as_they_were_stored(conn):
    _store(conn, *EXACT)

    back = conn.execute(select(probe.c.amount).order_by(probe.c.id)).scalars().all()

    assert back == EXACT
    assert all(isinstance(value, Decimal) for value in back)
    # Not merely equal after a float's rounding: the exact digits, at four places.
    assert [format(value, "f") for value in back][-2:] == [
        "123456789012345.6700",
        "999999999999999.9999",
    ]


def test_on_sqlite_an_amount_is_fixed_width_text(conn):
    if conn.dialect.name != "sqlite":
        pytest.skip("SQLite's spelling")
    _store(conn, Decimal("12.5"), Decimal("999999999999999.9999"))

    rows = conn.execute(text("SELECT typeof(amount), amount FROM money_probe ORDER BY id")).all()

    assert [tuple(r) for r in rows] == [
        ("text", "000000000000012.5000"),
        ("text", "999999999999999.9999"),
    ]


def test_sql_compares_and_sorts_amounts_as_numbers(conn):
    # Shuffled, with neighbours a text comparison of unpadded numbers would get wrong
    # ("9999.99" > "10000", "2" > "10").
    amounts = [Decimal(v) for v in ("10000", "2", "10000.01", "0.5", "9999.99", "1E+3", "10")]
    _store(conn, *amounts)

    ordered = conn.execute(select(probe.c.amount).order_by(probe.c.amount)).scalars().all()
    assert ordered == sorted(amounts)

    for floor in (Decimal("0"), Decimal("10"), Decimal("9999.99"), Decimal("10000"), LIMIT - 1):
        expected = sorted(a for a in amounts if a >= floor)
        # The ORM's way: the floor is bound through the column's type.
        by_column = conn.execute(
            select(probe.c.amount).where(probe.c.amount >= floor).order_by(probe.c.amount)
        )
        assert by_column.scalars().all() == expected, floor
        # Hand-written SQL, ``amount >= :x`` with the parameter typed as money.
        by_text = conn.execute(
            text("SELECT amount FROM money_probe WHERE amount >= :x ORDER BY amount")
            .bindparams(bindparam("x", type_=Money()))
            .columns(probe.c.amount),
            {"x": floor},
        )
        assert by_text.scalars().all() == expected, floor


def test_a_literal_amount_compares_as_a_bound_one(conn):
    _store(conn, Decimal("9999.99"), Decimal("10000"))
    query = select(probe.c.id).where(probe.c.amount >= Decimal("10000"))
    sql = str(query.compile(conn, compile_kwargs={"literal_binds": True}))

    assert conn.execute(text(sql)).scalars().all() == [2]


@pytest.mark.parametrize(
    "amount",
    [
        LIMIT,
        Decimal("1" + "0" * 5000),
        Decimal("-0.01"),
        Decimal("0.00001"),
        Decimal("0." + "0" * 5000 + "1"),
        Decimal("NaN"),
        Decimal("Infinity"),
        0.1,  # a float: its binary value is not 0.1
    ],
    ids=["limit", "5000 digits", "negative", "fifth place", "long fraction", "nan", "inf", "float"],
)
def test_what_the_column_cannot_hold_is_refused_not_rounded(conn, amount):
    _store(conn, Decimal("1"))  # the allowed case first

    with pytest.raises(StatementError), conn.begin_nested():
        conn.execute(insert(probe).values(id=2, amount=amount))

    assert conn.execute(select(probe.c.amount)).scalars().all() == [Decimal("1")]


def test_minus_zero_is_stored_as_zero(conn):
    _store(conn, Decimal("-0"), Decimal("0.5"))

    found = conn.execute(select(probe.c.id).where(probe.c.amount <= Decimal("0")))

    assert found.scalars().all() == [1]
    assert format(stored_amount(Decimal("-0.00")), "f") == "0.0000"
    assert sqlite_text(Decimal("-0")) == "000000000000000.0000"


def test_the_range_is_below_ten_to_the_fifteen_with_four_places():
    assert sqlite_text(LIMIT - Decimal("0.0001")) == "999999999999999.9999"
    for outside in (LIMIT, Decimal("-0.0001"), Decimal("0.00005")):
        with pytest.raises(ValueError):
            sqlite_text(outside)
