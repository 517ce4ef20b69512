"""A race on PostgreSQL with real commits: the delegator and their delegate press
"Approve" on the same document at the same moment. The document row's lock lets one
decide; the other meets ``stale_state``. Exactly one decision, whoever won."""

from __future__ import annotations

import threading
import uuid
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from portal.accounts import services as accounts
from portal.bench.cleanup import purge_organizations
from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.models import Decision, Task, TaskStatus
from portal.documents.queries import detail as document_queries
from portal.domain.actor import SystemActor
from portal.domain.errors import DomainError
from portal.orgchart import services as chart
from portal.provisioning import provision_organization
from tests.delegations.covers import set_cover
from tests.factories import actor_of

pytestmark = pytest.mark.postgres_only
ROUNDS = 5


@pytest.fixture
def cover_org(backend, committed):
    """An organization of its own, committed for real and removed afterwards: a
    requester, their manager (who approves purchases), and the manager's stand-in, who
    holds no seat and covers the manager."""
    if not backend.postgres:
        pytest.skip("the race is PostgreSQL's")
    slug = f"cover-{uuid.uuid4().hex[:8]}"
    emails = [f"{slug}-{role}@race.test" for role in ("requester", "manager", "standin")]
    org = provision_organization(slug, "Cover Race Ltd", base_currency="MYR")
    try:
        system = SystemActor(org_id=org.id, org_slug=slug)
        for n, email in enumerate(emails):
            accounts.create_user(email, f"Person {n}", "race-pass-123")
            accounts.enrol_member(system, email=email)
        requester, manager, standin = (actor_of(slug, email) for email in emails)
        unit = chart.create_unit(system, code="OPS", name="Operations")
        head = chart.create_position(system, code="HEAD", title="Head", unit_id=unit.id)
        staff = chart.create_position(
            system, code="STAFF", title="Staff", unit_id=unit.id, reports_to_id=head.id
        )
        chart.assign_position(system, member_id=requester.member_id, position_id=staff.id)
        chart.assign_position(system, member_id=manager.member_id, position_id=head.id)
        today = clock.today_in(manager.time_zone)
        set_cover(manager, standin, today, today)
        yield requester, manager, standin
    finally:
        purge_organizations(backend.owner_url, slug_like=slug, email_like=f"{slug}-%")


def _both_at_once(work) -> list[object]:
    barrier = threading.Barrier(2)
    results: list[object] = [None, None]

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except Exception as exc:  # collected and asserted on below
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_the_delegator_and_the_delegate_approving_at_once_make_one_decision(cover_org):
    requester, manager, standin = cover_org
    deciders = (manager, standin)
    for n in range(ROUNDS):
        doc = documents.create_document(
            requester,
            kind="purchase_request",
            title=f"Chairs {n}",
            amount=Decimal("300.00"),
            fields={"supplier": "Office Co", "category": "goods"},
        )
        doc = transitions.transition_document(
            requester, doc.reference, "submit", seen_state="draft"
        ).document

        results = _both_at_once(
            lambda i, doc=doc: transitions.transition_document(
                deciders[i], doc.reference, "approve", seen_state="submitted"
            )
        )

        moved = [r for r in results if isinstance(r, transitions.Moved)]
        refused = [r for r in results if isinstance(r, DomainError)]
        assert len(moved) == 1 and len(refused) == 1, results
        assert refused[0].code == "stale_state", results
        with unit_of_work(requester.org_id) as uow:
            s = uow.session
            decisions = s.scalars(
                select(Decision).where(Decision.document_id == doc.id).order_by(Decision.seq)
            ).all()
            open_tasks = s.scalar(
                select(func.count(Task.id)).where(
                    Task.document_id == doc.id, Task.status == TaskStatus.OPEN
                )
            )
        assert [d.transition for d in decisions] == ["submit", "approve"]
        approve = decisions[-1]
        # Whoever won, the authority relied on is the manager's.
        assert approve.authority_member_id == manager.member_id
        assert approve.via == ("grant" if approve.actor_id == manager.member_id else "delegation")
        assert open_tasks == 0
        assert document_queries.verify_history(requester, doc.reference).ok
