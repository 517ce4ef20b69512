"""Amount bands drawn in the flow editor by typing, and what they do to real documents;
and the editor as it opens, legible.

Grace (an admin) adds a 1,000 band on the expense claim's review step for Daniel Tan by
typing the floor, sees the ladder, and publishes through the confirmation with its
summary; Siti then files claims of 999.99 and 1000.00 and each waits for the right
approver (Nurul Huda, her superior, below the band; Daniel from it). The live server's
database is shared by every e2e test: the flow is put back as it was (a draft started
from the version before, published) before the test ends.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations
from e2e.flow_editor import canvas_state, discard_draft, open_editor, outline_item, saved_when
from e2e.test_claim_walk import _act, _create_claim, _sign_out
from e2e.test_sign_in import sign_in

KIND = "expense_claim"
SHOTS = Path("/tmp/shots")  # noqa: S108 - where screenshots are looked at after a run


def _api(page: Page, method: str, path: str, body: dict | None = None) -> dict:
    """The editor's JSON API from the open editor page, as its script calls it."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const token = document.querySelector('meta[name="csrf-token"]').content;
            const answer = await fetch(location.pathname.replace(/editor$/, 'api') + path, {
                method, credentials: 'same-origin', body: body ? JSON.stringify(body) : undefined,
                headers: {'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRFToken': token},
            });
            return {status: answer.status, data: await answer.json()};
        }""",
        [method, path, body],
    )


def _put_back(page: Page, version: int) -> None:
    """The flow as it was: a draft started from ``version``, published."""
    page.goto(f"/o/acme/flows/{KIND}/editor")
    page.evaluate("() => window.flowEditor.ready")
    draft = _api(page, "GET", "/draft")["data"]
    started = _api(
        page, "POST", "/draft/from-version", {"version": version, "revision": draft["revision"]}
    )
    assert started["status"] == 200, started
    published = _api(page, "POST", "/draft/publish", {"revision": started["data"]["revision"]})
    assert published["status"] == 200, published


def test_an_admin_types_a_band_publishes_it_and_each_claim_reaches_its_approver(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, KIND)
    before = _api(page, "GET", "/draft")["data"]["base_version"]
    try:
        _draw_the_band_and_publish(page)
        assert console == []
        _sign_out(page)

        # Below the band: the superior's. At the floor exactly: the band's (half-open).
        sign_in(page, "siti@acme.example")
        tag = uuid.uuid4().hex[:6]
        _create_claim(page, f"Printer toner {tag}", "999.99")
        _act(page, "Submit", "Pending review")
        expect(page.get_by_test_id("waiting")).to_contain_text("Nurul Huda")
        expect(page.get_by_test_id("waiting")).not_to_contain_text("Daniel Tan")
        _create_claim(page, f"Conference fee {tag}", "1000.00")
        _act(page, "Submit", "Pending review")
        expect(page.get_by_test_id("waiting")).to_contain_text("Daniel Tan")
        expect(page.get_by_test_id("waiting")).not_to_contain_text("Nurul Huda")
        _sign_out(page)
    finally:
        page.context.clear_cookies()  # whoever was signed in when it stopped
        sign_in(page, "grace@acme.example")
        _put_back(page, before)


def _draw_the_band_and_publish(page: Page) -> None:
    panel, status = page.get_by_test_id("properties"), page.get_by_test_id("save-status")
    outline_item(page, "Reviewed (reviewed)").click()
    ladder = panel.get_by_test_id("ladder")
    expect(ladder.locator("li")).to_have_count(1)
    expect(ladder).to_contain_text("from RM 0.00: The requester's superior")

    # A new grant starts empty: who decides is to be chosen, and it says so.
    panel.get_by_test_id("add-grant").click()
    row = panel.locator("[data-grant]").last
    expect(row.locator('[data-prop="grantee"]')).to_have_value("")
    expect(row.locator('[data-code="grantee_kind_missing"]')).to_have_text(
        "Choose who decides for this grant."
    )
    row.locator('[data-prop="grantee"]').select_option(label="A member")
    row = panel.locator("[data-grant]").last
    row.locator('[data-prop="member"]').select_option(label="Daniel Tan <daniel@acme.example>")

    # The floor is typed in the base currency, shown beside it; a cent too precise or a
    # word is refused beside the input, and nothing of it is saved.
    floor = row.locator('[data-prop="floor"]')
    expect(row.locator(".currency-tag")).to_have_text("RM")
    expect(row).to_contain_text("From amount (MYR)")
    floor.fill("1000.005")
    expect(row.locator('[data-code="floor_too_precise"]')).to_have_text(
        "MYR amounts have at most 2 decimals."
    )
    expect(floor).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_test_id("publish")).to_be_disabled()
    floor.fill("one thousand")
    expect(row.locator('[data-code="floor_not_number"]')).to_be_visible()
    floor.fill("1,000.00")
    expect(row.locator('[data-testid="inline-problem"]')).to_have_count(0)
    saved = saved_when(
        page,
        lambda g: any(gr.get("min_amount") for gr in g["grants"] if gr.get("state") == "reviewed"),
    )
    band = next(
        gr for gr in saved["grants"] if gr.get("state") == "reviewed" and gr.get("min_amount")
    )
    assert (band["min_amount"], band["currency"], band["grantee"]["kind"]) == (
        "1000.00",
        "MYR",
        "member",
    )

    # The ladder: from 0 the superior, from 1,000 Daniel; no gap.
    expect(ladder.locator("li")).to_have_count(2)
    expect(ladder.locator("li").nth(0)).to_have_text("from RM 0.00: The requester's superior")
    expect(ladder.locator("li").nth(1)).to_have_text("from RM 1,000.00: Daniel Tan")
    expect(ladder.locator("[data-gap]")).to_have_count(0)
    expect(status).to_have_text(re.compile(r"^Saved as draft revision \d+\.$"))
    # No error left (the count may hold warnings): ready to publish.
    expect(page.get_by_test_id("problems-count")).not_to_have_attribute("data-severity", "error")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "editor-ladder.png"), full_page=True)
    assert axe_violations(page) == []

    # Publish, through the confirmation saying what changes.
    expect(page.get_by_test_id("publish")).to_be_enabled()
    page.get_by_test_id("publish").click()
    dialog = page.get_by_test_id("publish-dialog")
    added = dialog.locator('[data-part="grants"] [data-change="added"]')
    expect(added).to_have_count(1)
    expect(added).to_contain_text("Daniel Tan")
    expect(added).to_contain_text("1,000.00")
    dialog.get_by_role("button", name="Publish").click()
    expect(status).to_have_text(
        re.compile(r"^Published version \d+\. New documents start on it\.$")
    )
    # Nothing is left to discard, and the button says so.
    expect(page.get_by_test_id("discard")).to_be_disabled()
    expect(page.get_by_test_id("discard-reason")).to_have_text("There is no draft to discard.")


def test_the_editor_opens_legible_and_a_new_arrow_is_named_before_it_is_drawn(page: Page):
    page.set_viewport_size({"width": 1366, "height": 800})
    sign_in(page, "grace@acme.example")
    console = open_editor(page, KIND)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "editor-open.png"))
    # Labels at a readable size: the zoom keeps a 12 px arrow label at 11 px or more,
    # at open and after "Fit to screen".
    scale = page.evaluate("() => window.flowEditor.scale()")
    assert scale >= 11 / 12
    page.get_by_role("button", name="Fit to screen").click()
    assert page.evaluate("() => window.flowEditor.scale()") >= 11 / 12
    # An arrow's label is drawn above every state (a layer of its own).
    labels_layer = page.locator("#paper .joint-labels-layer, #paper [class*='labels']").first
    expect(labels_layer).to_be_attached()
    # The problems list is in view beside the canvas, its count on the toolbar.
    expect(page.get_by_test_id("problems")).to_be_in_viewport()
    expect(page.get_by_test_id("problems-count")).to_have_text(re.compile(r"^Problems: \d+$"))
    # With no draft there is nothing to discard, and the button says why.
    expect(page.get_by_test_id("discard")).to_be_disabled()
    expect(page.get_by_test_id("discard-reason")).to_have_text("There is no draft to discard.")

    # A new arrow asks for its action; a suggestion fills the key and every label.
    _drag(page, "reviewed", "rejected")
    prompt = page.get_by_test_id("action-dialog")
    expect(prompt).to_be_visible()
    prompt.get_by_test_id("action-key").fill("reject")
    prompt.get_by_test_id("action-add").click()
    expect(prompt.get_by_test_id("action-problem")).to_have_text(
        "reject already leaves this state: choose another name."
    )
    prompt.get_by_role("button", name="Send back for changes (send_back)").click()
    expect(prompt.get_by_test_id("action-key")).to_have_value("send_back")
    expect(prompt.get_by_label("Name of the action (zh)")).to_have_value("退回修改")
    prompt.get_by_test_id("action-add").click()
    arrow = page.locator('#paper [data-from="reviewed"][data-to="rejected"][data-key="send_back"]')
    expect(arrow).to_have_count(1)
    saved = saved_when(page, lambda g: any(t["key"] == "send_back" for t in g["transitions"]))
    (made,) = [t for t in saved["transitions"] if t["key"] == "send_back"]
    assert made["labels"] == {
        "en": "Send back for changes",
        "zh": "退回修改",
        "ms": "Kembalikan untuk dipinda",
    }
    # A rejection needs a comment: the problem in plain words, its place on a line below.
    problems = page.get_by_test_id("problems")
    expect(page.get_by_test_id("problems-count")).to_have_attribute("data-severity", "error")
    expect(problems.locator(".problem-where").first).to_contain_text("transitions[")

    # Cancelled, a drawn arrow makes nothing.
    count = len(saved["transitions"])
    _drag(page, "reviewed", "rejected")
    expect(prompt).to_be_visible()
    prompt.get_by_role("button", name="Cancel", exact=True).click()
    expect(page.locator('#paper [data-from="reviewed"][data-to="rejected"]')).to_have_count(2)
    assert len(saved_when(page, lambda g: True)["transitions"]) == count
    discard_draft(page)
    assert console == []


def _drag(page: Page, source: str, target: str) -> None:
    handle = canvas_state(page, source).locator("circle[magnet]").first
    handle.scroll_into_view_if_needed()
    start, end = handle.bounding_box(), canvas_state(page, target).bounding_box()
    assert start and end
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=12)
    page.mouse.up()
