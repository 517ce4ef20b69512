"""Exclusive approval through the services, in the demo organization: the seeded expense
claim is reviewed, approved, committed and paid by four different people; whoever
decided one step is refused another (``exclusive_approval``, 403) and gets no task for
it; a rework cycle resets nothing; a decision that would leave a step with nobody is
refused whole. Globex, whose own flow has no such rule, is unaffected and sees nothing.

Sales claims: Nurul (Sales Manager) reviews, Zainal (Sales Director, head of Sales)
approves, the four admins — Aisha, Grace, Daniel, Mei Ling — commit and pay.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.models import Decision, Task, TaskStatus
from portal.documents.queries import detail as document_queries
from portal.domain.actor import Role
from portal.domain.engine import TransitionRefused
from portal.domain.errors import NotFound
from portal.domain.graph import CommentPolicy, GranteeKind
from portal.flows import queries as flow_queries
from portal.flows import services as flows
from portal.web.errors import status_for
from tests.domain.test_routing import two_steps
from tests.domain.test_validate import grant

CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20"}
ADMINS = ("aisha", "grace", "daniel", "meiling")


def _claim(actor, amount: str = "480.00"):
    return documents.create_document(
        actor,
        kind="expense_claim",
        title="Client visit",
        amount=Decimal(amount),
        fields=CLAIM_FIELDS,
    )


def _move(actor, doc, key: str, comment: str = ""):
    return transitions.transition_document(
        actor, doc.reference, key, seen_state=doc.state, comment=comment
    ).document


def _refused(actor, doc, key: str, comment: str = "") -> TransitionRefused:
    with pytest.raises(TransitionRefused) as caught:
        _move(actor, doc, key, comment)
    return caught.value


def _approved(people):
    siti = people("siti")
    doc = _move(siti, _claim(siti), "submit")
    doc = _move(people("nurul"), doc, "review")
    return _move(people("zainal"), doc, "approve")


def _open_for(org_id: int, doc) -> list[int]:
    with unit_of_work(org_id) as uow:
        return sorted(
            uow.session.scalars(
                select(Task.assignee_id).where(
                    Task.document_id == doc.id, Task.status == TaskStatus.OPEN
                )
            )
        )


def _decisions(org_id: int, doc) -> int:
    with unit_of_work(org_id) as uow:
        count = uow.session.scalar(
            select(func.count()).select_from(Decision).where(Decision.document_id == doc.id)
        )
    return count or 0


def _ids(people, *names: str) -> list[int]:
    return sorted(people(name).member_id for name in names)


def test_four_different_people_review_approve_commit_and_pay(people, globex):
    siti, grace, aisha = people("siti"), people("grace"), people("aisha")
    approved = _approved(people)
    # Every admin may commit the money: nobody has decided anything they could.
    assert _open_for(siti.org_id, approved) == _ids(people, *ADMINS)

    verified = _move(grace, approved, "verify_category")
    # Grace committed it: the payment is everyone else's.
    assert _open_for(siti.org_id, verified) == _ids(people, "aisha", "daniel", "meiling")
    paid = _move(aisha, verified, "pay")
    assert paid.state == "completed"

    history = document_queries.history(siti, paid.reference)
    # The payment records who could decide it: every admin but the one who committed.
    [pay] = [e for e in history if e.transition == "pay"]
    assert sorted(pay.eligible) == _ids(people, "aisha", "daniel", "meiling")
    deciders = {e.transition: e.actor_name for e in history}
    assert [deciders[k] for k in ("review", "approve", "verify_category", "pay")] == [
        "Nurul Huda",
        "Zainal Abidin",
        "Grace Lee",
        "Aisha Rahman",
    ]


def test_whoever_committed_the_money_is_refused_paying_it_and_nothing_is_written(people, globex):
    siti, grace, aisha = people("siti"), people("grace"), people("aisha")
    # The allowed case first: someone else pays.
    first = _move(grace, _approved(people), "verify_category")
    assert _move(aisha, first, "pay").state == "completed"

    second = _move(grace, _approved(people), "verify_category")
    before = (_decisions(siti.org_id, second), _open_for(siti.org_id, second))
    refused = _refused(grace, second, "pay")
    assert (refused.code, refused.params) == ("exclusive_approval", {"step": "Category verified"})
    assert status_for(refused) == 403
    # Nor may she send it back from the payment step: that step is not hers either.
    assert _refused(grace, second, "reject", "Wrong account").code == "exclusive_approval"
    assert document_queries.get_document(siti, second.reference).state == "category_verified"
    assert (_decisions(siti.org_id, second), _open_for(siti.org_id, second)) == before

    # Her page offers her nothing there, and says why when asked.
    offered = {a.key: a for a in document_queries.available_transitions(grace, second.reference)}
    assert not offered["pay"].allowed
    assert offered["pay"].refusal is not None
    assert offered["pay"].refusal.code == "exclusive_approval"
    assert {
        a.key for a in document_queries.available_transitions(aisha, second.reference) if a.allowed
    } == {"pay", "reject"}


def test_a_rework_cycle_resets_nothing(people, globex):
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    grace, daniel, aisha = people("grace"), people("daniel"), people("aisha")
    verified = _move(grace, _approved(people), "verify_category")
    # Aisha sends it back from the payment step (a rejection counts as no step of hers).
    rejected = _move(aisha, verified, "reject", "Receipt is for another trip")
    draft = _move(siti, rejected, "revise")
    pending = _move(siti, draft, "submit")

    # The same people may decide the same steps again…
    reviewed = _move(nurul, pending, "review")
    approved = _move(zainal, reviewed, "approve")
    # …and another admin may commit this time; Grace, who committed the first time, still
    # may not pay what she once committed.
    recommitted = _move(daniel, approved, "verify_category")
    assert grace.member_id not in _open_for(siti.org_id, recommitted)
    assert _open_for(siti.org_id, recommitted) == _ids(people, "aisha", "meiling")
    assert _refused(grace, recommitted, "pay").code == "exclusive_approval"
    assert _refused(daniel, recommitted, "pay").code == "exclusive_approval"
    assert _move(aisha, recommitted, "pay").state == "completed"


def test_a_decision_that_would_leave_the_payment_to_nobody_is_refused_whole(people, globex):
    from portal.accounts import services as accounts
    from portal.domain.actor import SystemActor

    siti, grace = people("siti"), people("grace")
    system = SystemActor(org_id=siti.org_id, org_slug="acme")
    # Allowed while three admins are left after whoever commits.
    approved, another = _approved(people), _approved(people)
    assert _move(grace, approved, "verify_category").state == "category_verified"

    # With Grace the only admin left, committing would leave nobody to pay.
    for name in ("aisha", "daniel", "meiling"):
        accounts.deactivate_member(system, people(name).member_id)
    before = _decisions(siti.org_id, another)
    refused = _refused(grace, another, "verify_category")
    assert (refused.code, refused.params["state"], refused.params["reason"]) == (
        "route_has_gap",
        "completed",
        "exclusive_approval",
    )
    assert document_queries.get_document(siti, another.reference).state == "approved"
    assert _decisions(siti.org_id, another) == before


def test_a_requester_whose_superior_heads_their_unit_is_refused_at_submission(people, globex):
    # Hannah's claim: Grace reviews, Aisha approves, Finance commits and pays.
    hannah = people("hannah")
    assert _move(hannah, _claim(hannah), "submit").state == "pending_review"
    # Mei Ling reports to Daniel, who heads Finance: he would review and approve.
    meiling = people("meiling")
    refused = _refused(meiling, _claim(meiling), "submit")
    assert (refused.code, refused.params["state"], refused.params["reason"]) == (
        "route_has_gap",
        "approved",
        "exclusive_approval",
    )


def _two_admin_steps(exclusive: bool):
    """Checked, then approved, each by any admin; a rejection needs a comment."""
    graph = two_steps()
    return replace(
        graph,
        exclusive_approval=exclusive,
        transitions=tuple(
            replace(t, comment=CommentPolicy.REQUIRED) if t.key == "reject" else t
            for t in graph.transitions
        ),
        grants=(
            grant("checked", GranteeKind.ROLE, role=Role.ADMIN),
            grant("approved", GranteeKind.ROLE, role=Role.ADMIN),
        ),
    )


def _publish(admin, graph):
    current = flows.get_draft(admin, graph.kind).revision
    draft = flows.save_draft(admin, graph.kind, graph, revision=current)
    return flows.publish_draft(admin, graph.kind, revision=draft.revision).view


def test_another_organization_without_the_rule_is_unaffected_and_sees_nothing(
    people, globex, make_member
):
    gus = globex.admin.actor
    assert _publish(gus, _two_admin_steps(exclusive=False)).version == 2
    rex = make_member(globex.org, "Rex Requester").actor
    doc = documents.create_document(
        rex, kind="expense_claim", title="Stamps", amount=Decimal("12.00"), fields={}
    )
    doc = _move(rex, doc, "submit")
    # One admin decides both steps: Globex's flow does not ask for two people.
    assert _move(gus, _move(gus, doc, "check"), "approve").state == "approved"
    assert not flow_queries.current_version(gus, "expense_claim").graph.exclusive_approval

    # Acme's rule still holds, and Acme's claim does not exist for Globex.
    grace = people("grace")
    verified = _move(grace, _approved(people), "verify_category")
    assert _refused(grace, verified, "pay").code == "exclusive_approval"
    # (References are numbered per organization: Globex's own claim may share it.)
    try:
        seen = document_queries.get_document(gus, verified.reference)
    except NotFound:
        seen = None
    assert seen is None or (seen.id, seen.title) == (doc.id, "Stamps")


def test_with_the_rule_turned_on_the_other_organizations_admins_take_one_step_each(
    people, globex, make_member
):
    gus = globex.admin.actor
    gwen = make_member(globex.org, "Gwen Globex", roles=(Role.ADMIN,)).actor
    _publish(gus, _two_admin_steps(exclusive=True))
    rex = make_member(globex.org, "Rex Requester").actor
    doc = _move(
        rex,
        documents.create_document(
            rex, kind="expense_claim", title="Stamps", amount=Decimal("12.00"), fields={}
        ),
        "submit",
    )
    checked = _move(gus, doc, "check")
    assert _open_for(gus.org_id, checked) == [gwen.member_id]
    assert _refused(gus, checked, "approve").code == "exclusive_approval"
    assert _move(gwen, checked, "approve").state == "approved"
