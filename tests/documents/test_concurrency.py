"""Races, on PostgreSQL with real commits: eight approvers press the same button at
once, and eight requesters create documents at once."""

from __future__ import annotations

import threading
import uuid
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from portal.accounts import services as accounts
from portal.bench.cleanup import purge_organizations
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.access import DocumentView
from portal.documents.models import Decision, Task, TaskStatus
from portal.documents.queries import detail as document_queries
from portal.domain.actor import Role, SystemActor
from portal.domain.errors import DomainError
from portal.orgchart import services as chart
from portal.provisioning import provision_organization
from tests.factories import actor_of

pytestmark = pytest.mark.postgres_only
THREADS = 8
FIELDS = {"category": "travel", "expense_date": "2026-11-20"}


@pytest.fixture
def race_org(backend, committed):
    """An organization of its own, committed for real and removed afterwards: a head
    seat held by THREADS approvers, and a requester reporting to it. Three of them are
    admins: under the expense claim's exclusive approval, whoever wins the race still
    leaves two admins to commit and pay."""
    if not backend.postgres:
        pytest.skip("the races are PostgreSQL's")
    slug = f"race-{uuid.uuid4().hex[:8]}"
    emails = [f"{slug}-{n}@race.test" for n in range(THREADS + 1)]
    org = provision_organization(slug, "Race Ltd", base_currency="MYR")
    try:
        system = SystemActor(org_id=org.id, org_slug=slug)
        for n, email in enumerate(emails):
            accounts.create_user(email, f"Person {n}", "race-pass-123")
            roles = [Role.ADMIN] if n in (1, 2, 3) else []
            accounts.enrol_member(system, email=email, roles=roles)
        people = [actor_of(slug, email) for email in emails]
        unit = chart.create_unit(system, code="OPS", name="Operations")
        head = chart.create_position(system, code="HEAD", title="Head", unit_id=unit.id)
        staff = chart.create_position(
            system, code="STAFF", title="Staff", unit_id=unit.id, reports_to_id=head.id
        )
        chart.update_unit(
            system, unit.id, code="OPS", name="Operations", parent_id=None, head_position_id=head.id
        )
        chart.assign_position(system, member_id=people[0].member_id, position_id=staff.id)
        for approver in people[1:]:
            chart.assign_position(system, member_id=approver.member_id, position_id=head.id)
        yield people
    finally:
        purge_organizations(backend.owner_url, slug_like=slug, email_like=f"{slug}-%")


def _all_at_once(work, count: int) -> list[object]:
    barrier = threading.Barrier(count)
    results: list[object] = [None] * count

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except Exception as exc:  # collected and asserted on below
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_eight_approvers_pressing_at_once_make_exactly_one_decision(race_org):
    requester, approvers = race_org[0], race_org[1:]
    doc = documents.create_document(
        requester, kind="expense_claim", title="Flight", amount=Decimal("900.00"), fields=FIELDS
    )
    doc = transitions.transition_document(
        requester, doc.reference, "submit", seen_state="draft"
    ).document
    assert document_queries.count_open_tasks_on(approvers[0], doc.reference) == THREADS

    results = _all_at_once(
        lambda i: transitions.transition_document(
            approvers[i], doc.reference, "review", seen_state="pending_review"
        ),
        THREADS,
    )

    moved = [r for r in results if isinstance(r, transitions.Moved)]
    refused = [r for r in results if isinstance(r, DomainError)]
    assert len(moved) == 1, results
    assert len(refused) == THREADS - 1, results
    assert {r.code for r in refused} <= {"stale_state", "transition_not_allowed"}
    with unit_of_work(requester.org_id) as uow:
        s = uow.session
        assert s.scalar(select(func.count(Decision.id))) == 2  # submit, review
        still_open = s.scalars(select(Task.state).where(Task.status == TaskStatus.OPEN)).all()
    # No task of the state it left is left open; the next step's tasks are.
    assert "pending_review" not in still_open
    assert document_queries.verify_history(approvers[0], doc.reference).ok


def test_references_stay_unique_and_gap_free_when_created_at_once(race_org):
    requester = race_org[0]
    results = _all_at_once(
        lambda i: documents.create_document(
            requester,
            kind="expense_claim",
            title=f"Taxi {i}",
            amount=Decimal("12.00"),
            fields=FIELDS,
        ),
        THREADS,
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    made = [r for r in results if isinstance(r, DocumentView)]
    numbers = sorted(int(r.reference.rsplit("-", 1)[1]) for r in made)
    assert numbers == list(range(1, THREADS + 1))
