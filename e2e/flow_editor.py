"""Driving the flow editor in the browser: open it on a flow (with no draft left over),
find a state on the canvas or an item in the outline, draw an arrow by dragging, put a
graph in through the API, read back what was saved, discard the draft."""

from __future__ import annotations

import re
import statistics

from playwright.sync_api import Dialog, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError


def open_editor(page: Page, kind: str = "purchase_request") -> list[str]:
    """Open the editor on ``kind`` and wait for its draft; returns the list the console
    errors seen on the page will be collected in."""
    problems: list[str] = []
    # A refused save (4xx) is an answer the editor shows, not a page error.
    page.on(
        "console",
        lambda m: (
            problems.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(f"/o/acme/flows/{kind}/editor")
    page.evaluate("() => window.flowEditor.ready")
    # A test that failed half-way may have left a draft: every test starts from none.
    leftover = page.evaluate(
        """async () => {
            const api = location.pathname.replace(/editor$/, 'api/draft');
            const draft = await (await fetch(api, {headers: {Accept: 'application/json'}})).json();
            if (!draft.saved) return false;
            const token = document.querySelector('meta[name="csrf-token"]').content;
            await fetch(api + '/discard', {method: 'POST', body: JSON.stringify({revision: draft.revision}),
                headers: {'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRFToken': token}});
            return true;
        }"""
    )
    if leftover:
        page.reload()
        page.evaluate("() => window.flowEditor.ready")
    expect(page.get_by_test_id("save-status")).not_to_have_text(re.compile("Loading"))
    return problems


def put_draft(page: Page, graph: dict) -> None:
    """Save ``graph`` as revision 1 of the open editor's draft through its API, and
    reopen the editor on it."""
    status = page.evaluate(
        """async (graph) => {
            const token = document.querySelector('meta[name="csrf-token"]').content;
            const answer = await fetch(location.pathname.replace(/editor$/, 'api/draft'), {
                method: 'PUT', credentials: 'same-origin',
                headers: {'Content-Type': 'application/json', 'Accept': 'application/json', 'X-CSRFToken': token},
                body: JSON.stringify({revision: 0, graph: graph}),
            });
            return answer.status;
        }""",
        graph,
    )
    assert status == 200
    page.reload()
    page.evaluate("() => window.flowEditor.ready")


def discard_draft(page: Page) -> None:
    """Discard the draft, as an admin would: when the editor says a save is still on its
    way (and sends nothing), wait until it is saved and press again."""
    status = page.get_by_test_id("save-status")

    def accept(dialog: Dialog) -> None:
        dialog.accept()

    page.on("dialog", accept)
    try:
        for _ in range(3):
            try:
                with page.expect_response(
                    lambda r: r.url.endswith("/draft/discard"), timeout=3_000
                ):
                    page.get_by_role("button", name="Discard draft").click()
            except PlaywrightTimeoutError:
                # Asked to wait for the save under way: once it is saved, press again.
                expect(status).to_have_text(re.compile(r"^Saved as draft revision \d+\.$"))
                continue
            expect(status).to_have_text("The draft was discarded.")
            return
        raise AssertionError("the draft was never discarded")
    finally:
        page.remove_listener("dialog", accept)


def canvas_state(page: Page, key: str):
    return page.locator(f'#paper [data-key="{key}"][data-role]')


def graph_at_the_caps() -> dict:
    """A graph at the size caps: 64 states, 256 transitions (four exits each)."""
    states = [{"key": "s0", "labels": {"en": "Start"}, "role": "draft", "x": 0, "y": 0}]
    states += [
        {"key": f"s{i}", "labels": {"en": f"Step {i}"}, "role": "pending", "x": 0, "y": 0}
        for i in range(1, 64)
    ]
    transitions = [
        {
            "key": f"t{k}",
            "from": f"s{i}",
            "to": f"s{(i + k) % 64}",
            "gate": "target",
            "labels": {"en": f"t{k}"},
        }
        for i in range(64)
        for k in range(1, 5)
    ]
    return {
        "format": 1,
        "kind": "purchase_request",
        "labels": {"en": "Big"},
        "states": states,
        "transitions": transitions,
    }


def outline_item(page: Page, name: str):
    return page.get_by_test_id("outline").get_by_role("button", name=name, exact=True)


def connect(page: Page, source: str, target: str, key: str = "go") -> None:
    """Drag from ``source``'s handle onto ``target`` and name the action ``key`` when the
    editor asks: a new transition."""
    page.evaluate("document.getElementById('paper').scrollIntoView({block: 'center'})")
    handle = canvas_state(page, source).locator("circle[magnet]").first
    start, end = handle.bounding_box(), canvas_state(page, target).bounding_box()
    assert start and end
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=12)
    page.mouse.up()
    prompt = page.get_by_test_id("action-dialog")
    prompt.get_by_test_id("action-key").fill(key)
    prompt.get_by_test_id("action-add").click()
    expect(page.locator(f'#paper [data-from="{source}"][data-to="{target}"]')).to_have_count(1)


def saved_draft(page: Page) -> dict:
    return page.evaluate(
        """async () => {
            const answer = await fetch(location.pathname.replace(/editor$/, 'api/draft'),
                {credentials: 'same-origin', headers: {'Accept': 'application/json'}});
            return (await answer.json()).graph;
        }"""
    )


def saved_when(page: Page, check) -> dict:
    """The saved draft once ``check(graph)`` holds (saves land 300 ms after a change)."""
    for _ in range(50):
        graph = saved_draft(page)
        if check(graph):
            return graph
        page.wait_for_timeout(100)
    raise AssertionError("the draft was not saved as expected")


def round_trips_over_edits(page: Page, state: str, edits: int) -> str:
    """Relabel ``state`` ``edits`` times, each save waited for (the draft's revision
    counts them), and say the save round trips seen so far: median, p95, slowest."""
    outline_item(page, state).click()
    label = page.get_by_test_id("properties").get_by_label("Label (en)")
    status = page.get_by_test_id("save-status")
    first = int(page.evaluate("() => window.flowEditor.revision()")) + 1
    for n in range(first, first + edits):
        label.fill(f"Take {n}")
        expect(status).to_have_text(f"Saved as draft revision {n}.")
    samples = sorted(page.evaluate("() => window.flowEditor.roundTrips"))
    p95 = samples[max(0, round(0.95 * len(samples)) - 1)]
    return (
        f"median {statistics.median(samples):.1f} ms, p95 {p95:.1f} ms,"
        f" slowest {samples[-1]:.1f} ms over {len(samples)} saves"
    )
