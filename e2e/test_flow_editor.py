"""The flow editor in Chromium, driven by selectors on the canvas: an admin adds a state,
sees it outlined as unreachable, connects it by dragging from a handle, watches the
violation go, and discards the draft; the save round trip is printed.

The live server's database is shared by every e2e test: this one works on the purchase
request flow and leaves no draft behind.
"""

from __future__ import annotations

import re
import statistics

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.test_sign_in import sign_in

EDITOR = "/o/acme/flows/purchase_request/editor"


def _open_editor(page: Page) -> list[str]:
    """Open the editor and wait for the draft; returns the console errors seen."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(EDITOR)
    page.evaluate("() => window.flowEditor.ready")
    expect(page.get_by_test_id("save-status")).not_to_have_text(re.compile("Loading"))
    return problems


def _state(page: Page, key: str):  # type: ignore[no-untyped-def]
    return page.locator(f'#paper [data-key="{key}"][data-role]')


def test_an_admin_adds_a_state_sees_it_unreachable_and_connects_it(page: Page):
    sign_in(page, "grace@acme.example")
    console = _open_editor(page)
    expect(_state(page, "draft")).to_be_visible()
    expect(
        page.get_by_test_id("outline").get_by_role("button", name=re.compile(r"\(draft\)"))
    ).to_be_visible()
    expect(page.get_by_test_id("publish")).to_be_disabled()

    page.get_by_test_id("add-state").click()
    expect(page.get_by_test_id("save-status")).to_have_text("Saved as draft revision 1.")
    added = _state(page, "step")
    problems = page.get_by_test_id("problems")
    expect(added).to_have_attribute("data-violation", "error")
    expect(problems.locator('[data-code="state_unreachable"]')).to_contain_text("step")
    expect(page.get_by_test_id("publish")).to_be_disabled()
    screenshot(page, "flow-editor-violation")

    # Drag from the draft state's handle onto the new state: a transition.
    handle = _state(page, "draft").locator('[port-group="out"] circle, circle[magnet]').first
    box, target = handle.bounding_box(), added.bounding_box()
    assert box and target
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=12)
    page.mouse.up()
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
    expect(page.get_by_test_id("save-status")).to_have_text("Saved as draft revision 3.")
    expect(problems.locator('[data-code="gate_without_grant"]')).to_have_count(0)
    expect(arrow).not_to_have_attribute("data-violation", "error")
    screenshot(page, "flow-editor-connected")
    assert axe_violations(page) == []

    round_trips = page.evaluate("() => window.flowEditor.roundTrips")
    print(
        f"editor save round trip: median {statistics.median(round_trips):.1f} ms over {len(round_trips)}"
    )

    page.once("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Discard draft").click()
    expect(page.get_by_test_id("save-status")).to_have_text("The draft was discarded.")
    expect(_state(page, "step")).to_have_count(0)
    assert console == []
