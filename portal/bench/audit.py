"""`portal bench audit`: the auditor's search and export at the service layer, over a
million documents and five million decisions in a thousand organizations of very
different sizes (``audit_data``, written by ``audit_load``).

Measured as the auditor of the largest organization and of a median one: five
representative searches, each asked ``rounds`` times with varied values (p50 and p95 of
``audit.queries.search.search``), and the export rate of the search's CSV and JSON
(``audit.services.exports.start_search_export``), consumed to the last chunk until at
least ``export_rows`` rows went through. Targets: p95 < 100 ms, ≥ 20,000 rows/s.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from flask import Flask
from sqlalchemy import create_engine, pool

from portal.accounts import queries as account_queries
from portal.audit.queries.search import search
from portal.audit.services.exports import start_search_export
from portal.bench.audit_data import HISTORY_DAYS, organization_sizes
from portal.bench.audit_load import Loaded, fill, remove, slug_of
from portal.domain.actor import Actor
from portal.domain.audit_query import parse_audit_query

SEARCHES = (
    "kind + state, newest first",
    "requester",
    "approver (anyone who decided)",
    "amount + created range, by amount",
    "text in title, page 3",
)
_STATES = {
    "expense_claim": ("received", "rejected", "pending_review", "completed", "cancelled"),
    "purchase_request": ("approved", "rejected", "cancelled"),
    "leave_request": ("approved", "rejected"),
}
_WORDS = ("hotel", "taxi", "flight", "laptops", "penang", "mileage", "parking", "monitors")


@dataclass(frozen=True)
class Timing:
    search: str
    organization: str
    documents: int
    median_ms: float
    p95_ms: float
    # The matches the searches found, on average (capped counts as counted).
    matches: int


@dataclass(frozen=True)
class ExportRate:
    fmt: str
    rows: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.rows / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class Figures:
    loaded: Loaded
    timings: list[Timing] = field(default_factory=list)
    exports: list[ExportRate] = field(default_factory=list)


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def auditor_of(number: int) -> Actor:
    slug = slug_of(number)
    user = account_queries.find_user(f"m2@{slug}.test")
    actor = account_queries.actor_for(slug, user.id, None) if user else None
    if actor is None or not actor.is_auditor:
        raise RuntimeError(f"no auditor in {slug}")
    return actor


def _arguments(rng: random.Random, which: int, members: list[int]) -> dict[str, str]:
    """The query string of search ``which`` with values picked by ``rng``."""
    people = members[3:]
    if which == 0:
        kind = rng.choice(("expense_claim", "expense_claim", "purchase_request", "leave_request"))
        return {"kind": kind, "state": rng.choice(_STATES[kind]), "sort": "-created"}
    if which == 1:
        return {"requester_id": str(rng.choice(people))}
    if which == 2:
        return {"approver_id": str(rng.choice(people[: max(2, len(people) // 8)]))}
    if which == 3:
        low = rng.randint(50, 500)
        first = datetime.now(UTC).date() - timedelta(days=rng.randint(60, HISTORY_DAYS))
        return {
            "amount_min": str(low),
            "amount_max": str(low + rng.randint(200, 2_000)),
            "created_from": first.isoformat(),
            "created_to": (first + timedelta(days=rng.randint(30, 180))).isoformat(),
            "sort": rng.choice(("amount", "-amount")),
        }
    return {"text": rng.choice(_WORDS), "page": "3"}


def time_searches(
    actor: Actor, documents: int, rounds: int, progress: Callable[[str], None]
) -> list[Timing]:
    rng = random.Random(18)  # noqa: S311 - varied searches, the same every run
    first, errors = parse_audit_query({})
    members = sorted(m.id for m in search(actor, first).members)
    timings = []
    for which, name in enumerate(SEARCHES):
        samples: list[float] = []
        matches = 0
        for n in range(rounds + 3):  # three to warm up, not counted
            query, errors = parse_audit_query(_arguments(rng, which, members))
            if errors:
                raise RuntimeError(f"{name}: {[e.code for e in errors]}")
            started = time.perf_counter()
            page = search(actor, query)
            elapsed = (time.perf_counter() - started) * 1000
            if n >= 3:
                samples.append(elapsed)
                matches += page.total
        timings.append(
            Timing(
                name,
                actor.org_slug,
                documents,
                statistics.median(samples),
                _p95(samples),
                matches // rounds,
            )
        )
        progress(f"  {actor.org_slug}: {name}: p95 {timings[-1].p95_ms:.1f} ms")
    return timings


def time_export(actor: Actor, fmt: str, at_least: int) -> ExportRate:
    """The whole organization's search exported until ``at_least`` rows went through."""
    query, _ = parse_audit_query({})
    rows, seconds = 0, 0.0
    while rows < at_least or rows == 0:
        started = time.perf_counter()
        export = start_search_export(actor, query, fmt, request_id=None, max_rows=10**9)
        size = 0
        for chunk in export.chunks:
            size += len(chunk)
        seconds += time.perf_counter() - started
        if export.rows == 0 or size == 0:
            raise RuntimeError("the export wrote nothing")
        rows += export.rows
    return ExportRate(fmt, rows, seconds)


def bench_audit(
    app: Flask,
    *,
    documents: int = 1_000_000,
    organizations: int = 1_000,
    rounds: int = 50,
    export_rows: int = 100_000,
    clean: bool = False,
    progress: Callable[[str], None] = print,
) -> Figures:
    settings = app.extensions["portal.settings"]
    owner_url = settings.migrate_database_url
    owner = create_engine(owner_url, poolclass=pool.NullPool)
    try:
        loaded = fill(
            owner,
            owner_url,
            documents=documents,
            organizations=organizations,
            now=datetime.now(UTC),
            progress=progress,
        )
    finally:
        owner.dispose()
    try:
        sizes = organization_sizes(documents, organizations)
        median = organizations // 2
        figures = Figures(loaded)
        with app.app_context():
            for number in dict.fromkeys((0, median)):
                actor = auditor_of(number)
                progress(f"timing {rounds} searches of each kind in {actor.org_slug} …")
                figures.timings.extend(time_searches(actor, sizes[number], rounds, progress))
            largest = auditor_of(0)
            for fmt in ("csv", "json"):
                progress(f"exporting {largest.org_slug} as {fmt} …")
                figures.exports.append(time_export(largest, fmt, export_rows))
        return figures
    finally:
        if clean:
            progress("removing the benchmark organizations …")
            remove(owner_url)
