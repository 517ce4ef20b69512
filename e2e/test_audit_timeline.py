"""The auditor reads one document's whole story: the timeline with the path it took
highlighted on its flow, the chain verified by the button (htmx, no reload), the print
view laid out on A4 and on Letter with nothing cut off. Every page passes the
accessibility check and the content security policy."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import ARTIFACTS, axe_violations, screenshot
from e2e.test_claim_walk import _act, _create_claim, _sign_out
from e2e.test_sign_in import sign_in

# The printable width of the narrower sheet (A4: 210 mm) with the print view's margins
# (12 mm each side), in CSS pixels (96 per inch).
A4_LINE_PX = (210 - 2 * 12) / 25.4 * 96


def _overflowing(page: Page) -> list[str]:
    """Elements that reach past the right edge of the page (as printed)."""
    return page.evaluate(
        """() => {
            const edge = document.documentElement.clientWidth + 1;
            return [...document.querySelectorAll('body *')]
                .filter(el => { const r = el.getBoundingClientRect(); return r.width && r.right > edge; })
                .map(el => el.tagName + '.' + el.className).slice(0, 10);
        }"""
    )


def test_an_auditor_reads_verifies_and_prints_a_documents_story(page: Page):
    refused: list[str] = []
    page.on(
        "console",
        lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
    )
    title = f"Conference in Kuching {uuid.uuid4().hex[:6]}"
    sign_in(page, "siti@acme.example")
    reference = _create_claim(page, title, "640.00")
    _act(page, "Submit", "Pending review")
    _sign_out(page)
    sign_in(page, "nurul@acme.example")
    page.goto(f"/o/acme/documents/{reference}")
    _act(page, "Reject", "Rejected", comment="The registration receipt is missing.")
    _sign_out(page)

    sign_in(page, "ravi@acme.example")
    page.goto(f"/o/acme/audit/documents/{reference}")
    expect(page.get_by_test_id("reference")).to_have_text(reference)
    decisions = page.get_by_test_id("trail-decision")
    expect(decisions).to_have_count(2)
    expect(decisions.nth(1)).to_contain_text("The registration receipt is missing.")
    expect(decisions.nth(1).get_by_test_id("trail-approvers")).to_have_text("Nurul Huda")
    # The path: two arrows taken, numbered in order, and the same in words.
    diagram = page.get_by_test_id("path-diagram")
    expect(diagram.locator("line.taken")).to_have_count(2)
    expect(diagram.locator('line.taken[data-from="draft"]')).to_have_attribute("data-steps", "1")
    expect(diagram.locator('line.taken[data-to="rejected"]')).to_have_attribute("data-steps", "2")
    expect(page.get_by_test_id("path-steps").locator("li")).to_have_count(2)
    assert axe_violations(page) == []

    # Verified in place: the block changes, the page stays.
    page.get_by_test_id("verify-chain").click()
    expect(page.get_by_test_id("chain-result")).to_contain_text(
        re.compile(r"Chain verified: 2 decisions, at ")
    )
    expect(page.get_by_test_id("reference")).to_have_text(reference)
    screenshot(page, "audit-timeline")
    assert axe_violations(page) == []

    # The print view: its Print button shown by the script, and on paper nothing cut off.
    page.get_by_test_id("print-view").click()
    expect(page.get_by_test_id("print-org")).to_have_text("Acme Trading Sdn Bhd")
    expect(page.get_by_role("button", name="Print")).to_be_visible()
    assert axe_violations(page) == []
    page.emulate_media(media="print")
    expect(page.get_by_role("navigation", name="Main navigation")).to_be_hidden()
    page.set_viewport_size({"width": int(A4_LINE_PX), "height": 1000})
    assert _overflowing(page) == []
    ARTIFACTS.mkdir(exist_ok=True)
    for paper in ("A4", "Letter"):
        pdf = page.pdf(format=paper, path=str(ARTIFACTS / f"audit-print-{paper}.pdf"))
        assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    assert refused == []
