"""The main pages, walked in Chromium under the real Content Security Policy: nothing
they load or swap in (htmx fragments, the diagram's SVG, the flow editor) is refused —
no inline style, no inline script, no eval — and each passes the accessibility check.

Violations are collected two ways: the console's "Refused to …" lines, and the
``securitypolicyviolation`` events the document fires, reported to the test through a
binding installed before any of the page's own scripts run.
"""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.test_sign_in import sign_in

ORG = "/o/acme"


class Watch:
    """Every CSP refusal the page reports, with the page it happened on."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.refused: list[str] = []
        page.on("console", self._console)
        page.expose_binding("__cspViolation", lambda source, text: self._add(text))
        page.add_init_script(
            """document.addEventListener("securitypolicyviolation", function (e) {
                 window.__cspViolation(e.violatedDirective + " " + (e.blockedURI || "inline")
                   + " " + (e.sample || ""));
               });"""
        )

    def _add(self, text: str) -> None:
        self.refused.append(f"{self.page.url}: {text}")

    def _console(self, message) -> None:
        if "Content Security Policy" in message.text or "Refused to" in message.text:
            self._add(message.text)

    def check(self, name: str) -> None:
        """The page as it stands: no refusal so far, and no serious axe finding."""
        self.page.wait_for_load_state("load")
        assert self.refused == [], name
        found = axe_violations(self.page)
        assert found == [], f"{name}: {found}"


def test_the_main_pages_break_no_csp_rule(page: Page):
    watch = Watch(page)
    page.goto("/login")
    # The watch sees a refusal: markup given a style attribute is one.
    page.evaluate(
        "() => document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">x</p>')"
    )
    for _ in range(20):  # the report arrives asynchronously
        if watch.refused:
            break
        page.wait_for_timeout(100)
    assert any("style-src" in line for line in watch.refused), watch.refused
    page.wait_for_timeout(300)  # and its console line, which comes on its own
    watch.refused.clear()
    page.goto("/login")
    watch.check("sign in")
    sign_in(page, "jason@acme.example")
    expect(page).to_have_url(re.compile(r"/o/acme/$"))
    watch.check("home")

    # A claim of his own, through the form, submitted on its page by htmx.
    page.goto(f"{ORG}/documents/")
    watch.check("my documents")
    page.get_by_role("link", name=re.compile("New Expense claim")).click()
    watch.check("new document")
    title = f"CSP walk {uuid.uuid4().hex[:6]}"
    page.get_by_label("Title").fill(title)
    page.get_by_label(re.compile("^Amount")).fill("12.30")
    page.get_by_label(re.compile("^Category")).select_option(label="Travel")
    page.get_by_label(re.compile("^Date of expense")).fill("2026-11-18")
    page.get_by_role("button", name="Save draft").click()
    expect(page.get_by_role("heading", name=re.compile(re.escape(title)))).to_be_visible()
    reference = page.locator("h1 .code").inner_text()
    watch.check("document detail")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_test_id("state")).to_have_text("Pending review")
    # One message: the draft's "saved" flash went when the decision's message came.
    expect(page.locator(".flash")).to_have_count(1)
    watch.check("document after an htmx decision")
    page.get_by_role("button", name="Sign out").click()

    # His manager decides it from the inbox and the page, and reads her notifications.
    sign_in(page, "nurul@acme.example")
    page.goto(f"{ORG}/inbox/")
    expect(page.locator(f'tr[data-reference="{reference}"]')).to_be_visible()
    watch.check("inbox")
    page.goto(f"{ORG}/documents/{reference}")
    # A refusal swapped in (no comment where one is required) is a fragment too.
    page.get_by_role("button", name="Reject", exact=True).click()
    expect(page.get_by_label(re.compile("^Comment"))).to_be_focused()
    watch.check("document after a refused htmx decision")
    page.get_by_role("button", name="Mark reviewed", exact=True).click()
    expect(page.get_by_test_id("state")).to_have_text("Reviewed")
    watch.check("document after a second htmx decision")
    page.goto(f"{ORG}/notifications/")
    watch.check("notifications")
    page.get_by_role("button", name="Sign out").click()

    # An admin's pages: flows, a flow, its editor, the chart, members, her account.
    sign_in(page, "grace@acme.example")
    page.goto(f"{ORG}/flows/")
    watch.check("flows")
    page.goto(f"{ORG}/flows/expense_claim/")
    watch.check("flow")
    page.goto(f"{ORG}/flows/expense_claim/editor")
    expect(page.locator("#paper svg").first).to_be_visible()
    page.wait_for_timeout(500)  # the canvas draws after load
    watch.check("flow editor")
    page.goto(f"{ORG}/admin/chart/")
    watch.check("org chart")
    page.goto(f"{ORG}/admin/members/")
    watch.check("members")
    page.goto("/account/")
    watch.check("account")


def test_the_document_page_reads_well_on_a_phone(page: Page):
    watch = Watch(page)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, "siti@acme.example")
    page.goto(f"{ORG}/documents/new/expense_claim")
    page.get_by_label("Title").fill(f"Phone check {uuid.uuid4().hex[:6]}")
    page.get_by_label(re.compile("^Amount")).fill("8.00")
    page.get_by_label(re.compile("^Category")).select_option(label="Travel")
    page.get_by_label(re.compile("^Date of expense")).fill("2026-11-18")
    page.get_by_role("button", name="Save draft").click()
    figure = page.get_by_test_id("flow-diagram")
    expect(figure).to_be_visible()
    # Wider than the phone: it scrolls inside its own box, and the page does not.
    assert figure.evaluate("f => f.scrollWidth > f.clientWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    # Its text is drawn at least 11 px high on the screen.
    smallest = page.evaluate(
        """() => Math.min(...[...document.querySelectorAll('.flow-diagram text')]
             .map(t => t.getBoundingClientRect().height).filter(h => h > 0))"""
    )
    assert smallest >= 11
    # The current state is scrolled into view.
    current = page.locator(".diagram-state.current > rect:not(.diagram-halo)")
    box, frame = current.bounding_box(), figure.bounding_box()
    assert (
        box
        and frame
        and frame["x"] <= box["x"]
        and box["x"] + box["width"] <= frame["x"] + frame["width"]
    )
    screenshot(page, "document-phone")
    watch.check("document on a phone")


def test_the_top_bar_fits_one_line_at_1280(page: Page):
    page.set_viewport_size({"width": 1280, "height": 800})
    sign_in(page, "grace@acme.example")  # an admin: the longest nav
    page.goto(f"{ORG}/documents/")
    tops = page.evaluate(
        """() => ['.brand', '.mainnav', '.topbar-end'].map(s =>
             Math.round(document.querySelector(s).getBoundingClientRect().top))"""
    )
    bar = page.locator(".topbar").bounding_box()
    assert bar and bar["height"] < 64, bar
    assert max(tops) - min(tops) < 12, tops
    # On a phone nothing is cut off: every nav link can still be reached and seen.
    page.set_viewport_size({"width": 390, "height": 844})
    flows = page.get_by_role("navigation", name="Main navigation").get_by_role("link", name="Flows")
    flows.focus()
    expect(flows).to_be_in_viewport()
