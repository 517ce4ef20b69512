"""What the timeline, print and record tests share: a claim that went the long way round
(submitted, rejected with a comment, reworked, submitted again, reviewed, approved), the
URLs of one document's audit pages, and a decision rewritten as only the database's
owner could (the append-only trigger set aside for one transaction)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from portal.core.db import db, rows_changed
from portal.core.queue import redis_holder
from portal.core.rls import append_only_sql, drop_append_only_sql
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.domain.actor import Actor
from portal.flows.queries import version_cache
from portal.orgchart.queries import chart_cache
from tests.factories import demo_people

FIELDS = {"category": "travel", "expense_date": "2026-11-20", "receipt_number": "R-7"}

# The path the long way round takes, decision by decision.
LONG_WAY = [
    ("draft", "pending_review"),
    ("pending_review", "rejected"),
    ("rejected", "draft"),
    ("draft", "pending_review"),
    ("pending_review", "reviewed"),
    ("reviewed", "approved"),
]


def the_long_way(
    person: Callable[[str], Actor],
    title: str = "Client visit, Penang",
    before_each: Callable[[], None] | None = None,
) -> Any:
    """The claim, each decision taken after ``before_each`` ran (a clock moved on)."""
    siti, nurul, zainal = person("siti"), person("nurul"), person("zainal")
    doc = documents.create_document(
        siti, kind="expense_claim", title=title, amount=Decimal("480.00"), fields=FIELDS
    )
    for actor, key, comment in (
        (siti, "submit", ""),
        (nurul, "reject", "Attach the receipt, please."),
        (siti, "revise", ""),
        (siti, "submit", ""),
        (nurul, "review", "Receipt attached — 谢谢 ✓"),
        (zainal, "approve", ""),
    ):
        if before_each is not None:
            before_each()
        doc = transitions.transition_document(
            actor, doc.reference, key, seen_state=doc.state, comment=comment
        ).document
    return doc


def urls(reference: str, org: str = "acme") -> dict[str, str]:
    base = f"/o/{org}/audit/documents/{reference}"
    return {
        "page": base,
        "print": f"{base}/print",
        "record": f"{base}/record.json",
        "verify": f"{base}/verify",
    }


def rewrite_decision(postgres: bool, org_id: int, statement: str, **params: object) -> int:
    """Run ``statement`` on the decision table as its owner, the append-only trigger set
    aside for this one transaction and put back in it."""
    with unit_of_work(org_id) as uow:
        s = uow.session
        if postgres:
            s.execute(text("ALTER TABLE decision DISABLE TRIGGER decision_append_only"))
        else:
            for sql in drop_append_only_sql("decision", "sqlite"):
                s.execute(text(sql))
        changed = rows_changed(s.execute(text(statement), params))
        if postgres:
            s.execute(text("ALTER TABLE decision ENABLE TRIGGER decision_append_only"))
        else:
            for sql in append_only_sql("decision", "sqlite"):
                s.execute(text(sql))
    return changed


@pytest.fixture
def as_owner(backend, committed) -> Iterator[Callable[[str], Actor]]:
    """The demo organization seeded on one connection as the schema owner, rolled back
    at the end (another connection could neither see the test's rows nor wait for the
    owner's lock); yields its people by first name."""
    # SQLite has no owner but the file's: the app's own engine (its transaction hooks
    # are what make the rollback undo everything).
    owner = create_engine(backend.owner_url) if backend.postgres else None
    assert db.engine is not None
    conn = owner.connect() if owner is not None else db.engine.connect()
    outer = conn.begin()
    db.pin_to(conn)
    redis_holder.get().flushdb()
    version_cache.clear()
    chart_cache.clear()
    try:
        yield demo_people()
    finally:
        db.pin_to(None)
        outer.rollback()
        conn.close()
        if owner is not None:
            owner.dispose()
