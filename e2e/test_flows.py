"""An admin exports a seeded flow, imports a broken copy and sees why it cannot be
published, then imports a corrected one and publishes it as version 2."""

from __future__ import annotations

import json
import re

from playwright.sync_api import FilePayload, Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.test_sign_in import sign_in


def _upload(page: Page, document: dict, name: str) -> None:
    payload: FilePayload = {
        "name": name,
        "mimeType": "application/json",
        "buffer": json.dumps(document).encode("utf-8"),
    }
    page.get_by_label("Flow file (JSON)").set_input_files(files=[payload])
    page.get_by_role("button", name="Import as draft").click()


def test_an_admin_round_trips_a_flow_through_export_and_import(page: Page):
    sign_in(page, "grace@acme.example")
    page.get_by_role("navigation", name="Main navigation").get_by_role("link", name="Flows").click()
    expect(page.get_by_role("heading", name="Flows", exact=True)).to_be_visible()
    for label in ("Expense claim", "Purchase request", "Leave request"):
        expect(page.get_by_role("link", name=label)).to_be_visible()
    assert axe_violations(page) == []

    # The purchase request: the leave request is the flow editor's test to publish.
    page.get_by_role("link", name="Purchase request").click()
    expect(page).to_have_url(re.compile(r"/o/acme/flows/purchase_request/$"))
    with page.expect_download() as download:
        page.get_by_role("link", name="Export v1").click()
    exported = json.loads(open(download.value.path(), encoding="utf-8").read())  # noqa: SIM115
    assert exported["kind"] == "purchase_request"

    # Nobody may approve any more: the import is saved, and says why it cannot be published.
    broken = {**exported, "grants": []}
    _upload(page, broken, "purchase-broken.json")
    expect(page.get_by_role("alert")).to_contain_text("Nobody may take approve")
    screenshot(page, "flow-draft-with-violations")
    assert axe_violations(page) == []
    # Publishing asks first: with errors standing, the confirmation says so and offers
    # nothing to press.
    page.get_by_role("link", name="Publish as version 2…").click()
    confirmation = page.get_by_test_id("publish-confirmation")
    expect(confirmation.get_by_test_id("publish-refused")).to_contain_text("fix")
    expect(confirmation.get_by_test_id("publish-confirm")).to_have_count(0)
    page.get_by_role("link", name=re.compile("Purchase request")).first.click()
    expect(page.get_by_role("row", name=re.compile("v2"))).to_have_count(0)

    # The corrected copy renames a state and publishes cleanly.
    fixed = json.loads(json.dumps(exported))
    fixed["states"][1]["labels"]["en"] = "Waiting for the unit head"
    _upload(page, fixed, "purchase-fixed.json")
    expect(page.get_by_text("The draft passes every check")).to_be_visible()
    # The confirmation says what changes, as the editor's does: a relabelled state.
    page.get_by_role("link", name="Publish as version 2…").click()
    labels = page.get_by_test_id("publish-changes").locator('[data-part="labels"]')
    expect(labels).to_contain_text("Labels changed")
    expect(labels).to_contain_text("Submitted → Waiting for the unit head")
    assert axe_violations(page) == []
    page.get_by_test_id("publish-confirm").click()
    expect(page.get_by_text("Published version 2.")).to_be_visible()
    expect(
        page.get_by_role("rowheader", name=re.compile("Waiting for the unit head"))
    ).to_be_visible()
    expect(page.get_by_role("row", name=re.compile(r"v2\s+current"))).to_be_visible()
    screenshot(page, "flow-published-v2")


def test_a_file_that_is_not_a_flow_is_refused_with_the_place_it_goes_wrong(page: Page):
    sign_in(page, "aisha@acme.example")
    page.goto("/o/acme/flows/")
    _upload(page, {"kind": "expense_claim", "states": [{"key": "draft", "role": 7}]}, "bad.json")
    expect(page.locator(".field-error")).to_contain_text("states[0].role should be a JSON string")
    expect(page.get_by_label("Flow file (JSON)")).to_have_attribute("aria-invalid", "true")
