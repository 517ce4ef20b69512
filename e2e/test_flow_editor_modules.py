"""The flow editor's stateless pieces, imported as the page imports them and run in
Chromium: the undo history, the arrows' fanning out, auto-layout and the free spot for
a new state. The browser tests drive them through the editor; these pin their rules."""

from __future__ import annotations

import itertools

from playwright.sync_api import Page

MODULES = "/static/js/flow-editor"
# A state's box, as the server gives it to the editor (portal/domain/layout.py).
BOX = "{ width: 160, height: 46 }"


def test_the_history_steps_back_and_forward_and_a_new_step_drops_the_way_forward(page: Page):
    page.goto("/login")
    result = page.evaluate(
        f"""async () => {{
            const {{ EditHistory }} = await import('{MODULES}/history.js');
            const h = new EditHistory(2);
            h.reset('a');
            const same = h.record('a');
            h.record('b'); h.record('c'); h.record('d');  // the limit keeps two steps back
            const back = [h.undo(), h.undo(), h.undo()];
            const forward = h.redo();
            h.record('e');
            return {{ same, back, forward, canRedo: h.canRedo(), canUndo: h.canUndo() }};
        }}""",
    )
    assert result == {
        "same": False,
        "back": ["c", "b", None],
        "forward": "c",
        "canRedo": False,
        "canUndo": True,
    }


def _graph(states: list[tuple[str, str, int, int]], arrows: list[tuple[str, str]]) -> dict:
    return {
        "states": [{"key": k, "role": role, "x": x, "y": y} for k, role, x, y in states],
        "transitions": [{"key": f"t{i}", "from": a, "to": b} for i, (a, b) in enumerate(arrows)],
    }


def test_parallel_arrows_fan_out_and_a_self_loop_bends_above_its_state(page: Page):
    graph = _graph(
        [("a", "draft", 0, 200), ("b", "pending", 400, 200)],
        [("a", "b"), ("a", "b"), ("b", "a"), ("b", "b"), ("a", "a")],
    )
    page.goto("/login")
    spread = page.evaluate(
        f"""async (graph) => {{
            const g = await import('{MODULES}/geometry.js');
            return g.spreadVertices(graph, {BOX});
        }}""",
        graph,
    )
    # Three arrows between a and b: three different bends, one each side and one between.
    bends = [spread[str(i)][0]["y"] for i in range(3)]
    assert len(set(bends)) == 3
    # Loops leave their state's top: every point above it, a second loop wider.
    for index, state_y in ((3, 200), (4, 200)):
        assert all(point["y"] < state_y + 46 for point in spread[str(index)])
        assert spread[str(index)][0]["y"] < state_y


def test_auto_layout_sets_the_common_outcomes_aside_and_overlaps_nothing(page: Page):
    chain = ["draft", "one", "two", "three", "four"]
    states = [(k, "draft" if k == "draft" else "pending", 0, 0) for k in chain]
    states += [("rejected", "rejected", 0, 0), ("withdrawn", "cancelled", 0, 0)]
    arrows = list(itertools.pairwise(chain))
    arrows += [(k, "rejected") for k in chain[1:]] + [(k, "withdrawn") for k in chain[1:4]]
    arrows += [("rejected", "draft"), ("rejected", "withdrawn")]
    page.goto("/login")
    page.add_script_tag(url="/static/vendor/dagre-3.1.3/dagre.min.js")  # as the editor loads it
    pos = page.evaluate(
        f"""async (graph) => {{
            const g = await import('{MODULES}/geometry.js');
            return g.autoPositions(graph, {BOX}, {{ width: 1600, height: 600 }});
        }}""",
        _graph(states, arrows),
    )
    assert set(pos) == {s[0] for s in states}
    # Left to right on a wide canvas; the outcomes in a row of their own below the chain.
    xs = [pos[k]["x"] for k in chain]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    chain_bottom = max(pos[k]["y"] for k in chain) + 46
    assert pos["rejected"]["y"] > chain_bottom and pos["withdrawn"]["y"] > chain_bottom
    boxes = [(p["x"], p["y"]) for p in pos.values()]
    for i, (x1, y1) in enumerate(boxes):
        for x2, y2 in boxes[i + 1 :]:
            assert abs(x1 - x2) >= 160 or abs(y1 - y2) >= 46

    # The same flow on a tall narrow canvas runs top to bottom.
    tall = page.evaluate(
        f"""async (graph) => {{
            const g = await import('{MODULES}/geometry.js');
            return g.autoPositions(graph, {BOX}, {{ width: 400, height: 1200 }});
        }}""",
        _graph(states, arrows),
    )
    ys = [tall[k]["y"] for k in chain]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)


def test_a_new_state_goes_to_the_nearest_free_spot_in_view_or_nowhere(page: Page):
    page.goto("/login")
    spots = page.evaluate(
        f"""async () => {{
            const g = await import('{MODULES}/geometry.js');
            const view = [{{ x: 0, y: 0 }}, {{ x: 1000, y: 600 }}];
            const empty = {{ states: [] }};
            const middle = g.freeSpot(empty, {BOX}, ...view);
            const taken = {{ states: [{{ key: 'a', x: middle.x, y: middle.y }}] }};
            const beside = g.freeSpot(taken, {BOX}, ...view);
            const tiny = g.freeSpot(taken, {BOX}, {{ x: middle.x, y: middle.y }}, {{ x: middle.x + 200, y: middle.y + 60 }});
            return {{ middle, beside, tiny }};
        }}"""
    )
    assert spots["middle"] == {"x": 420, "y": 277}
    # Taken: the same row, one step to the right (room for an arrow between).
    assert spots["beside"] == {"x": 420 + 280, "y": 277}
    assert spots["tiny"] is None
