"""A deadline that acts, end to end: an admin gives the expense claim's review a short
deadline that escalates, in the editor, and publishes it through the confirmation page;
Siti's claim waits for Nurul; the live portal's clock moves on and the operator's
``portal sweep`` runs; Zainal, the next seat up, finds the claim in his inbox marked
escalated, reads in its history why, and has a mail. Screenshots (desktop and phone) of
the flow page, the inbox and the history; no CSP refusal, no serious axe finding.

The live server's database is shared by every e2e test: the flow is put back as it was
and the claim withdrawn before the test ends, and the clock set back to real time.
"""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Page, ViewportSize, expect

from e2e.conftest import ARTIFACTS, move_clock, run_portal, screenshot
from e2e.flow_editor import open_editor, outline_item, saved_when
from e2e.test_claim_walk import _act, _create_claim, _open, _sign_out
from e2e.test_csp import Watch
from e2e.test_flow_editor_bands import _api, _put_back
from e2e.test_sign_in import sign_in

KIND = "expense_claim"
# The shortest deadline a flow may have (``domain.durations.MIN_DURATION_MINUTES``).
DEADLINE = "1m"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1366, "height": 900}


def _both_sizes(page: Page, name: str) -> None:
    """The page as it stands, on a desktop and on a phone."""
    page.set_viewport_size(DESKTOP)
    screenshot(page, f"{name}-desktop")
    page.set_viewport_size(PHONE)
    screenshot(page, f"{name}-phone")
    page.set_viewport_size(DESKTOP)


def _set_the_deadline_and_publish(page: Page, watch: Watch) -> None:
    panel = page.get_by_test_id("properties")
    outline_item(page, "Pending review (pending_review)").click()
    deadline = panel.get_by_label("Deadline (such as 5d or 48h)")
    # The help says what a duration means, read out with the field.
    expect(panel.get_by_text("5d = 5 × 24 hours from when the task opens")).to_be_visible()
    expect(deadline).to_have_attribute("aria-describedby", re.compile(r"-hint$"))
    deadline.fill(DEADLINE)
    breach = panel.get_by_label("When the deadline passes")
    breach.select_option(label="escalate one seat up")
    expect(
        panel.get_by_text("The next filled seat above the approvers gets the task")
    ).to_be_visible()
    saved_when(
        page,
        lambda g: (
            next(s for s in g["states"] if s["key"] == "pending_review").get("deadline")
            == {"after": DEADLINE, "on_breach": "escalate_up"}
        ),
    )
    deadline.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    panel.screenshot(path=str(ARTIFACTS / "deadline-editor-panel.png"))
    watch.check("the editor with a deadline")

    # Published through the confirmation page.
    page.goto(f"/o/acme/flows/{KIND}/")
    page.get_by_test_id("publish").click()
    page.get_by_test_id("publish-confirm").click()
    expect(page.get_by_text(re.compile(r"Published version \d+\."))).to_be_visible()
    expect(page.get_by_test_id("deadline-pending_review")).to_have_text(
        "After 1 minute: bring in the next manager up (at most 2 levels)"
    )
    watch.check("the flow page")
    _both_sizes(page, "deadline-flow-page")


def test_an_escalating_deadline_reaches_the_next_seat_up_with_a_mail(page: Page, e2e_mailbox):
    watch = Watch(page)
    page.set_viewport_size(DESKTOP)
    sign_in(page, "grace@acme.example")
    open_editor(page, KIND)
    before = _api(page, "GET", "/draft")["data"]["base_version"]
    reference = None
    try:
        _set_the_deadline_and_publish(page, watch)
        _sign_out(page)

        # Siti's claim waits for Nurul, due within the minute.
        sign_in(page, "siti@acme.example")
        reference = _create_claim(page, f"Taxi to the airport {uuid.uuid4().hex[:6]}", "64.00")
        _act(page, "Submit", "Pending review")
        expect(page.get_by_test_id("open-tasks")).to_contain_text("Nurul Huda")
        expect(page.get_by_test_id("open-tasks")).to_contain_text(
            re.compile(r"due in (1 minute|\d+ seconds)")
        )
        _sign_out(page)

        # Time moves on past the deadline; the operator's sweep acts on it.
        e2e_mailbox.clear()
        move_clock(2 * 60)
        said = run_portal("sweep")
        assert re.search(r"Deadline sweep: [1-9]\d* effect", said), said

        # Zainal, the seat above Nurul, has it in his inbox, marked as escalated.
        sign_in(page, "zainal@acme.example")
        page.goto("/o/acme/inbox/")
        row = page.locator(f'tr[data-reference="{reference}"]')
        expect(row).to_be_visible()
        expect(row.locator('[data-via="escalation"]')).to_have_text(
            "escalated to you from Nurul Huda"
        )
        # His own task runs from the moment it opened: due a minute on, not overdue.
        expect(row).not_to_contain_text("overdue")
        watch.check("the inbox")
        _both_sizes(page, "deadline-inbox")

        row.get_by_role("link", name=reference).click()
        expect(page.locator("h1 .code")).to_have_text(reference)
        expect(page.get_by_test_id("open-tasks")).to_contain_text(
            "escalated to you from Nurul Huda"
        )
        expect(page.get_by_test_id("history-deadline")).to_contain_text(
            "Escalated to Zainal Abidin after the deadline passed"
        )
        expect(page.get_by_text("2 decisions; the chain verifies.")).to_be_visible()
        watch.check("the document page")
        page.get_by_test_id("history").scroll_into_view_if_needed()
        _both_sizes(page, "deadline-history")

        # And a mail, to him, about it.
        mails = e2e_mailbox.wait_for("zainal@acme.example", seconds=30)
        assert any(reference in (m.subject + m.text) for m in mails), [m.subject for m in mails]
        _sign_out(page)
    finally:
        move_clock(0)
        page.context.clear_cookies()  # whoever was signed in when it stopped
        if reference is not None:  # the claim leaves every inbox
            sign_in(page, "siti@acme.example")
            _open(page, reference)
            if page.get_by_test_id("action-withdraw").count():
                page.get_by_label(re.compile("^Comment")).fill("Only a test of the deadline.")
                page.get_by_test_id("action-withdraw").click()
                expect(page.get_by_test_id("document-message")).to_be_visible()
            page.context.clear_cookies()
        sign_in(page, "grace@acme.example")
        _put_back(page, before)
