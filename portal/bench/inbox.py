"""`portal bench inbox`: the inbox page's server time for a member with 200+ open tasks,
in a database holding a million tasks across a thousand organizations — beside a bare
Flask route rendering the same number of rows from a list in memory, in the same run.

The data goes in with set-based SQL (one transaction per organization, the tenant set
for row-level security), not through the services: building a million documents one
by one would take longer than anyone would wait. It is removed afterwards unless
``keep`` is asked for (then a second run reuses it).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from flask import Flask, has_app_context, render_template_string
from sqlalchemy import Engine, create_engine, pool, text

from portal.bench.cleanup import purge_organizations
from portal.core.security import hash_password
from portal.domain.graph_json import digest_of, to_json
from portal.flows.seeded import expense_claim

PREFIX = "inbox-bench-"
# The generated accounts' password: they exist only for the run (removed after it).
PASSWORD = "inbox-bench-password"  # noqa: S105
ROWS_SHOWN = 200


@dataclass(frozen=True)
class Figures:
    organizations: int
    tasks: int
    member_tasks: int
    inbox_median_ms: float
    inbox_p95_ms: float
    bare_median_ms: float
    bare_p95_ms: float

    @property
    def ratio(self) -> float:
        return self.inbox_p95_ms / self.bare_p95_ms if self.bare_p95_ms else 0.0


_DOCUMENT_COLUMNS = (
    "INSERT INTO document (org_id, kind, reference, title, description, amount, currency,"
    " fields, requester_id, flow_version_id, version, state, state_entered_at, row_version,"
    " chain_seq, chain_hash, created_at, updated_at)"
    " SELECT :org, 'expense_claim', 'EXP-2026-' || g, 'Claim ' || g, '', 100 + g, 'MYR', '{}',"
    " :req, :ver, 1, 'pending_review', :now, 1, 0, :hash, :now, :now"
)
_DOCUMENTS_PG = _DOCUMENT_COLUMNS + " FROM generate_series(1, :n) AS t(g)"
# Constant text only: the numbers arrive as bound parameters.
_DOCUMENTS_SQLITE = (
    "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < :n) "  # noqa: S608
    + _DOCUMENT_COLUMNS
    + " FROM s"
)


def _existing(conn) -> int:
    return conn.scalar(
        text("SELECT count(*) FROM organization WHERE slug LIKE :p"), {"p": PREFIX + "%"}
    )


def fill(
    owner: Engine,
    organizations: int,
    per_org: int,
    member_tasks: int,
    progress: Callable[[str], None],
) -> None:
    """Organizations with a requester and an approver each, ``per_org`` submitted claims
    with one open task each; the first organization's approver gets ``member_tasks``.
    Written as the schema owner: the app role may create neither organizations nor
    accounts (the platform does, one at a time)."""
    graph = expense_claim("MYR")
    graph_json = json.dumps(to_json(graph))
    digest = digest_of(graph)
    password_hash = hash_password(PASSWORD)
    now = datetime.now(UTC)
    with owner.begin() as conn:
        existing = _existing(conn)
    if existing:
        progress(f"reusing the {existing} benchmark organizations already in the database")
    # Each organization is filled in one transaction, so a kept run resumes where it ended.
    for n in range(existing, organizations):
        slug = f"{PREFIX}{n:04d}"
        count = member_tasks if n == 0 else per_org
        with owner.begin() as conn:
            org_id = conn.scalar(
                text(
                    "INSERT INTO organization (slug, name, base_currency, default_locale, created_at)"
                    " VALUES (:slug, :name, 'MYR', 'en', :now) RETURNING id"
                ),
                {"slug": slug, "name": f"Inbox bench {n}", "now": now},
            )
            users = [
                conn.scalar(
                    text(
                        "INSERT INTO app_user (email, name, created_at)"
                        " VALUES (:email, :name, :now) RETURNING id"
                    ),
                    {"email": f"{who}@{slug}.test", "name": f"{who.title()} {n}", "now": now},
                )
                for who in ("requester", "approver")
            ]
            for user in users:
                conn.execute(
                    text(
                        "INSERT INTO credential (user_id, password_hash, password_changed_at,"
                        " recovery_codes) VALUES (:user, :hash, :now, '[]')"
                    ),
                    {"user": user, "hash": password_hash, "now": now},
                )
            if owner.dialect.name == "postgresql":
                conn.execute(
                    text("SELECT set_config('app.current_org', :org, true)"), {"org": str(org_id)}
                )
            requester, approver = (
                conn.scalar(
                    text(
                        "INSERT INTO membership (org_id, user_id, roles, active, created_at)"
                        " VALUES (:org, :user, '[]', true, :now) RETURNING id"
                    ),
                    {"org": org_id, "user": user, "now": now},
                )
                for user in users
            )
            version_id = conn.scalar(
                text(
                    "INSERT INTO flow_version (org_id, kind, version, graph, digest, published_at)"
                    " VALUES (:org, 'expense_claim', 1, :graph, :digest, :now) RETURNING id"
                ),
                {"org": org_id, "graph": graph_json, "digest": digest, "now": now},
            )
            params = {"org": org_id, "req": requester, "ver": version_id, "now": now, "n": count}
            conn.execute(
                text(_DOCUMENTS_PG if owner.dialect.name == "postgresql" else _DOCUMENTS_SQLITE),
                {**params, "hash": "0" * 64},
            )
            conn.execute(
                text(
                    "INSERT INTO task (org_id, document_id, state, assignee_id, via, transitions,"
                    " band_floor, due_at, status, created_at)"
                    " SELECT org_id, id, 'pending_review', :approver, 'grant', '[\"review\", \"reject\"]',"
                    " 0, NULL, 'open', :now FROM document WHERE org_id = :org"
                ),
                {"org": org_id, "approver": approver, "now": now},
            )
        if n % 100 == 99:
            progress(f"  {n + 1} organizations filled")


def remove(owner_url: str, progress: Callable[[str], None]) -> None:
    progress("removing the benchmark organizations …")
    purge_organizations(owner_url, slug_like=PREFIX + "%", email_like=f"%@{PREFIX}%")


def _timings(get: Callable[[], object], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        get()
        samples.append((time.perf_counter() - start) * 1000)
    return sorted(samples)


def _p95(samples: list[float]) -> float:
    return samples[min(len(samples) - 1, int(len(samples) * 0.95))]


_BARE = """<!doctype html><html><body><table>
{% for r in rows %}<tr><td><a href="/d/{{ r.reference }}">{{ r.reference }}</a></td><td>{{ r.title }}</td>
<td>{{ r.requester }}</td><td>{{ r.amount }}</td><td>{{ r.state }}</td><td>{{ r.age }}</td></tr>{% endfor %}
</table></body></html>"""


def bare_app() -> Flask:
    """The floor: a Flask route rendering ROWS_SHOWN rows from a list in memory."""
    app = Flask("bare")
    rows = [
        {
            "reference": f"EXP-2026-{i}",
            "title": f"Claim {i}",
            "requester": "Requester 0",
            "amount": f"MYR{100 + i}.00",
            "state": "Pending review",
            "age": "2 days",
        }
        for i in range(ROWS_SHOWN)
    ]

    @app.get("/inbox")
    def inbox():
        return render_template_string(_BARE, rows=rows)

    return app


def measure(
    app: Flask, rounds: int, progress: Callable[[str], None]
) -> tuple[list[float], list[float]]:
    """Sign the first organization's approver in, then time its inbox and the bare
    route, alternating, after a warm-up. Called outside any application context, so
    each request loads its user and counts afresh, as in production."""
    if has_app_context():
        raise RuntimeError("measure() must run outside an application context")
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    signed_in = client.post(
        "/login",
        data={"email": f"approver@{PREFIX}0000.test", "password": PASSWORD, "csrf_token": token},
    )
    if signed_in.status_code != 302:
        raise RuntimeError("could not sign the benchmark approver in")
    inbox_url = f"/o/{PREFIX}0000/inbox/"
    bare = bare_app().test_client()
    for _ in range(5):
        client.get(inbox_url)
        bare.get("/inbox")
    first = client.get(inbox_url)
    if first.status_code != 200 or first.get_data(as_text=True).count("EXP-2026-") < ROWS_SHOWN:
        raise RuntimeError("the inbox did not show its rows")
    progress(f"timing {rounds} requests each, alternating …")
    inbox, floor = [], []
    for _ in range(rounds):
        inbox += _timings(lambda: client.get(inbox_url), 1)
        floor += _timings(lambda: bare.get("/inbox"), 1)
    return sorted(inbox), sorted(floor)


def bench_inbox(
    app: Flask,
    *,
    organizations: int = 1001,
    per_org: int = 1000,
    member_tasks: int = 250,
    rounds: int = 100,
    keep: bool = False,
    progress: Callable[[str], None] = print,
) -> Figures:
    progress(f"filling {organizations} organizations × {per_org} open tasks …")
    started = time.perf_counter()
    owner_url = app.extensions["portal.settings"].migrate_database_url
    owner = create_engine(owner_url, poolclass=pool.NullPool)
    try:
        fill(owner, organizations, per_org, member_tasks, progress)
    finally:
        owner.dispose()
    progress(f"filled in {time.perf_counter() - started:.0f} s")
    try:
        inbox, floor = measure(app, rounds, progress)
        return Figures(
            organizations,
            (organizations - 1) * per_org + member_tasks,
            member_tasks,
            statistics.median(inbox),
            _p95(inbox),
            statistics.median(floor),
            _p95(floor),
        )
    finally:
        if not keep:
            remove(owner_url, progress)
