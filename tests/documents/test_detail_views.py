"""The detail page: the document, only the actions this member may take now with one
shared comment, who else it waits for, the history — and a stale page told kindly."""

from __future__ import annotations

import re
from decimal import Decimal

from portal.core import uow
from portal.demo import DEMO_PASSWORD
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.queries import detail as document_queries
from portal.inbox.queries import count_open_tasks
from tests.factories import demo_browser

FIELDS = {"category": "travel", "expense_date": "2026-11-20"}


def _submitted(people):
    siti = people("siti")
    doc = documents.create_document(
        siti, kind="expense_claim", title="Client visit", amount=Decimal("480.00"), fields=FIELDS
    )
    return transitions.transition_document(
        siti, doc.reference, "submit", seen_state="draft"
    ).document


def _approved(people):
    """A claim reviewed by Nurul and approved by Zainal: now any admin but the one who
    commits the money may pay it (exclusive approval)."""
    doc = _submitted(people)
    for name, key in (("nurul", "review"), ("zainal", "approve")):
        doc = transitions.transition_document(
            people(name), doc.reference, key, seen_state=doc.state
        ).document
    return doc


def _buttons(html: str) -> list[str]:
    return re.findall(r'name="transition" value="([a-z_]+)"', html)


def test_the_approver_sees_exactly_the_actions_open_to_them(app, people):
    doc = _submitted(people)
    nurul, _ = demo_browser(app, "nurul")
    page = nurul.get(f"/o/acme/documents/{doc.reference}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert _buttons(html) == ["review", "reject"]
    # en-MY: the demo organization is in Malaysia, so ringgit are written RM.
    assert "Pending review" in html and "RM480.00" in html
    assert "required to Reject" in html

    # The requester sees no approver's button, but learns whom they wait for.
    siti, _ = demo_browser(app, "siti")
    mine = siti.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
    assert "review" not in _buttons(mine) and "withdraw" in _buttons(mine)
    assert "Mark reviewed / Reject — waiting for: Nurul Huda" in mine
    # Her one action is not dressed as the main one: withdrawing is not moving forward.
    assert 'class="primary"' not in mine.split('name="transition"')[1][:60]


def test_a_decision_posted_from_the_page_moves_the_document_and_joins_the_history(app, people):
    doc = _submitted(people)
    nurul, token = demo_browser(app, "nurul")
    moved = nurul.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={
            "transition": "review",
            "seen_state": "pending_review",
            "comment": "",
            "csrf_token": token,
        },
    )
    assert moved.status_code == 302
    html = nurul.get(moved.headers["Location"]).get_data(as_text=True)
    assert "Done: the document is now “Reviewed”." in html
    assert "2 decisions; the chain verifies." in html
    assert "Could decide: Nurul Huda" in html


def test_a_stale_page_is_told_the_document_moved_on_and_shown_as_it_is(app, people):
    doc = _approved(people)
    grace, grace_token = demo_browser(app, "grace")
    aisha, token = demo_browser(app, "aisha")
    form = {"transition": "verify_category", "seen_state": "approved"}
    path = f"/o/acme/documents/{doc.reference}/transition"
    assert grace.post(path, data={**form, "csrf_token": grace_token}).status_code == 302

    again = aisha.post(path, data={**form, "csrf_token": token})
    assert again.status_code == 409
    html = again.get_data(as_text=True)
    assert "This document has moved on: someone acted on it before you." in html
    assert _buttons(html) == ["pay", "reject"]  # the actions of the state it is in now
    assert len(document_queries.history(people("aisha"), doc.reference)) == 4  # verified once


def test_a_refused_action_says_why_and_changes_nothing(app, people):
    doc = _submitted(people)
    nurul, token = demo_browser(app, "nurul")
    refused = nurul.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={
            "transition": "reject",
            "seen_state": "pending_review",
            "comment": " ",
            "csrf_token": token,
        },
    )
    assert refused.status_code == 422
    assert "A comment is required for this action." in refused.get_data(as_text=True)
    # A transition the page never offered (tampered form) is refused the same way.
    tampered = nurul.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={"transition": "pay", "seen_state": "pending_review", "csrf_token": token},
    )
    assert tampered.status_code == 409
    assert document_queries.get_document(people("nurul"), doc.reference).state == "pending_review"


def test_a_refusal_on_the_page_writes_nothing_and_no_decision_needs_a_savepoint(
    app, people, monkeypatch
):
    """The page's decision takes no savepoint (two round trips): every refusal comes
    before its one write, or from that write having found the document moved on."""
    import sys

    from sqlalchemy.orm import Session

    nested: list[str] = []  # who took a savepoint (the mail delivered after commit may)
    real = Session.begin_nested

    def begin_nested(session):
        nested.append(sys._getframe(1).f_code.co_name)
        return real(session)

    monkeypatch.setattr(Session, "begin_nested", begin_nested)
    doc = _submitted(people)
    nurul, token = demo_browser(app, "nurul")
    path = f"/o/acme/documents/{doc.reference}/transition"
    before = document_queries.history(people("siti"), doc.reference)
    waiting = count_open_tasks(people("nurul"))

    for form, status in (
        ({"transition": "reject", "seen_state": "pending_review", "comment": " "}, 422),
        ({"transition": "pay", "seen_state": "pending_review"}, 409),
        ({"transition": "review", "seen_state": "draft"}, 409),
    ):
        refused = nurul.post(path, data={**form, "csrf_token": token})
        assert refused.status_code == status
        assert document_queries.history(people("siti"), doc.reference) == before
        assert count_open_tasks(people("nurul")) == waiting

    review = {"transition": "review", "seen_state": "pending_review", "csrf_token": token}
    assert nurul.post(path, data=review).status_code == 302
    assert len(document_queries.history(people("siti"), doc.reference)) == len(before) + 1
    assert count_open_tasks(people("nurul")) == waiting - 1
    assert "_next_reference" in nested  # the probe sees the savepoints taken
    assert not {"decide_on_page", "_transition_in"} & set(nested)


def test_a_document_is_not_there_for_who_may_not_see_it(app, people, globex):
    doc = _submitted(people)
    farid, token = demo_browser(app, "farid")  # head of Operations: no part in Siti's claim
    assert farid.get(f"/o/acme/documents/{doc.reference}").status_code == 404
    post = farid.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={"transition": "review", "seen_state": "pending_review", "csrf_token": token},
    )
    assert post.status_code == 404
    ravi, _ = demo_browser(app, "ravi")  # the auditor sees every document
    assert ravi.get(f"/o/acme/documents/{doc.reference}").status_code == 200


def test_a_post_without_its_csrf_token_is_refused(app, people):
    allowed, doc = _submitted(people), _submitted(people)
    nurul, token = demo_browser(app, "nurul")
    done = nurul.post(
        f"/o/acme/documents/{allowed.reference}/transition",
        data={"transition": "review", "seen_state": "pending_review", "csrf_token": token},
    )
    assert done.status_code == 302
    assert (
        document_queries.get_document(people("nurul"), allowed.reference).state != "pending_review"
    )

    refused = nurul.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={"transition": "review", "seen_state": "pending_review"},
    )
    assert refused.status_code == 400
    assert document_queries.get_document(people("nurul"), doc.reference).state == "pending_review"


def test_a_submission_nobody_could_decide_is_refused_in_plain_words(app, people):
    from portal.accounts import services as accounts
    from portal.domain.actor import SystemActor

    siti = people("siti")
    system = SystemActor(org_id=siti.org_id, org_slug="acme")
    accounts.create_user("newbie@acme.example", "Nadia Newbie", DEMO_PASSWORD)
    accounts.enrol_member(system, email="newbie@acme.example")
    newbie = people("newbie")  # a member with no seat yet: no superior, no unit
    doc = documents.create_document(
        newbie, kind="expense_claim", title="Lunch", amount=Decimal("25.00"), fields=FIELDS
    )
    browser, token = demo_browser(app, "newbie")
    refused = browser.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={"transition": "submit", "seen_state": "draft", "csrf_token": token},
    )
    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert "This cannot go ahead: nobody could decide it at “Reviewed”." in html
    assert "Nadia Newbie has no primary position" in html
    assert document_queries.get_document(newbie, doc.reference).state == "draft"


def _units_of_work(monkeypatch, request):
    """The units of work one request opens inside its organization (each is a
    transaction of its own), counted at the one place they are all opened."""
    opened: list[int] = []
    real = uow.unit_of_work

    def counted(org_id, **kwargs):
        if org_id is not None:
            opened.append(org_id)
        return real(org_id, **kwargs)

    monkeypatch.setattr(uow, "unit_of_work", counted)
    response = request()
    monkeypatch.setattr(uow, "unit_of_work", real)
    return response, len(opened)


def test_a_refused_decision_costs_the_page_no_more_transactions_than_viewing_it(
    app, people, monkeypatch
):
    """The decision and the page it shows are one transaction, like the page alone;
    the nav's two badges are counted together on either (the gap refusal once took four)."""
    from portal.accounts import services as accounts
    from portal.domain.actor import SystemActor

    siti = people("siti")
    system = SystemActor(org_id=siti.org_id, org_slug="acme")
    accounts.create_user("newbie@acme.example", "Nadia Newbie", DEMO_PASSWORD)
    accounts.enrol_member(system, email="newbie@acme.example")
    newbie = people("newbie")
    doc = documents.create_document(
        newbie, kind="expense_claim", title="Lunch", amount=Decimal("25.00"), fields=FIELDS
    )
    browser, token = demo_browser(app, "newbie")
    page = f"/o/acme/documents/{doc.reference}"

    viewed, viewing = _units_of_work(monkeypatch, lambda: browser.get(page))
    assert viewed.status_code == 200
    assert viewing == 2  # the page, then the inbox badge and the bell together

    refused, refusing = _units_of_work(
        monkeypatch,
        lambda: browser.post(
            f"{page}/transition",
            data={"transition": "submit", "seen_state": "draft", "csrf_token": token},
        ),
    )
    assert refused.status_code == 422
    assert "This cannot go ahead: nobody could decide it" in refused.get_data(as_text=True)
    assert refusing == viewing


# --- with htmx: the changed region comes back and is swapped in place -------------------

HTMX = {"HX-Request": "true"}


def test_with_htmx_a_decision_answers_the_changed_region_and_the_nav_count(app, people):
    doc = _submitted(people)
    _submitted(people)  # another claim for Nurul to review: her count stays above zero
    nurul, token = demo_browser(app, "nurul")
    form = {"transition": "review", "seen_state": "pending_review", "csrf_token": token}

    moved = nurul.post(f"/o/acme/documents/{doc.reference}/transition", data=form, headers=HTMX)

    assert moved.status_code == 200
    html = moved.get_data(as_text=True)
    assert "<html" not in html
    assert '<div id="document-live"' in html
    # The message is where focus goes after the swap, and says what happened.
    assert re.search(r'id="document-message"[^>]*role="status"[^>]*autofocus', html, re.S)
    assert "Done: the document is now “Reviewed”." in html
    # The approval is Zainal's: under exclusive approval the reviewer approves nothing.
    assert _buttons(html) == []
    # The nav's inbox link comes along out of band with the count as it now stands
    # (this review task closed, the other claim's still open).
    assert re.search(r'<a href="/o/acme/inbox/" id="nav-inbox" hx-swap-oob="true"', html)
    count = count_open_tasks(people("nurul"))
    assert count == 1
    badge = f'aria-label="{count} thing waiting for you">{count}</span>'
    assert f'data-testid="inbox-badge" {badge}' in html
    assert document_queries.get_document(people("nurul"), doc.reference).state == "reviewed"


def test_with_htmx_a_missing_comment_keeps_what_was_typed_and_focuses_the_field(app, people):
    doc = _submitted(people)
    nurul, token = demo_browser(app, "nurul")
    # Allowed first: with its comment, the rejection goes through.
    other = _submitted(people)
    ok = nurul.post(
        f"/o/acme/documents/{other.reference}/transition",
        data={
            "transition": "reject",
            "seen_state": "pending_review",
            "comment": "No receipt",
            "csrf_token": token,
        },
        headers=HTMX,
    )
    assert ok.status_code == 200 and "“Rejected”" in ok.get_data(as_text=True)

    refused = nurul.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={
            "transition": "reject",
            "seen_state": "pending_review",
            "comment": "  ",
            "csrf_token": token,
        },
        headers=HTMX,
    )

    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert 'id="comment-error">A comment is required for this action.</p>' in html
    assert re.search(
        r'<textarea id="comment"[^>]*aria-invalid="true" aria-describedby="comment-error" autofocus>',
        html,
    )
    assert 'role="alert"' in html
    assert document_queries.get_document(people("nurul"), doc.reference).state == "pending_review"


def test_a_refused_decision_keeps_the_typed_comment_with_or_without_javascript(app, people):
    doc = _approved(people)
    grace, grace_token = demo_browser(app, "grace")
    aisha, token = demo_browser(app, "aisha")
    form = {"transition": "verify_category", "seen_state": "approved"}
    path = f"/o/acme/documents/{doc.reference}/transition"
    assert grace.post(path, data={**form, "csrf_token": grace_token}).status_code == 302

    typed = "Checked the hotel bill & the taxi <receipts>"
    for headers in ({}, HTMX):
        stale = aisha.post(
            path, data={**form, "comment": typed, "csrf_token": token}, headers=headers
        )
        assert stale.status_code == 409
        html = stale.get_data(as_text=True)
        assert "This document has moved on" in html
        assert ">Checked the hotel bill &amp; the taxi &lt;receipts&gt;</textarea>" in html
        assert _buttons(html) == ["pay", "reject"]
    assert len(document_queries.history(people("aisha"), doc.reference)) == 4  # verified once


def test_with_htmx_a_document_out_of_reach_is_still_not_found(app, people):
    doc = _submitted(people)
    farid, token = demo_browser(app, "farid")
    post = farid.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={"transition": "review", "seen_state": "pending_review", "csrf_token": token},
        headers=HTMX,
    )
    assert post.status_code == 404
    assert doc.reference not in post.get_data(as_text=True)
