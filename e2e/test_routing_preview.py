"""An admin asks "Who would approve?" in the demo organization: the answer follows the
inputs as they are typed, the form works from the keyboard, and retiring a seat on the
route shows the document stranded, with the reason and a link to fix it.

Siti Aminah (SALES-EXEC-2) reports to Nurul Huda's seat SALES-MGR, which reports to
Zainal Abidin's SALES-DIR, the head of Sales: below RM10,000.00 a purchase request is
her superior's band, from it the unit head's. The test retires SALES-DIR and restores it
before it ends, so the other e2e tests (which share the server) see the demo chart as it
was seeded. The expense claim has exclusive approval: the preview says who is left out
of a step, and why.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.test_sign_in import sign_in

ACTIVE = "Active (a retired seat resolves to nobody)"


def _open_the_preview(page: Page) -> None:
    nav = page.get_by_role("navigation", name="Main navigation")
    nav.get_by_role("link", name="Org chart").click()
    page.get_by_role("link", name="Who would approve?").click()
    expect(page.get_by_role("heading", name="Who would approve?", level=1)).to_be_visible()


def _set_active(page: Page, edit_url: str, active: bool) -> None:
    page.goto(edit_url)
    page.get_by_label(ACTIVE).set_checked(active)
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Position saved.")).to_be_visible()


def test_the_preview_follows_the_inputs_and_shows_a_retired_seat_stranding_the_route(
    page: Page,
):
    sign_in(page, "aisha@acme.example")
    _open_the_preview(page)
    expect(page.get_by_label("Currency")).to_have_value("MYR")
    result = page.locator("#route-result")
    expect(result).to_be_empty()

    # The live region must stay the same element for screen readers to announce changes.
    result.evaluate("node => { node.dataset.probe = 'original' }")
    page.get_by_label("Flow").select_option(label="Purchase request")
    page.get_by_label("Requester").select_option(label="Siti Aminah <siti@acme.example>")
    amount = page.get_by_label("Amount")
    amount.press_sequentially("12000")

    # Nobody presses the button: htmx asks again as the amount is typed.
    summary = result.get_by_test_id("route-summary")
    expect(summary).to_contain_text(
        "Siti Aminah's Purchase request of RM12,000.00 would go through 1 approval step"
    )
    step = result.get_by_test_id("route-step")
    expect(step).to_contain_text(
        "Decided by the band from RM10,000.00: Zainal Abidin (Sales Director)"
    )
    expect(page).to_have_url(re.compile(r"/admin/chart/routing\?.*amount=12000"))
    expect(amount).to_be_focused()
    expect(result).to_have_attribute("data-probe", "original")
    expect(result.locator("#route-result")).to_have_count(0)
    preview_url = page.url
    assert axe_violations(page) == []
    screenshot(page, "routing-preview-unit-head")

    amount.fill("")
    amount.press_sequentially("500")
    expect(summary).to_contain_text("Siti Aminah's Purchase request of RM500.00")
    expect(step).to_contain_text("Decided by the band from RM0.00: Nurul Huda (Sales Manager)")
    superior = step.get_by_role("row", name=re.compile("the requester's superior"))
    expect(superior.get_by_role("cell").last).to_have_text("decides")

    # A refusal shows in the result region; what was typed stays in the field.
    amount.fill("")
    amount.press_sequentially("-5")
    alert = result.get_by_role("alert")
    expect(alert).to_contain_text("Amount: The amount cannot be negative.")
    expect(amount).to_have_value("-5")
    expect(summary).to_have_count(0)
    assert axe_violations(page) == []
    screenshot(page, "routing-preview-refused-amount")

    # Retire the seat that decides from the unit head's band, through the chart.
    page.get_by_role("link", name="← Org chart").click()
    page.get_by_role("link", name="Sales Director", exact=True).click()
    expect(page.get_by_role("heading", name="Edit position")).to_be_visible()
    edit_url = page.url
    page.get_by_label(ACTIVE).uncheck()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Position saved.")).to_be_visible()
    restored = False
    try:
        page.goto(preview_url)
        summary = page.get_by_test_id("route-summary")
        expect(summary).to_contain_text(
            "Siti Aminah's Purchase request of RM12,000.00 would be refused at “Approved”."
        )
        expect(summary).to_contain_text(
            "The position SALES-DIR — Sales Director is retired or gone."
        )
        expect(page.get_by_test_id("route-step")).to_contain_text("stranded")
        expect(page.get_by_text("Decided by the band")).to_have_count(0)
        # Only the unit head's grant stops it; the step names the seat once.
        expect(page.locator(".route-step .gap")).to_have_count(1)
        fix = summary.get_by_role("link", name="Fix this")
        edit_path = "/" + edit_url.split("//", 1)[1].split("/", 1)[1]
        expect(fix).to_have_attribute("href", edit_path)
        assert axe_violations(page) == []
        screenshot(page, "routing-preview-stranded")

        # The link leads to the seat; ticking Active again is the fix.
        fix.click()
        expect(page).to_have_url(edit_url)
        page.get_by_label(ACTIVE).check()
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_text("Position saved.")).to_be_visible()
        restored = True
    finally:
        if not restored:  # leave the demo chart as the other e2e tests expect it
            _set_active(page, edit_url, True)

    page.goto(preview_url)
    expect(page.get_by_test_id("route-step")).to_contain_text(
        "Decided by the band from RM10,000.00: Zainal Abidin (Sales Director)"
    )


def test_the_preview_form_is_usable_from_the_keyboard_alone(page: Page):
    sign_in(page, "aisha@acme.example")
    _open_the_preview(page)

    focused = ""
    for _ in range(30):
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.id")
        if focused == "kind":
            break
    assert focused == "kind", "Tab never reached the Flow picker"
    page.keyboard.type("Purchase")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Requester")).to_be_focused()
    page.keyboard.type("Siti")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Amount")).to_be_focused()
    page.keyboard.type("12,000")
    page.keyboard.press("Enter")

    expect(page.get_by_label("Flow")).to_have_value("purchase_request")
    expect(page.get_by_test_id("route-step")).to_contain_text(
        "Decided by the band from RM10,000.00: Zainal Abidin (Sales Director)"
    )
    # The answer arrived in place: the field kept its text and the focus.
    expect(page.get_by_label("Amount")).to_have_value("12,000")
    expect(page.get_by_label("Amount")).to_be_focused()
    screenshot(page, "routing-preview-keyboard")


def test_a_hand_made_query_is_refused_beside_its_field_not_a_crash(page: Page):
    sign_in(page, "aisha@acme.example")
    base = {"kind": "purchase_request", "member_id": "1", "amount": "1", "currency": "MYR"}
    # A NUL never gets as far as the page: the request layer refuses it, naming the field.
    with_nul = urlencode({**base, "kind": "purchase_request\x00"})
    nul = page.goto(f"/o/acme/admin/chart/routing?{with_nul}")
    assert nul is not None and nul.status == 400
    expect(page.get_by_role("heading", level=1)).to_contain_text("“kind” contains a control")
    for over, field, message in (
        ({"member_id": str(2**63)}, "member_id", "Pick a member of this organization."),
        ({"currency": "EUR"}, "currency", "base currency, MYR, not “EUR”."),
    ):
        answer = page.goto(f"/o/acme/admin/chart/routing?{urlencode({**base, **over})}")
        assert answer is not None and answer.status == 422, over
        expect(page.locator(f"#{field}-error")).to_contain_text(message)
        expect(page.get_by_role("alert")).to_contain_text(message)


def test_under_exclusive_approval_the_preview_says_who_is_left_out_and_why(page: Page):
    sign_in(page, "aisha@acme.example")
    _open_the_preview(page)
    page.get_by_label("Flow").select_option(label="Expense claim")
    page.get_by_label("Requester").select_option(label="Siti Aminah <siti@acme.example>")
    page.get_by_label("Amount").press_sequentially("480")
    result = page.locator("#route-result")

    # Siti's claim: four steps, four different people available.
    expect(result.get_by_test_id("route-summary")).to_contain_text(
        "Siti Aminah's Expense claim of RM480.00 would go through 4 approval steps, all of them staffed."
    )
    expect(result.get_by_test_id("route-exclusive")).to_contain_text(
        "This flow has exclusive approval"
    )
    steps = result.get_by_test_id("route-step")
    expect(steps.nth(0)).to_contain_text("Decided by the band from RM0.00: Nurul Huda")
    expect(steps.nth(1)).to_contain_text("Decided by the band from RM0.00: Zainal Abidin")
    expect(result.get_by_test_id("route-exclusions")).to_have_count(0)

    # Mei Ling's: Daniel is both her superior and the head of Finance.
    page.get_by_label("Requester").select_option(label="Chen Mei Ling <meiling@acme.example>")
    summary = result.get_by_test_id("route-summary")
    expect(summary).to_contain_text(
        "Chen Mei Ling's Expense claim of RM480.00 would be refused at “Approved”."
    )
    expect(summary).to_contain_text("this flow has exclusive approval")
    approved = steps.nth(1)
    expect(approved).to_contain_text("stranded")
    expect(approved.get_by_test_id("route-exclusions")).to_contain_text(
        "Daniel Tan is left out: nobody else can decide “Reviewed”"
    )
    # Daniel is spent on the review, so the admins left commit and pay.
    expect(steps.nth(2)).to_contain_text("Decided by the band from RM0.00: Aisha Rahman")
    expect(steps.nth(2).get_by_test_id("route-exclusions")).to_contain_text(
        "Daniel Tan is left out: nobody else can decide “Reviewed”"
    )
    assert axe_violations(page) == []
    screenshot(page, "routing-preview-exclusive")
