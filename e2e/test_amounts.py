"""A requester types an amount the way another locale writes it: the form says how to
type it, keeps what she typed, and takes the amount once she writes it her way; the
document then shows it as her locale shows money."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations
from e2e.test_sign_in import sign_in


def test_an_amount_in_another_locales_form_is_refused_with_the_expected_form(page: Page):
    sign_in(page, "jason@acme.example")
    page.get_by_role("navigation", name="Main navigation").get_by_role(
        "link", name="My documents"
    ).click()
    page.get_by_role("link", name=re.compile("New Expense claim")).click()
    page.get_by_label("Title").fill("Hotel in Penang")
    amount = page.get_by_label(re.compile("^Amount"))
    amount.fill("1.234,50")
    page.get_by_label(re.compile("^Category")).select_option(label="Travel")
    page.get_by_label(re.compile("^Date of expense")).fill("2026-11-18")
    page.get_by_role("button", name="Save draft").click()

    # Refused beside the input, with the form she should use; nothing is saved and
    # what she typed is still there.
    expect(page.locator("#amount-error")).to_have_text(
        "That amount could be read more than one way. Type the amount as 1,234.50."
    )
    expect(amount).to_have_value("1.234,50")
    expect(amount).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Title")).to_have_value("Hotel in Penang")
    assert axe_violations(page) == []

    amount.fill("1,234.50")
    page.get_by_role("button", name="Save draft").click()

    expect(page.get_by_role("heading", name=re.compile("Hotel in Penang"))).to_be_visible()
    # Acme is in Malaysia: English there writes ringgit as RM.
    shown = page.locator("dt", has_text=re.compile("^Amount$")).locator(
        "xpath=following-sibling::dd[1]"
    )
    expect(shown).to_have_text(re.compile(r"^(RM|MYR\s?)1,234\.50$"))
