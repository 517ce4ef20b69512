"""The auditor's walk through the seeded history: Ravi Kumar reaches the audit from the
top bar, searches (by keyboard, Enter submits) for Siti Aminah's rejected expense claims,
sees only those, reloads the shareable address and keeps the search; opens one reworked
and rejected twice ("Exhibition stand hire", seeded ten weeks back by ``portal demo``),
reads its path on the flow's diagram — every arrow taken, numbered as the decisions
listed below it — verifies its chain, prints it, goes back and downloads the search as
CSV (the file's rows are the page's), and opens where approvals stall, whose first chart
has the review step with its median. Every page: no CSP refusal, axe clean, nothing
wider than a 390 px phone but the boxes that scroll on their own. Screenshots of each
page at 1366 px and 390 px under e2e/artifacts/audit-*.png.

The live server's database is shared by every e2e test, so the search's rows are
checked one by one (others may have added a rejected claim of Siti's) rather than
counted against a fixed number; nothing here writes but the chain's verification and
the export's record.
"""

from __future__ import annotations

import csv
import io
import re
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Page, ViewportSize, expect

from e2e.conftest import screenshot
from e2e.test_csp import Watch
from e2e.test_sign_in import sign_in

AUDIT = "/o/acme/audit/"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1366, "height": 900}
SITI = "Siti Aminah"
# Seeded by ``portal demo``: Siti's claim rejected at review, reworked, sent again and
# rejected at approval — six decisions, one arrow taken twice.
REWORKED = "Exhibition stand hire"
# The search form's fields in reading order; Tab must visit them in this order.
FIELDS = [
    "kind",
    "state",
    "requester_id",
    "approver_id",
    "delegate_id",
    "reference",
    "text",
    "created_from",
    "created_to",
    "decided_from",
    "decided_to",
    "amount_min",
    "amount_max",
]


def _fits_the_phone(page: Page) -> None:
    """At 390 px the page itself never scrolls sideways: whatever is wider (a table, a
    diagram, a chart) scrolls inside its own box."""
    wide = page.evaluate(
        """() => {
            const edge = document.documentElement.clientWidth + 1;
            const scrolls = el => { for (let p = el.parentElement; p; p = p.parentElement) {
                const o = getComputedStyle(p).overflowX;
                if (o === 'auto' || o === 'scroll') return true; } return false; };
            return [...document.querySelectorAll('body *')]
                .filter(el => { const r = el.getBoundingClientRect();
                                return r.width && r.right > edge && !scrolls(el); })
                .map(el => el.tagName + '.' + (el.getAttribute('class') || '')).slice(0, 10);
        }"""
    )
    assert wide == [], wide
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def _words_whole(page: Page, table: str) -> None:
    """No cell of the table breaks a word across lines (a table squeezed into the phone
    rather than scrolled: one letter a line). A cell may wrap between words and after a
    hyphen, so it may take as many lines as it has such pieces, never more."""
    broken = page.eval_on_selector_all(
        f"{table} th, {table} td",
        """cells => cells.filter(c => {
            const text = c.textContent.trim();
            if (!text || !c.getBoundingClientRect().width) return false;
            // The text's fragments, one or more a line; fragments whose middles fall
            // within one line's height are on that line (a chip's padding aside).
            const walker = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
            const lines = [];
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const range = document.createRange();
                range.selectNodeContents(node);
                for (const r of range.getClientRects()) {
                    const middle = (r.top + r.bottom) / 2;
                    if (r.width && !lines.some(l => l.top <= middle && middle <= l.bottom))
                        lines.push({top: r.top, bottom: r.bottom});
                }
            }
            return lines.length > text.split(/\\s+|(?<=-)/).length;
        }).map(c => c.textContent.trim()).slice(0, 5)""",
    )
    assert broken == [], f"{table}: words broken across lines in {broken}"


def _both_sizes(page: Page, watch: Watch, name: str, tables: tuple[str, ...] = ()) -> None:
    """The page checked (CSP, axe) and photographed on a desktop and on a phone, where
    its ``tables`` keep their words whole."""
    watch.check(name)
    page.set_viewport_size(DESKTOP)
    for table in tables:
        _words_whole(page, table)
    screenshot(page, f"audit-{name}-desktop")
    page.set_viewport_size(PHONE)
    _fits_the_phone(page)
    for table in tables:
        _words_whole(page, table)
    screenshot(page, f"audit-{name}-phone")
    watch.check(f"{name} on a phone")
    page.set_viewport_size(DESKTOP)


def _state_labels(page: Page) -> dict[str, str]:
    """Each state's key and its label, as the search form's State list names them."""
    return page.eval_on_selector_all(
        "select#state option", "os => Object.fromEntries(os.map(o => [o.value, o.text.trim()]))"
    )


def _rows(page: Page) -> list[dict[str, str]]:
    return page.eval_on_selector_all(
        "[data-testid=audit-results] tbody tr",
        """rs => rs.map(r => ({
            reference: r.dataset.reference,
            kind: r.cells[1].textContent.trim(),
            title: r.cells[2].textContent.trim(),
            requester: r.cells[3].textContent.trim(),
            state: r.querySelector('[data-state]').dataset.state,
            state_label: r.cells[5].textContent.trim(),
        }))""",
    )


def _tab_order(page: Page) -> list[str]:
    """The ids Tab visits from the first field to the Search button (a date field's
    parts are one stop here)."""
    page.locator("#kind").focus()
    seen = ["kind"]
    for _ in range(60):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => document.activeElement.id || document.activeElement.textContent.trim()"
        )
        if focused == "Search":
            return seen
        if focused != seen[-1]:
            seen.append(focused)
    raise AssertionError(f"Tab never reached the Search button: {seen}")


def _search_by_keyboard(page: Page) -> None:
    """The filters chosen, then Enter in a text field submits the form."""
    form = page.get_by_test_id("audit-filters")
    form.get_by_label("Kind", exact=True).select_option(label="Expense claim")
    form.get_by_label("State", exact=True).select_option(label="Rejected")
    form.get_by_label("Requester", exact=True).select_option(label=SITI)
    form.get_by_label("Words in the title or description").press("Enter")


def _sitis_rejected_claims_only(page: Page) -> list[str]:
    rows = _rows(page)
    assert len(rows) >= 2, rows  # the demo seeds more than one
    for row in rows:
        assert row["requester"] == SITI, row
        assert row["kind"] == "Expense claim", row
        assert (row["state"], row["state_label"]) == ("rejected", "Rejected"), row
    count = page.get_by_test_id("audit-count").inner_text()
    assert re.fullmatch(rf"{len(rows)} documents?", count.strip()), count
    return [row["reference"] for row in rows]


def _path_matches_the_decisions(page: Page, labels: dict[str, str]) -> int:
    """The arrows marked taken on the diagram are, step for step, the decisions listed
    (and the path's list beside it); the states marked visited are the ones they went
    through; the state ringed is where the document is now. Answers the decisions'
    count."""
    moves = page.eval_on_selector_all(
        "[data-testid=trail-decision] .trail-move", "ms => ms.map(m => m.textContent.trim())"
    )
    steps = page.eval_on_selector_all(
        "[data-testid=path-steps] li", "ls => ls.map(l => l.dataset.from + ' → ' + l.dataset.to)"
    )
    assert steps == moves, (steps, moves)
    diagram = page.get_by_test_id("path-diagram")
    taken = diagram.locator("line.taken").evaluate_all(
        "ls => ls.map(l => [l.dataset.from, l.dataset.to, l.dataset.steps])"
    )
    drawn: dict[int, str] = {}
    for source, target, numbers in taken:
        for number in numbers.split(","):
            drawn[int(number)] = f"{labels[source]} → {labels[target]}"
    assert drawn == {n: move for n, move in enumerate(moves, start=1)}, (drawn, moves)
    # Each taken arrow also carries its numbers, drawn on top.
    assert diagram.locator("g.diagram-step").count() == len(taken)
    visited = diagram.locator("g.diagram-state.visited").evaluate_all(
        "gs => gs.map(g => g.dataset.state)"
    )
    went_through = {key for source, target, _ in taken for key in (source, target)}
    assert set(visited) == went_through, (visited, went_through)
    expect(diagram.locator("g.diagram-state.current")).to_have_attribute("data-state", "rejected")
    return len(moves)


def test_an_auditor_finds_sitis_rejected_claims_follows_one_and_exports_the_rest(page: Page):
    watch = Watch(page)
    page.set_viewport_size(DESKTOP)
    sign_in(page, "ravi@acme.example")
    page.get_by_role("navigation", name="Main navigation").get_by_role("link", name="Audit").click()
    expect(page).to_have_url(re.compile(r"/o/acme/audit/$"))
    expect(page.get_by_role("heading", name="Audit", exact=True)).to_be_visible()
    watch.check("audit home")
    labels = _state_labels(page)
    assert labels["pending_review"] == "Pending review"
    assert _tab_order(page) == FIELDS

    # The search, by keyboard; its whole filter in the address, kept by a reload.
    _search_by_keyboard(page)
    expect(page).to_have_url(re.compile(r"state=rejected"))
    asked = parse_qs(urlparse(page.url).query)
    assert asked["kind"] == ["expense_claim"] and asked["state"] == ["rejected"], asked
    assert asked["requester_id"][0].isdigit(), asked
    references = _sitis_rejected_claims_only(page)
    page.reload()
    assert _sitis_rejected_claims_only(page) == references
    form = page.get_by_test_id("audit-filters")
    expect(form.get_by_label("Requester", exact=True).locator("option:checked")).to_have_text(SITI)
    expect(form.get_by_label("State", exact=True).locator("option:checked")).to_have_text(
        "Rejected"
    )
    searched = page.url
    _both_sizes(page, watch, "home", ("[data-testid=audit-results]",))

    # One of them: its timeline, the path highlighted as the decisions went.
    row = page.get_by_test_id("audit-results").locator("tbody tr", has_text=REWORKED)
    expect(row).to_have_count(1)
    reference = row.get_attribute("data-reference") or ""
    row.get_by_role("link", name=reference).click()
    expect(page.get_by_test_id("reference")).to_have_text(reference)
    decisions = _path_matches_the_decisions(page, labels)
    assert decisions == 6
    # The rework's edit sits between the decisions, in the order it happened.
    expect(page.get_by_test_id("trail-edit")).to_have_count(1)
    watch.check("timeline")

    # The chain verified in place, by keyboard.
    page.get_by_test_id("verify-chain").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("chain-result")).to_contain_text(
        f"Chain verified: {decisions} decisions, at "
    )
    _both_sizes(page, watch, "timeline", (".time-table",))

    page.get_by_test_id("print-view").click()
    expect(page.get_by_test_id("print-org")).to_have_text("Acme Trading Sdn Bhd")
    expect(page.get_by_test_id("print-sheet")).to_contain_text(reference)
    expect(page.get_by_test_id("print-sheet").get_by_test_id("trail-decision")).to_have_count(
        decisions
    )
    _both_sizes(page, watch, "print")

    # Back to the search as it was; its CSV holds the page's rows, in the page's order.
    page.go_back()
    page.go_back()
    expect(page).to_have_url(searched)
    assert _sitis_rejected_claims_only(page) == references
    with page.expect_download() as download:
        page.get_by_test_id("export-csv").click()
    saved = download.value
    assert saved.suggested_filename.endswith(".csv"), saved.suggested_filename
    with open(saved.path(), encoding="utf-8-sig") as file:
        exported = list(csv.DictReader(io.StringIO(file.read())))
    assert [r["reference"] for r in exported] == references
    for line in exported:
        assert (line["requester"], line["kind"], line["state"]) == (
            SITI,
            "expense_claim",
            "rejected",
        ), line
    watch.check("audit home after the export")

    # Where approvals stall: the claims' review is in the first chart and its table.
    page.get_by_role("link", name="Where approvals stall").click()
    expect(page).to_have_url(re.compile(r"/o/acme/audit/stalls"))
    expect(page.get_by_label("Flow", exact=True)).to_have_value("expense_claim")
    chart = page.get_by_test_id("chart-states")
    expect(chart).to_be_visible()
    expect(chart.locator("text", has_text="Pending review").first).to_be_visible()
    details = page.locator("section.stall-chart", has=chart).locator("details.stall-details")
    details.locator("summary").focus()
    page.keyboard.press("Enter")
    table = page.get_by_test_id("table-states")
    expect(table).to_be_visible()
    headings = table.locator("thead th").all_inner_texts()
    review = table.locator("tbody tr", has=page.locator("th", has_text="Pending review"))
    expect(review).to_have_count(1)
    median = review.locator("td").nth(
        next(i for i, h in enumerate(headings) if h.strip().lower() == "median") - 1
    )
    expect(median).to_have_text(re.compile(r"\d"))
    _both_sizes(page, watch, "stalls", ("[data-testid=table-states]",))
    assert watch.refused == []
