"""Out-of-office cover, end to end: the CFO, Daniel Tan, sets cover for next week to the
finance clerk, Chen Mei Ling, on the delegations page (the days in the organization's
zone, Kuala Lumpur); she hears of it in the portal and by mail. The live portal's clock
moves into the window; a claim reaches Daniel; Mei Ling finds it in her inbox "on behalf
of Daniel Tan", approves it on the document page, and the history names both. After the
window she no longer sees a new claim of Daniel's. Screenshots (desktop and phone) of
the delegations page and the inbox; the auditor reads both names in the history; no CSP refusal; axe clean on the delegations page.

In the seeded demo nothing of an expense claim is Daniel's alone (the admins' steps are
Mei Ling's own too), so Grace first gives Daniel the claims' review from RM 1,000 (the
editor's band, as ``test_flow_editor_bands`` draws it). The live server's database is
shared by every e2e test: the cover is revoked, the claims withdrawn, the flow put back
and the clock set back to real time before the test ends.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from playwright.sync_api import Page, ViewportSize, expect

from e2e.conftest import move_clock, screenshot
from e2e.flow_editor import open_editor
from e2e.test_claim_walk import _act, _create_claim, _open, _sign_out
from e2e.test_csp import Watch
from e2e.test_flow_editor_bands import _api, _draw_the_band_and_publish, _put_back
from e2e.test_sign_in import sign_in

KIND = "expense_claim"
ZONE = ZoneInfo("Asia/Kuala_Lumpur")
DELEGATIONS = "/o/acme/delegations/"
INBOX = "/o/acme/inbox/"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1366, "height": 900}


def _both_sizes(page: Page, name: str) -> None:
    page.set_viewport_size(DESKTOP)
    screenshot(page, f"{name}-desktop")
    page.set_viewport_size(PHONE)
    screenshot(page, f"{name}-phone")
    page.set_viewport_size(DESKTOP)


def _next_week() -> tuple[date, date]:
    """Monday to Friday of next week, in the organization's zone."""
    today = datetime.now(UTC).astimezone(ZONE).date()
    monday = today + timedelta(days=7 - today.weekday())
    return monday, monday + timedelta(days=4)


def _move_to(day: date, hour: int = 10) -> None:
    """The live portal's clock to ``hour`` o'clock on ``day`` in Kuala Lumpur."""
    target = datetime.combine(day, time(hour), tzinfo=ZONE)
    move_clock((target - datetime.now(UTC)).total_seconds())


def _claim_for_daniel(page: Page, title: str) -> str:
    """Siti's claim from RM 1,000, submitted: its review is Daniel's."""
    sign_in(page, "siti@acme.example")
    reference = _create_claim(page, title, "1200.00")
    _act(page, "Submit", "Pending review")
    expect(page.get_by_test_id("waiting")).to_contain_text("Daniel Tan")
    _sign_out(page)
    return reference


def _set_cover(page: Page, watch: Watch, first: date, last: date) -> None:
    sign_in(page, "daniel@acme.example")
    page.goto(DELEGATIONS)
    expect(page.get_by_role("heading", name="Out-of-office cover")).to_be_visible()
    expect(page.get_by_test_id("no-lent")).to_be_visible()
    form = page.get_by_test_id("cover-form")
    expect(form).to_contain_text("Both days included; days are counted in Asia/Kuala_Lumpur.")
    form.get_by_label("Who covers").select_option(label="Chen Mei Ling")
    form.get_by_label("For which documents").select_option(label="Expense claim")
    form.get_by_label("First day").fill(first.isoformat())
    form.get_by_label("Last day").fill(last.isoformat())
    form.get_by_label("Reason").fill("Annual leave")
    form.get_by_role("button", name="Set cover").click()
    expect(page.get_by_text(re.compile(r"^Chen Mei Ling covers for you from "))).to_be_visible()
    lent = page.locator("section[aria-labelledby='covers-lent'] tbody tr")
    expect(lent).to_have_count(1)
    expect(lent).to_contain_text("Chen Mei Ling")
    expect(lent).to_contain_text("Annual leave")
    expect(lent.locator("[data-status]")).to_have_attribute("data-status", "upcoming")
    watch.check("the delegations page")
    _both_sizes(page, "delegation-page")
    _sign_out(page)


def _revoke_if_standing(page: Page) -> None:
    sign_in(page, "daniel@acme.example")
    page.goto(DELEGATIONS)
    for _ in range(3):
        link = page.get_by_role("link", name=re.compile(r"Revoke the cover by Chen Mei Ling"))
        if not link.count():
            break
        link.first.click()
        page.get_by_test_id("revoke-confirm").click()
        expect(page.get_by_text(re.compile(r"is revoked\.$"))).to_be_visible()
    page.context.clear_cookies()


def _withdraw(page: Page, references: list[str]) -> None:
    sign_in(page, "siti@acme.example")
    for reference in references:
        _open(page, reference)
        if page.get_by_test_id("action-withdraw").count():
            page.get_by_label(re.compile("^Comment")).fill("Only a test of cover.")
            page.get_by_test_id("action-withdraw").click()
            expect(page.get_by_test_id("document-message")).to_be_visible()
    page.context.clear_cookies()


def test_the_cfo_sets_cover_and_the_clerk_decides_on_his_behalf(page: Page, e2e_mailbox):
    watch = Watch(page)
    page.set_viewport_size(DESKTOP)
    tag = uuid.uuid4().hex[:6]
    first, last = _next_week()
    references: list[str] = []
    sign_in(page, "grace@acme.example")
    open_editor(page, KIND)
    before = _api(page, "GET", "/draft")["data"]["base_version"]
    try:
        _draw_the_band_and_publish(page)
        _sign_out(page)

        e2e_mailbox.clear()
        _set_cover(page, watch, first, last)
        # Mei Ling hears of it, in the portal and by mail.
        mails = e2e_mailbox.wait_for("meiling@acme.example", seconds=30)
        assert [m.subject for m in mails] == ["Cover set: you decide for Daniel Tan"]
        assert "Annual leave" in mails[0].text

        # Next week, in Kuala Lumpur: a claim reaches Daniel, who is away.
        _move_to(first)
        covered = _claim_for_daniel(page, f"Client dinner {tag}")
        references.append(covered)

        sign_in(page, "meiling@acme.example")
        page.goto("/o/acme/notifications/")
        expect(page.get_by_test_id("notifications")).to_contain_text(
            "Daniel Tan set cover: you decide their “Expense claim” documents on their behalf"
        )
        page.goto(INBOX)
        row = page.locator(f'tr[data-reference="{covered}"]')
        expect(row).to_be_visible()
        expect(row.locator('[data-via="delegation"]')).to_have_text("on behalf of Daniel Tan")
        watch.check("the inbox")
        _both_sizes(page, "delegation-inbox")

        row.get_by_role("link", name=covered).click()
        expect(page.locator("h1 .code")).to_have_text(covered)
        _act(page, "Mark reviewed", "Reviewed", comment="Checked while Daniel is away.")
        on_behalf = page.get_by_test_id("on-behalf")
        expect(on_behalf).to_have_count(1)
        expect(on_behalf).to_contain_text("on behalf of Daniel Tan")
        expect(on_behalf).to_contain_text("Annual leave")
        expect(on_behalf.locator("xpath=..")).to_contain_text(
            "Chen Mei Ling on behalf of Daniel Tan"
        )
        watch.check("the document page")
        _sign_out(page)

        # The auditor reads the same history: both names, and the cover.
        sign_in(page, "ravi@acme.example")
        page.goto(f"/o/acme/documents/{covered}")
        audited = page.get_by_test_id("on-behalf")
        expect(audited).to_have_count(1)
        expect(audited.locator("xpath=..")).to_contain_text("Chen Mei Ling on behalf of Daniel Tan")
        expect(audited).to_contain_text("Annual leave")
        watch.check("the auditor's document page")
        _sign_out(page)

        # After the window, a new claim of Daniel's is his alone again.
        _move_to(last + timedelta(days=3))
        after = _claim_for_daniel(page, f"Taxi home {tag}")
        references.append(after)
        sign_in(page, "meiling@acme.example")
        page.goto(INBOX)
        expect(page.locator("h1")).to_be_visible()
        expect(page.locator(f'tr[data-reference="{after}"]')).to_have_count(0)
        expect(page.locator('[data-via="delegation"]')).to_have_count(0)
        _sign_out(page)
    finally:
        move_clock(0)
        page.context.clear_cookies()  # whoever was signed in when it stopped
        _revoke_if_standing(page)
        if references:
            _withdraw(page, references)
        sign_in(page, "grace@acme.example")
        _put_back(page, before)
