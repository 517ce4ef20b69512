"""The inbox, in the demo organization (Siti and Jason report to Nurul, head of Sales),
with globex present and invisible: most urgent first, only my tasks, the nav badge,
bulk approve and reject with an outcome per document, and the 30-second refresh that
keeps the checked rows checked."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest

from portal.core.clock import clock
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.queries import detail as document_queries
from portal.inbox import queries
from tests.factories import demo_browser, demo_people

INBOX = "/o/acme/inbox"
CLAIM_FIELDS = {"category": "meals", "expense_date": "2026-11-21"}
PURCHASE_FIELDS = {"supplier": "Paper Co", "category": "goods"}


@pytest.fixture
def people(app, globex):
    return demo_people()


def _claim(requester, title: str, amount: str = "42.00"):
    doc = documents.create_document(
        requester, kind="expense_claim", title=title, amount=Decimal(amount), fields=CLAIM_FIELDS
    )
    return transitions.transition_document(
        requester, doc.reference, "submit", seen_state="draft"
    ).document


def _purchase(requester, title: str):
    doc = documents.create_document(
        requester,
        kind="purchase_request",
        title=title,
        amount=Decimal("300.00"),
        fields=PURCHASE_FIELDS,
    )
    return transitions.transition_document(
        requester, doc.reference, "submit", seen_state="draft"
    ).document


def _listed(html: str) -> list[str]:
    body = re.search(r'<tbody id="inbox-rows".*?</tbody>', html, re.S)
    assert body, "no inbox table body"
    return re.findall(r'<tr[^>]*data-reference="([^"]+)"', body.group(0))


def _outcomes(html: str) -> dict[str, str]:
    block = re.search(r'data-testid="outcomes">(.*?)</ul>', html, re.S)
    assert block, "no outcome list"
    found = re.findall(
        r'data-reference="([^"]+)">\s*<a[^>]*>[^<]*</a>:\s*(.*?)\s*</li>', block.group(1), re.S
    )
    return {ref: " ".join(text.split()) for ref, text in found}


def _value(doc) -> str:
    return f"{doc.reference}|{doc.state}"


# --- the list ------------------------------------------------------------------------------


def test_the_approver_sees_the_submitted_documents_most_urgent_first(app, people):
    siti, jason, nurul = people("siti"), people("jason"), people("nurul")
    # Seated from the day the demo was seeded: start the story then.
    clock.freeze(clock.now())
    older_claim = _claim(siti, "Team lunch")
    purchase = _purchase(jason, "Printer paper")  # 48 h to decide
    clock.advance(timedelta(hours=1))
    newer_claim = _claim(jason, "Client dinner")  # 5 days to decide
    clock.advance(timedelta(days=3))  # the purchase request is now overdue

    inbox = queries.open_tasks(nurul)

    assert [row.reference for row in inbox.rows] == [
        purchase.reference,
        older_claim.reference,
        newer_claim.reference,
    ]
    assert inbox.more is False
    assert inbox.rows[0].is_overdue(clock.now())
    assert not inbox.rows[1].is_overdue(clock.now())
    assert inbox.rows[1].state == "pending_review"
    assert queries.count_open_tasks(nurul) == 3

    browser, _ = demo_browser(app, "nurul")
    html = browser.get(f"{INBOX}/").get_data(as_text=True)
    assert _listed(html) == [purchase.reference, older_claim.reference, newer_claim.reference]
    assert "overdue" in html
    assert "Pending review" in html  # the flow's label, not the key
    assert "Team lunch" in html and "Siti" in html
    assert f'value="{_value(older_claim)}"' in html
    assert 'data-testid="inbox-badge"' in html and ">3</span>" in html
    assert 'aria-current="page"' in html


def test_a_capped_inbox_says_there_are_more(app, people):
    siti, nurul = people("siti"), people("nurul")
    for n in range(3):
        _claim(siti, f"Taxi {n}")

    capped = queries.open_tasks(nurul, limit=2)

    assert (len(capped.rows), capped.more) == (2, True)
    assert queries.open_tasks(nurul, limit=3).more is False


def test_a_title_that_looks_like_markup_is_shown_as_text(app, people):
    siti = people("siti")
    plain = _claim(siti, "Lunch & taxi")
    tricky = _claim(siti, '<img src=x onerror="alert(1)">')
    browser, _ = demo_browser(app, "nurul")

    html = browser.get(f"{INBOX}/").get_data(as_text=True)

    assert _listed(html) == [plain.reference, tricky.reference]
    assert "<td>Lunch &amp; taxi</td>" in html
    assert "<td>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</td>" in html
    assert "<img src=x" not in html


def test_the_requester_sees_none_of_their_own_documents(app, people):
    siti, nurul = people("siti"), people("nurul")
    _claim(siti, "Hotel")
    assert len(queries.open_tasks(nurul).rows) == 1  # the allowed case first

    assert queries.open_tasks(siti).rows == []
    assert queries.count_open_tasks(siti) == 0
    browser, _ = demo_browser(app, "siti")
    html = browser.get(f"{INBOX}/").get_data(as_text=True)
    assert _listed(html) == []
    assert "Nothing is waiting for you" in html
    assert 'data-testid="inbox-badge"' not in html


def test_another_organization_never_appears(app, people, globex, login, client):
    siti = people("siti")
    doc = _claim(siti, "Conference fee")
    nurul_browser, _ = demo_browser(app, "nurul")
    assert doc.reference in nurul_browser.get(f"{INBOX}/").get_data(as_text=True)

    login(globex.admin)
    html = client.get("/o/globex-test/inbox/").get_data(as_text=True)
    assert doc.reference not in html
    assert _listed(html) == []
    assert queries.open_tasks(globex.admin.actor).rows == []
    # Nor can an acme member open globex's inbox.
    assert nurul_browser.get("/o/globex-test/inbox/").status_code == 404


# --- bulk decisions ------------------------------------------------------------------------


def test_a_bulk_approve_moves_both_documents_and_reports_each(app, people):
    siti, jason, nurul = people("siti"), people("jason"), people("nurul")
    claim, purchase = _claim(siti, "Lunch"), _purchase(jason, "Toner")
    browser, token = demo_browser(app, "nurul")

    response = browser.post(
        f"{INBOX}/bulk",
        data={
            "items": [_value(claim), _value(purchase)],
            "transition": "approve",
            "comment": "Fine",
            "csrf_token": token,
        },
    )

    assert response.status_code == 200
    html = response.get_data(as_text=True)
    # Each took the first transition its task authorises: review for the claim.
    assert _outcomes(html) == {
        claim.reference: "done → Reviewed",
        purchase.reference: "done → Approved",
    }
    assert document_queries.get_document(nurul, claim.reference).state == "reviewed"
    assert document_queries.get_document(nurul, purchase.reference).state == "approved"
    assert purchase.reference not in _listed(html)


def test_a_document_moved_meanwhile_is_reported_stale_while_the_other_succeeds(app, people):
    siti, nurul = people("siti"), people("nurul")
    first, second = _claim(siti, "Parking"), _claim(siti, "Fuel")
    browser, token = demo_browser(app, "nurul")
    # Another tab reviews the first claim after this page was rendered.
    transitions.transition_document(nurul, first.reference, "review", seen_state=first.state)

    response = browser.post(
        f"{INBOX}/bulk",
        data={
            "items": [_value(first), _value(second)],
            "transition": "approve",
            "csrf_token": token,
        },
    )

    assert response.status_code == 200
    outcomes = _outcomes(response.get_data(as_text=True))
    assert outcomes[second.reference] == "done → Reviewed"
    assert outcomes[first.reference] == (
        "This document has moved on since you looked at it (it is now “reviewed”)."
        " Reload to see where it stands."
    )
    assert document_queries.get_document(nurul, second.reference).state == "reviewed"


def test_a_reject_without_a_comment_is_refused_for_each_document(app, people):
    siti, nurul = people("siti"), people("nurul")
    first, second = _claim(siti, "Snacks"), _claim(siti, "Drinks")
    browser, token = demo_browser(app, "nurul")
    items = [_value(first), _value(second)]

    refused = browser.post(
        f"{INBOX}/bulk", data={"items": items, "transition": "reject", "csrf_token": token}
    )

    html = refused.get_data(as_text=True)
    assert _outcomes(html) == {
        first.reference: "A comment is required for this action.",
        second.reference: "A comment is required for this action.",
    }
    assert (
        f'value="{_value(first)}" id="pick-{first.reference}" aria-label="Select {first.reference}" checked'
        in html
    )
    assert document_queries.get_document(nurul, first.reference).state == "pending_review"

    # With the comment, both are rejected.
    done = browser.post(
        f"{INBOX}/bulk",
        data={
            "items": items,
            "transition": "reject",
            "comment": "Not business",
            "csrf_token": token,
        },
    )
    assert set(_outcomes(done.get_data(as_text=True)).values()) == {"done → Rejected"}


def test_a_bulk_with_a_repeated_document_or_over_the_limit_is_refused_whole(app, people):
    siti = people("siti")
    doc = _claim(siti, "Coffee")
    browser, token = demo_browser(app, "nurul")

    repeated = browser.post(
        f"{INBOX}/bulk",
        data={"items": [_value(doc), _value(doc)], "transition": "approve", "csrf_token": token},
    )
    assert repeated.status_code == 400
    assert "Each document may appear only once" in repeated.get_data(as_text=True)

    too_many = [f"EXP-2026-{n:05d}|pending_review" for n in range(1, 102)]
    refused = browser.post(
        f"{INBOX}/bulk", data={"items": too_many, "transition": "approve", "csrf_token": token}
    )
    assert refused.status_code == 400
    assert "At most 100 documents" in refused.get_data(as_text=True)
    assert document_queries.get_document(people("nurul"), doc.reference).state == "pending_review"


def test_a_bulk_post_without_the_csrf_token_is_refused(app, people):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti, "Stationery")
    browser, token = demo_browser(app, "nurul")

    refused = browser.post(f"{INBOX}/bulk", data={"items": [_value(doc)], "transition": "approve"})

    assert refused.status_code == 400
    assert document_queries.get_document(nurul, doc.reference).state == "pending_review"
    accepted = browser.post(
        f"{INBOX}/bulk",
        data={"items": [_value(doc)], "transition": "approve", "csrf_token": token},
    )
    assert accepted.status_code == 200


# --- the refresh ---------------------------------------------------------------------------


def test_the_refreshed_rows_keep_the_checked_boxes_checked(app, people):
    siti, nurul = people("siti"), people("nurul")
    kept, other, moved = _claim(siti, "Bus"), _claim(siti, "Tram"), _claim(siti, "Ferry")
    browser, _ = demo_browser(app, "nurul")
    transitions.transition_document(nurul, moved.reference, "review", seen_state=moved.state)

    fragment = browser.get(
        f"{INBOX}/rows",
        query_string={"items": [_value(kept), _value(moved)]},
        headers={"HX-Request": "true"},
    )

    html = fragment.get_data(as_text=True)
    assert html.lstrip().startswith("<tbody")
    assert "<html" not in html
    assert (
        f'value="{_value(kept)}" id="pick-{kept.reference}" aria-label="Select {kept.reference}" checked'
        in html
    )
    assert (
        f'value="{_value(other)}" id="pick-{other.reference}" aria-label="Select {other.reference}">'
        in html
    )
    # The one that moved on since stays, still checked, saying so.
    assert f'value="{_value(moved)}"' in html
    assert "No longer waiting for you" in html
    assert 'hx-trigger="every 30s"' in html
    assert 'hx-swap-oob="true"' in html
