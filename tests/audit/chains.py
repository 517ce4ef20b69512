"""The world the verification tests run in: the demo organization with Siti's claims in
several states, a second organization (its own chart, its own purchase requests) that
must stay invisible, all on one connection as the schema owner — so a test can set the
append-only trigger aside for one transaction and rewrite a decision, as only the
database's owner could — rolled back at the end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from portal.accounts import services as accounts
from portal.bench.sweep import PEOPLE, chart_organization, submit_through_the_pipeline
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

CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20", "receipt_number": "R-1"}
GLOBEX = "globex-verify"


def claim(actor: Actor, title: str = "Client visit, Penang", amount: str = "480.00") -> Any:
    return documents.create_document(
        actor, kind="expense_claim", title=title, amount=Decimal(amount), fields=CLAIM_FIELDS
    )


def walk(doc: Any, *steps: tuple[Actor, str]) -> Any:
    for actor, key in steps:
        doc = transitions.transition_document(
            actor, doc.reference, key, seen_state=doc.state, comment=""
        ).document
    return doc


@dataclass
class World:
    person: Callable[[str], Actor]
    # Siti's claims: a draft (no decision), one submitted (1), one approved (3).
    draft: Any
    submitted: Any
    approved: Any
    acme_id: int
    globex_id: int
    postgres: bool

    def tamper(self, org_id: int, statement: str, **params: object) -> int:
        """Run ``statement`` on the decision table as its owner, the append-only
        trigger set aside for this one transaction (and put back in it)."""
        with unit_of_work(org_id) as uow:
            s = uow.session
            if self.postgres:
                s.execute(text("ALTER TABLE decision DISABLE TRIGGER decision_append_only"))
            else:
                for sql in drop_append_only_sql("decision", "sqlite"):
                    s.execute(text(sql))
            changed = rows_changed(s.execute(text(statement), params))
            if self.postgres:
                s.execute(text("ALTER TABLE decision ENABLE TRIGGER decision_append_only"))
            else:
                for sql in append_only_sql("decision", "sqlite"):
                    s.execute(text(sql))
        return changed

    def decisions_in(self, org_id: int) -> int:
        with unit_of_work(org_id) as uow:
            return int(
                uow.session.scalar(
                    text("SELECT count(*) FROM decision WHERE org_id = :o"), {"o": org_id}
                )
                or 0
            )

    def documents_in(self, org_id: int) -> int:
        with unit_of_work(org_id) as uow:
            return int(
                uow.session.scalar(
                    text("SELECT count(*) FROM document WHERE org_id = :o"), {"o": org_id}
                )
                or 0
            )


def build_world(postgres: bool) -> World:
    person = demo_people()
    siti, nurul, zainal = person("siti"), person("nurul"), person("zainal")
    draft = claim(siti, "Taxi to the airport", "35.00")
    submitted = walk(claim(siti, "Hotel, Johor Bahru", "220.00"), (siti, "submit"))
    approved = walk(claim(siti), (siti, "submit"), (nurul, "review"), (zainal, "approve"))
    emails = {who: f"{who}@{GLOBEX}.test" for who in PEOPLE}
    for who, email in emails.items():
        accounts.create_user(email, who.title(), "globex-pass-123")
    globex_id, _ = chart_organization(GLOBEX, emails)
    submit_through_the_pipeline(GLOBEX, emails["requester"], 2)
    return World(person, draft, submitted, approved, siti.org_id, globex_id, postgres)


@pytest.fixture
def world(backend, committed) -> Iterator[World]:
    """The world, on one connection as the schema owner, rolled back at the end (another
    connection could not see the test's rows, nor wait for the owner's lock)."""
    # SQLite has no owner role: the app's own engine, configured for its SAVEPOINTs.
    owner = create_engine(backend.owner_url) if backend.postgres else None
    assert db.engine is not None
    conn = (owner or db.engine).connect()
    outer = conn.begin()
    db.pin_to(conn)
    redis_holder.get().flushdb()
    version_cache.clear()
    chart_cache.clear()
    try:
        yield build_world(backend.postgres)
    finally:
        db.pin_to(None)
        outer.rollback()
        conn.close()
        if owner is not None:
            owner.dispose()
