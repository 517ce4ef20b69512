"""Expense claims walked end to end by the demo people in the browser: a rejection and
rework before the claim goes all the way to "Received" — reviewed, approved, committed
and paid by four different people (the claim has exclusive approval) — a bulk approval
from the inbox, two approvers racing on the same page, and one pass in Chinese.

The live server's database is shared by every e2e test: each test makes its own claims
(with distinctive titles) and finds them by reference, never by counting.
"""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Browser, Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.test_sign_in import sign_in

DOCUMENT_PATH = "/o/acme/documents/"


def _sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"/login"))


def _tag() -> str:
    return uuid.uuid4().hex[:6]


def _create_claim(page: Page, title: str, amount: str, category: str = "Travel") -> str:
    """Through My documents and the form, as a signed-in requester; returns the reference
    of the new draft (the detail page is open)."""
    page.get_by_role("navigation", name="Main navigation").get_by_role(
        "link", name="My documents"
    ).click()
    page.get_by_role("link", name=re.compile("New Expense claim")).click()
    expect(page.get_by_role("heading", name="New Expense claim")).to_be_visible()
    page.get_by_label("Title").fill(title)
    page.get_by_label(re.compile("^Amount")).fill(amount)
    page.get_by_label(re.compile("^Category")).select_option(label=category)
    page.get_by_label(re.compile("^Date of expense")).fill("2026-11-18")
    page.get_by_role("button", name="Save draft").click()
    expect(page.get_by_role("heading", name=re.compile(re.escape(title)))).to_be_visible()
    reference = page.locator("h1 .code").inner_text()
    expect(page.get_by_text(f"{reference} saved as a draft.")).to_be_visible()
    expect(page.get_by_test_id("state")).to_have_text("Draft")
    return reference


def _act(page: Page, button: str, state: str, comment: str | None = None) -> None:
    """Press a transition's button on the open detail page and see where it landed."""
    if comment is not None:
        page.get_by_label(re.compile("^Comment")).fill(comment)
    page.get_by_role("button", name=button, exact=True).click()
    expect(page.get_by_text(f"Done: the document is now “{state}”.")).to_be_visible()
    expect(page.get_by_test_id("state")).to_have_text(state)
    # Swapped in place: focus lands on the message, not at the top of a reloaded page.
    expect(page.get_by_test_id("document-message")).to_be_focused()


def _open(page: Page, reference: str) -> None:
    page.goto(DOCUMENT_PATH + reference)
    expect(page.locator("h1 .code")).to_have_text(reference)


def _history(page: Page):
    return (
        page.locator("#history-heading")
        .locator("xpath=ancestor::section")
        .locator("ol.timeline > li")
    )


def _entries(page: Page, transition: str):
    """The history entries of one transition, by its label (not by any text inside)."""
    return _history(page).filter(has=page.locator("strong").get_by_text(transition, exact=True))


def test_a_claim_walks_from_the_form_to_received_with_four_different_deciders(page: Page):
    title = f"Hotel in Penang {_tag()}"

    # Siti drafts and submits.
    sign_in(page, "siti@acme.example")
    reference = _create_claim(page, title, "480.00", category="Lodging")
    _act(page, "Submit", "Pending review")
    expect(page.get_by_test_id("waiting")).to_contain_text("Nurul Huda")
    _sign_out(page)

    # Nurul sends it back with a reason.
    sign_in(page, "nurul@acme.example")
    _open(page, reference)
    _act(page, "Reject", "Rejected", comment="Attach the hotel receipt")
    _sign_out(page)

    # Siti reads why, reworks the draft and submits it again.
    sign_in(page, "siti@acme.example")
    _open(page, reference)
    expect(_history(page).filter(has_text="Attach the hotel receipt")).to_have_count(1)
    _act(page, "Revise", "Draft")
    page.get_by_role("link", name="Edit draft").first.click()
    expect(page.get_by_role("heading", name=f"Edit {reference}")).to_be_visible()
    expect(page.get_by_label(re.compile("^Amount"))).to_have_value(re.compile(r"^480"))
    page.get_by_label(re.compile("^Amount")).fill("452.30")
    page.get_by_label(re.compile("^Receipt number")).fill("PG-88123")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_text(f"Your changes to {reference} are saved.")).to_be_visible()
    facts = page.locator("dl.facts")
    expect(facts).to_contain_text("452.30")
    expect(facts).to_contain_text("PG-88123")
    _act(page, "Submit", "Pending review")
    _sign_out(page)

    # Nurul, her superior, reviews; the approval is the head of Sales's, not hers.
    sign_in(page, "nurul@acme.example")
    _open(page, reference)
    _act(page, "Mark reviewed", "Reviewed")
    expect(page.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
    expect(page.get_by_test_id("waiting")).to_contain_text("Zainal Abidin")
    _sign_out(page)

    # Zainal, who heads Sales, approves.
    sign_in(page, "zainal@acme.example")
    _open(page, reference)
    _act(page, "Approve", "Approved", comment="Receipt attached, thanks.")
    _sign_out(page)

    # Grace, an admin, commits the money (verifies the category); paying it is not hers.
    sign_in(page, "grace@acme.example")
    _open(page, reference)
    _act(page, "Verify category", "Category verified")
    expect(page.get_by_role("button", name="Mark paid", exact=True)).to_have_count(0)
    expect(page.get_by_test_id("waiting")).not_to_contain_text("Grace Lee")
    _sign_out(page)

    # Aisha, another admin, pays.
    sign_in(page, "aisha@acme.example")
    _open(page, reference)
    _act(page, "Mark paid", "Paid")
    _sign_out(page)

    # Siti confirms she has the money.
    sign_in(page, "siti@acme.example")
    _open(page, reference)
    _act(page, "Confirm receipt", "Received")
    # All that is left to her is a dispute.
    expect(page.get_by_test_id("action-dispute")).to_have_text("Raise dispute")
    expect(page.get_by_test_id("action-acknowledge")).to_have_count(0)

    history = _history(page)
    # submit, reject, revise, (the draft's edit), submit, review, approve, verify, pay,
    # confirm: nine decisions and the edit between them.
    expect(history).to_have_count(10)
    expect(page.get_by_text("9 decisions; the chain verifies.")).to_be_visible()
    expect(_entries(page, "Submit")).to_have_count(2)
    rejected = _entries(page, "Reject")
    expect(rejected).to_have_count(1)
    expect(rejected).to_contain_text("Pending review → Rejected")
    expect(rejected).to_contain_text("Nurul Huda")
    expect(rejected).to_contain_text("Attach the hotel receipt")
    expect(_entries(page, "Revise")).to_contain_text("Rejected → Draft")
    expect(_entries(page, "Mark reviewed")).to_contain_text("Nurul Huda")
    expect(_entries(page, "Approve")).to_contain_text("Zainal Abidin")
    expect(_entries(page, "Verify category")).to_contain_text("Grace Lee")
    expect(_entries(page, "Mark paid")).to_contain_text("Category verified → Paid")
    expect(_entries(page, "Mark paid")).to_contain_text("Aisha Rahman")
    confirmed = _entries(page, "Confirm receipt")
    expect(confirmed).to_contain_text("Paid → Received")
    expect(confirmed).to_contain_text("Siti Aminah")
    screenshot(page, "claim-walk-received")
    assert axe_violations(page) == []
    _sign_out(page)


def test_an_approver_decides_two_claims_at_once_from_the_inbox(page: Page):
    tag = _tag()
    sign_in(page, "jason@acme.example")
    first = _create_claim(page, f"Client lunch {tag}", "64.00", category="Meals")
    _act(page, "Submit", "Pending review")
    second = _create_claim(page, f"Parking at the expo {tag}", "18.50")
    _act(page, "Submit", "Pending review")
    _sign_out(page)

    sign_in(page, "nurul@acme.example")
    page.get_by_role("navigation", name="Main navigation").get_by_role(
        "link", name=re.compile("Inbox")
    ).click()
    for reference in (first, second):
        expect(page.locator(f'tr[data-reference="{reference}"]')).to_be_visible()
        page.get_by_label(f"Select {reference}", exact=True).check()
    page.get_by_label("Comment", exact=True).fill("Both fine for the expo week.")
    page.get_by_role("button", name="Approve", exact=True).click()

    outcomes = page.get_by_test_id("outcomes")
    expect(outcomes).to_be_visible()
    for reference in (first, second):
        line = outcomes.locator(f'li[data-reference="{reference}"]')
        expect(line).to_have_class(re.compile("outcome-ok"))
        expect(line).to_contain_text("done → Reviewed")
        # Gone from her inbox: the approval is the head of Sales's, and under exclusive
        # approval the reviewer would not get it even were she the head.
        expect(page.locator(f'tr[data-reference="{reference}"]')).to_have_count(0)
    # The comment is spent when everything went through.
    expect(page.get_by_label("Comment", exact=True)).to_have_value("")
    screenshot(page, "inbox-bulk-outcome")
    assert axe_violations(page) == []

    links = [outcomes.get_by_role("link", name=reference) for reference in (first, second)]
    urls = [link.get_attribute("href") or "" for link in links]
    for reference, url in zip((first, second), urls, strict=True):
        assert url.endswith(DOCUMENT_PATH + reference)
        page.goto(url)
        expect(page.get_by_test_id("state")).to_have_text("Reviewed")
        reviewed = _entries(page, "Mark reviewed")
        expect(reviewed).to_have_count(1)
        expect(reviewed).to_contain_text("Both fine for the expo week.")
    _sign_out(page)


def test_a_decision_on_a_stale_page_is_refused_kindly(page: Page, browser: Browser, base_url: str):
    sign_in(page, "jason@acme.example")
    reference = _create_claim(page, f"Train to Ipoh {_tag()}", "42.00")
    _act(page, "Submit", "Pending review")
    _sign_out(page)
    for who, button, state in (
        ("nurul", "Mark reviewed", "Reviewed"),
        ("zainal", "Approve", "Approved"),
    ):
        sign_in(page, f"{who}@acme.example")
        _open(page, reference)
        _act(page, button, state)
        _sign_out(page)

    # Two admins race to commit the money; the one who loses may still pay it.
    first = browser.new_context(base_url=base_url)
    second = browser.new_context(base_url=base_url)
    try:
        one, two = first.new_page(), second.new_page()
        for each, who in ((one, "grace"), (two, "aisha")):
            sign_in(each, f"{who}@acme.example")
            _open(each, reference)
            expect(each.get_by_test_id("state")).to_have_text("Approved")

        _act(one, "Verify category", "Category verified")

        two.get_by_label(re.compile("^Comment")).fill("Receipts checked")
        two.get_by_role("button", name="Verify category", exact=True).click()
        expect(
            two.get_by_text(
                "This document has moved on: someone acted on it before you. "
                "Here it is as it stands now."
            )
        ).to_be_visible()
        expect(two.get_by_test_id("document-message")).to_be_focused()
        # What was typed is still there, to reuse on the action the document now offers.
        expect(two.get_by_label(re.compile("^Comment"))).to_have_value("Receipts checked")
        expect(two.get_by_test_id("state")).to_have_text("Category verified")
        expect(two.get_by_role("button", name="Mark paid", exact=True)).to_be_visible()
        expect(two.get_by_role("button", name="Verify category", exact=True)).to_have_count(0)
        expect(_entries(two, "Verify category")).to_have_count(1)
        screenshot(two, "claim-stale-page")
        assert axe_violations(two) == []

        # Opened afresh it reads the same: one commitment in the history.
        _open(two, reference)
        expect(_entries(two, "Verify category")).to_have_count(1)
    finally:
        first.close()
        second.close()


def test_a_claim_is_made_and_submitted_in_chinese(page: Page):
    title = f"出差打车 {_tag()}"
    sign_in(page, "hannah@acme.example")
    page.get_by_label("Language").select_option("zh")
    page.get_by_role("button", name="Change").click()
    expect(page.locator("html")).to_have_attribute("lang", "zh")
    try:
        page.get_by_role("navigation", name="主导航").get_by_role("link", name="我的文档").click()
        expect(page.get_by_role("heading", name="我的文档")).to_be_visible()
        page.get_by_role("link", name="新建费用报销").click()
        expect(page.get_by_role("heading", name="新建费用报销")).to_be_visible()
        page.locator("#title").fill(title)
        page.get_by_label(re.compile("^金额")).fill("73.20")
        page.get_by_label(re.compile("^类别")).select_option(label="差旅")
        page.get_by_label(re.compile("^费用日期")).fill("2026-11-20")
        page.get_by_label(re.compile("^收据编号")).fill("KL-2231")
        screenshot(page, "claim-form-zh")
        assert axe_violations(page) == []
        page.get_by_role("button", name="保存草稿").click()
        expect(page.get_by_role("heading", name=re.compile(re.escape(title)))).to_be_visible()
        expect(page.get_by_test_id("state")).to_have_text("草稿")

        page.get_by_role("button", name="提交", exact=True).click()
        expect(page.get_by_text("完成：文档现在处于“待审核”。")).to_be_visible()
        expect(page.get_by_test_id("state")).to_have_text("待审核")
        expect(page.get_by_test_id("waiting")).to_contain_text("Grace Lee")
        expect(_entries(page, "提交")).to_contain_text("草稿 → 待审核")
        expect(page.locator("dl.facts")).to_contain_text("差旅")
        screenshot(page, "claim-detail-zh")
        assert axe_violations(page) == []
    finally:
        # The choice is remembered for the account: put English back for later tests.
        page.get_by_label("语言").select_option("en")
        page.get_by_role("button", name="切换").click()
        expect(page.locator("html")).to_have_attribute("lang", "en")
    _sign_out(page)


def test_a_decision_by_keyboard_alone_and_another_without_javascript(
    page: Page, browser: Browser, base_url: str
):
    sign_in(page, "jason@acme.example")
    first = _create_claim(page, f"Parking {_tag()}", "18.00")
    _act(page, "Submit", "Pending review")
    second = _create_claim(page, f"Toll {_tag()}", "9.40")
    _act(page, "Submit", "Pending review")
    _sign_out(page)

    # Keyboard only: Tab into the comment, type, Tab to the buttons, Enter.
    sign_in(page, "nurul@acme.example")
    _open(page, first)
    page.get_by_label(re.compile("^Comment")).focus()
    page.keyboard.press("Control+a")
    page.keyboard.type("Missing the ticket")
    reject = page.get_by_role("button", name="Reject", exact=True)
    for _ in range(20):  # a few stops past the comment; never forever
        if reject.evaluate("b => b === document.activeElement"):
            break
        page.keyboard.press("Tab")
    assert reject.evaluate("b => b === document.activeElement"), "Tab never reached Reject"
    page.keyboard.press("Enter")
    expect(page.get_by_text("Done: the document is now “Rejected”.")).to_be_visible()
    expect(page.get_by_test_id("document-message")).to_be_focused()

    # Leaving the comment out is refused where the comment is: focus goes back to it.
    _open(page, second)
    page.get_by_role("button", name="Reject", exact=True).click()
    comment = page.get_by_label(re.compile("^Comment"))
    expect(comment).to_be_focused()
    expect(comment).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#comment-error")).to_have_text("A comment is required for this action.")
    assert axe_violations(page) == []

    # With JavaScript off the same page is a plain form: post, redirect, message.
    plain = browser.new_context(base_url=base_url, java_script_enabled=False)
    try:
        nojs = plain.new_page()
        sign_in(nojs, "nurul@acme.example")
        _open(nojs, second)
        nojs.get_by_role("button", name="Mark reviewed", exact=True).click()
        expect(nojs.get_by_text("Done: the document is now “Reviewed”.")).to_be_visible()
        expect(nojs.get_by_test_id("state")).to_have_text("Reviewed")
        expect(nojs).to_have_url(re.compile(re.escape(DOCUMENT_PATH + second) + "$"))
    finally:
        plain.close()


def test_an_answer_htmx_cannot_swap_is_still_reported(page: Page):
    sign_in(page, "jason@acme.example")
    reference = _create_claim(page, f"Bus fare {_tag()}", "3.10")
    _act(page, "Submit", "Pending review")
    _sign_out(page)

    sign_in(page, "nurul@acme.example")
    _open(page, reference)
    # An expired CSRF token: the server refuses the post (400) and htmx swaps nothing.
    page.evaluate(
        """() => {
            document.querySelector('meta[name="csrf-token"]').setAttribute('content', 'expired');
            document.querySelectorAll('input[name="csrf_token"]').forEach(i => { i.value = 'expired'; });
        }"""
    )
    page.get_by_role("button", name="Mark reviewed", exact=True).click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Your form expired or came from another site.")
    expect(alert).to_be_focused()
    expect(page.get_by_test_id("state")).to_have_text("Pending review")
    assert axe_violations(page) == []

    # Reloaded, the page works again.
    _open(page, reference)
    _act(page, "Mark reviewed", "Reviewed")
