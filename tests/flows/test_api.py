"""The flow editor's JSON API as acme's admin, with globex present and invisible: the
draft read and saved revision by revision, a colleague's save met with a conflict, bad
bodies refused by path with nothing saved, publishing refused while errors stand and
then allowed, versions read back, "start from this version", and the pickers."""

from __future__ import annotations

import copy
import json
from typing import Any

from portal.domain.actor import Role

# The routing preview's chart (Sales: Hana heads, Lee leads, Rita reports to Lee; Nora
# has no seat; Gina is globex's), shared as fixtures.
from tests.orgchart.conftest import today  # noqa: F401
from tests.orgchart.test_routing_views import chart  # noqa: F401

FLOW = "/o/acme-test/flows/leave_request/api"


def _json(client, method: str, url: str, token: str, body: Any = None):
    return client.open(
        url,
        method=method,
        data=json.dumps(body) if not isinstance(body, (bytes, str)) else body,
        headers={"X-CSRFToken": token, "Accept": "application/json"},
        content_type="application/json",
    )


def _get(client, url: str):
    return client.get(url, headers={"Accept": "application/json"})


def _save(client, token: str, revision: int, graph: dict):
    return _json(client, "PUT", f"{FLOW}/draft", token, {"revision": revision, "graph": graph})


def _unreachable(graph: dict) -> dict:
    """A state nothing leads to: an error (rule 1) the draft may hold but not publish."""
    broken = copy.deepcopy(graph)
    broken["states"].append(
        {"key": "limbo", "labels": {"en": "Limbo"}, "role": "pending", "x": 900, "y": 40}
    )
    return broken


def test_the_draft_opens_on_the_current_version_and_saves_revision_by_revision(client, login, acme):
    token = login(acme.admin)

    opened = _get(client, f"{FLOW}/draft")

    assert opened.status_code == 200
    draft = opened.get_json()
    assert (draft["revision"], draft["base_version"], draft["saved"]) == (0, 1, False)
    assert draft["graph"]["kind"] == "leave_request" and draft["errors"] == 0

    first = _save(client, token, 0, _unreachable(draft["graph"]))
    assert first.status_code == 200
    saved = first.get_json()
    assert (saved["revision"], saved["saved"], saved["publishable"]) == (1, True, False)
    unreachable = [v for v in saved["violations"] if v["ref"] == {"state": "limbo"}]
    assert unreachable and unreachable[0]["severity"] == "error"
    assert "Limbo" in unreachable[0]["message"] or "limbo" in unreachable[0]["message"]

    second = _save(client, token, 1, draft["graph"])
    assert (second.status_code, second.get_json()["revision"]) == (200, 2)
    assert second.get_json()["publishable"] is True


def test_a_save_from_a_stale_revision_is_a_conflict_and_overwrites_nothing(
    client, login, acme, make_member
):
    colleague = make_member(acme.org, "Carl Colleague", roles=(Role.ADMIN,))
    token = login(colleague)
    graph = _get(client, f"{FLOW}/draft").get_json()["graph"]
    saved = _save(client, token, 0, graph)
    assert saved.status_code == 200
    assert (saved.get_json()["updated_by"], saved.get_json()["updated_by_me"]) == (
        "Carl Colleague",
        True,
    )
    client.post("/logout", data={"csrf_token": token})
    token = login(acme.admin)
    opened = _get(client, f"{FLOW}/draft").get_json()
    assert (opened["updated_by"], opened["updated_by_me"]) == ("Carl Colleague", False)

    stale = _save(client, token, 0, _unreachable(graph))

    assert stale.status_code == 409
    error = stale.get_json()["error"]
    assert (error["code"], error["details"]["current"]) == ("stale_revision", 1)
    after = _get(client, f"{FLOW}/draft").get_json()
    assert after["revision"] == 1 and after["errors"] == 0


def test_a_body_that_is_not_a_graph_is_refused_by_path_and_nothing_is_saved(client, login, acme):
    token = login(acme.admin)
    graph = _get(client, f"{FLOW}/draft").get_json()["graph"]
    assert _save(client, token, 0, graph).status_code == 200

    not_a_number = copy.deepcopy(graph)
    not_a_number["grants"][0]["min_amount"] = "a lot"
    bad_floor = _save(client, token, 1, not_a_number)
    assert bad_floor.status_code == 422
    assert bad_floor.get_json()["error"]["details"]["path"] == "grants[0].min_amount"

    spaced = copy.deepcopy(graph)
    spaced["states"][0]["key"] = "first step"
    assert _save(client, token, 1, spaced).get_json()["revision"] == 2  # a violation, saved
    codes = [v["code"] for v in _get(client, f"{FLOW}/draft").get_json()["violations"]]
    assert "state_key_invalid" in codes

    for body in (b"{not json", b"[]", b'{"revision": "1", "graph": {}}', b'{"revision": 2}'):
        refused = _json(client, "PUT", f"{FLOW}/draft", token, body)
        assert refused.status_code in (400, 422), body
        assert "error" in refused.get_json()
    assert _get(client, f"{FLOW}/draft").get_json()["revision"] == 2


def test_publishing_is_refused_while_errors_stand_then_appends_the_next_version(
    client, login, acme
):
    token = login(acme.admin)
    graph = _get(client, f"{FLOW}/draft").get_json()["graph"]
    assert _save(client, token, 0, _unreachable(graph)).status_code == 200

    refused = _json(client, "POST", f"{FLOW}/draft/publish", token, {"revision": 1})
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert error["code"] == "flow_invalid"
    assert {"state": "limbo"} in [v["ref"] for v in error["details"]["violations"]]

    fixed = copy.deepcopy(graph)
    fixed["states"][1]["labels"]["en"] = "Waiting for the manager"
    assert _save(client, token, 1, fixed).status_code == 200
    changes = _get(client, f"{FLOW}/changes").get_json()
    # A relabelled state is said once, as its labels before and after.
    assert [c["key"] for c in changes["labels"]["changed"]] == [graph["states"][1]["key"]]
    assert changes["states"]["changed"] == []
    assert changes["transitions"] == {"added": [], "removed": [], "changed": []}

    published = _json(client, "POST", f"{FLOW}/draft/publish", token, {"revision": 2})
    assert published.status_code == 200
    assert published.get_json()["version"] == 2
    assert published.get_json()["draft"]["revision"] == 0  # consumed: v2 reopens unsaved
    again = _json(client, "POST", f"{FLOW}/draft/publish", token, {"revision": 2})
    assert (again.status_code, again.get_json()["error"]["code"]) == (409, "draft_gone")

    listed = _get(client, f"{FLOW}/versions").get_json()
    assert [v["version"] for v in listed] == [2, 1]
    v1 = _get(client, f"{FLOW}/versions/1").get_json()["graph"]
    assert v1["states"][1]["labels"]["en"] != "Waiting for the manager"
    assert _get(client, f"{FLOW}/versions/9").status_code == 404


def test_a_draft_starts_from_an_earlier_version_and_can_be_discarded(client, login, acme):
    token = login(acme.admin)
    graph = _get(client, f"{FLOW}/draft").get_json()["graph"]
    changed = copy.deepcopy(graph)
    changed["labels"]["en"] = "Time off"
    assert _save(client, token, 0, changed).status_code == 200

    restored = _json(
        client, "POST", f"{FLOW}/draft/from-version", token, {"version": 1, "revision": 1}
    )
    assert restored.status_code == 200
    assert (restored.get_json()["revision"], restored.get_json()["graph"]["labels"]) == (
        2,
        graph["labels"],
    )

    stale = _json(client, "POST", f"{FLOW}/draft/discard", token, {"revision": 1})
    assert stale.status_code == 409
    discarded = _json(client, "POST", f"{FLOW}/draft/discard", token, {"revision": 2})
    assert (discarded.status_code, discarded.get_json()["revision"]) == (200, 0)


def test_the_pickers_list_this_organizations_members_seats_and_roles(client, login, acme, globex):
    login(acme.admin)
    pickers = _get(client, f"{FLOW}/pickers").get_json()
    assert [m["label"].split(" <")[0] for m in pickers["members"]] == ["Alice Admin"]
    assert "Gus Globex" not in json.dumps(pickers)
    assert pickers["roles"] == list(Role.ALL)
    assert "levels_up" in pickers["grantee_kinds"]


def test_only_an_admin_of_this_organization_reaches_the_api(
    client, login, acme, globex, make_member
):
    member = make_member(acme.org, "Bob Builder")
    token = login(member)
    assert _get(client, f"{FLOW}/draft").status_code == 403
    graph = {"kind": "leave_request", "states": []}
    assert _save(client, token, 0, graph).status_code == 403

    client.post("/logout", data={"csrf_token": token})
    token = login(globex.admin)
    # Another organization's flows do not exist for globex's admin.
    assert _get(client, f"{FLOW}/draft").status_code == 404
    assert _get(client, "/o/globex-test/flows/leave_request/api/draft").status_code == 200


def test_the_editor_previews_who_would_approve_under_the_saved_draft(client, login, acme, chart):  # noqa: F811
    token = login(acme.admin)
    graph = _get(client, f"{FLOW}/draft").get_json()["graph"]
    assert _save(client, token, 0, graph).status_code == 200

    seated = _json(
        client, "POST", f"{FLOW}/route", token, {"member_id": chart.rita, "amount": "100"}
    )

    assert seated.status_code == 200
    steps = seated.get_json()["steps"]
    assert seated.get_json()["routable"] is True
    assert [(s["routable"], s["approvers"]) for s in steps] == [(True, ["Lee Lead"])]

    unseated = _json(
        client, "POST", f"{FLOW}/route", token, {"member_id": chart.nora, "amount": "100"}
    )
    (step,) = unseated.get_json()["steps"]
    assert step["routable"] is False and step["gaps"] and "Nora Nowhere" in step["gaps"][0]

    # Another organization's member, or no amount: refused with a reason, never a 500.
    other = _json(
        client, "POST", f"{FLOW}/route", token, {"member_id": chart.gina, "amount": "100"}
    )
    assert (other.status_code, other.get_json()["error"]["code"]) == (422, "unknown_requester")
    bad = _json(client, "POST", f"{FLOW}/route", token, {"member_id": chart.rita, "amount": "lots"})
    assert (bad.status_code, bad.get_json()["error"]["code"]) == (422, "amount_invalid")


def test_the_publish_summary_words_each_change_in_the_readers_language(
    client,
    login,
    acme,
    chart,  # noqa: F811
):
    token = login(acme.admin)
    graph = _get(client, f"{FLOW}/draft").get_json()["graph"]
    edited = copy.deepcopy(graph)
    before = edited["grants"][0]
    edited["grants"][0] = {
        **before,
        "grantee": {"kind": "position", "position": chart.head},
        "min_amount": "10000.00",
        "currency": "MYR",
        "on_vacancy": "refuse",
    }
    dropped = edited["transitions"].pop()
    assert _save(client, token, 0, edited).status_code == 200

    changes = _get(client, f"{FLOW}/changes").get_json()

    key = before["state"]
    where = next(s["labels"]["en"] for s in graph["states"] if s["key"] == key)
    assert changes["grants"] == {
        "added": [
            {
                "state": key,
                "text": f"{where} ({key}): HEAD — Head of sales, from MYR\u00a010,000.00, "
                "refused when the seat is empty",
            }
        ],
        "removed": [{"state": key, "text": f"{where} ({key}): the requester's superior"}],
    }
    (gone,) = changes["transitions"]["removed"]
    assert gone["key"] == f"{dropped['from']}.{dropped['key']}"
    assert gone["text"].startswith(f"{dropped['labels']['en']}: ")
    assert changes["states"] == {"added": [], "removed": [], "changed": []}

    # The same summary for a reader of Chinese: the org chart's names stay as written.
    client.post("/locale", data={"locale": "zh", "csrf_token": token})
    chinese = _get(client, f"{FLOW}/changes").get_json()["grants"]
    assert "申请人的上级" in chinese["removed"][0]["text"]
    assert "HEAD — Head of sales" in chinese["added"][0]["text"]


def _import(client, token: str, revision: object, body: bytes):
    return client.put(
        f"{FLOW}/draft/import?revision={revision}",
        data=body,
        headers={"X-CSRFToken": token, "Accept": "application/json"},
        content_type="application/json",
    )


def test_a_file_imported_into_the_draft_is_read_like_an_upload_and_a_bad_one_changes_nothing(
    client, login, acme
):
    token = login(acme.admin)
    exported = client.get("/o/acme-test/flows/leave_request/export.json").get_data()
    graph = json.loads(exported)
    graph["labels"]["en"] = "Leave, imported"

    imported = _import(client, token, 0, json.dumps(graph).encode())

    assert imported.status_code == 200
    assert imported.get_json()["revision"] == 1
    assert imported.get_json()["graph"]["labels"]["en"] == "Leave, imported"

    not_json = _import(client, token, 1, b'{"format": 1,\n  "kind": ')
    assert not_json.status_code == 422
    error = not_json.get_json()["error"]
    assert error["code"] == "graph_not_json"
    assert error["message"] == "The file is not valid JSON (line 2, column 11)."

    wrong_shape = copy.deepcopy(graph)
    wrong_shape["states"][0]["role"] = 5
    shaped = _import(client, token, 1, json.dumps(wrong_shape).encode())
    assert (shaped.status_code, shaped.get_json()["error"]["details"]["path"]) == (
        422,
        "states[0].role",
    )
    other_kind = {**graph, "kind": "expense_claim"}
    kinds = _import(client, token, 1, json.dumps(other_kind).encode())
    assert (kinds.status_code, kinds.get_json()["error"]["code"]) == (422, "graph_kind_mismatch")
    for revision, refused in (
        ("one", (422, "not_a_whole_number")),
        ("²", (422, "not_a_whole_number")),  # "²".isdigit() is true, and int() refuses it
        ("١٢", (422, "not_a_whole_number")),  # int() reads it as 12
        ("9" * 30, (422, "number_out_of_range")),
        ("9" * 5000, (400, "value_too_long")),  # refused before any view reads it
    ):
        no_revision = _import(client, token, revision, exported)
        assert (no_revision.status_code, no_revision.get_json()["error"]["code"]) == refused
    assert _import(client, token, 0, exported).status_code == 409  # someone saved revision 1

    kept = _get(client, f"{FLOW}/draft").get_json()
    assert (kept["revision"], kept["graph"]["labels"]["en"]) == (1, "Leave, imported")
