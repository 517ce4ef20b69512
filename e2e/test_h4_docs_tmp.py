"""A requester starts an expense claim in the browser and submits it; his manager finds
it in the inbox, opens it and reviews it, and the head of Sales approves it (the claim
has exclusive approval: the reviewer does not also approve). Every page passes the
accessibility check."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.test_sign_in import sign_in


def _sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()


def test_a_claim_goes_from_the_form_through_the_inbox_to_approval(page: Page):
    # The decisions swap the page in place: nothing they do may break the CSP.
    refused: list[str] = []
    page.on(
        "console",
        lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
    )
    sign_in(page, "jason@acme.example")
    page.get_by_role("navigation", name="Main navigation").get_by_role(
        "link", name="My documents"
    ).click()
    assert axe_violations(page) == []
    page.get_by_role("link", name=re.compile("New Expense claim")).click()
    expect(page.get_by_role("heading", name="New Expense claim")).to_be_visible()
    assert axe_violations(page) == []
    page.get_by_label("Title").fill("Taxi to the Klang warehouse")
    page.get_by_label(re.compile("^Amount")).fill("86.40")
    page.get_by_label(re.compile("^Category")).select_option(label="Travel")
    page.get_by_label(re.compile("^Date of expense")).fill("2026-11-18")
    page.get_by_role("button", name="Save draft").click()

    expect(
        page.get_by_role("heading", name=re.compile("Taxi to the Klang warehouse"))
    ).to_be_visible()
    reference = page.locator("h1 .code").inner_text()
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Done: the document is now “Pending review”.")).to_be_visible()
    expect(page.get_by_test_id("waiting")).to_contain_text("Nurul Huda")
    screenshot(page, "document-detail-requester")
    assert axe_violations(page) == []
    _sign_out(page)

    sign_in(page, "nurul@acme.example")
    page.get_by_role("navigation", name="Main navigation").get_by_role(
        "link", name=re.compile("Inbox")
    ).click()
    row = page.get_by_role("row", name=re.compile(reference))
    expect(row).to_be_visible()
    screenshot(page, "inbox")
    assert axe_violations(page) == []
    row.get_by_role("link", name=reference).click()

    # A rejection without its comment is refused in place, and changes nothing.
    page.get_by_role("button", name="Reject", exact=True).click()
    expect(page.get_by_test_id("state")).to_have_text("Pending review")
    page.get_by_role("button", name="Mark reviewed").click()
    expect(page.get_by_text("Done: the document is now “Reviewed”.")).to_be_visible()
    expect(page.get_by_role("button", name="Approve")).to_have_count(0)
    _sign_out(page)

    sign_in(page, "zainal@acme.example")
    page.get_by_role("navigation", name="Main navigation").get_by_role(
        "link", name=re.compile("Inbox")
    ).click()
    page.get_by_role("row", name=re.compile(reference)).get_by_role("link", name=reference).click()
    page.get_by_label(re.compile("^Comment")).fill("Fine for a site visit.")
    page.get_by_role("button", name="Approve").click()
    expect(page.get_by_test_id("state")).to_have_text("Approved")
    expect(page.get_by_text("Fine for a site visit.")).to_be_visible()
    screenshot(page, "document-detail-approver")
    assert refused == []
    assert axe_violations(page) == []
