"""A requester's own next steps, in the demo organization (globex present and
invisible): a rejected claim waits for its requester to revise it, and then to resubmit
it; the inbox lists it with the flow's own label for the action and what put it there,
the nav badge counts it, and the document page says "Waiting for you"."""

from __future__ import annotations

import re
from decimal import Decimal

from portal.accounts.services.people import set_user_locale
from portal.documents import services as documents
from portal.documents import transitions
from portal.inbox import queries
from tests.factories import demo_browser

INBOX = "/o/acme/inbox/"
CLAIM = {"category": "travel", "expense_date": "2026-11-20"}


def _claim(siti, title: str = "Taxi to KLIA"):
    doc = documents.create_document(
        siti, kind="expense_claim", title=title, amount=Decimal("45.60"), fields=CLAIM
    )
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    return doc


def _reject(nurul, doc, comment: str = "receipt missing") -> None:
    transitions.transition_document(
        nurul, doc.reference, "reject", seen_state="pending_review", comment=comment
    )


def _steps(html: str) -> dict[str, str]:
    block = re.search(r'data-testid="next-steps">(.*?)</section>', html, re.S)
    if block is None:
        return {}
    found = re.findall(r'data-reference="([^"]+)">(.*?)</li>', block.group(1), re.S)
    return {ref: " ".join(re.sub(r"<[^>]+>", " ", text).split()) for ref, text in found}


def _badge(html: str) -> str | None:
    found = re.search(r'data-testid="inbox-badge" aria-label="([^"]+)">(\d+)<', html)
    return f"{found.group(2)} ({found.group(1)})" if found else None


def test_a_rejected_claim_waits_for_its_requester_to_revise_it(app, people):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    # Submitted and pending: nothing waits for Siti (withdrawing is hers to choose).
    assert queries.open_tasks(siti).steps == ()
    assert queries.count_next_steps(siti) == 0

    _reject(nurul, doc)

    [step] = queries.open_tasks(siti).steps
    assert (step.reference, step.state) == (doc.reference, "rejected")
    assert [t.key for t in step.actions] == ["revise"]  # never "withdraw"
    assert (step.decided_by, step.decided_to, step.comment) == (
        "Nurul Huda",
        "rejected",
        "receipt missing",
    )
    assert queries.count_next_steps(siti) == 1

    browser, _ = demo_browser(app, "siti")
    html = browser.get(INBOX).get_data(as_text=True)
    said = _steps(html)[doc.reference]
    assert said.startswith(f"Revise {doc.reference}")
    assert "“Taxi to KLIA”" in said and "45.60" in said
    assert "Rejected by Nurul Huda: receipt missing" in said
    assert f'href="/o/acme/documents/{doc.reference}"><strong>Revise</strong>' in html
    assert _badge(html) == "1 (1 thing waiting for you)"
    # The badge on every other page says the same.
    assert _badge(browser.get("/o/acme/documents/").get_data(as_text=True)) == (
        "1 (1 thing waiting for you)"
    )

    # In Chinese, the flow's own label for the action.
    set_user_locale(siti.user_id, "zh")
    said = _steps(browser.get(INBOX).get_data(as_text=True))[doc.reference]
    assert said.startswith(f"修改 {doc.reference}")


def test_back_in_its_draft_it_waits_to_be_resubmitted_and_leads_to_the_edit_page(app, people):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    _reject(nurul, doc)
    transitions.transition_document(siti, doc.reference, "revise", seen_state="rejected")

    [step] = queries.open_tasks(siti).steps
    assert step.state == "draft"
    # Her own "revise" is not what put it here: the rejection is.
    assert (step.decided_by, step.comment) == ("Nurul Huda", "receipt missing")
    browser, _ = demo_browser(app, "siti")
    html = browser.get(INBOX).get_data(as_text=True)
    assert _steps(html)[doc.reference].startswith(f"Revise and resubmit {doc.reference}")
    assert f'href="/o/acme/documents/{doc.reference}/edit"' in html

    page = browser.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
    assert "Waiting for you: revise and resubmit" in page
    assert "Rejected by Nurul Huda" in page

    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    assert queries.open_tasks(siti).steps == ()
    assert _steps(browser.get(INBOX).get_data(as_text=True)) == {}


def test_a_fresh_draft_is_nobodys_next_step(app, people):
    siti = people("siti")
    documents.create_document(
        siti, kind="expense_claim", title="Not yet", amount=Decimal("10.00"), fields=CLAIM
    )
    assert queries.open_tasks(siti).steps == ()
    assert queries.count_next_steps(siti) == 0


def test_only_the_requester_is_waited_for_and_globex_sees_nothing(app, people, globex):
    siti, nurul, jason = people("siti"), people("nurul"), people("jason")
    doc = _claim(siti)
    _reject(nurul, doc)
    assert len(queries.open_tasks(siti).steps) == 1  # hers

    assert queries.open_tasks(nurul).steps == ()
    assert queries.open_tasks(jason).steps == ()
    assert queries.count_next_steps(nurul) == 0
    assert queries.open_tasks(globex.admin.actor).steps == ()
    assert queries.count_next_steps(globex.admin.actor) == 0


def test_the_document_page_says_it_waits_for_its_requester_and_only_to_her(app, people):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    browser, _ = demo_browser(app, "siti")
    pending = browser.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
    assert "Waiting for you" not in pending  # the allowed case: nothing asked of her yet

    _reject(nurul, doc)

    page = browser.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
    banner = re.search(r'data-testid="waiting-for-you">(.*?)</div>', page, re.S)
    assert banner is not None
    text = " ".join(re.sub(r"<[^>]+>", " ", banner.group(1)).split())
    assert text.startswith("Waiting for you: Revise")
    assert "Rejected by Nurul Huda: receipt missing" in text

    approver, _ = demo_browser(app, "nurul")
    theirs = approver.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
    assert "Waiting for you" not in theirs
