"""Acting under cover, through the real pipeline in the demo organization: Nurul reviews
the Sales claims, Zainal approves them, the admins (Daniel, Mei Ling, Aisha, Grace)
verify and pay, one step each under the claim's exclusive approval.

While Nurul is on leave Hannah reviews on Nurul's behalf: the decision names both, the
cover and how authority came; Nurul's task is the one completed. Then the boundaries (the
organization's first and last day of the window, a revocation, another kind, a delegate
with authority of their own) and each refusal with its code. Globex is there and sees
nothing."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from sqlalchemy import select

from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.documents import transitions
from portal.documents.models import Decision, Task, TaskStatus
from portal.documents.queries import detail as document_queries
from portal.domain.authority import Principal, Via, authorize
from portal.domain.delegation import Cover
from portal.domain.errors import DomainError, NotFound
from portal.flows import queries as flow_queries
from portal.flows import services as flows
from tests.delegations.covers import (
    DAY,
    local_moment,
    move,
    revoke_cover,
    set_cover,
    start_today,
    submitted_claim,
    submitted_purchase,
)
from tests.domain.test_engine import ADMIN, CLAIM, TREASURER, chart, exit_of
from tests.domain.test_engine import doc as pure_doc
from tests.domain.test_engine import refusal as pure_refusal
from tests.domain.test_resolution import LONER
from tests.factories import actor_of, demo_browser, demo_people


@pytest.fixture
def people(app, globex):
    return demo_people()


def _refusal(call, *args, **kwargs) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call(*args, **kwargs)
    return caught.value


def _review(actor, doc):
    return transitions.transition_document(
        actor, doc.reference, "review", seen_state="pending_review"
    )


def _decisions(org_id: int, doc) -> list[Decision]:
    with unit_of_work(org_id) as uow:
        return list(
            uow.session.scalars(
                select(Decision).where(Decision.document_id == doc.id).order_by(Decision.seq)
            )
        )


def _tasks(org_id: int, doc, state: str) -> dict[int, Task]:
    with unit_of_work(org_id) as uow:
        found = uow.session.scalars(
            select(Task).where(Task.document_id == doc.id, Task.state == state)
        )
        return {t.assignee_id: t for t in found}


def _allowed(actor, doc) -> set[str]:
    return {
        a.key for a in document_queries.available_transitions(actor, doc.reference) if a.allowed
    }


# --- the allowed case ----------------------------------------------------------------------


def test_the_delegate_reviews_on_the_delegators_behalf_and_the_decision_names_both(app, people):
    siti, nurul, hannah = people("siti"), people("nurul"), people("hannah")
    today = start_today()
    claim = submitted_claim(siti, "Team lunch")
    with pytest.raises(NotFound):  # not Hannah's to see, before the cover
        document_queries.get_document(hannah, claim.reference)
    cover = set_cover(nurul, hannah, today, today + 2 * DAY, reason="Annual leave")

    page = document_queries.document_detail(hannah, claim.reference)
    assert {a.key for a in page.actions if a.allowed} == {"review", "reject"}
    assert [(a.delegator_name, a.valid_to) for a in page.acting_for] == [
        ("Nurul Huda", today + 2 * DAY)
    ]
    moved = _review(hannah, claim)

    assert moved.document.state == "reviewed"
    last = _decisions(siti.org_id, claim)[-1]
    assert (last.actor_id, last.authority_member_id, last.via, last.delegation_id) == (
        hannah.member_id,
        nurul.member_id,
        "delegation",
        cover,
    )
    assert last.eligible == [nurul.member_id]
    nurul_task = _tasks(siti.org_id, claim, "pending_review")[nurul.member_id]
    assert (nurul_task.status, nurul_task.completed_by) == (TaskStatus.COMPLETED, hannah.member_id)
    assert document_queries.verify_history(siti, claim.reference).ok
    # The history says it to everyone who reads it, the requester included.
    entry = document_queries.history(siti, claim.reference)[-1]
    assert (entry.actor_name, entry.authority_name) == ("Hannah Ong", "Nurul Huda")
    assert entry.cover is not None
    assert (entry.cover.valid_from, entry.cover.valid_to, entry.cover.reason) == (
        today,
        today + 2 * DAY,
        "Annual leave",
    )


def test_the_page_offers_the_delegate_the_actions_and_says_on_whose_behalf(app, people):
    siti, nurul, hannah = people("siti"), people("nurul"), people("hannah")
    today = start_today()
    claim = submitted_claim(siti, "Team lunch")
    set_cover(nurul, hannah, today, today + 2 * DAY, reason="Annual leave")
    browser, token = demo_browser(app, "hannah")

    html = browser.get(f"/o/acme/documents/{claim.reference}").get_data(as_text=True)

    assert 'data-testid="action-review"' in html
    note = re.search(r'data-testid="acting-for">([^<]*)<', html)
    assert note and note.group(1).startswith("You act on behalf of Nurul Huda (cover until ")
    response = browser.post(
        f"/o/acme/documents/{claim.reference}/transition",
        data={"csrf_token": token, "transition": "review", "seen_state": "pending_review"},
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    said = re.search(r'data-testid="on-behalf">([^<]*)<', html)
    assert said, "no on-behalf wording in the history"
    text = " ".join(said.group(1).split())
    assert text.startswith("on behalf of Nurul Huda (cover ")
    assert text.endswith(": Annual leave)")
    assert "Hannah Ong" in html
    # The requester reads the same history.
    siti_browser, _ = demo_browser(app, "siti")
    siti_html = siti_browser.get(f"/o/acme/documents/{claim.reference}").get_data(as_text=True)
    assert "on behalf of Nurul Huda (cover " in siti_html


# --- the window, in the organization's days ------------------------------------------------


def test_the_cover_works_from_the_first_minute_of_its_first_day_in_kuala_lumpur(app, people):
    siti, nurul, hannah = people("siti"), people("nurul"), people("hannah")
    today = start_today()
    claim = submitted_claim(siti)
    first = today + DAY
    set_cover(nurul, hannah, first, first + DAY)

    # 23:55 the day before in Kuala Lumpur: not yet (and the document is not Hannah's to see).
    clock.freeze(local_moment(today, 23, 55))
    with pytest.raises(NotFound):
        _review(hannah, claim)
    # 00:05 on the first day there — still the day before in UTC.
    clock.freeze(local_moment(first, 0, 5))
    assert clock.now().date() == today
    assert _review(hannah, claim).document.state == "reviewed"


def test_a_cover_that_ends_today_works_until_midnight_there(app, people):
    siti, jason, nurul, meiling = (
        people("siti"),
        people("jason"),
        people("nurul"),
        people("meiling"),
    )
    today = start_today()
    one, two = submitted_claim(siti, "One"), submitted_claim(jason, "Two")
    # Mei Ling is an admin: she sees every document, so what ends is the authority alone.
    set_cover(nurul, meiling, today, today)

    clock.freeze(local_moment(today, 23, 55))
    assert _review(meiling, one).document.state == "reviewed"
    clock.freeze(local_moment(today + DAY, 0, 0))
    assert clock.now().date() == today  # UTC's day is still the cover's last
    refused = _refusal(_review, meiling, two)
    assert refused.code == "delegation_not_active"
    assert "review" not in _allowed(meiling, two)


def test_a_cover_revoked_mid_window_lends_nothing_afterwards(app, people):
    siti, jason, nurul = people("siti"), people("jason"), people("nurul")
    hannah, meiling = people("hannah"), people("meiling")
    today = start_today()
    one, two = submitted_claim(siti, "One"), submitted_claim(jason, "Two")
    to_hannah = set_cover(nurul, hannah, today, today + 5 * DAY)
    to_meiling = set_cover(nurul, meiling, today, today + 5 * DAY)
    assert _review(hannah, one).document.state == "reviewed"

    revoke_cover(nurul, to_hannah)
    revoke_cover(nurul, to_meiling)

    # Hannah no longer sees Nurul's documents — except the one she decided.
    with pytest.raises(NotFound):
        _review(hannah, two)
    assert document_queries.get_document(hannah, one.reference).reference == one.reference
    # Mei Ling (an admin) still sees it: the refusal says the cover is over.
    assert _refusal(_review, meiling, two).code == "delegation_not_active"


def test_a_cover_for_another_kind_lends_nothing_here(app, people):
    siti, jason, nurul = people("siti"), people("jason"), people("nurul")
    hannah, meiling = people("hannah"), people("meiling")
    today = start_today()
    claim = submitted_claim(siti)
    purchase = submitted_purchase(jason)
    set_cover(nurul, hannah, today, today + DAY, kind="purchase_request")
    set_cover(nurul, meiling, today, today + DAY, kind="purchase_request")

    # The purchase is lent (allowed first) …
    assert "approve" in _allowed(hannah, purchase)
    # … the claim is not: not Hannah's to see, and not Mei Ling's to decide.
    with pytest.raises(NotFound):
        _review(hannah, claim)
    assert _refusal(_review, meiling, claim).code == "not_assigned"


# --- authority of one's own ---------------------------------------------------------------


def test_a_delegate_with_authority_of_their_own_decides_on_it(app, people):
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    daniel, meiling = people("daniel"), people("meiling")
    today = start_today()
    claim = move(zainal, move(nurul, submitted_claim(siti), "review"), "approve")
    set_cover(daniel, meiling, today, today + DAY)

    page = document_queries.document_detail(meiling, claim.reference)
    assert "verify_category" in {a.key for a in page.actions if a.allowed}
    assert page.acting_for == []  # her own authority: nobody's behalf to mention
    move(meiling, claim, "verify_category")

    last = _decisions(siti.org_id, claim)[-1]
    assert (last.actor_id, last.authority_member_id, last.via, last.delegation_id) == (
        meiling.member_id,
        meiling.member_id,
        "grant",
        None,
    )
    tasks = _tasks(siti.org_id, claim, "approved")
    assert tasks[meiling.member_id].status == TaskStatus.COMPLETED
    assert tasks[daniel.member_id].status == TaskStatus.CANCELLED


# --- refusals ------------------------------------------------------------------------------


def test_a_delegate_never_acts_on_the_delegators_own_document(app, people):
    # Ravi (the auditor, who sees every document) covers Daniel, an admin: he verifies
    # claims on Daniel's behalf — but not Daniel's own, which Daniel's band would decide
    # were it not his. (Exclusive approval off: Aisha both reviews and approves Daniel's.)
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    aisha, daniel, ravi = people("aisha"), people("daniel"), people("ravi")
    _without_exclusive_approval(aisha)
    today = start_today()
    sitis = move(zainal, move(nurul, submitted_claim(siti, "Taxi"), "review"), "approve")
    daniels = move(aisha, move(aisha, submitted_claim(daniel, "Conference"), "review"), "approve")
    set_cover(daniel, ravi, today, today + DAY)

    assert move(ravi, sitis, "verify_category").state == "category_verified"
    assert _decisions(siti.org_id, sitis)[-1].authority_member_id == daniel.member_id
    refused = _refusal(move, ravi, daniels, "verify_category")
    assert refused.code == "delegation_own_document"
    assert "verify_category" not in _allowed(ravi, daniels)
    browser, token = demo_browser(app, "ravi")
    posted = browser.post(
        f"/o/acme/documents/{daniels.reference}/transition",
        data={"csrf_token": token, "transition": "verify_category", "seen_state": "approved"},
    )
    assert posted.status_code == 403
    assert "not even on their behalf" in posted.get_data(as_text=True)


def _without_exclusive_approval(admin) -> None:
    current = flow_queries.current_version(admin, "expense_claim").graph
    graph = replace(current, exclusive_approval=False)
    revision = flows.get_draft(admin, "expense_claim").revision
    draft = flows.save_draft(admin, "expense_claim", graph, revision=revision)
    flows.publish_draft(admin, "expense_claim", revision=draft.revision)


def test_a_delegate_never_acts_on_their_own_document(app, people):
    hannah, grace = people("hannah"), people("grace")
    today = start_today()
    claim = submitted_claim(hannah, "Training course")  # Grace reviews Hannah's claims
    set_cover(grace, hannah, today, today + DAY)

    assert _refusal(_review, hannah, claim).code == "self_approval"
    assert "review" not in _allowed(hannah, claim)
    # Grace still can.
    assert _review(grace, claim).document.state == "reviewed"


def test_borrowed_authority_is_never_lent_on(app, people):
    # Nurul -> Hannah, Hannah -> Grace (an admin, who sees the claim) and -> Farid (who
    # does not): neither gets Nurul's authority.
    siti, nurul, hannah = people("siti"), people("nurul"), people("hannah")
    grace, farid = people("grace"), people("farid")
    today = start_today()
    claim = submitted_claim(siti)
    set_cover(nurul, hannah, today, today + DAY)
    set_cover(hannah, grace, today, today + DAY)
    set_cover(hannah, farid, today, today + DAY)

    assert "review" in _allowed(hannah, claim)  # the first hop holds
    assert _refusal(_review, grace, claim).code == "delegation_chain"
    with pytest.raises(NotFound):
        _review(farid, claim)
    # Said in words, with its status; Farid's post finds no document at all.
    browser, token = demo_browser(app, "grace")
    posted = browser.post(
        f"/o/acme/documents/{claim.reference}/transition",
        data={"csrf_token": token, "transition": "review", "seen_state": "pending_review"},
    )
    assert posted.status_code == 403
    assert "never lent on" in posted.get_data(as_text=True)
    browser, token = demo_browser(app, "farid")
    posted = browser.post(
        f"/o/acme/documents/{claim.reference}/transition",
        data={"csrf_token": token, "transition": "review", "seen_state": "pending_review"},
    )
    assert posted.status_code == 404


def test_exclusive_approval_holds_for_the_delegate_and_for_the_delegator(app, people):
    siti, jason, nurul, zainal = people("siti"), people("jason"), people("nurul"), people("zainal")
    daniel, hannah, meiling = people("daniel"), people("hannah"), people("meiling")
    today = start_today()
    # The delegate reviewed it; approving it on Zainal's behalf is a second step.
    reviewed = move(nurul, submitted_claim(siti, "One"), "review")
    set_cover(zainal, nurul, today, today + DAY)
    assert _refusal(move, nurul, reviewed, "approve").code == "exclusive_approval"
    # The delegator verified it; paying it on Daniel's behalf would be his second step.
    other = move(zainal, move(nurul, submitted_claim(jason, "Two"), "review"), "approve")
    other = move(daniel, other, "verify_category")
    set_cover(daniel, hannah, today, today + DAY)
    assert _refusal(move, hannah, other, "pay").code == "exclusive_approval"
    # Someone who spent nothing pays it.
    assert move(meiling, other, "pay").state == "completed"


def test_globex_cannot_reach_acmes_documents_through_a_cover(app, people, globex):
    siti, nurul, hannah = people("siti"), people("nurul"), people("hannah")
    today = start_today()
    claim = submitted_claim(siti)
    set_cover(nurul, hannah, today, today + DAY)
    gus = actor_of(globex.org.slug, globex.admin.email)

    with pytest.raises(NotFound):
        _review(gus, claim)
    with pytest.raises(NotFound):
        document_queries.get_document(gus, claim.reference)


# --- the dispute raiser, on both sides of a cover (pure: no seeded flow lets anyone but
# the requester raise a dispute, and the requester's side is ``delegation_own_document``)


def _covering(delegator: int, *, member: int = LONER) -> Principal:
    return Principal(member, frozenset(), None, covers=(Cover(7, delegator, True),))


def test_whoever_raised_a_dispute_closes_it_neither_themselves_nor_through_their_delegate():
    dismiss = exit_of(CLAIM, "disputed", "dismiss")
    # Allowed first: LONER, covering an admin who did not raise it, dismisses it.
    raised_by_treasurer = pure_doc(CLAIM, "disputed", dispute_raiser=TREASURER)
    lent = authorize(CLAIM, dismiss, raised_by_treasurer, _covering(ADMIN), chart())
    assert (lent.via, lent.authority_member) == (Via.DELEGATION, ADMIN)
    # The delegator raised it: their delegate may not close it for them.
    raised_by_admin = pure_doc(CLAIM, "disputed", dispute_raiser=ADMIN)
    refused = pure_refusal(
        lambda: authorize(CLAIM, dismiss, raised_by_admin, _covering(ADMIN), chart())
    )
    assert refused.code == "dispute_raiser"
    # The delegate raised it: no cover lets them close it.
    raised_by_delegate = pure_doc(CLAIM, "disputed", dispute_raiser=LONER)
    refused = pure_refusal(
        lambda: authorize(CLAIM, dismiss, raised_by_delegate, _covering(TREASURER), chart())
    )
    assert refused.code == "dispute_raiser"
