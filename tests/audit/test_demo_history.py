"""The demo's history: ``acme`` seeded with ten weeks of documents played through the
real services — enough, and varied enough, for the auditor's pages to show something —
once, and never again on the next start. Globex, beside it, gets none of it."""

from __future__ import annotations

import time
from collections import Counter
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from portal.accounts import queries as account_queries
from portal.audit.queries.search import search
from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.demo import seed_demo
from portal.demo.stories import STORIES
from portal.documents.models import Decision, Document, Task, TaskStatus
from portal.documents.queries import detail
from portal.domain.audit_query import parse_audit_query
from tests.factories import actor_of

NOW = datetime(2026, 12, 2, 7, 30, tzinfo=UTC)


def _documents(org_id: int) -> list[Document]:
    with unit_of_work(org_id) as uow:
        rows = uow.session.scalars(select(Document).where(Document.org_id == org_id)).all()
        uow.session.expunge_all()
        return list(rows)


def _count(org_id: int, model) -> int:
    with unit_of_work(org_id) as uow:
        return int(
            uow.session.scalar(
                select(func.count()).select_from(model).where(model.org_id == org_id)
            )
            or 0
        )


def test_the_demo_history_gives_the_auditor_a_populated_organization(app, globex):
    clock.freeze(NOW)
    started = time.perf_counter()
    assert seed_demo(history=True) is True
    seconds = time.perf_counter() - started
    # The clock is put back where it stood.
    assert clock.frozen_at == NOW

    org = account_queries.find_organization("acme")
    assert org is not None
    docs = _documents(org.id)
    assert len(docs) >= 30 and len(docs) == len(STORIES)
    states = Counter((d.kind, d.state) for d in docs)
    for wanted in ("received", "completed", "rejected", "pending_review", "disputed", "draft"):
        assert states[("expense_claim", wanted)] >= 1, wanted
    assert {d.kind for d in docs} == {"expense_claim", "purchase_request", "leave_request"}
    # Spread over the last ten weeks, numbered in the order they were made.
    created = sorted(docs, key=lambda d: d.created_at)
    assert created[0].created_at.astimezone(UTC) <= NOW - timedelta(days=63)
    claims = [d.reference for d in created if d.kind == "expense_claim"]
    assert claims == sorted(claims)

    ravi, siti = actor_of("acme", "ravi@acme.example"), actor_of("acme", "siti@acme.example")
    assert ravi.is_auditor
    rejected = [d for d in docs if d.requester_id == siti.member_id and d.state == "rejected"]
    assert len(rejected) >= 2
    # Decisions of every kind, each chain whole.
    with unit_of_work(org.id) as uow:
        transitions = Counter(uow.session.scalars(select(Decision.transition)).all())
        overdue = uow.session.scalar(
            select(func.count())
            .select_from(Task)
            .where(Task.status == TaskStatus.OPEN, Task.due_at < NOW)
        )
    for key in ("reject", "revise", "dispute", "dismiss", "uphold", "withdraw", "acknowledge"):
        assert transitions[key] >= 1, key
    assert (overdue or 0) >= 2
    for doc in docs:
        check = detail.verify_history(ravi, doc.reference)
        assert check.ok and check.decisions == doc.chain_seq
    # The auditor finds Siti's rejected claims as a newcomer would, through the search.
    query, refused = parse_audit_query(
        {"kind": "expense_claim", "state": "rejected", "requester_id": str(siti.member_id)}
    )
    assert not refused
    found = search(ravi, query)
    assert {r.reference for r in found.rows} == {d.reference for d in rejected}
    # Quick enough for `make demo` (the figure measured here is in the report).
    print(f"seeded {len(docs)} documents in {seconds:.1f} s")

    # Seeding again adds nothing; globex got nothing.
    assert seed_demo(history=True) is False
    assert len(_documents(org.id)) == len(docs)
    assert _count(globex.org.id, Document) == 0


def test_without_its_history_the_demo_seeds_its_people_alone(app, globex):
    assert seed_demo() is True
    org = account_queries.find_organization("acme")
    assert org is not None
    assert _documents(org.id) == []
    assert clock.frozen_at is None
