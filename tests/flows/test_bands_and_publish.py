"""Amount bands as the editor saves them, its problems in plain words, and publishing
that says what changes — as acme's admin, with globex present and invisible.

A floor is saved with the organization's base currency (and refused in any other, or
with more decimals than that currency has); a grant just added, with nobody chosen,
says so in words an admin reads; a change of labels alone is summarised as labels
before and after; and publishing from the flow page asks first, with that summary.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from portal.flows import queries
from portal.flows.services import drafts
from tests.factories import sign_in

FLOWS = "/o/acme-test/flows"
API = f"{FLOWS}/purchase_request/api"


def _json(client, method: str, url: str, token: str, body: Any = None):
    return client.open(
        url,
        method=method,
        data=json.dumps(body),
        headers={"X-CSRFToken": token, "Accept": "application/json"},
        content_type="application/json",
    )


def _draft(client) -> dict:
    return client.get(f"{API}/draft", headers={"Accept": "application/json"}).get_json()


def _with_band(graph: dict, floor: str, currency: str | None) -> dict:
    """The purchase request with a third band on its approval step."""
    changed = copy.deepcopy(graph)
    band = {"state": "approved", "grantee": {"kind": "role", "role": "admin"}, "min_amount": floor}
    if currency is not None:
        band["currency"] = currency
    changed["grants"].append(band)
    return changed


def _floor_problems(answer) -> list[tuple[str, str, str]]:
    return [
        (v["code"], v["path"], v["message"])
        for v in answer.get_json()["violations"]
        if v["path"].startswith("grants[2]")
    ]


# --- floors ------------------------------------------------------------------------------


def test_a_floor_typed_in_the_base_currency_is_saved_with_it_exactly(client, login, acme, globex):
    token = login(acme.admin)
    graph = _draft(client)["graph"]

    saved = _json(
        client,
        "PUT",
        f"{API}/draft",
        token,
        {"revision": 0, "graph": _with_band(graph, "1000.00", "USD")},
    )

    assert saved.status_code == 200
    assert _floor_problems(saved) == []
    (band,) = [g for g in saved.get_json()["graph"]["grants"] if g["grantee"].get("role")]
    assert (band["min_amount"], band["currency"]) == ("1000.00", "USD")
    # Globex's draft is untouched (it has none).
    assert drafts.get_draft(globex.admin.actor, "purchase_request").revision == 0


def test_a_floor_in_another_currency_or_finer_than_its_cents_is_refused_in_plain_words(
    client, login, acme
):
    token = login(acme.admin)
    graph = _draft(client)["graph"]
    revision = 0
    found = {}
    for name, floor, currency in (
        ("other_currency", "1000.00", "MYR"),
        ("no_currency", "1000.00", None),
        ("too_precise", "1000.005", "USD"),
    ):
        answer = _json(
            client,
            "PUT",
            f"{API}/draft",
            token,
            {"revision": revision, "graph": _with_band(graph, floor, currency)},
        )
        assert answer.status_code == 200  # saved, with its violations: only publishing refuses
        revision = answer.get_json()["revision"]
        found[name] = _floor_problems(answer)

    assert found["other_currency"] == [
        (
            "floor_currency_mismatch",
            "grants[2].currency",
            "Amounts here are in USD, the organization's currency; this one is in “MYR”.",
        )
    ]
    assert found["no_currency"] == [
        (
            "floor_currency_missing",
            "grants[2].currency",
            "This floor has no currency: amounts here are in USD, the organization's currency.",
        )
    ]
    assert found["too_precise"] == [
        (
            "floor_too_precise",
            "grants[2].min_amount",
            "1000.005 has more decimals than the currency allows (at most 2).",
        )
    ]
    refused = _json(client, "POST", f"{API}/draft/publish", token, {"revision": revision})
    assert refused.status_code == 422
    assert queries.current_version(acme.admin.actor, "purchase_request").version == 1


def test_the_editor_is_told_its_currency_and_how_many_decimals_a_floor_may_have(
    app, make_org, make_member
):
    yen = make_org("yen-test", "Yen Test", base_currency="JPY")
    admin = make_member(yen, "Yoko Admin", roles=("admin",))
    browser, _token = sign_in(app, admin)

    html = browser.get("/o/yen-test/flows/purchase_request/editor").get_data(as_text=True)

    found = re.search(r'id="editor-setup">(.*?)</script>', html, re.S)
    assert found, "no editor setup on the page"
    setup = json.loads(found.group(1))
    assert (setup["currency"], setup["currency_places"]) == ("JPY", 0)
    # The new arrow's suggestions, each named in every language a flow is labelled in.
    approve = next(a for a in setup["actions"] if a["key"] == "approve")
    assert approve["labels"] == {"en": "Approve", "zh": "核准", "ms": "Luluskan"}


# --- plain words -------------------------------------------------------------------------


def test_a_new_grant_with_nobody_chosen_says_what_to_choose(client, login, acme, globex):
    token = login(acme.admin)
    graph = _draft(client)["graph"]
    unchosen = copy.deepcopy(graph)
    unchosen["grants"].append({"state": "approved", "grantee": {"kind": ""}})
    unchosen["grants"].append({"state": "approved", "grantee": {"kind": "member"}})
    # Globex's admin, named here by id, is no member of acme: said like a missing one.
    theirs = globex.admin.actor.member_id
    unchosen["grants"].append(
        {"state": "approved", "grantee": {"kind": "member", "member": theirs}}
    )

    answer = _json(client, "PUT", f"{API}/draft", token, {"revision": 0, "graph": unchosen})

    problems = [(v["code"], v["path"], v["message"]) for v in answer.get_json()["violations"]]
    assert (
        "grantee_kind_missing",
        "grants[2].grantee.kind",
        "Choose who decides for this grant.",
    ) in problems
    assert (
        "grantee_member_missing",
        "grants[3].grantee.member",
        "Choose the member who decides.",
    ) in problems
    assert [c for c, p, _ in problems if p.startswith("grants[4]")] == ["grantee_member_unknown"]
    # No jargon of the model in any of them.
    for _code, _path, message in problems:
        assert "reference its kind" not in message and "target-gated" not in message


# --- what publishing changes -------------------------------------------------------------


def test_a_change_of_labels_alone_is_summarised_as_labels_before_and_after(client, login, acme):
    token = login(acme.admin)
    graph = _draft(client)["graph"]
    relabelled = copy.deepcopy(graph)
    relabelled["labels"]["en"] = "Buying something"
    submit = next(t for t in relabelled["transitions"] if t["key"] == "submit")
    submit["labels"]["en"] = "Send for approval"
    assert (
        _json(
            client, "PUT", f"{API}/draft", token, {"revision": 0, "graph": relabelled}
        ).status_code
        == 200
    )

    changes = client.get(f"{API}/changes", headers={"Accept": "application/json"}).get_json()

    said = [c["text"] for c in changes["labels"]["changed"]]
    assert said == ["Purchase request → Buying something", "Submit → Send for approval"]
    # Said once: not again among the changed transitions.
    assert changes["transitions"] == {"added": [], "removed": [], "changed": []}

    # A change beyond the labels is a change of the transition, as before.
    submit["comment"] = "required"
    assert (
        _json(
            client, "PUT", f"{API}/draft", token, {"revision": 1, "graph": relabelled}
        ).status_code
        == 200
    )
    changes = client.get(f"{API}/changes", headers={"Accept": "application/json"}).get_json()
    assert [c["key"] for c in changes["transitions"]["changed"]] == ["draft.submit"]
    assert [c["text"] for c in changes["labels"]["changed"]] == [
        "Purchase request → Buying something"
    ]


def test_publishing_from_the_flow_page_asks_first_with_what_changes(client, login, acme, globex):
    admin = acme.admin.actor
    token = login(acme.admin)
    # No draft: nothing to publish, and nothing to press.
    nothing = client.get(f"{FLOWS}/purchase_request/publish").get_data(as_text=True)
    assert "There is no draft to publish" in nothing
    assert 'data-testid="publish-confirm"' not in nothing

    graph = _draft(client)["graph"]
    relabelled = copy.deepcopy(graph)
    relabelled["states"][1]["labels"]["en"] = "Waiting for approval"
    assert (
        _json(
            client, "PUT", f"{API}/draft", token, {"revision": 0, "graph": relabelled}
        ).status_code
        == 200
    )
    flow_page = client.get(f"{FLOWS}/purchase_request/").get_data(as_text=True)
    assert f'href="{FLOWS}/purchase_request/publish"' in flow_page  # a link to the question

    asked = client.get(f"{FLOWS}/purchase_request/publish")

    assert asked.status_code == 200
    html = asked.get_data(as_text=True)
    assert "Publish version 2?" in html
    assert "Labels changed" in html and "Submitted → Waiting for approval" in html
    assert '<input type="hidden" name="revision" value="1">' in html
    assert queries.current_version(admin, "purchase_request").version == 1  # asked, not done

    done = client.post(
        f"{FLOWS}/purchase_request/publish", data={"revision": "1", "csrf_token": token}
    )
    assert done.status_code == 302
    assert queries.current_version(admin, "purchase_request").version == 2
    assert queries.current_version(globex.admin.actor, "purchase_request").version == 1


def test_the_publish_question_refuses_while_errors_stand_and_exists_only_here(
    app, client, login, acme, globex, make_member
):
    token = login(acme.admin)
    graph = _draft(client)["graph"]
    broken = copy.deepcopy(graph)
    broken["grants"] = []
    assert (
        _json(client, "PUT", f"{API}/draft", token, {"revision": 0, "graph": broken}).status_code
        == 200
    )

    html = client.get(f"{FLOWS}/purchase_request/publish").get_data(as_text=True)

    assert "fix it before publishing" in html or "fix them before publishing" in html
    assert 'data-testid="publish-confirm"' not in html
    # Globex's kinds and unknown ones have no such page; a member who is not an admin is refused.
    gus = globex.admin.actor
    drafts.save_draft(
        gus, "leave_request", drafts.get_draft(gus, "leave_request").graph, revision=0
    )
    assert client.get(f"{FLOWS}/no_such_kind/publish").status_code == 404
    assert client.get(f"{FLOWS}/Not-A-Kind/publish").status_code == 404
    assert client.get("/o/globex-test/flows/leave_request/publish").status_code in (403, 404)
    browser, _member_token = sign_in(app, make_member(acme.org, "Mo Member"))
    assert browser.get(f"{FLOWS}/purchase_request/publish").status_code == 403
