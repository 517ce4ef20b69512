"""What a notification says, read in the demo organization (globex present and
invisible): the action's own label from the pinned flow in the reader's language of
the moment, the document's title, amount and requester, the decision's comment; a
"waiting for your decision" notice superseded once the step is decided; opening one
marks it read; and a task that reached someone past a vacant seat says why."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from portal.accounts.services.people import set_user_locale
from portal.core import outbox
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.queries import detail as document_queries
from portal.domain.errors import NotFound
from portal.notifications import queries as notifications
from portal.notifications import services as notification_services
from portal.orgchart import services as chart
from portal.orgchart.queries import load_chart
from tests.factories import demo_browser, system_actor

CLAIM = {"category": "travel", "expense_date": "2026-11-20"}
PURCHASE = {"supplier": "Paper Co", "category": "goods"}
NOTICES = "/o/acme/notifications/"


def _claim(siti, title: str = "Taxi to KLIA", amount: str = "45.60"):
    doc = documents.create_document(
        siti, kind="expense_claim", title=title, amount=Decimal(amount), fields=CLAIM
    )
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    return doc


def _deliver(actor) -> int:
    return outbox.dispatch_outbox(actor.org_id)


def _notices(html: str) -> list[str]:
    """Each notice's visible text, whitespace folded."""
    items = re.findall(r'<li class="notice[^"]*"[^>]*>(.*?)</li>', html, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", item).split()) for item in items]


def _about(html: str, reference: str) -> str:
    [said] = [t for t in _notices(html) if reference in t]
    return said


def test_a_rejection_tells_the_requester_who_did_what_to_which_document(app, people):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    transitions.transition_document(
        nurul, doc.reference, "reject", seen_state="pending_review", comment="receipt missing"
    )
    _deliver(siti)

    browser, _ = demo_browser(app, "siti")
    html = browser.get(NOTICES).get_data(as_text=True)
    said = _about(html, doc.reference)
    assert f"Nurul Huda chose “Reject” on your {doc.reference} “Taxi to KLIA”" in said
    assert "45.60" in said and "it is now “Rejected”" in said
    assert "“receipt missing”" in said
    assert "reject." not in said  # never the raw action key

    # Read in another language from now on: the same notice, the flow's own label in it.
    set_user_locale(siti.user_id, "zh")
    html = browser.get(NOTICES).get_data(as_text=True)
    said = _about(html, doc.reference)
    assert "“拒绝”" in said and "“Reject”" not in said
    assert "Taxi to KLIA" in said and "receipt missing" in said


def test_a_title_that_looks_like_markup_is_text_in_a_notice(app, people):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti, title='<img src=x onerror="alert(1)">')
    transitions.transition_document(
        nurul, doc.reference, "reject", seen_state="pending_review", comment="<b>no</b>"
    )
    _deliver(siti)
    browser, _ = demo_browser(app, "siti")
    html = browser.get(NOTICES).get_data(as_text=True)
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in html or "&lt;img src=x" in html
    assert "<img src=x" not in html and "<b>no</b>" not in html


def test_a_waiting_notice_is_superseded_once_the_step_is_decided(app, people):
    siti, nurul = people("siti"), people("nurul")
    first, second = _claim(siti, "Hotel"), _claim(siti, "Dinner")
    _deliver(siti)
    assert notifications.count_unread_notifications(nurul) == 2

    # Nurul decides the first herself; Siti withdraws the second.
    transitions.transition_document(
        nurul, first.reference, "reject", seen_state="pending_review", comment="no receipt"
    )
    transitions.transition_document(
        siti, second.reference, "withdraw", seen_state="pending_review", comment="typo"
    )
    _deliver(siti)

    # Both still unread, neither asks anything of her any more: the bell does not ring.
    assert notifications.count_unread_notifications(nurul) == 0
    page = notifications.notifications_page(nurul)
    assert (page.attention, page.unread) == (0, 2)
    by_reference = {n.reference: n for n in page.items}
    assert by_reference[first.reference].superseded
    assert by_reference[second.reference].superseded_by is not None

    browser, _ = demo_browser(app, "nurul")
    html = browser.get(NOTICES).get_data(as_text=True)
    assert "You decided it: “Reject”." in _about(html, first.reference)
    assert "Decided by Siti Aminah: “Withdraw”." in _about(html, second.reference)
    assert "new" not in _about(html, first.reference).split()
    # Unread all the same: marking them read is still on offer.
    assert "Mark all as read" in html
    assert "unread-badge" not in browser.get("/o/acme/").get_data(as_text=True)


def test_a_notice_still_waiting_rings_the_bell(app, people):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti, "Hotel")
    _deliver(siti)
    [notice] = notifications.list_notifications(nurul)
    assert not notice.superseded and notice.needs_attention
    browser, _ = demo_browser(app, "nurul")
    html = browser.get(NOTICES).get_data(as_text=True)
    [said] = _notices(html)
    assert f"{doc.reference} “Hotel”" in said
    assert "from Siti Aminah is waiting for your decision at “Pending review”" in said
    assert re.search(r'data-testid="unread-badge"[^>]*>1<', html)


def test_opening_a_notice_marks_it_read_and_leads_to_its_document(app, people):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    _deliver(siti)
    [notice] = notifications.list_notifications(nurul)
    browser, _ = demo_browser(app, "nurul")
    html = browser.get(NOTICES).get_data(as_text=True)
    assert f'href="/o/acme/notifications/{notice.id}"' in html

    opened = browser.get(f"{NOTICES}{notice.id}")

    assert opened.status_code == 302
    assert opened.headers["Location"].endswith(f"/o/acme/documents/{doc.reference}")
    assert notifications.count_unread_notifications(nurul) == 0
    assert [n.read for n in notifications.list_notifications(nurul)] == [True]
    # Opening it again is harmless.
    assert browser.get(f"{NOTICES}{notice.id}").status_code == 302


def test_nobody_opens_another_members_notice(app, people, globex):
    siti, nurul = people("siti"), people("nurul")
    _claim(siti)
    _deliver(siti)
    [notice] = notifications.list_notifications(nurul)

    siti_browser, _ = demo_browser(app, "siti")
    assert siti_browser.get(f"{NOTICES}{notice.id}").status_code == 404
    for bad in ("0", "99999999999999999999", "١٢", "1%00", "abc", "9" * 5000):
        assert siti_browser.get(f"{NOTICES}{bad}").status_code == 404, bad
    assert notifications.count_unread_notifications(nurul) == 1  # still unread

    with pytest.raises(NotFound):
        notification_services.open_notification(globex.admin.actor, notice.id)
    assert notifications.list_notifications(globex.admin.actor) == []
    assert notifications.count_unread_notifications(nurul) == 1


def _vacant_seat_between(people):
    """A new Team Lead seat under Nurul's, left empty, and a desk below it: whoever sits
    at the desk has a vacant superior seat, so their requests escalate to Nurul."""
    system, nurul = system_actor_of(people), people("nurul")
    with unit_of_work_for(nurul) as uow:
        # The organization's day (Kuala Lumpur), the one its seats are held from.
        snapshot = load_chart(uow.session, clock.today_in(nurul.time_zone))
    above = snapshot.seats[snapshot.primary[nurul.member_id]]
    lead = chart.create_position(
        system, code="SALES-LEAD", title="Team Lead", unit_id=above.unit_id, reports_to_id=above.id
    )
    desk = chart.create_position(
        system,
        code="SALES-EXEC-9",
        title="Sales Executive",
        unit_id=above.unit_id,
        reports_to_id=lead.id,
    )
    return lead, desk


def system_actor_of(people):
    from portal.accounts import queries as account_queries

    org = account_queries.find_organization("acme")
    assert org is not None
    return system_actor(org)


def test_a_task_that_escalated_past_a_vacant_seat_says_why(app, people, make_member):
    from portal.accounts import queries as account_queries

    _lead, desk = _vacant_seat_between(people)
    org = account_queries.find_organization("acme")
    lina = make_member(org, "Lina Rahim")
    chart.assign_position(system_actor_of(people), member_id=lina.member_id, position_id=desk.id)
    siti, nurul = people("siti"), people("nurul")

    # The allowed case first: Siti's superior holds his seat, nothing to explain.
    plain = documents.create_document(
        siti, kind="purchase_request", title="Pens", amount=Decimal("30.00"), fields=PURCHASE
    )
    transitions.transition_document(siti, plain.reference, "submit", seen_state="draft")
    escalated = documents.create_document(
        lina.actor, kind="purchase_request", title="Paper", amount=Decimal("40.00"), fields=PURCHASE
    )
    transitions.transition_document(lina.actor, escalated.reference, "submit", seen_state="draft")
    _deliver(siti)

    by_reference = {n.reference: n for n in notifications.list_notifications(nurul)}
    assert by_reference[plain.reference].escalated_reason is None
    assert by_reference[escalated.reference].escalated_reason == "vacant"

    browser, _ = demo_browser(app, "nurul")
    html = browser.get(NOTICES).get_data(as_text=True)
    assert "because" not in _about(html, plain.reference)
    assert "It reached you because the seat of SALES-LEAD — Team Lead is vacant." in _about(
        html, escalated.reference
    )

    # The document page says it in the step's "waiting for" area, to whoever reads it.
    detail = document_queries.document_detail(lina.actor, escalated.reference)
    assert [(e.name, e.reason) for e in detail.escalations] == [("Nurul Huda", "vacant")]
    page = browser.get(f"/o/acme/documents/{escalated.reference}").get_data(as_text=True)
    assert "It reached Nurul Huda because the seat of SALES-LEAD — Team Lead is vacant." in page
    other = browser.get(f"/o/acme/documents/{plain.reference}").get_data(as_text=True)
    assert "It reached" not in other
