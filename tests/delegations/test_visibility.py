"""Who sees what under cover, in the demo organization: the delegate sees the documents
their delegator holds or held a task on, for the cover's kind, while the cover is active;
afterwards only what they decided. The one rule (``access.load_visible``) and its SQL
twin (``queries.visible.visible_clause``) give the same answer for every member asked,
and the lists and counts a member sees (inbox, badge, home, my documents) never show a
document the rule would refuse. Globex sees nothing of acme's."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import select

from portal.core.clock import clock
from portal.core.db import table_of
from portal.core.uow import unit_of_work, unit_of_work_for
from portal.documents import services as documents
from portal.documents.access import load_visible
from portal.documents.models import Document
from portal.documents.queries.lists import list_my_documents
from portal.documents.queries.visible import visible_clause
from portal.domain.errors import DomainError
from portal.home.queries import home_summary
from portal.inbox import queries as inbox
from tests.delegations.covers import (
    CLAIM_FIELDS,
    DAY,
    local_moment,
    move,
    revoke_cover,
    set_cover,
    start_today,
    submitted_claim,
    submitted_purchase,
)
from tests.factories import actor_of, demo_people

_DOC = table_of(Document)
ASKED = ("hannah", "farid", "priya", "weijie", "nurul", "siti", "jason", "zainal", "ravi", "grace")


@pytest.fixture
def people(app, globex):
    return demo_people()


def _all_references(org_id: int) -> list[str]:
    with unit_of_work(org_id) as uow:
        return list(uow.session.scalars(select(_DOC.c.reference).order_by(_DOC.c.id)))


def _seen_one_by_one(actor, references: list[str]) -> set[str]:
    """What ``load_visible`` lets the actor open (a discarded draft is nobody's to list)."""
    seen = set()
    with unit_of_work_for(actor) as uow:
        for reference in references:
            try:
                load_visible(uow.session, actor, reference)
            except DomainError:
                continue
            seen.add(reference)
    return seen


def _seen_by_the_predicate(actor) -> set[str]:
    with unit_of_work_for(actor) as uow:
        today = clock.today_in(actor.time_zone)
        return set(
            uow.session.scalars(select(_DOC.c.reference).where(visible_clause(actor, today)))
        )


def _listed(actor) -> set[str]:
    """Every document the member's lists name: the inbox, the home page, their own."""
    page = inbox.open_tasks(actor)
    home = home_summary(actor)
    mine = list_my_documents(actor, per_page=100)
    return (
        {r.reference for r in page.rows}
        | {t.reference for t in home.next_tasks}
        | {r.reference for r in mine.rows}
    )


def _agree(people, org_id: int) -> dict[str, set[str]]:
    """For every member asked: the rule and the predicate agree, the lists stay inside
    them and the counts match the rows. What each sees, by name."""
    references = _all_references(org_id)
    seen = {}
    for name in ASKED:
        actor = people(name)
        by_rule = _seen_one_by_one(actor, references)
        assert _seen_by_the_predicate(actor) == by_rule, name
        assert _listed(actor) <= by_rule, name
        page = inbox.open_tasks(actor)
        assert page.total == len(page.rows) == inbox.count_open_tasks(actor), name
        assert home_summary(actor).tasks.open == page.total, name
        seen[name] = by_rule
    return seen


def test_the_delegate_sees_what_the_delegator_holds_for_the_covers_kind_only(app, people):
    siti, jason, nurul, zainal = people("siti"), people("jason"), people("nurul"), people("zainal")
    hannah, farid, grace, priya = (
        people("hannah"),
        people("farid"),
        people("grace"),
        people("priya"),
    )
    today = start_today()
    review = submitted_claim(siti, "Review me")  # Nurul holds it
    purchase = submitted_purchase(jason, "Paper")  # Nurul holds it
    approve = move(nurul, submitted_claim(jason, "Approve me"), "review")  # Zainal holds it
    hannahs = submitted_claim(hannah, "Training")  # Grace holds it
    draft = documents.create_document(
        siti, kind="expense_claim", title="Draft", amount=Decimal("5.00"), fields=CLAIM_FIELDS
    )
    discarded = documents.create_document(
        siti, kind="expense_claim", title="Oops", amount=Decimal("5.00"), fields=CLAIM_FIELDS
    )
    documents.discard_draft(siti, discarded.reference)
    set_cover(nurul, hannah, today, today + DAY, kind="expense_claim")
    set_cover(zainal, farid, today, today + DAY)
    revoked = set_cover(grace, priya, today, today + DAY)
    revoke_cover(grace, revoked)

    seen = _agree(people, siti.org_id)

    # Hannah: Nurul's claims (held now, or held before: the reviewed one), not his
    # purchase; her own claim.
    assert seen["hannah"] == {review.reference, approve.reference, hannahs.reference}
    # Farid: whatever Zainal holds or held, every kind.
    assert seen["farid"] == {approve.reference}
    # Priya: a revoked cover shows nothing.
    assert seen["priya"] == set()
    assert seen["weijie"] == set()
    assert seen["nurul"] == {review.reference, purchase.reference, approve.reference}
    assert seen["siti"] == {review.reference, draft.reference}
    # The auditor and an admin see everything but the discarded draft, which no list shows.
    everything = set(_all_references(siti.org_id)) - {discarded.reference}
    assert seen["ravi"] == seen["grace"] == everything


def test_after_the_window_the_delegate_keeps_only_what_they_decided(app, people):
    siti, jason, nurul, hannah = people("siti"), people("jason"), people("nurul"), people("hannah")
    today = start_today()
    decided = submitted_claim(siti, "Decided under cover")
    looked_at = submitted_claim(jason, "Only looked at")
    set_cover(nurul, hannah, today, today + DAY)
    move(hannah, decided, "review")
    assert _agree(people, siti.org_id)["hannah"] == {decided.reference, looked_at.reference}

    clock.freeze(local_moment(today + 2 * DAY, 9))
    later = submitted_claim(siti, "Submitted after the cover")
    seen = _agree(people, siti.org_id)

    assert seen["hannah"] == {decided.reference}
    assert later.reference in seen["nurul"]
    assert [r.reference for r in inbox.open_tasks(hannah).rows] == []


def test_globex_sees_nothing_of_acmes_documents_under_any_cover(app, people, globex):
    siti, nurul, hannah = people("siti"), people("nurul"), people("hannah")
    today = start_today()
    submitted_claim(siti)
    set_cover(nurul, hannah, today, today + DAY)
    gus = actor_of(globex.org.slug, globex.admin.email)

    assert _seen_by_the_predicate(gus) == set()
    assert _seen_one_by_one(gus, _all_references(siti.org_id)) == set()
    assert _listed(gus) == set()
