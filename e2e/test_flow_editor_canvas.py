"""The flow editor's canvas and panel in Chromium, on the demo's purchase request flow:
a state renamed where it is drawn (double click; F2 from the outline, Escape keeping the
old name), an arrow dropped on empty canvas making nothing, zoom, pan, fit and
auto-layout, arrow keys moving a state; problems written beside the input they are
about (a key with a space, a negative floor on its grant row, a floor that is not a
number, a guard that does not parse); and the save round trip measured over a run of
edits, its median and p95 printed.

Leaves no draft behind.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import FloatRect, Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.flow_editor import (
    canvas_state,
    discard_draft,
    open_editor,
    outline_item,
    put_draft,
    round_trips_over_edits,
    saved_draft,
    saved_when,
)
from e2e.test_sign_in import sign_in

KIND = "purchase_request"


def _box(page: Page, key: str) -> FloatRect:
    box = canvas_state(page, key).locator("rect").first.bounding_box()
    assert box
    return box


def _overlap(a: FloatRect, b: FloatRect) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def _any_overlap(boxes: list[FloatRect]) -> bool:
    return any(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def test_states_are_renamed_on_the_canvas_and_the_view_zooms_pans_and_lays_out(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, KIND)
    page.evaluate("document.getElementById('paper').scrollIntoView({block: 'center'})")
    outline = page.get_by_test_id("outline")

    # Double click: the label is edited where it is drawn; Enter keeps it.
    canvas_state(page, "submitted").dblclick()
    rename = page.get_by_test_id("inline-rename")
    expect(rename).to_be_focused()
    expect(rename).to_have_value("Submitted")
    rename.fill("Budget check")
    rename.press("Enter")
    expect(rename).to_have_count(0)
    expect(canvas_state(page, "submitted")).to_contain_text("Budget check")
    expect(outline.get_by_role("button", name="Budget check (submitted)")).to_be_focused()
    saved_when(page, lambda g: g["states"][1]["labels"]["en"] == "Budget check")

    # F2 from the outline opens the same input; Escape leaves the name as it was.
    outline_item(page, "Approved (approved)").press("F2")
    expect(rename).to_be_focused()
    rename.fill("Something else")
    rename.press("Escape")
    expect(canvas_state(page, "approved")).to_contain_text("Approved")
    expect(outline_item(page, "Approved (approved)")).to_be_focused()

    # An arrow's label is renamed on its middle the same way.
    # (Labels are drawn in a layer of their own above the states, by the arrow's id.)
    arrow_id = page.locator('#paper [data-from="submitted"][data-to="cancelled"]').get_attribute(
        "model-id"
    )
    page.locator(f'#paper .joint-labels-layer [model-id="{arrow_id}"] text').first.dblclick()
    expect(rename).to_have_value("Withdraw")
    rename.fill("Take back")
    rename.press("Enter")
    expect(outline.get_by_role("button", name="Take back → Withdrawn")).to_be_focused()

    # An arrow dragged onto empty canvas is no transition.
    arrows = page.locator("#paper [data-from]")
    before = arrows.count()
    handle = canvas_state(page, "submitted").locator("circle[magnet]").first.bounding_box()
    paper = page.get_by_test_id("canvas").bounding_box()
    assert handle and paper
    page.mouse.move(handle["x"] + 5, handle["y"] + 5)
    page.mouse.down()
    page.mouse.move(paper["x"] + paper["width"] - 15, paper["y"] + paper["height"] - 15, steps=10)
    page.mouse.up()
    expect(arrows).to_have_count(before)

    # Zoom in, then fit everything back into view.
    width = _box(page, "draft")["width"]
    page.get_by_role("button", name="Zoom in").click()
    assert _box(page, "draft")["width"] > width * 1.1
    page.get_by_role("button", name="Fit to screen").click()
    paper = page.get_by_test_id("canvas").bounding_box()  # the click may have scrolled
    assert paper
    for key in ("draft", "submitted", "approved", "rejected"):
        box = _box(page, key)
        assert paper["x"] <= box["x"] and box["x"] + box["width"] <= paper["x"] + paper["width"]

    # Pan: drag the empty canvas, everything moves with it.
    start = _box(page, "draft")
    page.mouse.move(paper["x"] + 8, paper["y"] + 8)
    page.mouse.down()
    page.mouse.move(paper["x"] + 88, paper["y"] + 48, steps=5)
    page.mouse.up()
    moved = _box(page, "draft")
    assert (round(moved["x"] - start["x"]), round(moved["y"] - start["y"])) == (80, 40)

    # Auto-layout: no two states on top of each other, and the positions are saved.
    page.get_by_role("button", name="Auto-layout").click()
    assert not _any_overlap([_box(page, s["key"]) for s in saved_draft(page)["states"]])
    expect(page.get_by_test_id("save-status")).to_have_text("Saved as draft revision 3.")
    laid_out = saved_draft(page)

    # Arrow keys move the focused state, ten units a press.
    item = outline_item(page, "Budget check (submitted)")
    item.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    x = next(s["x"] for s in laid_out["states"] if s["key"] == "submitted")
    expect(page.get_by_test_id("save-status")).to_have_text("Saved as draft revision 4.")
    assert next(s["x"] for s in saved_draft(page)["states"] if s["key"] == "submitted") == x + 20
    screenshot(page, "flow-editor-laid-out")
    discard_draft(page)
    assert console == []


def test_problems_stand_beside_the_input_they_are_about(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, KIND)
    panel, problems = page.get_by_test_id("properties"), page.get_by_test_id("problems")

    # A key with a space: refused as a key, said beside the key.
    outline_item(page, "Submitted (submitted)").click()
    key = panel.get_by_label("Key")
    key.fill("budget check")
    key.press("Tab")
    note = panel.locator('[data-testid="inline-problem"][data-code="state_key_invalid"]')
    expect(note).to_contain_text("budget check")
    expect(panel.get_by_label("Key")).to_have_attribute("aria-invalid", "true")
    key = panel.get_by_label("Key")
    key.fill("budget_check")
    key.press("Tab")
    expect(note).to_have_count(0)
    expect(panel.get_by_label("Key")).not_to_have_attribute("aria-invalid", "true")
    # Another state's key: kept as it was, and said why (two states would merge).
    key = panel.get_by_label("Key")
    key.fill("approved")
    key.press("Tab")
    expect(page.get_by_test_id("save-status")).to_have_text(
        "Another state already has the key approved: the key was kept."
    )
    expect(panel.get_by_label("Key")).to_have_value("budget_check")

    # A negative floor: its grant row is outlined, the message beside the floor.
    outline_item(page, "Approved (approved)").click()
    row = panel.locator("[data-grant]").first
    floor = row.locator('[data-prop="floor"]')
    floor.fill("-5")
    expect(row).to_have_attribute("data-violation", "error")
    expect(row.locator('[data-code="floor_negative"]')).to_be_visible()
    expect(floor).to_have_attribute("aria-invalid", "true")
    floor.scroll_into_view_if_needed()
    screenshot(page, "flow-editor-grant-problem")
    assert axe_violations(page) == []

    # The problem list leads to the input: another state open, then back by the link.
    outline_item(page, "Draft (draft)").click()
    problems.locator('[data-code="floor_negative"]').click()
    expect(panel.locator("[data-grant]").first.locator('[data-prop="floor"]')).to_be_focused()

    # Not a number at all: nothing is saved, and the refusal stands beside the floor, in
    # plain words (its place in the graph only on the problems list's muted line).
    floor = panel.locator("[data-grant]").first.locator('[data-prop="floor"]')
    floor.fill("a lot")
    # The saved draft is not what the page shows: no publishing it, no leaving unasked.
    expect(page.get_by_test_id("publish")).to_be_disabled()
    expect(page.get_by_test_id("publish-reason")).to_have_text(
        "Publishing waits until the value marked in the panel is fixed."
    )
    beside = floor.locator(
        "xpath=ancestor::div[contains(@class, 'field')][1]/following-sibling::p[1]"
    )
    expect(beside).to_have_text("Write the amount in digits, such as 1,234.50.")
    expect(problems.locator('[data-code="floor_not_number"]')).to_have_count(1)
    expect(problems).to_contain_text("Where: grants[0].min_amount · floor_not_number")
    expect(page.get_by_test_id("editor-alert")).to_be_hidden()
    expect(floor).to_have_attribute("aria-invalid", "true")
    floor.fill("0.00")
    expect(page.get_by_test_id("editor-alert")).to_be_hidden()
    expect(panel.locator('[data-testid="inline-problem"]')).to_have_count(0)
    expect(panel.locator("[data-grant]").first).not_to_have_attribute("data-violation", "error")

    # A guard that does not parse: the syntax error beside the guard.
    page.get_by_test_id("outline").get_by_role("button", name=re.compile(r"^Submit → ")).click()
    guard = panel.locator('[data-prop="guard"]')
    guard.fill("document.amount >")
    expect(panel.locator('[data-testid="inline-problem"]').first).to_contain_text("column")
    expect(guard).to_have_attribute("aria-invalid", "true")
    discard_draft(page)
    assert console == []


@pytest.mark.benchmark
def test_the_save_round_trip_over_a_run_of_edits(page: Page):
    """Thirty label edits on the demo flow, each waited for: the figures the editor's
    live validation rests on (what the admin waits between a change and its verdict)."""
    sign_in(page, "grace@acme.example")
    open_editor(page, KIND)
    print(f"editor save round trip: {round_trips_over_edits(page, 'Approved (approved)', 30)}")
    discard_draft(page)


def test_parallel_arrows_and_a_self_loop_stay_readable(page: Page):
    sign_in(page, "grace@acme.example")
    open_editor(page, KIND)
    arrow = {"gate": "target"}
    put_draft(
        page,
        {
            "format": 1,
            "kind": KIND,
            "labels": {"en": "Loops"},
            "states": [
                {"key": "draft", "labels": {"en": "Draft"}, "role": "draft", "x": 40, "y": 200},
                {"key": "check", "labels": {"en": "Check"}, "role": "pending", "x": 420, "y": 200},
            ],
            "transitions": [
                {**arrow, "key": "send", "from": "draft", "to": "check", "labels": {"en": "Send"}},
                {**arrow, "key": "rush", "from": "draft", "to": "check", "labels": {"en": "Rush"}},
                {**arrow, "key": "back", "from": "check", "to": "draft", "labels": {"en": "Back"}},
                {
                    **arrow,
                    "key": "again",
                    "from": "check",
                    "to": "check",
                    "labels": {"en": "Again"},
                },
            ],
        },
    )
    labels: dict[str, FloatRect] = {}
    for key in ("Send", "Rush", "Back", "Again"):
        # (Arrow labels are drawn in a layer of their own, above the states.)
        box = page.locator("#paper .joint-labels-layer text").filter(has_text=key).bounding_box()
        assert box, key
        labels[key] = box
    # Three arrows between one pair: three separate labels, none over another.
    assert not _any_overlap(list(labels.values()))
    # The loop leaves the state and comes back to it: drawn above it, not through it.
    loop = page.locator('#paper [data-from="check"][data-to="check"] path').first.bounding_box()
    state = _box(page, "check")
    assert loop and loop["y"] < state["y"] - 20
    screenshot(page, "flow-editor-parallel-and-loop")

    # An arrow re-pointed in the panel keeps what it says: its key and its label.
    outline_item(page, "Back → Draft").click()
    page.get_by_test_id("properties").get_by_label("From state").select_option("draft")
    expect(page.locator('#paper [data-from="draft"][data-to="draft"]')).to_have_count(1)
    saved_when(
        page,
        lambda g: any(
            (t["key"], t["from"], t["to"], t["labels"]["en"]) == ("back", "draft", "draft", "Back")
            for t in g["transitions"]
        ),
    )
    discard_draft(page)


def test_undo_and_redo_step_through_saved_edits(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, KIND)
    status = page.get_by_test_id("save-status")
    undo, redo = (page.get_by_role("button", name=name) for name in ("Undo", "Redo"))
    expect(undo).to_be_disabled()

    page.get_by_test_id("add-state").click()
    expect(status).to_have_text("Saved as draft revision 1.")
    # A new state is named in every language, not only the admin's.
    added = next(s for s in saved_draft(page)["states"] if s["key"] == "step")
    assert added["labels"] == {"en": "New state", "zh": "新状态", "ms": "Keadaan baharu"}
    label = page.get_by_test_id("properties").get_by_label("Label (en)")
    label.fill("Budget check")
    expect(status).to_have_text("Saved as draft revision 2.")
    expect(canvas_state(page, "step")).to_contain_text("Budget check")

    # Ctrl+Z outside a text field: one saved step back, and that is saved too.
    page.get_by_test_id("outline").get_by_role("button", name="Budget check (step)").focus()
    page.keyboard.press("Control+z")
    expect(canvas_state(page, "step")).to_contain_text("New state")
    expect(status).to_have_text("Saved as draft revision 3.")
    undo.click()
    expect(canvas_state(page, "step")).to_have_count(0)
    expect(status).to_have_text("Saved as draft revision 4.")
    expect(undo).to_be_disabled()

    redo.click()
    expect(canvas_state(page, "step")).to_have_count(1)
    page.keyboard.press("Control+Shift+z")
    expect(canvas_state(page, "step")).to_contain_text("Budget check")
    expect(redo).to_be_disabled()
    expect(status).to_have_text(re.compile(r"Saved as draft revision [56]\."))
    saved_when(page, lambda g: any(s["labels"].get("en") == "Budget check" for s in g["states"]))

    # A new edit after an undo drops what could have been redone.
    undo.click()
    expect(redo).to_be_enabled()
    page.get_by_role("button", name="Auto-layout").click()
    expect(redo).to_be_disabled()
    discard_draft(page)
    expect(undo).to_be_disabled()
    assert console == []


def test_auto_layout_draws_a_long_flow_larger_on_a_narrow_canvas(page: Page):
    """The expense claim is a chain of eight steps, and most of them can be rejected or
    withdrawn: laid out left to right it is wider than the canvas beside the panels.
    Auto-layout sets the two outcomes aside and runs the chain downward, never smaller
    than the zoom that keeps labels readable (a large flow scrolls instead)."""
    sign_in(page, "grace@acme.example")
    console = open_editor(page, "expense_claim")
    before = _box(page, "draft")["width"]
    page.get_by_role("button", name="Auto-layout").click()
    expect(page.get_by_test_id("save-status")).to_have_text("Saved as draft revision 1.")
    after = _box(page, "draft")["width"]
    assert after >= before * 0.99, (before, after)
    assert page.evaluate("() => window.flowEditor.scale()") >= 11 / 12
    assert not _any_overlap([_box(page, s["key"]) for s in saved_draft(page)["states"]])
    screenshot(page, "flow-editor-claim-laid-out")
    discard_draft(page)
    assert console == []


def test_an_admin_orders_the_actions_a_state_offers(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, KIND)
    exits = page.get_by_test_id("outline").locator(
        "li:has(> [data-outline='state:submitted']) > ul button"
    )
    expect(exits).to_have_text(["Approve → Approved", "Reject → Rejected", "Withdraw → Withdrawn"])

    # From the keyboard: Alt+arrow up offers Reject first.
    outline_item(page, "Reject → Rejected").focus()
    page.keyboard.press("Alt+ArrowUp")
    expect(exits).to_have_text(["Reject → Rejected", "Approve → Approved", "Withdraw → Withdrawn"])
    expect(outline_item(page, "Reject → Rejected")).to_be_focused()

    # From the panel: Approve offered later, after Withdraw.
    outline_item(page, "Approve → Approved").click()
    panel = page.get_by_test_id("properties")
    expect(panel).to_contain_text("Action 2 of 3 on a document's page.")
    assert axe_violations(page) == []
    panel.get_by_role("button", name="Offer later").click()
    expect(exits).to_have_text(["Reject → Rejected", "Withdraw → Withdrawn", "Approve → Approved"])
    expect(panel.get_by_role("button", name="Offer later")).to_be_disabled()
    # The panel is drawn afresh: focus stays in it, on the way back up.
    expect(panel.get_by_role("button", name="Offer earlier")).to_be_focused()
    graph = saved_when(
        page,
        lambda g: (
            [
                t["key"]
                for t in sorted(
                    (t for t in g["transitions"] if t["from"] == "submitted"),
                    key=lambda t: t.get("order", 0),
                )
            ]
            == ["reject", "withdraw", "approve"]
        ),
    )
    assert all(t.get("order") for t in graph["transitions"] if t["from"] == "submitted")
    discard_draft(page)
    assert console == []


def test_a_state_is_duplicated_with_who_decides_there_and_named_at_once(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, KIND)
    outline_item(page, "Approved (approved)").click()
    page.get_by_test_id("duplicate-state").click()
    rename = page.get_by_test_id("inline-rename")
    expect(rename).to_be_focused()
    rename.fill("Approved by finance")
    rename.press("Enter")
    expect(canvas_state(page, "approved_copy")).to_contain_text("Approved by finance")
    graph = saved_when(page, lambda g: any(s["key"] == "approved_copy" for s in g["states"]))
    grants = {
        s: [g for g in graph["grants"] if g.get("state") == s]
        for s in ("approved", "approved_copy")
    }
    assert len(grants["approved_copy"]) == len(grants["approved"]) == 2
    assert [g["grantee"] for g in grants["approved_copy"]] == [
        g["grantee"] for g in grants["approved"]
    ]
    # A copy of nothing's arrows: it waits to be connected (and says so).
    assert not [t for t in graph["transitions"] if "approved_copy" in (t["from"], t["to"])]
    expect(
        page.get_by_test_id("problems").locator('[data-code="state_unreachable"]')
    ).to_contain_text("approved_copy")
    discard_draft(page)
    assert console == []


def test_the_panel_edits_deadlines_pickers_and_an_actions_flags(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, KIND)
    legend = page.get_by_role("list", name="Legend").get_by_role("listitem")
    expect(legend).to_have_count(6)

    # A double click on empty canvas adds a state there.
    page.evaluate("document.getElementById('paper').scrollIntoView({block: 'center'})")
    paper = page.get_by_test_id("canvas").bounding_box()
    assert paper
    page.mouse.dblclick(paper["x"] + 40, paper["y"] + paper["height"] - 60)
    expect(canvas_state(page, "step")).to_have_count(1)

    # Its deadline: after two days, escalate one seat up; escalate after one day.
    panel = page.get_by_test_id("properties")
    panel.get_by_label("Deadline (such as 5d or 48h)").fill("2d")
    panel.get_by_label("When the deadline passes").select_option(label="escalate one seat up")
    panel.get_by_label("Escalate after (such as 2d)").fill("1d")

    def step(g: dict) -> dict:
        return next((s for s in g["states"] if s["key"] == "step"), {})  # {}: not saved yet

    saved_when(
        page,
        lambda g: (
            (step(g).get("deadline"), step(g).get("escalate_after"))
            == ({"after": "2d", "on_breach": "escalate_up"}, "1d")
        ),
    )

    # Who decides there, picked from the org chart: a member, then a seat.
    panel.get_by_test_id("add-grant").click()
    panel.get_by_label("Who", exact=True).select_option(label="A member")
    panel.get_by_label("Member", exact=True).select_option(label="Daniel Tan <daniel@acme.example>")
    saved_when(
        page,
        lambda g: any(
            x.get("state") == "step"
            and x["grantee"].get("kind") == "member"
            and x["grantee"].get("member")
            for x in g["grants"]
        ),
    )
    panel.get_by_label("Who", exact=True).select_option(label="A seat")
    panel.get_by_label("Seat", exact=True).select_option(index=1)
    saved_when(
        page,
        lambda g: any(
            x.get("state") == "step"
            and x["grantee"].get("kind") == "position"
            and x["grantee"].get("position")
            for x in g["grants"]
        ),
    )

    # An action's flags: a comment required, and it reverses the booking.
    outline_item(page, "Submit → Submitted").click()
    panel.get_by_label("Needs a comment").check()
    panel.get_by_label("Reverses the booking").check()
    saved_when(
        page,
        lambda g: any(
            t["key"] == "submit" and t.get("comment") == "required" and t.get("reverses")
            for t in g["transitions"]
        ),
    )
    discard_draft(page)
    assert console == []
