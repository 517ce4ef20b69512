"""Exclusive approval on the flows' side: the validator warns, against the org chart as
it stands, where the rule would leave a step with nobody for some requester (never
blocking a publish); the editor's "Who would approve?" says who is left out; publishing
a change of the setting is summarised in words.

Acme-test's chart (``test_routing_views``): Rita reports to Lee, Lee to Hana, who heads
Sales; Alice is the only admin. Globex is there and never named.
"""

from __future__ import annotations

from dataclasses import replace

from portal.domain.validate import errors_in
from portal.flows import queries as flow_queries
from portal.flows import seeded
from portal.flows.services import drafts, pages, publishing
from portal.flows.wording.changes import publish_summary
from tests.flows.test_api import _json
from tests.orgchart.conftest import today  # noqa: F401
from tests.orgchart.test_routing_views import chart  # noqa: F401

CLAIM_API = "/o/acme-test/flows/expense_claim/api"


def _codes(violations) -> list[str]:
    return [v.code for v in violations]


def _save_graph(actor, graph):
    current = drafts.get_draft(actor, graph.kind).revision
    return drafts.save_draft(actor, graph.kind, graph, revision=current)


def test_the_seeded_claim_warns_where_the_chart_leaves_a_step_to_nobody(acme, globex, chart):  # noqa: F811
    alice = acme.admin.actor
    current = flow_queries.current_version(alice, seeded.EXPENSE_CLAIM).graph
    assert current.exclusive_approval
    # Without the setting: no such warning.
    plain = _save_graph(alice, replace(current, exclusive_approval=False))
    assert "exclusive_approval_unstaffed" not in _codes(plain.violations)

    draft = _save_graph(alice, current)
    assert errors_in(draft.violations) == []  # warnings only: it can be published
    found = {
        v.ref["state"]: v for v in draft.violations if v.code == "exclusive_approval_unstaffed"
    }
    # Lee's claim needs Hana twice; Lee's and Rita's need Alice both to commit and to
    # pay (Hana's own stops at her superior, whom the top seat lacks: not this rule's).
    assert set(found) == {"approved", "completed"}
    approved = found["approved"].params
    assert (approved["requester"], approved["deciders"], approved["other"]) == (
        "Lee Lead",
        "Hana Head",
        "reviewed",
    )
    paid = found["completed"].params
    assert (paid["deciders"], paid["other"]) == ("Alice Admin", "category_verified")
    assert paid["num"] >= 1
    assert found["approved"].severity == "warning"
    assert all("Gina" not in str(v.params) for v in draft.violations)


def test_a_draft_with_the_warning_still_publishes(acme, globex, chart):  # noqa: F811
    alice = acme.admin.actor
    current = flow_queries.current_version(alice, seeded.EXPENSE_CLAIM).graph
    draft = _save_graph(alice, replace(current, labels=current.labels))
    assert "exclusive_approval_unstaffed" in _codes(draft.violations)
    published = publishing.publish_draft(alice, seeded.EXPENSE_CLAIM, revision=draft.revision)
    assert published.view.version == 2


def test_turning_the_setting_off_is_summarised_for_the_publish_confirmation(
    app,
    acme,
    globex,
    chart,  # noqa: F811
):
    alice = acme.admin.actor
    current = flow_queries.current_version(alice, seeded.EXPENSE_CLAIM).graph
    _save_graph(alice, current)
    with app.test_request_context():
        unchanged = publish_summary(pages.draft_changes(alice, seeded.EXPENSE_CLAIM), "en")
    assert unchanged["settings"]["changed"] == []

    _save_graph(alice, replace(current, exclusive_approval=False))
    with app.test_request_context():
        summary = publish_summary(pages.draft_changes(alice, seeded.EXPENSE_CLAIM), "en")
    assert summary["any"] is True
    assert summary["settings"]["changed"] == [
        {
            "key": "exclusive_approval",
            "text": "Exclusive approval turned off: one person may decide several steps of a document.",
        }
    ]


def test_the_editor_preview_says_who_is_left_out(client, login, acme, globex, chart):  # noqa: F811
    token = login(acme.admin)
    graph = client.get(f"{CLAIM_API}/draft").get_json()["graph"]
    assert graph["exclusive_approval"] is True
    saved = _json(client, "PUT", f"{CLAIM_API}/draft", token, {"revision": 0, "graph": graph})
    assert saved.status_code == 200

    answer = _json(
        client, "POST", f"{CLAIM_API}/route", token, {"member_id": chart.lee, "amount": "100"}
    )
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["routable"] is False
    steps = {s["state"]: s for s in body["steps"]}
    assert steps["reviewed"]["approvers"] == ["Hana Head"]
    assert steps["approved"]["approvers"] == []
    assert steps["approved"]["excluded"] == [
        "Hana Head is left out: nobody else can decide “Reviewed”, and under exclusive approval nobody decides two steps."
    ]
    assert "exclusive approval" in steps["approved"]["gaps"][0]


def test_a_setting_that_is_not_true_or_false_is_refused_by_path_and_saves_nothing(
    client,
    login,
    acme,
    globex,
    chart,  # noqa: F811
):
    token = login(acme.admin)
    graph = client.get(f"{CLAIM_API}/draft").get_json()["graph"]
    saved = _json(client, "PUT", f"{CLAIM_API}/draft", token, {"revision": 0, "graph": graph})
    assert saved.status_code == 200
    revision = saved.get_json()["revision"]
    for bad in ("yes", "true\u0000", 1, "１", "9" * 5000, None):
        body = {"revision": revision, "graph": {**graph, "exclusive_approval": bad}}
        answer = _json(client, "PUT", f"{CLAIM_API}/draft", token, body)
        if bad is None:  # left out, as JSON null: the default (off)
            assert answer.status_code == 200, answer.get_json()
            revision = answer.get_json()["revision"]
            continue
        assert 400 <= answer.status_code < 500, bad
        assert answer.status_code != 500
    after = client.get(f"{CLAIM_API}/draft").get_json()
    assert after["revision"] == revision
