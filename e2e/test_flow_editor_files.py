"""The flow editor's files and versions in Chromium: the draft and a version exported,
a file imported (and a broken one refused with its line, a wrong shape with its path,
an oversized graph shown with its error, each changing nothing else), a version viewed
read-only and a draft started from it; and a save that cannot reach the server kept on
the page and retried until it lands.

Works on the expense claim flow and leaves no draft behind.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations, screenshot
from e2e.flow_editor import canvas_state, discard_draft, graph_at_the_caps, open_editor, saved_draft
from e2e.test_sign_in import sign_in

KIND = "expense_claim"


def _upload(page: Page, name: str, body: bytes) -> None:
    page.locator("#import-file").set_input_files(
        {"name": name, "mimeType": "application/json", "buffer": body}
    )


def test_export_import_versions_and_starting_a_draft_from_one(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, KIND)
    status, alert = page.get_by_test_id("save-status"), page.get_by_test_id("editor-alert")
    page.locator("#versions-panel summary").click()
    v1 = page.get_by_test_id("versions").locator('[data-version="1"]')
    expect(v1).to_contain_text("v1")

    with page.expect_download() as draft_file:
        page.get_by_role("link", name="Export JSON").click()
    exported = json.loads(Path(draft_file.value.path()).read_text(encoding="utf-8"))
    assert exported["kind"] == KIND and exported["states"]
    with page.expect_download() as version_file:
        v1.get_by_test_id("export-version").click()
    assert version_file.value.suggested_filename == f"{KIND}-v1.json"
    first_label = json.loads(Path(version_file.value.path()).read_text(encoding="utf-8"))["labels"][
        "en"
    ]

    # A relabelled copy goes in as the draft.
    exported["labels"]["en"] = "Expense claim, imported"
    _upload(page, "claim.json", json.dumps(exported).encode())
    expect(status).to_have_text("Imported as draft revision 1.")
    assert saved_draft(page)["labels"]["en"] == "Expense claim, imported"

    # A broken file, a wrong shape: refused with where, and nothing changes.
    _upload(page, "broken.json", b'{"format": 1,\n  "kind": ')
    expect(alert).to_contain_text(
        "broken.json was not imported, and nothing changed: "
        "The file is not valid JSON (line 2, column 11)."
    )
    wrong = json.loads(json.dumps(exported))
    wrong["states"][0]["role"] = 5
    _upload(page, "wrong.json", json.dumps(wrong).encode())
    expect(alert).to_contain_text("wrong.json was not imported")
    expect(alert).to_contain_text("states[0].role")
    expect(status).to_have_text("Imported as draft revision 1.")
    assert saved_draft(page)["labels"]["en"] == "Expense claim, imported"

    # Over the caps: saved as a draft that says so, and cannot be published.
    over = {**graph_at_the_caps(), "kind": KIND}
    over["states"].append({"key": "s64", "labels": {"en": "One too many"}, "role": "pending"})
    _upload(page, "too-big.json", json.dumps(over).encode())
    expect(status).to_have_text("Imported as draft revision 2.")
    expect(page.get_by_test_id("problems").locator('[data-code="too_large"]')).to_contain_text("64")
    expect(page.get_by_test_id("publish")).to_be_disabled()

    # Version 1 on the canvas, read-only: the toolbar cannot change the draft.
    v1.get_by_role("button", name="View").click()
    expect(alert).to_contain_text("Version 1, read-only.")
    expect(page.get_by_test_id("add-state")).to_be_disabled()
    expect(page.get_by_test_id("publish")).to_be_disabled()
    expect(canvas_state(page, "s64")).to_have_count(0)
    page.get_by_test_id("outline").get_by_role("button", name=re.compile(r"\(draft\)$")).click()
    expect(page.get_by_test_id("properties").get_by_label("Label (en)")).not_to_be_editable()
    screenshot(page, "flow-editor-version-view")
    assert axe_violations(page) == []
    page.get_by_role("button", name="Back to the draft").click()
    expect(canvas_state(page, "s64")).to_have_count(1)

    # Start again from version 1: the draft is version 1's graph, as a new revision.
    v1.get_by_role("button", name="Start a draft from this version").click()
    expect(status).to_have_text("Saved as draft revision 3.")
    expect(canvas_state(page, "s64")).to_have_count(0)
    assert saved_draft(page)["labels"]["en"] == first_label
    discard_draft(page)
    assert console == []


def test_a_save_that_cannot_reach_the_server_is_kept_and_retried(page: Page):
    sign_in(page, "grace@acme.example")
    console = open_editor(page, KIND)

    def no_server(route):
        if route.request.method == "PUT":
            route.abort("connectionrefused")
        else:
            route.continue_()

    page.route("**/api/draft", no_server)
    page.get_by_test_id("add-state").click()
    alert = page.get_by_test_id("editor-alert")
    expect(alert).to_contain_text("Not saved — retrying. Your changes are kept on this page.")
    expect(canvas_state(page, "step")).to_have_count(1)
    expect(page.get_by_role("button", name="Reload the draft")).to_be_hidden()
    # Leaving now would lose the work: the page asks first.
    leaving = "() => { const e = new Event('beforeunload', {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented; }"
    assert page.evaluate(leaving) is True
    expect(page.get_by_test_id("publish")).to_be_disabled()
    screenshot(page, "flow-editor-retrying")

    page.unroute("**/api/draft")
    expect(page.get_by_test_id("save-status")).to_have_text(
        "Saved as draft revision 1.", timeout=20_000
    )
    expect(alert).to_be_hidden()
    assert "step" in [s["key"] for s in saved_draft(page)["states"]]
    assert page.evaluate(leaving) is False
    discard_draft(page)
    assert console == []
