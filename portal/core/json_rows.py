"""``json_rows(a, b, …)``: the rows of a correlated subquery as one JSON array of arrays,
so that a statement can carry a few child rows beside its parent row and a read costs
one round trip instead of one per table. NULL (PostgreSQL) or ``[]`` (SQLite) when
there are none; ``rows_of`` reads either as a list.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import JSON


class json_rows(FunctionElement[Any]):  # noqa: N801 - read as a SQL function
    type = JSON()
    inherit_cache = True
    name = "json_rows"


@compiles(json_rows, "postgresql")
def _postgresql(element: json_rows, compiler: SQLCompiler, **kw: Any) -> str:
    return f"json_agg(json_build_array({compiler.process(element.clauses, **kw)}))"


@compiles(json_rows, "sqlite")
def _sqlite(element: json_rows, compiler: SQLCompiler, **kw: Any) -> str:
    # A JSON column is text to SQLite: json() keeps it a value, not a string.
    values = ", ".join(
        f"json({compiler.process(c, **kw)})"
        if isinstance(c.type, JSON)
        else compiler.process(c, **kw)
        for c in element.clauses
    )
    return f"json_group_array(json_array({values}))"


def rows_of(value: Any) -> list[list[Any]]:
    """What a ``json_rows`` column came back as, as a list of rows."""
    return list(value) if value else []
