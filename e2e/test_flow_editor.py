"""The flow editor in Chromium, driven by selectors on the canvas: an admin adds a state,
sees it outlined as unreachable, connects it by dragging from a handle, watches the
violation go, and discards the draft; the save round trip is printed.

The live server's database is shared by every e2e test: this one works on the purchase
request flow and leaves no draft behind.
"""

from __future__ import annotations

import re
import statistics
import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.flow_editor import (
    canvas_state,
    connect,
    discard_draft,
    graph_at_the_caps,
    open_editor,
    outline_item,
    put_draft,
    round_trips_over_edits,
    saved_when,
)
from e2e.test_sign_in import sign_in


def test_an_admin_adds_a_state_sees_it_unreachable_and_connects_it(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page)
    expect(canvas_state(page, "draft")).to_be_visible()
    expect(
        page.get_by_test_id("outline").get_by_role("button", name=re.compile(r"\(draft\)"))
    ).to_be_visible()
    expect(page.get_by_test_id("publish")).to_be_disabled()

    page.get_by_test_id("add-state").click()
    expect(page.get_by_test_id("save-status")).to_have_text("Saved as draft revision 1.")
    added = canvas_state(page, "step")
    problems = page.get_by_test_id("problems")
    expect(added).to_have_attribute("data-violation", "error")
    expect(problems.locator('[data-code="state_unreachable"]')).to_contain_text("step")
    expect(page.get_by_test_id("publish")).to_be_disabled()
    screenshot(page, "flow-editor-violation")

    # Drag from the draft state's handle onto the new state: a transition.
    handle = canvas_state(page, "draft").locator('[port-group="out"] circle, circle[magnet]').first
    box, target = handle.bounding_box(), added.bounding_box()
    assert box and target
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=12)
    page.mouse.up()
    # Named before it is drawn: the editor asks for the action.
    prompt = page.get_by_test_id("action-dialog")
    prompt.get_by_role("button", name="Approve (approve)").click()
    prompt.get_by_test_id("action-add").click()
    arrow = page.locator('#paper [data-from="draft"][data-to="step"]')
    expect(arrow).to_have_count(1)
    expect(page.get_by_test_id("save-status")).to_have_text("Saved as draft revision 2.")
    expect(problems.locator('[data-code="state_unreachable"]')).to_have_count(0)
    # Reachable now, but nobody may decide it: the new arrow is outlined, and says why.
    expect(arrow).to_have_attribute("data-violation", "error")
    expect(problems.locator('[data-code="gate_without_grant"]')).to_have_count(1)

    # Who decides: the requester's superior, picked in the state's properties.
    page.get_by_test_id("outline").get_by_role("button", name="New state (step)").click()
    page.get_by_test_id("add-grant").click()
    page.get_by_label("Who", exact=True).select_option(label="The requester's superior")
    expect(page.get_by_test_id("save-status")).to_have_text(
        re.compile(r"^Saved as draft revision [34]\.$")
    )
    expect(problems.locator('[data-code="gate_without_grant"]')).to_have_count(0)
    expect(arrow).not_to_have_attribute("data-violation", "error")
    screenshot(page, "flow-editor-connected")
    assert axe_violations(page) == []

    round_trips = sorted(page.evaluate("() => window.flowEditor.roundTrips"))
    print(
        f"editor save round trip: median {statistics.median(round_trips):.1f} ms,"
        f" slowest {round_trips[-1]:.1f} ms over {len(round_trips)} saves"
    )

    discard_draft(page)
    expect(canvas_state(page, "step")).to_have_count(0)
    assert console == []


def test_two_admins_on_one_draft_the_second_save_is_a_conflict(page: Page, browser, base_url):
    other = browser.new_context(base_url=base_url)
    try:
        second = other.new_page()
        for each, who in ((page, "grace"), (second, "aisha")):
            sign_in(each, f"{who}@acme.example")
            open_editor(each, "expense_claim")

        page.get_by_test_id("add-state").click()
        expect(page.get_by_test_id("save-status")).to_have_text("Saved as draft revision 1.")

        second.get_by_test_id("add-state").click()
        alert = second.get_by_test_id("editor-alert")
        expect(alert).to_contain_text("Another admin saved this draft (now revision 1)")
        expect(second.get_by_test_id("publish")).to_be_disabled()
        screenshot(second, "flow-editor-conflict")

        second.get_by_role("button", name="Reload the draft").click()
        expect(alert).to_be_hidden()
        # The draft as Grace left it, and said to be hers.
        expect(second.get_by_test_id("save-status")).to_contain_text(
            "Draft revision 1, last saved by Grace Lee on "
        )
        expect(canvas_state(second, "step")).to_have_count(1)  # hers, not a second one
    finally:
        other.close()
    discard_draft(page)


def test_a_label_that_looks_like_markup_stays_text(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, "leave_request")
    outline = page.get_by_test_id("outline")
    outline.get_by_role("button", name=re.compile(r"\(draft\)")).press("Enter")
    trap = '<img src=x onerror="window.__xss = 1">'
    label = page.get_by_label("Label (en)")
    expect(label).to_be_focused()
    label.fill(trap)
    expect(page.get_by_test_id("save-status")).to_have_text(
        re.compile(r"Saved as draft revision \d+\.")
    )

    expect(outline.get_by_role("button", name=re.compile(re.escape(trap)))).to_be_visible()
    expect(canvas_state(page, "draft")).to_contain_text("<img")
    assert page.evaluate("() => document.querySelectorAll('#flow-editor img').length") == 0
    page.reload()
    page.evaluate("() => window.flowEditor.ready")
    expect(canvas_state(page, "draft")).to_contain_text("<img")
    assert page.evaluate("() => window.__xss") is None
    discard_draft(page)
    assert console == []


def test_a_graph_at_the_size_caps_loads_and_lays_out_quickly(page: Page):
    sign_in(page, "grace@acme.example")
    open_editor(page)
    put_draft(page, graph_at_the_caps())
    load_ms = page.evaluate("() => window.flowEditor.loadMs")
    page.get_by_role("button", name="Auto-layout").click()
    expect(page.get_by_test_id("save-status")).to_have_text("Saved as draft revision 2.")
    layout_ms = page.evaluate("() => window.flowEditor.lastLayoutMs")
    # Every change at the caps is validated too: 64 states, 256 arrows per save.
    saves = round_trips_over_edits(page, "Step 5 (s5)", 20)
    print(
        f"editor at the caps (64 states, 256 transitions): load {load_ms:.0f} ms,"
        f" auto-layout {layout_ms:.0f} ms, save round trip {saves}"
    )
    assert page.locator("#paper [data-role]").count() == 64
    assert page.locator("#paper [data-from]").count() == 256
    # 64 states and 256 actions in the outline: the filter finds one.
    find = page.get_by_label("Find a state or an action")
    find.fill("(s63)")
    states = page.get_by_test_id("outline").locator(".outline-state")
    expect(states).to_have_text(["Step 63 (s63)"])
    expect(page.locator("#outline-count")).to_have_text("1 of 64 states shown.")
    find.fill("t4 → Step 1")  # an action: its state stays, with just the actions that match
    expect(states).to_have_count(11)  # into Step 1 and Step 10…19
    find.fill("")
    expect(states).to_have_count(64)
    screenshot(page, "flow-editor-at-the-caps")
    discard_draft(page)


def _new_leave(page: Page, title: str) -> str:
    """A leave request saved as a draft through the form; returns its reference."""
    page.goto("/o/acme/documents/")
    page.get_by_role("link", name=re.compile("New Leave request")).click()
    page.get_by_label("Title").fill(title)
    page.get_by_label(re.compile("^Amount")).fill("0")
    page.get_by_label(re.compile("^Leave type")).select_option(label="Annual leave")
    page.get_by_label(re.compile("^First day")).fill("2026-12-21")
    page.get_by_label(re.compile("^Last day")).fill("2026-12-23")
    page.get_by_role("button", name="Save draft").click()
    expect(page.get_by_test_id("state")).to_have_text("Draft")
    return page.locator("h1 .code").inner_text()


def test_an_admin_draws_a_three_state_leave_flow_and_new_leave_runs_on_it(
    page: Page, browser, base_url
):
    # A leave request started before the new version: it stays on the version it began on.
    requester = browser.new_context(base_url=base_url)
    siti = requester.new_page()
    sign_in(siti, "siti@acme.example")
    earlier = _new_leave(siti, f"Family visit {uuid.uuid4().hex[:6]}")
    kind_line = siti.locator("dl.facts")
    before = re.search(r"version (\d+)", kind_line.inner_text())
    assert before
    old_version = int(before.group(1))

    sign_in(page, "grace@acme.example")
    console = open_editor(page, "leave_request")
    problems = page.get_by_test_id("problems")
    # Start from nothing but the draft state (it cannot be deleted: every document starts there).
    for key in ("manager_review", "approved", "rejected", "cancelled"):
        item = page.get_by_test_id("outline").get_by_role("button", name=re.compile(rf"\({key}\)$"))
        item.focus()
        page.keyboard.press("Delete")
        expect(canvas_state(page, key)).to_have_count(0)
    draft = page.get_by_test_id("outline").get_by_role("button", name=re.compile(r"\(draft\)$"))
    draft.focus()
    page.keyboard.press("Delete")
    expect(page.get_by_test_id("save-status")).to_have_text(
        "The draft state is where every document starts: a flow needs it."
    )

    # Two new states: a review, and the end.
    page.get_by_test_id("add-state").click()
    page.get_by_label("Label (en)").fill("Team lead review")
    page.get_by_test_id("add-state").click()
    page.get_by_label("Label (en)").fill("Granted")
    page.get_by_label("Kind of step").select_option(label="Custom")
    page.get_by_label("Ends the flow").check()
    expect(problems.locator('[data-code="state_unreachable"]')).to_have_count(2)
    for key in ("step", "step_2"):
        expect(canvas_state(page, key)).to_have_attribute("data-violation", "error")

    # Submit: the requester's move into the review.
    connect(page, "draft", "step", "submit")
    page.get_by_label("Key").fill("submit")
    page.get_by_label("Key").press("Tab")
    page.get_by_label("Label (en)").fill("Submit")
    page.get_by_label("Who may take it").select_option(label="The requester")
    # Approve: into the end, decided by whoever holds a grant there: nobody yet.
    connect(page, "step", "step_2", "approve")
    page.get_by_label("Key").fill("approve")
    page.get_by_label("Key").press("Tab")
    page.get_by_label("Label (en)").fill("Approve")
    arrow = page.locator('#paper [data-from="step"][data-to="step_2"]')
    expect(problems.locator('[data-code="state_unreachable"]')).to_have_count(0)
    expect(problems.locator('[data-code="gate_without_grant"]')).to_have_count(1)
    expect(arrow).to_have_attribute("data-violation", "error")
    screenshot(page, "flow-editor-leave-violations")

    outline_item(page, "Granted (step_2)").click()
    page.get_by_test_id("add-grant").click()
    page.get_by_label("Who", exact=True).select_option(label="The requester's superior")
    expect(problems.locator('[data-code="gate_without_grant"]')).to_have_count(0)
    expect(arrow).not_to_have_attribute("data-violation", "error")
    publish = page.get_by_test_id("publish")
    expect(publish).to_be_enabled()

    # Who would approve Siti's leave under this draft: her superior, outlined on the canvas.
    preview = page.get_by_test_id("route-preview")
    preview.get_by_label("Requester").select_option(label="Siti Aminah <siti@acme.example>")
    preview.get_by_role("button", name="Show").click()
    step = page.get_by_test_id("route-steps").locator('[data-state="step_2"]')
    expect(step).to_have_attribute("data-routable", "true")
    expect(step).to_contain_text("Granted: Nurul")
    screenshot(page, "flow-editor-route-preview")
    assert axe_violations(page) == []

    publish.click()
    dialog = page.get_by_test_id("publish-dialog")
    expect(dialog).to_contain_text(f"Publish version {old_version + 1}?")
    # What changes, worded: the seeded states as they were called, the new grant as a sentence.
    removed = dialog.locator('[data-part="states"] [data-change="removed"]')
    expect(removed).to_have_count(4)
    expect(removed.first).to_have_text("removed Approved (approved)")
    expect(dialog.locator('[data-part="grants"] [data-change="added"]')).to_have_text(
        "added Granted (step_2): the requester's superior"
    )
    screenshot(page, "flow-editor-publish-confirm")
    dialog.get_by_role("button", name="Publish").click()
    expect(page.get_by_test_id("save-status")).to_have_text(
        f"Published version {old_version + 1}. New documents start on it."
    )
    # The history says who published it.
    published = page.get_by_test_id("versions").locator(f'[data-version="{old_version + 1}"]')
    expect(published).to_contain_text(f"v{old_version + 1}")
    expect(published).to_contain_text("by Grace Lee")
    assert console == []

    # A new leave request runs on the new version; the earlier one stays where it began.
    later = _new_leave(siti, f"Wedding {uuid.uuid4().hex[:6]}")
    expect(siti.locator("dl.facts")).to_contain_text(f"version {old_version + 1}")
    siti.get_by_role("button", name="Submit", exact=True).click()
    expect(siti.get_by_test_id("state")).to_have_text("Team lead review")
    siti.goto(f"/o/acme/documents/{earlier}")
    expect(siti.locator("dl.facts")).to_contain_text(f"version {old_version}")
    siti.get_by_role("button", name="Submit", exact=True).click()
    expect(siti.get_by_test_id("state")).to_have_text("Manager review")
    assert later != earlier
    requester.close()


def test_fields_and_a_grants_escalation_limit_are_edited_in_the_panel(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, "purchase_request")
    panel = page.get_by_test_id("properties")
    # Nothing selected: the flow itself, with the fields its documents carry.
    expect(panel.get_by_role("heading", name="The flow")).to_be_visible()
    page.get_by_test_id("add-field").click()
    row = page.get_by_test_id("fields").locator("[data-field]").last
    row.get_by_label("Type").select_option(label="Choice")
    row = page.get_by_test_id("fields").locator("[data-field]").last
    row.get_by_label("Choices (keys, separated by commas)").fill("red, blue")
    graph = saved_when(
        page, lambda g: [c["key"] for c in g["fields"][-1].get("choices", [])] == ["red", "blue"]
    )
    added = graph["fields"][-1]
    assert (added["type"], [c["key"] for c in added["choices"]]) == ("choice", ["red", "blue"])

    # A grant's escalation limit: a number is saved; anything else is refused by path.
    outline_item(page, "Approved (approved)").click()
    limit = panel.locator('[data-prop="max-levels"]').first
    limit.fill("3")
    graph = saved_when(
        page, lambda g: any(x.get("max_escalation_levels") == 3 for x in g["grants"])
    )
    grants = [g for g in graph["grants"] if g.get("state") == "approved"]
    assert grants[0]["max_escalation_levels"] == 3
    limit.fill("three")
    # Said once, beside the input; the status says where to look.
    expect(limit).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_test_id("save-status")).to_have_text(
        "Not saved: the value marked in the panel needs fixing."
    )
    expect(page.get_by_test_id("editor-alert")).to_be_hidden()
    limit.fill("2")
    expect(limit).not_to_have_attribute("aria-invalid", "true")

    discard_draft(page)
    assert console == []
