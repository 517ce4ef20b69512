"""The home page per role, in the demo organization with globex beside it: what waits
for an approver (and what is overdue), a requester's documents under way, an admin's
flows with problems and chart gaps, an auditor's way into every document. Nothing of
globex is ever counted, and globex sees nothing of acme."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

import pytest

from portal.core.clock import clock
from portal.documents import services as documents
from portal.documents import transitions
from portal.flows.services import drafts
from portal.home.queries import home_summary
from portal.orgchart import services as chart
from tests.factories import demo_browser, demo_people

CLAIM_FIELDS = {"category": "meals", "expense_date": "2026-11-21"}
PURCHASE_FIELDS = {"supplier": "Paper Co", "category": "goods"}


@pytest.fixture
def people(app, globex):
    clock.freeze(clock.now())
    return demo_people()


def _draft(requester, title: str, kind: str = "expense_claim"):
    fields = CLAIM_FIELDS if kind == "expense_claim" else PURCHASE_FIELDS
    return documents.create_document(
        requester, kind=kind, title=title, amount=Decimal("300.00"), fields=fields
    )


def _submitted(requester, title: str, kind: str = "expense_claim"):
    doc = _draft(requester, title, kind)
    return transitions.transition_document(
        requester, doc.reference, "submit", seen_state="draft"
    ).document


def _figure(html: str, testid: str) -> str:
    found = re.search(rf'data-testid="{testid}">([^<]*)<', html)
    assert found, f"no {testid} on the page"
    return found.group(1).strip()


def _home(app, name: str) -> str:
    browser, _ = demo_browser(app, name)
    page = browser.get("/o/acme/")
    assert page.status_code == 200
    return page.get_data(as_text=True)


def test_a_requester_sees_their_documents_under_way_and_nothing_for_admins(app, people):
    siti = people("siti")
    assert home_summary(siti).mine.open == 0
    _submitted(siti, "Team lunch")
    _draft(siti, "Taxi")

    summary = home_summary(siti)

    assert (summary.mine.open, summary.mine.drafts) == (2, 1)
    assert summary.tasks.open == 0
    assert summary.admin is None and summary.organization is None
    html = _home(app, "siti")
    assert _figure(html, "home-mine") == "2"
    assert _figure(html, "home-waiting") == "0"
    assert "Flows with problems" not in html and "Chart gaps" not in html
    assert "Documents, the inbox and approval flows will appear here" not in html
    assert 'href="/o/acme/inbox/"' in html and 'href="/o/acme/documents/"' in html


def test_an_approver_sees_what_waits_and_what_is_overdue(app, people):
    siti, jason, nurul = people("siti"), people("jason"), people("nurul")
    _submitted(siti, "Team lunch")
    _submitted(jason, "Printer paper", kind="purchase_request")  # 48 h to decide
    waiting = home_summary(nurul).tasks
    assert waiting.open == 2
    assert waiting.overdue == 0

    clock.advance(timedelta(days=3))

    late_home = home_summary(nurul)
    late = late_home.tasks
    assert late.open == 2
    assert late.overdue >= 1
    # The most urgent first, named: the purchase request's deadline has passed.
    assert late_home.next_tasks[0].title == "Printer paper"
    assert late_home.next_tasks[0].overdue
    assert {t.title for t in late_home.next_tasks} == {"Team lunch", "Printer paper"}
    html = _home(app, "nurul")
    assert _figure(html, "home-waiting") == "2"
    assert "overdue" in _figure(html, "home-overdue")
    # The requester's own view of the same documents: none wait for them.
    assert home_summary(siti).tasks.open == 0


def test_an_admin_sees_chart_gaps_and_flows_with_problems(app, people):
    aisha, nurul = people("aisha"), people("nurul")
    before = home_summary(aisha).admin
    assert before is not None
    sales_head = next(
        p
        for p in chart.get_chart(aisha).positions.values()
        if any(h.member_id == nurul.member_id for h in p.holders)
    )
    holding = next(h for h in sales_head.holders if h.member_id == nurul.member_id)
    chart.end_holding(aisha, holding.holding_id, last_day=clock.today_in(aisha.time_zone))
    clock.advance(timedelta(days=1))

    # A draft that loses its grants breaks the validator's rule 4: saved, not publishable.
    graph = drafts.draft_graph(aisha, "leave_request")
    drafts.save_draft(aisha, "leave_request", replace(graph, grants=()), revision=0)

    after = home_summary(aisha).admin

    assert after is not None
    assert after.gaps.vacant_seats == before.gaps.vacant_seats + 1
    assert "leave_request" not in [f.kind for f in before.flows]
    [leave] = [f for f in after.flows if f.kind == "leave_request"]
    assert leave.errors > 0
    html = _home(app, "aisha")
    assert _figure(html, "home-gaps") == str(after.gaps.count)
    assert _figure(html, "home-flows") == str(len(after.flows))
    for flow in after.flows:
        assert f'href="/o/acme/flows/{flow.kind}/"' in html


def test_an_auditor_finds_every_document_and_opens_one_by_reference(app, people):
    siti, ravi = people("siti"), people("ravi")
    doc = _submitted(siti, "Team lunch")

    summary = home_summary(ravi)

    assert summary.admin is None
    assert summary.organization is not None
    assert summary.organization.total == 1
    assert [d.reference for d in summary.organization.recent] == [doc.reference]
    browser, _ = demo_browser(app, "ravi")
    html = browser.get("/o/acme/").get_data(as_text=True)
    assert doc.reference in html and "Team lunch" in html
    opened = browser.get(f"/o/acme/?reference={doc.reference.lower()}")
    assert opened.status_code == 302
    assert opened.headers["Location"].endswith(f"/o/acme/documents/{doc.reference}")
    # A member who may not see it gets the document page's 404, not a hint.
    jason_browser, _ = demo_browser(app, "jason")
    followed = jason_browser.get(f"/o/acme/?reference={doc.reference}", follow_redirects=True)
    assert followed.status_code == 404


def test_another_organization_is_never_counted(app, people, globex):
    siti = people("siti")
    _submitted(siti, "Team lunch")
    gus = globex.admin.actor
    _draft(gus, "Globex taxi")

    acme_auditor = home_summary(people("ravi")).organization
    globex_home = home_summary(gus)

    assert acme_auditor is not None and acme_auditor.total == 1
    assert globex_home.organization is not None
    assert globex_home.organization.total == 1
    assert [d.title for d in globex_home.organization.recent] == ["Globex taxi"]
    assert globex_home.tasks.open == 0
    assert home_summary(siti).mine.open == 1


def test_hostile_references_find_no_page_and_no_500(app, people):
    browser, _ = demo_browser(app, "ravi")
    for bad in ("x" * 5000, "EXP\x00-1", "../admin", "١٢٣", "' OR 1=1 --"):
        answered = browser.get("/o/acme/", query_string={"reference": bad}, follow_redirects=True)
        assert answered.status_code in (200, 400, 404)
