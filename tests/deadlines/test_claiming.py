"""Claiming a document, on PostgreSQL with real commits: a document whose row another
transaction holds (a decision being taken, another sweeper) is skipped, not waited
for, and swept by a later pass. Each effect still happens once.

The organization is the sweep benchmark's (a requester under a lead under a head),
committed for real and removed afterwards; the clock is frozen, the tasks made due by
moving it on.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal

import pytest

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.bench.cleanup import purge_organizations
from portal.bench.sweep import chart_organization
from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.deadlines.queries import lock_document
from portal.deadlines.services import sweep_organization_now
from portal.documents.access import DocumentView
from portal.domain.actor import Actor
from tests.deadlines.sweeping import START, effects, sweep_rows
from tests.deadlines.sweeping import submitted as submitted_by

pytestmark = pytest.mark.postgres_only


@pytest.fixture
def chain(backend, committed) -> Iterator[dict[str, Actor]]:
    if not backend.postgres:
        pytest.skip("row locks are PostgreSQL's")
    clock.freeze(START)
    slug = f"claim-{uuid.uuid4().hex[:8]}"
    emails = {who: f"{who}@{slug}.test" for who in ("requester", "lead", "head")}
    try:
        for who, email in emails.items():
            accounts.create_user(email, who.title(), "claim-pass-123")
        chart_organization(slug, emails)
        people = {}
        for who, email in emails.items():
            user = account_queries.find_user(email)
            assert user is not None
            actor = account_queries.actor_for(slug, user.id, None)
            assert actor is not None
            people[who] = actor
        yield people
    finally:
        clock.unfreeze()
        purge_organizations(backend.owner_url, slug_like=slug, email_like=f"%@{slug}.test")


def _held_while(doc: DocumentView, org_id: int, work) -> object:
    """Run ``work`` while another transaction holds the document's row."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        with unit_of_work(org_id) as uow:
            assert lock_document(uow.session, org_id, doc.id, skip_locked=False) is not None
            locked.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    assert locked.wait(30)
    try:
        return work()
    finally:
        release.set()
        holder.join(30)


def test_a_document_held_by_another_transaction_is_skipped_and_swept_later(chain):
    requester = chain["requester"]
    org_id = requester.org_id
    free = submitted_by(requester, amount=str(Decimal("120.00")))
    held = submitted_by(requester, amount=str(Decimal("80.00")))
    clock.advance(timedelta(hours=49))

    # The allowed case: the free document is escalated; the held one is skipped at once.
    assert _held_while(held, org_id, lambda: sweep_organization_now(org_id)) == 1
    assert len(sweep_rows(org_id, free)) == 1
    assert sweep_rows(org_id, held) == [] and effects(org_id, held) == []

    # The next pass finds it free.
    assert sweep_organization_now(org_id) == 1
    [row] = sweep_rows(org_id, held)
    assert row.eligible == [chain["head"].member_id]
    assert sweep_organization_now(org_id) == 0
    assert len(sweep_rows(org_id, free)) == 1
