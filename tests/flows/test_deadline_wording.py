"""Each state's deadline in the reader's words, as the flow page says it: the duration
in days, hours or minutes (plural forms), what the sweep does when it passes (with the
bounds the sweep keeps: at most ``MAX_REMINDERS`` reminders, at most the grants'
escalation levels), and the lazy escalation; and the editor's help for the same
fields."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from flask_babel import force_locale

from portal.domain.deadlines import MAX_REMINDERS
from portal.domain.graph import BreachAction, Deadline, Graph, State
from portal.flows.seeded.requests import purchase_request
from portal.flows.wording.deadlines import deadline_words, duration_words
from portal.flows.wording.editor import editor_words
from tests.factories import sign_in

FLOWS = "/o/acme-test/flows"


@pytest.fixture
def words(app):
    with app.test_request_context():
        yield


def _state(graph: Graph, key: str) -> State:
    found = graph.state(key)
    assert found is not None
    return found


def _with_deadline(graph: Graph, key: str, **changes: Any) -> Graph:
    states = tuple(replace(s, **changes) if s.key == key else s for s in graph.states)
    return replace(graph, states=states)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1d", "1 day"),
        ("5d", "5 days"),
        ("1h", "1 hour"),
        ("48h", "48 hours"),
        ("30m", "30 minutes"),
    ],
)
def test_a_duration_is_said_in_its_own_unit(words, text, expected):
    assert duration_words(text) == expected


@pytest.mark.parametrize("text", ["", "2w", "0d", "٣d", "99999999d", "5d\x00"])
def test_a_duration_the_flow_cannot_have_is_shown_as_written(words, text):
    assert duration_words(text) == text


def test_each_breach_action_is_said_with_the_sweeps_bounds(words):
    graph = purchase_request("MYR")
    after = {
        BreachAction.REMIND: Deadline("2d", BreachAction.REMIND),
        BreachAction.ESCALATE_UP: Deadline("48h", BreachAction.ESCALATE_UP),
        BreachAction.REASSIGN: Deadline("5d", BreachAction.REASSIGN),
        BreachAction.AUTO: Deadline("1d", BreachAction.AUTO, transition="approve"),
    }
    said = {}
    for action, deadline in after.items():
        changed = _with_deadline(graph, "submitted", deadline=deadline)
        said[action] = deadline_words(changed, _state(changed, "submitted"), "en")

    assert said == {
        BreachAction.REMIND: [
            f"After 2 days: remind the approvers (again each 2 days, at most {MAX_REMINDERS} times)"
        ],
        BreachAction.ESCALATE_UP: [
            "After 48 hours: bring in the next manager up (at most 2 levels)"
        ],
        BreachAction.REASSIGN: ["After 5 days: reassign to the approver's manager"],
        BreachAction.AUTO: ["After 1 day: Approve automatically"],
    }


def test_escalation_is_bounded_by_the_grants_levels_in_the_singular_too(words):
    graph = purchase_request("MYR")
    one_level = replace(
        graph, grants=tuple(replace(g, max_escalation_levels=1) for g in graph.grants)
    )
    assert deadline_words(one_level, _state(one_level, "submitted"), "en") == [
        "After 48 hours: bring in the next manager up (at most 1 level)"
    ]
    none = replace(graph, grants=tuple(replace(g, max_escalation_levels=0) for g in graph.grants))
    assert deadline_words(none, _state(none, "submitted"), "en") == [
        "After 48 hours: tell the admins (the grants allow no escalation)"
    ]


def test_lazy_escalation_is_its_own_sentence_and_a_state_without_either_says_nothing(words):
    graph = _with_deadline(purchase_request("MYR"), "submitted", escalate_after="2d")
    assert deadline_words(graph, _state(graph, "submitted"), "en") == [
        "After 48 hours: bring in the next manager up (at most 2 levels)",
        "If untouched for 2 days: bring in the next manager up",
    ]
    assert deadline_words(graph, _state(graph, "draft"), "en") == []


def test_an_automatic_action_not_yet_chosen_or_unknown_is_said_plainly(words):
    graph = purchase_request("MYR")
    unchosen = _with_deadline(graph, "submitted", deadline=Deadline("1d", BreachAction.AUTO))
    assert deadline_words(unchosen, _state(unchosen, "submitted"), "en") == [
        "After 1 day: act automatically (no action chosen yet)"
    ]
    unknown = _with_deadline(
        graph, "submitted", deadline=Deadline("1d", BreachAction.AUTO, transition="<b>gone</b>")
    )
    # An action the flow lacks is named by its key (the page escapes it).
    assert deadline_words(unknown, _state(unknown, "submitted"), "en") == [
        "After 1 day: <b>gone</b> automatically"
    ]


def test_the_action_is_named_in_the_readers_language(words):
    graph = _with_deadline(
        purchase_request("MYR"),
        "submitted",
        deadline=Deadline("1d", BreachAction.AUTO, transition="approve"),
    )
    with force_locale("zh"):
        (line,) = deadline_words(graph, _state(graph, "submitted"))
    approve_zh = graph.transition_label("submitted", "approve", "zh")
    assert approve_zh != "Approve" and approve_zh in line
    with force_locale("ms"):
        (line,) = deadline_words(graph, _state(graph, "submitted"))
    assert graph.transition_label("submitted", "approve", "ms") in line


def test_the_editor_says_what_a_duration_means_and_what_each_action_does(words):
    text = editor_words()["text"]
    assert isinstance(text, dict)
    assert text["deadline_help"] == (
        "5d = 5 × 24 hours from when the task opens; 30m, 48h, 3d. Business days are not counted."
    )
    for action in BreachAction.ALL:
        assert text[f"breach_help_{action}"]
    assert f"at most {MAX_REMINDERS} times" in text["breach_help_remind"]
    assert "%(" not in text["breach_help_remind"]


# --- the flow page ------------------------------------------------------------------------


def test_the_flow_page_describes_each_deadline_in_words(app, acme, globex):
    browser, _token = sign_in(app, acme.admin)

    html = browser.get(f"{FLOWS}/purchase_request/").get_data(as_text=True)
    assert "After 48 hours: bring in the next manager up (at most 2 levels)" in html
    claim = browser.get(f"{FLOWS}/expense_claim/").get_data(as_text=True)
    assert (
        f"After 5 days: remind the approvers (again each 5 days, at most {MAX_REMINDERS} times)"
        in claim
    )
    # A state without a deadline says so with a dash, not an empty sentence.
    assert 'data-testid="deadline-draft">—</td>' in claim


def test_another_organizations_admin_cannot_read_this_flows_deadlines(app, acme, globex):
    browser, _token = sign_in(app, globex.admin)
    page = browser.get(f"{FLOWS}/purchase_request/")
    assert page.status_code == 404
    assert "bring in the next manager up" not in page.get_data(as_text=True)
