"""Writing the audit benchmark's data set (``audit_data``) as the schema owner: on
PostgreSQL with COPY into every table, indexes in place as in production; on SQLite
(the tests' small runs) with plain inserts.

Row-level security is forced for the owner too, and PostgreSQL refuses COPY into a
table whose policies apply to the writer: each batch's transaction lifts FORCE on the
tables it writes and puts it back before it commits (DDL is transactional — a batch
that fails leaves FORCE as it was). Ids are drawn from the tables' own sequences, so
the application's next rows never collide with them.

The data set is reused between runs: the first organization's name records the sizes
once everything is written (the marker); anything else under the prefix is a run that
broke off, removed before a new one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import JSON, Connection, Engine, insert, text

from portal.bench.audit_data import (
    CURRENCY,
    DECISION_COLUMNS,
    DOCUMENT_COLUMNS,
    FIRST,
    HISTORY_DAYS,
    LAST,
    OrgPlan,
    flows,
    generate,
    members_for,
    organization_sizes,
)
from portal.bench.cleanup import purge_organizations
from portal.core.db import Base
from portal.domain.graph_json import digest_of, to_json

PREFIX = "audit-bench-"
# The tables a batch writes whose row-level security is forced for the owner.
_FORCED = ("membership", "flow_version", "delegation", "document", "decision", "reference_counter")
# A transaction holds about this many documents (several small organizations, or one).
_BATCH_DOCUMENTS = 50_000


@dataclass(frozen=True)
class Loaded:
    organizations: int
    documents: int
    decisions: int
    seconds: float
    reused: bool


def slug_of(number: int) -> str:
    return f"{PREFIX}{number:04d}"


def marker(documents: int, organizations: int) -> str:
    return f"Audit bench 0: {documents} documents in {organizations} organizations"


class _Writer:
    """Ids and rows for one transaction, by COPY (PostgreSQL) or inserts (SQLite)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.postgres = conn.dialect.name == "postgresql"

    def ids(self, table: str, n: int) -> list[int]:
        if n == 0:
            return []
        if self.postgres:
            return list(
                self.conn.scalars(
                    text(f"SELECT nextval('{table}_id_seq') FROM generate_series(1, :n)"),  # noqa: S608
                    {"n": n},
                )
            )
        top = self.conn.scalar(text(f"SELECT coalesce(max(id), 0) FROM {table}"))  # noqa: S608
        return list(range(int(top or 0) + 1, int(top or 0) + 1 + n))

    def rows(self, table_name: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        if self.postgres:
            names = ", ".join(columns)
            cursor = self.conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            with cursor.copy(f"COPY {table_name} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        # SQLite: through the tables' own column types (money, UTC times, JSON), as the
        # application writes them; the JSON arrives as text for COPY, so it is read back.
        table = Base.metadata.tables[table_name]
        json_columns = {c.name for c in table.columns if isinstance(c.type, JSON)}
        batch = [
            {
                c: json.loads(v) if c in json_columns and isinstance(v, str) else v
                for c, v in zip(columns, row, strict=True)
            }
            for row in rows
        ]
        if batch:
            self.conn.execute(insert(table), batch)


def _organization(w: _Writer, number: int, size: int, now: datetime) -> OrgPlan:
    """The organization, its members (two admins, an auditor, the rest requesters and
    approvers), the seeded flows as version 1, and two delegations."""
    slug = slug_of(number)
    began = now - timedelta(days=HISTORY_DAYS + 1)
    org_id = w.conn.scalar(
        text(
            "INSERT INTO organization (slug, name, base_currency, default_locale, created_at,"
            " time_zone) VALUES (:slug, :name, :cur, 'en', :at, 'Asia/Kuala_Lumpur') RETURNING id"
        ),
        {"slug": slug, "name": f"Audit bench {number}", "cur": CURRENCY, "at": began},
    )
    count = members_for(size)
    user_ids, member_ids = w.ids("app_user", count), w.ids("membership", count)
    names = [
        f"{FIRST[i % len(FIRST)]} {LAST[(i // len(FIRST)) % len(LAST)]} {i}" for i in range(count)
    ]
    w.rows(
        "app_user",
        ("id", "email", "name", "active", "session_version", "created_at"),
        ((u, f"m{i}@{slug}.test", names[i], True, 1, began) for i, u in enumerate(user_ids)),
    )
    roles = ['["admin"]', '["admin"]', '["auditor"]']
    w.rows(
        "membership",
        ("id", "org_id", "user_id", "roles", "active", "created_at"),
        (
            (m, org_id, u, roles[i] if i < 3 else "[]", True, began)
            for i, (m, u) in enumerate(zip(member_ids, user_ids, strict=True))
        ),
    )
    graphs = [f.graph for f in _FLOWS.values()]
    version_ids = w.ids("flow_version", len(graphs))
    w.rows(
        "flow_version",
        ("id", "org_id", "kind", "version", "graph", "digest", "published_at"),
        (
            (v, org_id, g.kind, 1, json.dumps(to_json(g)), digest_of(g), began)
            for v, g in zip(version_ids, graphs, strict=True)
        ),
    )
    delegation_ids = w.ids("delegation", 2)
    pairs = [(member_ids[3], member_ids[4]), (member_ids[4], member_ids[3])]
    w.rows(
        "delegation",
        (
            "id",
            "org_id",
            "delegator_id",
            "delegate_id",
            "valid_from",
            "valid_to",
            "reason",
            "created_by",
            "created_at",
        ),
        (
            (
                d,
                org_id,
                a,
                b,
                began.date(),
                now.date(),
                "Cover while travelling",
                member_ids[0],
                began,
            )
            for d, (a, b) in zip(delegation_ids, pairs, strict=True)
        ),
    )
    return OrgPlan(
        org_id=org_id,
        number=number,
        documents=size,
        now=now,
        member_ids=member_ids,
        version_ids={g.kind: v for g, v in zip(graphs, version_ids, strict=True)},
        delegations=[(d, a, b) for d, (a, b) in zip(delegation_ids, pairs, strict=True)],
        document_ids=w.ids("document", size),
    )


_FLOWS = flows()


def _fill_batch(w: _Writer, numbers: list[int], sizes: list[int], now: datetime) -> tuple[int, int]:
    documents = decisions = 0
    for number in numbers:
        plan = _organization(w, number, sizes[number], now)
        out = generate(plan, _FLOWS)
        w.rows("document", DOCUMENT_COLUMNS, out.documents)
        w.rows("decision", DECISION_COLUMNS, out.decisions)
        w.rows(
            "reference_counter",
            ("org_id", "prefix", "year", "last_number"),
            ((plan.org_id, p, y, n) for (p, y), n in sorted(out.counters.items())),
        )
        documents += len(out.documents)
        decisions += len(out.decisions)
    return documents, decisions


def _marked(owner: Engine, documents: int, organizations: int) -> bool:
    with owner.connect() as conn:
        name = conn.scalar(text("SELECT name FROM organization WHERE slug = :s"), {"s": slug_of(0)})
    return name == marker(documents, organizations)


def _set_force(conn: Connection, force: bool) -> None:
    if conn.dialect.name != "postgresql":
        return
    for table in _FORCED:
        conn.execute(text(f"ALTER TABLE {table} {'' if force else 'NO '}FORCE ROW LEVEL SECURITY"))


def fill(
    owner: Engine,
    owner_url: str,
    *,
    documents: int,
    organizations: int,
    now: datetime,
    progress: Callable[[str], None],
) -> Loaded:
    """The data set, generated and written unless a complete one of these sizes is
    there already."""
    started = time.perf_counter()
    if _marked(owner, documents, organizations):
        progress(f"reusing the data set already there ({marker(documents, organizations)})")
        return Loaded(organizations, documents, 0, 0.0, reused=True)
    removed = purge_organizations(owner_url, slug_like=PREFIX + "%", email_like=f"%@{PREFIX}%")
    if removed:
        progress(f"removed {removed} organizations of an earlier, different or unfinished run")
    sizes = organization_sizes(documents, organizations)
    progress(
        f"generating {organizations:,} organizations, {documents:,} documents (largest"
        f" {sizes[0]:,}, median {sizes[organizations // 2]:,}) …"
    )
    done_docs = done_decisions = 0
    number = 0
    while number < organizations:
        batch = [number]
        total = sizes[number]
        while batch[-1] + 1 < organizations and total + sizes[batch[-1] + 1] <= _BATCH_DOCUMENTS:
            batch.append(batch[-1] + 1)
            total += sizes[batch[-1]]
        with owner.begin() as conn:
            _set_force(conn, False)
            d, c = _fill_batch(_Writer(conn), batch, sizes, now)
            _set_force(conn, True)
        number = batch[-1] + 1
        done_docs, done_decisions = done_docs + d, done_decisions + c
        rate = done_docs / (time.perf_counter() - started)
        progress(
            f"  {number:>5,}/{organizations:,} organizations, {done_docs:>9,} documents,"
            f" {done_decisions:>10,} decisions ({rate:,.0f} documents/s)"
        )
    with owner.begin() as conn:
        conn.execute(
            text("UPDATE organization SET name = :n WHERE slug = :s"),
            {"n": marker(documents, organizations), "s": slug_of(0)},
        )
        if conn.dialect.name == "postgresql":
            progress("ANALYZE …")
            for table in ("organization", "app_user", "membership", "document", "decision"):
                conn.execute(text(f"ANALYZE {table}"))
        else:
            conn.execute(text("ANALYZE"))
    seconds = time.perf_counter() - started
    progress(f"generated in {seconds:.0f} s")
    return Loaded(organizations, done_docs, done_decisions, seconds, reused=False)


def remove(owner_url: str) -> int:
    return purge_organizations(owner_url, slug_like=PREFIX + "%", email_like=f"%@{PREFIX}%")
