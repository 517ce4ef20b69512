"""The flow editor's band and naming modules, which need no page, run in Chromium as
the page imports them: a typed floor read exactly in the currency's decimals, the
ladder of a state's bands with its gap, a floor saved with its currency, a new grant
that starts empty, a new action's name and labels, and the problems list's one entry
per finding. The browser tests in test_flow_editor_bands.py drive them through the
editor; these pin their rules."""

from __future__ import annotations

from playwright.sync_api import Page

MODULES = "/static/js/flow-editor"


def _modules(page: Page, script: str, arg: object = None):
    """``script`` (the body of an async function of ``arg``) with ``bands``,
    ``names`` (action-names.js), ``edit`` (graph-edit.js), ``item`` (item-edit.js) and
    ``problems`` (problems.js) imported."""
    page.goto("/login")
    return page.evaluate(
        f"""async (arg) => {{
            const bands = await import('{MODULES}/bands.js');
            const names = await import('{MODULES}/action-names.js');
            const edit = await import('{MODULES}/graph-edit.js');
            const item = await import('{MODULES}/item-edit.js');
            const problems = await import('{MODULES}/problems.js');
            {script}
        }}""",
        arg,
    )


def test_a_typed_floor_is_read_exactly_in_the_currencys_decimals(page: Page):
    cases = [
        ("1000.00", 2),
        ("1,000", 2),
        (" 1 000.5 ", 2),
        ("0", 2),
        ("", 2),
        ("000250.10", 2),
        ("-5", 2),
        ("1000", 0),
        ("1000.005", 2),
        ("1000.5", 0),
        ("one thousand", 2),
        ("1e3", 2),
        ("١٠٠٠", 2),  # Arabic-Indic digits: not what anyone means by an amount here
        ("12\u0000", 2),
        (".", 2),
        ("-", 2),
        ("9" * 5000, 2),
        ("999999999999999.99", 2),
    ]
    read = _modules(page, "return arg.map(([t, p]) => bands.readFloor(t, p));", cases)
    assert read == [
        {"value": "1000.00"},
        {"value": "1000.00"},
        {"value": "1000.50"},
        {"value": "0.00"},
        {"value": None},  # left empty: no floor
        {"value": "250.10"},
        {"value": "-5.00"},  # an amount: the server's validator refuses it as a floor
        {"value": "1000"},
        {"problem": "too_precise"},
        {"problem": "too_precise"},
        {"problem": "not_number"},
        {"problem": "not_number"},
        {"problem": "not_number"},
        {"problem": "not_number"},
        {"problem": "not_number"},
        {"problem": "not_number"},
        {"problem": "too_large"},
        {"value": "999999999999999.99"},
    ]


def test_the_ladder_orders_bands_exactly_and_marks_the_gap_below_the_lowest(page: Page):
    graph = {
        "grants": [
            {"state": "review", "grantee": {"kind": "superior"}, "min_amount": "10000.00"},
            {"state": "review", "grantee": {"kind": "unit_head"}, "min_amount": "9999.99"},
            {"state": "other", "grantee": {"kind": "superior"}},
            {
                "all_states": True,
                "grantee": {"kind": "role", "role": "admin"},
                "min_amount": "10000",
            },
            {"state": "review", "grantee": {"kind": ""}, "min_amount": "a lot"},
        ]
    }
    result = _modules(
        page,
        """return {
            gapped: bands.ladderOf(arg, 'review'),
            from0: bands.ladderOf(arg, 'other'),
            none: bands.ladderOf({ grants: [] }, 'review'),
            order: [bands.compareFloors('9.99', '10'), bands.compareFloors('10.0', '10'),
                    bands.compareFloors('100', '99.999'), bands.compareFloors('0.5', '0.45')],
        };""",
        graph,
    )
    # 9,999.99 before 10,000 (not as text, where "1" < "9"); 10000 and 10000.00 one band;
    # an unreadable floor left out; nothing from 0, so amounts below the lowest are a gap.
    assert result["gapped"] == {
        "bands": [{"floor": "9999.99", "grants": [1]}, {"floor": "10000.00", "grants": [0, 3]}],
        "gapBelow": "9999.99",
    }
    # A grant without a floor starts at 0: no gap.
    assert result["from0"] == {
        "bands": [{"floor": "0", "grants": [2]}, {"floor": "10000", "grants": [3]}],
        "gapBelow": None,
    }
    assert result["none"] == {"bands": [], "gapBelow": None}
    assert result["order"] == [-1, 0, 1, 1]


def test_a_floor_is_saved_with_its_currency_and_a_new_grant_starts_empty(page: Page):
    result = _modules(
        page,
        """
        const grant = { state: 'review', grantee: { kind: 'superior' } };
        const floored = item.withFloor(grant, '1000.00', 'MYR');
        const graph = edit.normalized({ states: [], grants: [grant] });
        return {
            floored,
            cleared: item.withFloor(floored, undefined, 'MYR'),
            added: edit.addGrant(graph, 'review').grants,
        };
        """,
    )
    assert result["floored"] == {
        "state": "review",
        "grantee": {"kind": "superior"},
        "min_amount": "1000.00",
        "currency": "MYR",
    }
    assert result["cleared"] == {"state": "review", "grantee": {"kind": "superior"}}
    # Not a copy of the one before (which would at once be "a repeat"): nobody chosen.
    assert result["added"] == [
        {"state": "review", "grantee": {"kind": "superior"}},
        {"state": "review", "grantee": {"kind": ""}},
    ]


def test_a_new_action_is_named_by_its_key_and_labels_and_never_twice_from_one_state(
    page: Page,
):
    graph = {
        "states": [],
        "transitions": [{"key": "approve", "from": "review", "to": "done", "gate": "target"}],
    }
    result = _modules(
        page,
        """
        const labels = { en: '  ', zh: '退回修改', ms: '' };
        return {
            typed: names.actionFrom(' send_back ', labels),
            suggested: names.actionFrom('approve', { en: 'Approve', zh: '核准', ms: 'Luluskan' }),
            problems: ['approve', 'Approve', '1st', 'send back', '', 'approve_2', 'a\\u0000']
                .map((k) => names.actionProblem(k, edit.exitKeys(arg, 'review'))),
            elsewhere: names.actionProblem('approve', edit.exitKeys(arg, 'done')),
            added: edit.addTransition(edit.normalized(arg), 'review', 'rejected',
                { key: 'reject', labels: { en: 'Reject', zh: '退回', ms: 'Tolak' } }).transitions[1],
        };
        """,
        graph,
    )
    assert result["typed"] == {"key": "send_back", "labels": {"en": "Send back", "zh": "退回修改"}}
    assert result["suggested"]["labels"] == {"en": "Approve", "zh": "核准", "ms": "Luluskan"}
    assert result["problems"] == [
        "taken",
        "invalid",
        "invalid",
        "invalid",
        "invalid",
        None,
        "invalid",
    ]
    assert result["elsewhere"] is None
    assert result["added"] == {
        "key": "reject",
        "from": "review",
        "to": "rejected",
        "gate": "target",
        "labels": {"en": "Reject", "zh": "退回", "ms": "Tolak"},
    }


def test_a_problem_reported_twice_is_listed_once(page: Page):
    found = [
        {
            "code": "floor_negative",
            "path": "grants[1].min_amount",
            "message": "A floor cannot be negative (-5).",
        },
        {
            "code": "floor_negative",
            "path": "grants[1].min_amount",
            "message": "A floor cannot be negative (-5).",
        },
        {
            "code": "floor_negative",
            "path": "grants[2].min_amount",
            "message": "A floor cannot be negative (-5).",
        },
    ]
    kept = _modules(page, "return problems.distinctProblems(arg).map((v) => v.path);", found)
    assert kept == ["grants[1].min_amount", "grants[2].min_amount"]


def test_a_floor_is_read_in_the_readers_number_form_and_an_ambiguous_one_refused(page: Page):
    english = {"decimal": ".", "group": ",", "grouping": [3, 3]}
    german = {"decimal": ",", "group": ".", "grouping": [3, 3]}
    indian = {"decimal": ".", "group": ",", "grouping": [3, 2]}
    cases = [
        ("1,234.50", english),
        ("1.234,50", german),
        ("1000,50", german),
        ("1,23,456.00", indian),
        ("12,34", english),  # 1,234 or 12.34: neither is assumed
        ("1,5", english),
        ("1.234,50", english),
        ("1000.50", german),
        ("1,234,56", english),
    ]
    read = _modules(page, "return arg.map(([t, f]) => bands.readFloor(t, 2, f));", cases)
    assert read == [
        {"value": "1234.50"},
        {"value": "1234.50"},
        {"value": "1000.50"},
        {"value": "123456.00"},
        {"problem": "ambiguous"},
        {"problem": "ambiguous"},
        {"problem": "ambiguous"},
        {"problem": "ambiguous"},
        {"problem": "ambiguous"},
    ]
