"""Handing a task over from the document page: the holder's "Hand over to a colleague"
form (a labelled member picker and a reason, no script), the confirmation after it, the
history's sentence, the receiver's inbox row — and each refusal shown again beside its
field (422), a stale page (409), hostile input (a message or 400, never a 500), another
organization's document (404).

The demo organization: Siti's claim waits for an admin to commit it (Grace, Aisha,
Daniel, Mei Ling); Hannah is made an admin after it got there.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from portal.accounts.services import people as accounts
from portal.config import TEMPLATES_DIR
from portal.domain.actor import Role
from tests.delegations.covers import move, submitted_claim
from tests.factories import browser_for, demo_browser

REASON = "On leave from Monday"


def _approved(people):
    doc = move(people("nurul"), submitted_claim(people("siti")), "review")
    return move(people("zainal"), doc, "approve")


def _url(doc, tail: str = "") -> str:
    return f"/o/acme/documents/{doc.reference}{tail}"


def _post(browser, token, doc, to: str, reason: str = REASON, seen: str | None = None):
    return browser.post(
        _url(doc, "/handover"),
        data={
            "csrf_token": token,
            "to_member": to,
            "reason": reason,
            "seen_state": seen or doc.state,
        },
    )


def _text(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def test_the_holder_hands_over_from_the_page_and_everyone_reads_it(app, people, globex):
    doc = _approved(people)
    accounts.set_member_roles(people("aisha"), people("hannah").member_id, [Role.ADMIN])
    hannah = people("hannah").member_id
    browser, token = demo_browser(app, "grace")

    page = browser.get(_url(doc)).get_data(as_text=True)
    assert 'data-testid="handover"' in page
    assert '<label for="handover-to">' in page and '<label for="handover-reason">' in page
    # Anyone active but the holder and the requester.
    assert f'<option value="{hannah}">Hannah Ong</option>' in page
    assert ">Grace Lee</option>" not in page and ">Siti Aminah</option>" not in page

    answer = _post(browser, token, doc, str(hannah))

    assert answer.status_code == 303
    assert answer.headers["Location"].endswith(_url(doc))
    after = _text(browser.get(_url(doc)))
    assert "Handed over to Hannah Ong: the task is theirs now" in after
    assert f"Grace Lee handed the task to Hannah Ong: {REASON}" in after
    # Grace holds nothing now: no form for her.
    assert 'data-testid="handover"' not in after
    # Hannah's inbox says where the task came from; her page offers the decision.
    theirs, _ = demo_browser(app, "hannah")
    assert "handed over by Grace Lee" in _text(theirs.get("/o/acme/inbox/"))
    assert "handed over to you by Grace Lee" in _text(theirs.get(_url(doc)))


def test_the_requester_and_anyone_without_an_open_task_get_no_form(app, people):
    doc = _approved(people)
    for name in ("siti", "ravi"):
        browser, _ = demo_browser(app, name)
        page = browser.get(_url(doc))
        assert page.status_code == 200
        assert 'data-testid="handover"' not in page.get_data(as_text=True)


def test_a_colleague_who_cannot_decide_is_refused_beside_the_picker(app, people):
    doc = submitted_claim(people("siti"))
    browser, token = demo_browser(app, "nurul")
    jason = people("jason").member_id

    answer = _post(browser, token, doc, str(jason))

    assert answer.status_code == 422
    page = _text(answer)
    assert 'id="handover-to-error"' in page
    assert "Jason Wong cannot decide this step on their own authority" in page
    assert "set a cover instead" in page
    # What was chosen and typed is kept, and the form is open.
    assert f'<option value="{jason}" selected>' in page
    assert f'value="{REASON}"' in page
    assert '<details class="handover" data-testid="handover" open>' in page


@pytest.mark.parametrize("chosen", ["", "abc", "١٢", "-3", "9" * 40, "99999999999"])
def test_a_member_that_is_no_member_gets_a_message_not_an_error(app, people, chosen):
    doc = _approved(people)
    browser, token = demo_browser(app, "grace")

    answer = _post(browser, token, doc, chosen)

    assert answer.status_code == 422
    assert "Choose a member of this organization." in _text(answer)


def test_another_organizations_member_answers_like_nobody(app, people, globex):
    doc = _approved(people)
    browser, token = demo_browser(app, "grace")

    answer = _post(browser, token, doc, str(globex.admin.member_id))

    assert answer.status_code == 422
    page = _text(answer)
    assert "Choose a member of this organization." in page
    assert "Gus Globex" not in page


def test_an_empty_reason_is_refused_beside_its_field(app, people):
    doc = _approved(people)
    browser, token = demo_browser(app, "grace")

    answer = _post(browser, token, doc, str(people("daniel").member_id), "   ")

    assert answer.status_code == 422
    page = _text(answer)
    assert 'id="handover-reason-error"' in page
    assert "Say why you hand it over." in page


@pytest.mark.parametrize("reason", ["On leave\x00", "x" * 25_000])
def test_control_characters_and_huge_reasons_stop_at_the_request_layer(app, people, reason):
    doc = _approved(people)
    browser, token = demo_browser(app, "grace")

    answer = _post(browser, token, doc, str(people("daniel").member_id), reason)

    assert answer.status_code == 400


def test_a_stale_page_says_so_and_hands_nothing_over(app, people):
    doc = _approved(people)
    browser, token = demo_browser(app, "grace")

    answer = _post(browser, token, doc, str(people("daniel").member_id), seen="submitted")

    assert answer.status_code == 409
    assert "nothing was handed over" in _text(answer)
    assert "handed the task to" not in _text(browser.get(_url(doc)))


def test_another_organization_finds_no_such_document(app, people, globex):
    doc = _approved(people)
    browser, token = browser_for(app, globex.admin.email)

    answer = browser.post(
        f"/o/globex-test/documents/{doc.reference}/handover",
        data={
            "csrf_token": token,
            "to_member": str(globex.admin.member_id),
            "reason": REASON,
            "seen_state": doc.state,
        },
    )

    assert answer.status_code == 404


def test_the_form_needs_no_script_and_no_inline_style():
    partial = (Path(TEMPLATES_DIR) / "documents" / "_handover.html").read_text()
    assert "<script" not in partial and "style=" not in partial
    assert "hx-" not in partial  # a plain post: it works without JavaScript
