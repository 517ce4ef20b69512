"""`portal bench decisions --explain`: every statement one decision sends, with the plan
PostgreSQL runs it by once the driver has prepared it — the *generic* plan, chosen
without the parameters' values, which is the plan a busy process actually uses.

The statements are captured as one decision runs, then each is prepared again under
``plan_cache_mode = force_generic_plan`` and run with ``EXPLAIN (ANALYZE, BUFFERS)``
inside a transaction that is rolled back (as the application's role, the organization
set, row-level security in force).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

_NAMED = re.compile(r"%\((\w+)\)s")


@dataclass(frozen=True)
class Explained:
    statement: str
    plan: str


@contextmanager
def captured(engine: Engine) -> Iterator[list[tuple[str, Any]]]:
    """The statements and parameters the engine sends while the block runs."""
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, params: Any, *_rest: Any) -> None:
        seen.append((statement, params))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _numbered(statement: str, params: Any) -> tuple[str, list[Any]] | None:
    """``statement`` with ``$n`` placeholders, and its values in their order; None for
    what cannot be prepared (no parameters, or a transaction's own commands)."""
    if not isinstance(params, dict) or not params:
        return None
    order: list[str] = []

    def number(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in order:
            order.append(name)
        return f"${order.index(name) + 1}"

    return _NAMED.sub(number, statement), [params[name] for name in order]


def explain(
    engine: Engine, org_id: int, statements: list[tuple[str, Any]], wanted: Callable[[str], bool]
) -> list[Explained]:
    """The generic plan of each ``wanted`` statement, run (and rolled back) once."""
    import psycopg

    raw = engine.raw_connection()
    plans: list[Explained] = []
    try:
        dbapi = raw.driver_connection
        assert dbapi is not None
        for statement, params in statements:
            numbered = _numbered(statement, params)
            if numbered is None or not wanted(statement):
                continue
            sql, values = numbered
            with dbapi.transaction(force_rollback=True):
                cur = psycopg.ClientCursor(dbapi)
                cur.execute("SELECT set_config('app.current_org', %s, true)", (str(org_id),))
                cur.execute("SET LOCAL plan_cache_mode = force_generic_plan")
                cur.execute(f"PREPARE bench_plan AS {sql}")
                marks = ", ".join(["%s"] * len(values))
                cur.execute(
                    f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE bench_plan({marks})", values
                )
                plan = "\n".join(row[0] for row in cur.fetchall())
                cur.execute("DEALLOCATE bench_plan")
            plans.append(Explained(" ".join(statement.split()), plan))
    finally:
        raw.close()
    return plans
