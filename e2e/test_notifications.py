"""The requester's next steps and notifications people can read, in the browser: a
rejected requester finds "Revise" in their inbox and it leads to the edit page; the
notification of the rejection, read in Chinese, names the action in Chinese (the flow's
own label).

The live server's database is shared by every e2e test: each test makes its own claims
(with distinctive titles) and finds them by reference, never by counting.
"""

from __future__ import annotations

import re
import time
import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.test_claim_walk import _act, _create_claim, _open, _sign_out
from e2e.test_sign_in import sign_in


def _rejected_claim(page: Page, title: str, comment: str) -> str:
    """Siti submits a claim and Nurul rejects it with ``comment``; Siti is signed in
    again at the end. Returns the reference."""
    sign_in(page, "siti@acme.example")
    reference = _create_claim(page, title, "45.60")
    _act(page, "Submit", "Pending review")
    _sign_out(page)
    sign_in(page, "nurul@acme.example")
    _open(page, reference)
    _act(page, "Reject", "Rejected", comment=comment)
    _sign_out(page)
    sign_in(page, "siti@acme.example")
    return reference


def _notice(page: Page, reference: str):
    """The notice about ``reference`` on the notifications page, once the worker has
    delivered it (the outbox is dispatched after commit, a moment later)."""
    notices = page.get_by_test_id("notice").filter(has_text=reference)
    deadline = time.monotonic() + 15
    while notices.count() == 0 and time.monotonic() < deadline:
        time.sleep(0.3)
        page.reload()
    return notices


def test_a_rejected_requester_finds_revise_in_the_inbox_and_it_leads_to_the_edit_page(
    page: Page,
):
    title = f"Taxi to KLIA {uuid.uuid4().hex[:6]}"
    reference = _rejected_claim(page, title, "receipt missing")

    nav = page.get_by_role("navigation", name="Main navigation")
    expect(nav.get_by_test_id("inbox-badge")).to_be_visible()
    nav.get_by_role("link", name=re.compile("^Inbox")).click()
    steps = page.get_by_test_id("next-steps")
    step = steps.locator(f'li[data-reference="{reference}"]')
    expect(step).to_contain_text(f"Revise {reference}")
    expect(step).to_contain_text("Rejected by Nurul Huda: receipt missing")
    assert axe_violations(page) == []

    step.get_by_role("link", name=re.compile(f"^Revise {reference}")).click()
    expect(page.locator("h1 .code")).to_have_text(reference)
    banner = page.get_by_test_id("waiting-for-you")
    expect(banner).to_contain_text("Waiting for you: Revise")
    expect(banner).to_contain_text("receipt missing")

    _act(page, "Revise", "Draft")
    expect(page.get_by_test_id("waiting-for-you")).to_contain_text(
        "Waiting for you: revise and resubmit"
    )
    page.get_by_test_id("waiting-for-you").get_by_role("link", name="Edit draft").click()
    expect(page).to_have_url(re.compile(rf"/documents/{reference}/edit$"))
    expect(page.get_by_role("heading", name=f"Edit {reference}")).to_be_visible()

    # Back in the inbox, the step now says so and leads straight to the edit page.
    page.get_by_role("navigation", name="Main navigation").get_by_role(
        "link", name=re.compile("^Inbox")
    ).click()
    again = page.get_by_test_id("next-steps").locator(f'li[data-reference="{reference}"]')
    expect(again).to_contain_text(f"Revise and resubmit {reference}")
    again.get_by_role("link").click()
    expect(page).to_have_url(re.compile(rf"/documents/{reference}/edit$"))


def test_a_notification_read_in_chinese_names_the_action_in_chinese(page: Page):
    title = f"Hotel {uuid.uuid4().hex[:6]}"
    reference = _rejected_claim(page, title, "no receipt")

    page.get_by_role("navigation", name="Main navigation").get_by_role(
        "link", name=re.compile("^Notifications")
    ).click()
    notice = _notice(page, reference)
    expect(notice).to_contain_text("Nurul Huda chose “Reject”")
    expect(notice).to_contain_text(title)
    expect(notice).to_contain_text("no receipt")

    page.get_by_label("Language").select_option("zh")
    page.get_by_role("button", name="Change").click()
    expect(page.locator("html")).to_have_attribute("lang", "zh")
    try:
        notice = page.get_by_test_id("notice").filter(has_text=reference)
        # The flow's own label in the reader's language, at read time.
        expect(notice).to_contain_text("“拒绝”")
        expect(notice).not_to_contain_text("“Reject”")
        expect(notice).to_contain_text(title)

        # Following it marks it read and leads to the document.
        notice.get_by_role("link").first.click()
        expect(page.locator("h1 .code")).to_have_text(reference)
        page.go_back()
        page.reload()
        read = page.get_by_test_id("notice").filter(has_text=reference)
        expect(read).not_to_have_class(re.compile(r"\bunread\b"))
    finally:
        page.locator("#locale-select").select_option("en")
        page.locator(".locale-picker button").click()
        expect(page.locator("html")).to_have_attribute("lang", "en")


def test_screenshots_of_the_inbox_and_the_notifications(page: Page):
    """Not an assertion of looks: pictures of the two pages at desktop and phone sizes,
    for a person to look at."""
    reference = _rejected_claim(page, f"Taxi to KLIA {uuid.uuid4().hex[:6]}", "receipt missing")
    for name, size in (("desktop", (1366, 800)), ("phone", (390, 844))):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto("/o/acme/inbox/")
        expect(page.get_by_test_id("next-steps")).to_contain_text(reference)
        screenshot(page, f"inbox-{name}")
        page.goto("/o/acme/notifications/")
        expect(_notice(page, reference)).to_have_count(1)
        screenshot(page, f"notifications-{name}")
    # The document page's banner, where the inbox's step leads.
    page.set_viewport_size({"width": 1366, "height": 800})
    page.goto(f"/o/acme/documents/{reference}")
    expect(page.get_by_test_id("waiting-for-you")).to_be_visible()
    screenshot(page, "inbox-step-document-desktop")
    # The approver's side: her "waiting for your decision", superseded by her rejection.
    _sign_out(page)
    sign_in(page, "nurul@acme.example")
    page.goto("/o/acme/notifications/")
    notice = _notice(page, reference)
    expect(notice).to_contain_text("You decided it: “Reject”.")
    screenshot(page, "notifications-approver-desktop")
