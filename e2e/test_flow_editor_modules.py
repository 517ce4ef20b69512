"""The flow editor's pieces that need no page, imported as the page imports them and
run in Chromium: the undo history, the arrows' fanning out, auto-layout and the free
spot for a new state, the graph's edits (a state renamed, removed or duplicated, its
exits reordered, an arrow added or re-pointed, the panel's changes to one item), which
of the server's verdicts still stand after one, and the store every edit goes through.
The browser tests drive them through the editor; these pin their rules."""

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


def _in_browser(page: Page, script: str, arg: object = None):
    """Run ``script``, the body of an async function of ``arg``, in Chromium with the
    editor's graph modules imported as the page imports them: ``edit`` (graph-edit.js),
    ``item`` (item-edit.js), ``verdicts`` (verdicts.js) and ``EditorStore``."""
    page.goto("/login")
    return page.evaluate(
        f"""async (arg) => {{
            const edit = await import('{MODULES}/graph-edit.js');
            const item = await import('{MODULES}/item-edit.js');
            const verdicts = await import('{MODULES}/verdicts.js');
            const {{ EditorStore }} = await import('{MODULES}/store.js');
            {script}
        }}""",
        arg,
    )


def _review_flow() -> dict:
    """Draft → review → done or rejected, with two grants on review and a deadline there."""
    return {
        "states": [
            {"key": "draft", "role": "draft", "x": 0, "y": 0},
            {
                "key": "review",
                "role": "pending",
                "x": 300,
                "y": 100,
                "labels": {"en": "Review"},
                "deadline": {"after": "2d", "on_breach": "escalate_up"},
            },
            {"key": "done", "role": "custom", "terminal": True, "x": 600, "y": 0},
            {"key": "rejected", "role": "rejected", "terminal": True, "x": 600, "y": 200},
        ],
        "transitions": [
            {"key": "submit", "from": "draft", "to": "review", "gate": "requester"},
            {"key": "approve", "from": "review", "to": "done", "gate": "target"},
            {"key": "reject", "from": "review", "to": "rejected", "gate": "source"},
            {"key": "remind", "from": "review", "to": "review", "gate": "source"},
        ],
        "grants": [
            {"state": "done", "grantee": {"kind": "superior"}},
            {"state": "review", "grantee": {"kind": "unit_head"}},
            {
                "state": "review",
                "grantee": {"kind": "role", "role": "finance"},
                "min_amount": "500",
            },
        ],
        "fields": [],
    }


def test_a_state_renamed_takes_its_arrows_and_grants_along_and_a_taken_key_is_refused(page: Page):
    result = _in_browser(
        page,
        """
        const before = JSON.stringify(arg);
        const renamed = edit.renameState(arg, 'review', 'check');
        return {
            unchanged: JSON.stringify(arg) === before,
            states: renamed.states.map((s) => s.key),
            arrows: renamed.transitions.map((t) => `${t.from}>${t.to}`),
            grants: renamed.grants.map((g) => g.state),
            label: renamed.states[1].labels.en,
            taken: edit.renameState(arg, 'review', 'done'),
        };
        """,
        _review_flow(),
    )
    assert result == {
        "unchanged": True,  # the graph it was given stays as it was (undo keeps it)
        "states": ["draft", "check", "done", "rejected"],
        "arrows": ["draft>check", "check>done", "check>rejected", "check>check"],
        "grants": ["done", "check", "check"],
        "label": "Review",
        "taken": None,  # two states of one key would merge their arrows
    }


def test_a_state_removed_takes_its_arrows_and_grants_but_the_draft_state_stays(page: Page):
    result = _in_browser(
        page,
        """
        const removed = edit.removeState(arg, 'review');
        return {
            states: removed.states.map((s) => s.key),
            arrows: removed.transitions.map((t) => t.key),
            grants: removed.grants.map((g) => g.state),
            withoutAnArrow: edit.removeTransition(arg, 1).transitions.map((t) => t.key),
            draft: edit.removeState(arg, 'draft'),
        };
        """,
        _review_flow(),
    )
    assert result == {
        "states": ["draft", "done", "rejected"],
        "arrows": [],
        "grants": ["done"],
        "withoutAnArrow": ["submit", "reject", "remind"],
        "draft": None,  # every document starts there
    }


def test_a_new_key_is_the_first_one_not_taken(page: Page):
    result = _in_browser(
        page,
        """
        const graph = edit.normalized({ states: [] });
        const first = edit.addState(graph, { x: 10.4, y: 20.6, labels: { en: 'New state' } });
        const second = edit.addState(first, { x: 0, y: 0, labels: { en: 'New state' } });
        const arrows = edit.addTransition(edit.addTransition(arg, 'done', 'rejected'), 'done', 'review');
        return {
            free: edit.uniqueKey('step', ['stage']),
            taken: edit.uniqueKey('step', ['step', 'step_2', 'step_4']),
            lists: Object.keys(graph),
            added: second.states,
            arrows: arrows.transitions.slice(4),
            fields: edit.addField(edit.addField(arg)).fields.map((f) => f.key),
        };
        """,
        _review_flow(),
    )
    assert result["free"] == "step"
    assert result["taken"] == "step_3"
    assert result["lists"] == ["states", "transitions", "grants", "fields"]
    assert result["added"] == [
        {"key": "step", "labels": {"en": "New state"}, "role": "pending", "x": 10, "y": 21},
        {"key": "step_2", "labels": {"en": "New state"}, "role": "pending", "x": 0, "y": 0},
    ]
    # An arrow's key (its action) is new among the exits of the state it leaves.
    assert result["arrows"] == [
        {"key": "go", "from": "done", "to": "rejected", "gate": "target", "labels": {"en": "go"}},
        {"key": "go_2", "from": "done", "to": "review", "gate": "target", "labels": {"en": "go_2"}},
    ]
    assert result["fields"] == ["field", "field_2"]


def test_a_duplicated_state_keeps_its_deadline_and_grants_but_not_its_arrows(page: Page):
    result = _in_browser(
        page,
        f"""
        const box = {BOX};
        const once = edit.duplicateState(arg, 'review', box);
        const twice = edit.duplicateState(once, 'review', box);
        const start = edit.duplicateState(arg, 'draft', box);
        return {{
            copy: once.states.at(-1),
            second: twice.states.at(-1).key,
            grants: once.grants.filter((g) => g.state === 'review_copy'),
            arrows: once.transitions.length,
            start: [start.states.at(-1).key, start.states.at(-1).role],
        }};
        """,
        _review_flow(),
    )
    assert result["copy"] == {
        "key": "review_copy",
        "role": "pending",
        "x": 340,
        "y": 100 + 46 + 60,  # below the original, a box and a gap down
        "labels": {"en": "Review"},
        "deadline": {"after": "2d", "on_breach": "escalate_up"},
    }
    assert result["second"] == "review_copy_2"
    assert result["grants"] == [
        {"state": "review_copy", "grantee": {"kind": "unit_head"}},
        {
            "state": "review_copy",
            "grantee": {"kind": "role", "role": "finance"},
            "min_amount": "500",
        },
    ]
    assert result["arrows"] == 4  # a copy waits to be connected
    assert result["start"] == ["draft_copy", "pending"]  # a flow starts in one place


def test_an_exit_is_offered_earlier_or_later_but_not_past_either_end(page: Page):
    result = _in_browser(
        page,
        """
        const read = await import('/static/js/flow-editor/graph-read.js');
        const offered = (g) => read.exitsOf(g, 'review').map((i) => g.transitions[i].key);
        const earlier = edit.moveExit(arg, 2, -1);
        return {
            before: offered(arg),
            earlier: offered(earlier),
            orders: earlier.transitions.map((t) => t.order ?? null),
            later: offered(edit.moveExit(earlier, 1, 1)),
            first: edit.moveExit(earlier, 2, -1),
            last: edit.moveExit(arg, 3, 1),
        };
        """,
        _review_flow(),
    )
    assert result["before"] == ["approve", "reject", "remind"]
    assert result["earlier"] == ["reject", "approve", "remind"]
    # Numbered afresh, so the order is explicit in the graph; other states' untouched.
    assert result["orders"] == [None, 2, 1, 3]
    assert result["later"] == ["reject", "remind", "approve"]
    assert result["first"] is None
    assert result["last"] is None


def test_an_arrow_repointed_keeps_what_it_says_and_a_layout_drops_the_bends(page: Page):
    flow = _review_flow()
    flow["transitions"][1] |= {"vertices": [[450, 50]], "guard": {"expression": "true"}}
    result = _in_browser(
        page,
        """
        const repointed = edit.repoint(arg, 1, 'to', 'rejected').transitions[1];
        const placed = edit.placeStates(arg, { draft: { x: -20, y: 5 }, done: { x: 40, y: 60 } });
        return {
            repointed,
            placed: placed.states.map((s) => [s.key, s.x, s.y]),
            bends: placed.transitions.filter((t) => 'vertices' in t).length,
            moved: edit.moveState(arg, 'done', -4.6, 12.5).states[2],
            still: edit.moveState(arg, 'done', 600, 0) === arg,
        };
        """,
        flow,
    )
    assert result["repointed"] == {
        "key": "approve",
        "from": "review",
        "to": "rejected",
        "gate": "target",
        "guard": {"expression": "true"},
    }
    assert result["placed"] == [
        ["draft", 0, 5],
        ["review", 300, 100],
        ["done", 40, 60],
        ["rejected", 600, 200],
    ]
    assert result["bends"] == 0
    assert (result["moved"]["x"], result["moved"]["y"]) == (0, 13)  # no negative side
    assert result["still"] is True  # nowhere new: nothing changed


def test_the_panel_changes_keep_what_the_admin_did_not_touch(page: Page):
    result = _in_browser(
        page,
        """
        const arrow = { key: 'go', labels: { en: 'go' } };
        const named = { key: 'go', labels: { en: 'Send on' } };
        const guarded = item.withGuard({ key: 'go' }, 'document.amount > 0');
        const review = arg.states[1];
        return {
            follows: item.withActionKey(arrow, ' approve '),
            stays: item.withActionKey(named, 'approve').labels,
            noLabel: item.withLabel({ labels: { en: 'A', zh: '甲' } }, 'zh', ''),
            deadline: item.withDeadline({ key: 's' }, '5d ').deadline,
            kept: item.withDeadline(review, '3d').deadline,
            noDeadline: 'deadline' in item.withDeadline(review, ''),
            breach: item.withBreachAction({ key: 's' }, 'remind'),
            message: item.withGuardMessage(guarded, 'en', 'Only with an amount').guard,
            rewritten: item.withGuard(item.withGuardMessage(guarded, 'en', 'M'), 'true').guard.message,
            noGuardMessage: item.withGuardMessage({ key: 'go' }, 'en', 'M'),
            levels: [item.withMaxLevels({}, '3'), item.withMaxLevels({}, 'three'), item.withMaxLevels({ max_escalation_levels: 2 }, ' ')],
            choices: item.withChoices({ type: 'choice' }, 'red, , blue', [{ key: 'red', labels: { en: 'Red' } }]).choices,
            text: item.withFieldType({ type: 'choice', choices: [] }, 'text'),
        };
        """,
        _review_flow(),
    )
    # A label still reading as the old key (as a new arrow's does) follows the key.
    assert result["follows"] == {"key": "approve", "labels": {"en": "approve"}}
    assert result["stays"] == {"en": "Send on"}
    assert result["noLabel"] == {"labels": {"en": "A"}}
    assert result["deadline"] == {"on_breach": "remind", "after": "5d"}
    assert result["kept"] == {"after": "3d", "on_breach": "escalate_up"}
    assert result["noDeadline"] is False
    assert result["breach"] == {"key": "s"}  # no deadline to pass
    assert result["message"] == {
        "expression": "document.amount > 0",
        "message": {"en": "Only with an amount"},
    }
    assert result["rewritten"] == {"en": "M"}
    assert result["noGuardMessage"] == {"key": "go"}
    assert result["levels"] == [
        {"max_escalation_levels": 3},
        {"max_escalation_levels": "three"},
        {},
    ]
    assert result["choices"] == [
        {"key": "red", "labels": {"en": "Red"}},
        {"key": "blue", "labels": {"en": "blue"}},
    ]
    assert result["text"] == {"type": "text"}


def _violations() -> list[dict]:
    def violation(code: str, ref: dict, path: str = "") -> dict:
        return {"code": code, "severity": "error", "message": code, "ref": ref, "path": path}

    return [
        violation("review_label", {"state": "review"}, "states[1].labels"),
        violation("approve_guard", {"transition": 1}, "transitions[1].guard.expression"),
        violation("remind_comment", {"transition": 3}),
        violation("finance_floor", {"grant": 2}, "grants[2].min_amount"),
        violation("no_terminal", {}),
    ]


def test_a_verdict_stands_while_what_it_names_is_where_it_was(page: Page):
    result = _in_browser(
        page,
        """
        const [graph, violations] = arg;
        const codes = (after) => verdicts.stillStanding(graph, after, violations).map((v) => v.code);
        const relabelled = edit.updateState(graph, 'review', (s) => item.withLabel(s, 'en', 'Check'));
        return {
            relabelled: codes(relabelled),
            added: codes(edit.addTransition(graph, 'done', 'review')),
            earlierArrowGone: codes(edit.removeTransition(graph, 0)),
            lastArrowGone: codes(edit.removeTransition(graph, 3)),
            renamed: codes(edit.renameState(graph, 'review', 'check')),
            grantGone: codes(edit.removeGrant(graph, 0)),
            repointed: codes(edit.repoint(graph, 1, 'to', 'rejected')),
            target: verdicts.violationTarget(graph, violations[3]),
        };
        """,
        [_review_flow(), _violations()],
    )
    everything = ["review_label", "approve_guard", "remind_comment", "finance_floor", "no_terminal"]
    # A typed label or a new arrow moves nothing: every outline stays until the next save.
    assert result["relabelled"] == everything
    assert result["added"] == everything
    # A removal moves every later item up one: what named one by its place is set aside.
    assert result["lastArrowGone"] == ["review_label", "finance_floor", "no_terminal"]
    assert result["earlierArrowGone"] == ["review_label", "finance_floor", "no_terminal"]
    assert result["renamed"] == ["approve_guard", "remind_comment", "finance_floor", "no_terminal"]
    assert result["grantGone"] == ["review_label", "approve_guard", "remind_comment", "no_terminal"]
    # An edit in place (a key, an arrow's other end) leaves every item where it was.
    assert result["repointed"] == everything
    # A grant's problem opens the state the grant is on.
    assert result["target"] == {"type": "state", "key": "review"}


def test_every_edit_goes_through_the_store_one_undo_step_per_save(page: Page):
    result = _in_browser(
        page,
        """
        const [graph, violations] = arg;
        const store = new EditorStore();
        const changes = [];
        store.subscribe((change) => changes.push(Object.keys(change).filter((k) => change[k]).sort().join(' ')));
        store.takeDraft({ revision: 1, saved: true, graph, violations });
        const relabel = (text) => store.edit((g) => edit.updateState(g, 'review', (s) => item.withLabel(s, 'en', text)), { keepPanel: true });
        relabel('C'); relabel('Ch'); relabel('Check');  // typed: one save, one step
        const dirty = store.dirty;
        store.beginSave();
        store.saved({ revision: 2, saved: true, violations }, store.graph);
        const removed = store.edit((g) => edit.removeTransition(g, 0), { select: null });
        const standing = store.violations.map((v) => v.code);
        const refused = store.edit((g) => edit.removeState(g, 'draft'));
        store.select({ type: 'transition', index: 0 });
        store.undo();  // the removal, not saved yet, is a step of its own
        const afterUndo = [store.graph.transitions.length, store.selected, store.violations.length];
        store.undo();
        const label = store.graph.states[1].labels.en;
        store.view(1, graph);
        const whileViewing = store.edit((g) => edit.removeTransition(g, 0));
        return { changes, dirty, removed, standing, refused, afterUndo, label, whileViewing, canRedo: store.canRedo };
        """,
        [_review_flow(), _violations()],
    )
    assert result["changes"][:4] == [
        "graph reloaded selection status verdicts",
        "edited graph keepPanel status",
        "edited graph keepPanel status",
        "edited graph keepPanel status",
    ]
    assert result["dirty"] is True
    assert result["removed"] is True
    assert result["standing"] == ["review_label", "finance_floor", "no_terminal"]
    assert result["refused"] is False
    # A graph put back by undo is another one: no verdict applies, no arrow selected.
    assert result["afterUndo"] == [4, None, 0]
    assert result["label"] == "Review"  # the typed label was one step
    assert result["whileViewing"] is False  # a version on show is read-only
    assert result["canRedo"] is True
