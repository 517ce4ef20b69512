"""A requester changes a draft's amount and sees the change in its history, then throws
the draft away after a page that says what that means; it leaves her list, and an
admin still finds it, marked Discarded. Every page passes the accessibility check."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.test_sign_in import sign_in

MONEY = r"(?:MYR|RM)\s?"


def test_an_edited_draft_shows_old_and_new_then_is_discarded_after_asking(page: Page):
    refused: list[str] = []
    page.on(
        "console",
        lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
    )
    sign_in(page, "siti@acme.example")
    page.goto("/o/acme/documents/new/expense_claim")
    page.get_by_label("Title").fill("Parking at the airport, to be discarded")
    page.get_by_label(re.compile("^Amount")).fill("120.00")
    page.get_by_label(re.compile("^Category")).select_option(label="Travel")
    page.get_by_label(re.compile("^Date of expense")).fill("2026-11-18")
    page.get_by_role("button", name="Save draft").click()
    reference = page.locator("h1 .code").inner_text()

    page.get_by_role("link", name="Edit draft").click()
    page.get_by_label(re.compile("^Amount")).fill("145.50")
    page.get_by_role("button", name="Save changes").click()
    history = page.get_by_test_id("history")
    expect(history).to_contain_text(re.compile(rf"Amount {MONEY}120\.00 → {MONEY}145\.50"))
    assert axe_violations(page) == []

    page.get_by_test_id("discard").click()
    expect(page.get_by_role("heading", name=f"Discard {reference}?")).to_be_visible()
    screenshot(page, "document-discard-confirm")
    assert axe_violations(page) == []
    page.get_by_role("button", name="Discard draft").click()

    expect(page.get_by_text(re.compile(f"{reference} .* is discarded"))).to_be_visible()
    expect(page.get_by_role("link", name=reference)).to_have_count(0)
    page.goto(f"/o/acme/documents/{reference}")
    expect(page.get_by_text("This draft was discarded by its requester.")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()

    sign_in(page, "grace@acme.example")
    page.goto(f"/o/acme/documents/{reference}")
    expect(page.get_by_test_id("discarded")).to_be_visible()
    expect(page.get_by_test_id("history")).to_contain_text("Draft discarded")
    assert axe_violations(page) == []
    assert refused == []
