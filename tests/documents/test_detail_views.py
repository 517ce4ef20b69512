"""The detail page: the document, only the actions this member may take now with one
shared comment, who else it waits for, the history — and a stale page told kindly."""

from __future__ import annotations

import re
from decimal import Decimal

from portal.demo import DEMO_PASSWORD
from portal.documents import services as documents
from tests.factories import csrf_token_from

FIELDS = {"category": "travel", "expense_date": "2026-11-20"}


def _browser(app, name: str):  # type: ignore[no-untyped-def]
    """A browser signed in as a demo person; returns (client, CSRF token)."""
    browser = app.test_client()
    token = csrf_token_from(browser.get("/login").get_data(as_text=True))
    signed_in = browser.post(
        "/login",
        data={"email": f"{name}@acme.example", "password": DEMO_PASSWORD, "csrf_token": token},
    )
    assert signed_in.status_code == 302
    page = browser.get("/o/acme/", follow_redirects=True).get_data(as_text=True)
    return browser, csrf_token_from(page)


def _submitted(people):  # type: ignore[no-untyped-def]
    siti = people("siti")
    doc = documents.create_document(
        siti, kind="expense_claim", title="Client visit", amount=Decimal("480.00"), fields=FIELDS
    )
    return documents.transition_document(siti, doc.reference, "submit", seen_state="draft").document


def _buttons(html: str) -> list[str]:
    return re.findall(r'name="transition" value="([a-z_]+)"', html)


def test_the_approver_sees_exactly_the_actions_open_to_them(app, people):
    doc = _submitted(people)
    nurul, _ = _browser(app, "nurul")
    page = nurul.get(f"/o/acme/documents/{doc.reference}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert _buttons(html) == ["review", "reject"]
    assert "Pending review" in html and "MYR480.00" in html
    assert "required to Reject" in html

    # The requester sees no approver's button, but learns whom they wait for.
    siti, _ = _browser(app, "siti")
    mine = siti.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
    assert "review" not in _buttons(mine) and "withdraw" in _buttons(mine)
    assert "Mark reviewed / Reject — waiting for: Nurul Huda" in mine
    # Her one action is not dressed as the main one: withdrawing is not moving forward.
    assert 'class="primary"' not in mine.split('name="transition"')[1][:60]


def test_a_decision_posted_from_the_page_moves_the_document_and_joins_the_history(app, people):
    doc = _submitted(people)
    nurul, token = _browser(app, "nurul")
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
    doc = _submitted(people)
    nurul, token = _browser(app, "nurul")
    form = {"transition": "review", "seen_state": "pending_review", "csrf_token": token}
    assert nurul.post(f"/o/acme/documents/{doc.reference}/transition", data=form).status_code == 302

    again = nurul.post(f"/o/acme/documents/{doc.reference}/transition", data=form)
    assert again.status_code == 409
    html = again.get_data(as_text=True)
    assert "Someone acted on this document before you" in html
    assert _buttons(html) == ["approve", "reject"]  # the actions of the state it is in now
    assert len(documents.history(people("nurul"), doc.reference)) == 2  # decided once


def test_a_refused_action_says_why_and_changes_nothing(app, people):
    doc = _submitted(people)
    nurul, token = _browser(app, "nurul")
    refused = nurul.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={
            "transition": "reject",
            "seen_state": "pending_review",
            "comment": " ",
            "csrf_token": token,
        },
    )
    assert refused.status_code == 400
    assert "A comment is required for this action." in refused.get_data(as_text=True)
    # A transition the page never offered (tampered form) is refused the same way.
    tampered = nurul.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={"transition": "pay", "seen_state": "pending_review", "csrf_token": token},
    )
    assert tampered.status_code == 409
    assert documents.get_document(people("nurul"), doc.reference).state == "pending_review"


def test_a_document_is_not_there_for_who_may_not_see_it(app, people, globex):
    doc = _submitted(people)
    farid, token = _browser(app, "farid")  # head of Operations: no part in Siti's claim
    assert farid.get(f"/o/acme/documents/{doc.reference}").status_code == 404
    post = farid.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={"transition": "review", "seen_state": "pending_review", "csrf_token": token},
    )
    assert post.status_code == 404
    ravi, _ = _browser(app, "ravi")  # the auditor sees every document
    assert ravi.get(f"/o/acme/documents/{doc.reference}").status_code == 200


def test_a_post_without_its_csrf_token_is_refused(app, people):
    allowed, doc = _submitted(people), _submitted(people)
    nurul, token = _browser(app, "nurul")
    done = nurul.post(
        f"/o/acme/documents/{allowed.reference}/transition",
        data={"transition": "review", "seen_state": "pending_review", "csrf_token": token},
    )
    assert done.status_code == 302
    assert documents.get_document(people("nurul"), allowed.reference).state != "pending_review"

    refused = nurul.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={"transition": "review", "seen_state": "pending_review"},
    )
    assert refused.status_code == 400
    assert documents.get_document(people("nurul"), doc.reference).state == "pending_review"


def test_a_submission_nobody_could_decide_is_refused_in_plain_words(app, people):
    from portal.accounts import services as accounts
    from portal.domain.actor import SystemActor

    siti = people("siti")
    system = SystemActor(org_id=siti.org_id, org_slug="acme")
    accounts.create_user("newbie@acme.example", "Nadia Newbie", DEMO_PASSWORD)
    accounts.create_member(system, email="newbie@acme.example", name="Nadia Newbie")  # type: ignore[arg-type]
    newbie = people("newbie")  # a member with no seat yet: no superior, no unit
    doc = documents.create_document(
        newbie, kind="expense_claim", title="Lunch", amount=Decimal("25.00"), fields=FIELDS
    )
    browser, token = _browser(app, "newbie")
    refused = browser.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={"transition": "submit", "seen_state": "draft", "csrf_token": token},
    )
    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert "This cannot go ahead: nobody could decide it at “Reviewed”." in html
    assert "Nadia Newbie has no primary position" in html
    assert documents.get_document(newbie, doc.reference).state == "draft"
