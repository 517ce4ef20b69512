"""The flow admin pages, driven through the Flask test client as acme's admin, with
globex present and invisible."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace

import pytest

from portal.accounts import services as accounts
from portal.domain import graph_json
from portal.domain.graph import Grant, Grantee, GranteeKind
from portal.flows import queries
from portal.flows.services import drafts, publishing, transfer
from portal.flows.services.listing import list_flows
from portal.flows.views.schema import GRAPH_SCHEMA
from tests.factories import sign_in

FLOWS = "/o/acme-test/flows"


def _upload(client, url: str, token: str, body: bytes, revision: int | str | None = None):
    data = {"file": (io.BytesIO(body), "flow.json"), "csrf_token": token}
    if revision is not None:
        data["revision"] = str(revision)
    return client.post(url, data=data, content_type="multipart/form-data")


def _field_error(html: str) -> str:
    match = re.search(r'<p class="field-error" id="file-error">([^<]*)</p>', html)
    assert match, "no error beside the file field"
    return match.group(1)


def _violation_codes(html: str) -> list[str]:
    table = re.search(r'data-testid="violations".*?</table>', html, re.S)
    assert table, "no table of violations on the page"
    return re.findall(r'<span class="code">([a-z_]+)</span></td>', table.group(0))


def _claim_document(actor) -> dict:
    return json.loads(transfer.export_flow(actor, "expense_claim", version=1).body)


def _save_without_grants(actor, kind: str = "expense_claim"):
    graph = drafts.get_draft(actor, kind).graph
    return drafts.save_draft(actor, kind, replace(graph, grants=()), revision=0)


# --- the list ----------------------------------------------------------------------------


def test_the_flows_list_shows_the_seeded_flows_to_an_admin(client, login, acme, globex):
    transfer.import_draft(
        globex.admin.actor,
        graph_json.dumps(
            replace(
                queries.current_version(globex.admin.actor, "leave_request").graph,
                kind="globex_trips",
            )
        ),
    )
    login(acme.admin)

    page = client.get(f"{FLOWS}/")

    assert page.status_code == 200
    html = page.get_data(as_text=True)
    for label, kind in (
        ("Expense claim", "expense_claim"),
        ("Purchase request", "purchase_request"),
        ("Leave request", "leave_request"),
    ):
        assert f'href="{FLOWS}/{kind}/">{label}</a>' in html
    assert "globex_trips" not in html
    assert 'data-testid="readiness"' not in html  # nothing needs attention yet


def test_the_flows_list_is_for_this_organizations_admins_only(
    app, client, login, acme, globex, make_member
):
    mo = make_member(acme.org, "Mo Member")
    login(acme.admin)
    assert client.get(f"{FLOWS}/").status_code == 200

    member_browser, _ = sign_in(app, mo)
    assert member_browser.get(f"{FLOWS}/").status_code == 403
    assert member_browser.get(f"{FLOWS}/expense_claim/").status_code == 403
    assert member_browser.get(f"{FLOWS}/expense_claim/export.json?version=1").status_code == 403
    assert client.get("/o/globex-test/flows/").status_code == 404
    assert client.get("/o/no-such-org/flows/").status_code == 404
    gus_browser, _ = sign_in(app, globex.admin)
    assert gus_browser.get(f"{FLOWS}/").status_code == 404
    assert gus_browser.get(f"{FLOWS}/expense_claim/export.json?version=1").status_code == 404


def test_the_flows_list_warns_about_grants_that_can_no_longer_resolve(
    client, login, acme, globex, make_member
):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    leave = queries.current_version(admin, "leave_request").graph
    bobs = Grant(state="approved", grantee=Grantee(kind=GranteeKind.MEMBER, member=bob.member_id))
    draft = drafts.save_draft(admin, "leave_request", replace(leave, grants=(bobs,)), revision=0)
    publishing.publish_draft(admin, "leave_request", revision=draft.revision)
    login(acme.admin)
    assert 'data-testid="readiness"' not in client.get(f"{FLOWS}/").get_data(as_text=True)

    accounts.deactivate_member(admin, bob.member_id)

    html = client.get(f"{FLOWS}/").get_data(as_text=True)
    readiness = re.search(r'<ul data-testid="readiness">.*?</ul>', html, re.S)
    assert readiness, "no readiness warnings on the page"
    text = " ".join(readiness.group(0).split())
    assert "leave_request v2</a>, grant on approved:" in text
    assert "It names Bob Builder, who is no longer an active member." in text


# --- one flow ----------------------------------------------------------------------------


def test_a_flow_page_shows_its_states_transitions_and_versions(client, login, acme, globex):
    login(acme.admin)

    page = client.get(f"{FLOWS}/expense_claim/")

    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "No draft. Below is version 1, the current one." in html
    for state in ("pending_review", "category_verified", "completed", "disputed"):
        assert f'<span class="code">{state}</span>' in html
    for transition in ("verify_category", "acknowledge", "uphold"):
        assert f'<span class="code">{transition}</span>' in html
    assert 'v1 <span class="tag">current</span>' in html
    assert "Countersign (seeded)" in html
    assert f'href="{FLOWS}/expense_claim/export.json?version=1"' in html


def test_an_unknown_or_another_organizations_kind_has_no_page(client, login, acme, globex):
    gus = globex.admin.actor
    travel = replace(queries.current_version(gus, "leave_request").graph, kind="travel_request")
    transfer.import_draft(gus, graph_json.dumps(travel))
    assert drafts.get_draft(gus, "travel_request").revision == 1
    login(acme.admin)
    assert client.get(f"{FLOWS}/leave_request/").status_code == 200

    assert client.get(f"{FLOWS}/travel_request/").status_code == 404
    assert client.get(f"{FLOWS}/no_such_kind/").status_code == 404
    assert client.get(f"{FLOWS}/Not-A-Kind/").status_code == 404


def test_a_draft_naming_another_organizations_people_shows_no_name_of_theirs(
    client, login, acme, globex, make_member
):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    leave = queries.current_version(admin, "leave_request").graph

    def naming(member_id: int):
        grant = Grant(state="approved", grantee=Grantee(kind=GranteeKind.MEMBER, member=member_id))
        return replace(leave, grants=(grant,))

    drafts.save_draft(admin, "leave_request", naming(bob.member_id), revision=0)
    login(acme.admin)
    assert "Bob Builder" in client.get(f"{FLOWS}/leave_request/").get_data(as_text=True)

    drafts.save_draft(admin, "leave_request", naming(globex.admin.member_id), revision=1)

    html = client.get(f"{FLOWS}/leave_request/").get_data(as_text=True)
    assert "Gus Globex" not in html
    assert f"member #{globex.admin.member_id}" in html
    assert _violation_codes(html) == ["grantee_member_unknown"]


# --- import ------------------------------------------------------------------------------


def test_uploading_a_flow_creates_its_draft_and_opens_it(client, login, acme, globex):
    admin = acme.admin.actor
    document = _claim_document(admin)
    document["labels"]["en"] = "Uploaded claims"
    token = login(acme.admin)

    response = _upload(client, f"{FLOWS}/import", token, json.dumps(document).encode())

    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"{FLOWS}/expense_claim/")
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Imported as draft revision 1. It is ready to publish." in page
    assert "Uploaded claims" in page
    draft = drafts.get_draft(admin, "expense_claim")
    assert (draft.revision, draft.graph.labels["en"]) == (1, "Uploaded claims")
    assert drafts.get_draft(globex.admin.actor, "expense_claim").revision == 0


def test_uploading_a_new_kind_starts_a_flow_that_was_never_published(client, login, acme, globex):
    admin = acme.admin.actor
    travel = replace(queries.current_version(admin, "leave_request").graph, kind="travel_request")
    token = login(acme.admin)

    response = _upload(client, f"{FLOWS}/import", token, graph_json.dumps(travel).encode())

    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"{FLOWS}/travel_request/")
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "This kind has never been published." in page
    assert "Not published yet." in page
    assert "Publish as version 1" in page
    listing = client.get(f"{FLOWS}/").get_data(as_text=True)
    row = re.search(
        r"<tr>\s*<th scope=\"row\"><a href=\"[^\"]*travel_request/\".*?</tr>", listing, re.S
    )
    assert row, "the new kind is not listed"
    assert "never published" in row.group(0)
    assert "revision 1" in row.group(0)
    assert "travel_request" not in {f.kind for f in list_flows(globex.admin.actor)}


def test_uploading_a_second_draft_of_a_kind_is_refused_beside_the_file(client, login, acme):
    body = json.dumps(_claim_document(acme.admin.actor)).encode()
    token = login(acme.admin)
    assert _upload(client, f"{FLOWS}/import", token, body).status_code == 302

    again = _upload(client, f"{FLOWS}/import", token, body)

    assert again.status_code == 422
    assert "There is already a draft of expense_claim" in _field_error(again.get_data(as_text=True))
    assert drafts.get_draft(acme.admin.actor, "expense_claim").revision == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"kind": "expense_claim", "states": [', "The file is not valid JSON (line 1, column"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "The file is not UTF-8 text."),
        (b"[" * 100_000 + b"]" * 100_000, "The file nests too deeply to be a flow."),
        (b"[]", "$ should be a JSON object."),
        (b'{"kind": "expense_claim"}', "states is missing."),
        (b'{"kind": 7, "states": []}', "kind should be a JSON string."),
        (b"NaN", "The file is not valid JSON"),
        (b'{"kind": "expense_claim", "states": [], "\\ud800": 1}', "The file is not UTF-8 text."),
        (b'{"kind": "\\udfff", "states": []}', "The file is not UTF-8 text."),
    ],
    ids=[
        "truncated",
        "binary",
        "deep",
        "array",
        "no-states",
        "kind-number",
        "nan",
        "surrogate-key",
        "surrogate-kind",
    ],
)
def test_an_upload_that_is_not_a_flow_is_refused_beside_the_file_field(
    client, login, acme, globex, body, message
):
    token = login(acme.admin)

    refused = _upload(client, f"{FLOWS}/import", token, body)

    assert refused.status_code == 422
    assert message in _field_error(refused.get_data(as_text=True))
    assert [f.draft_revision for f in list_flows(acme.admin.actor)] == [None] * 3


def test_a_misshapen_upload_names_the_path_of_the_problem(client, login, acme, globex):
    admin = acme.admin.actor
    document = _claim_document(admin)
    token = login(acme.admin)
    ok = _upload(client, f"{FLOWS}/expense_claim/import", token, json.dumps(document).encode(), 0)
    assert ok.status_code == 302
    drafts.discard_draft(admin, "expense_claim", revision=1)

    cases = [
        ("transitions", 3, "gate", 7, "transitions[3].gate should be a JSON string."),
        ("grants", 0, "min_amount", 10.5, "grants[0].min_amount must be an amount written"),
        ("states", 1, "colour", "red", "states[1].colour is not part of a flow."),
    ]
    for section, index, key, value, message in cases:
        broken = json.loads(json.dumps(document))
        broken[section][index][key] = value
        body = json.dumps(broken).encode()

        refused = _upload(client, f"{FLOWS}/expense_claim/import", token, body, 0)

        assert refused.status_code == 422, message
        assert message in _field_error(refused.get_data(as_text=True))
    assert drafts.get_draft(admin, "expense_claim").revision == 0


def test_a_label_no_page_could_print_is_refused_and_the_flow_page_still_opens(
    client, login, acme, globex
):
    document = _claim_document(acme.admin.actor)
    token = login(acme.admin)
    document["labels"]["en"] = "Claims ✓"
    ok = _upload(client, f"{FLOWS}/expense_claim/import", token, json.dumps(document).encode(), 0)
    assert ok.status_code == 302
    assert "Claims ✓" in client.get(f"{FLOWS}/expense_claim/").get_data(as_text=True)

    # A lone UTF-16 surrogate is valid JSON, but no page or export could encode it.
    document["labels"]["en"] = "Claims \ud800"
    body = json.dumps(document).encode()
    refused = _upload(client, f"{FLOWS}/expense_claim/import", token, body, 1)

    assert refused.status_code == 422
    assert _field_error(refused.get_data(as_text=True)) == "The file is not UTF-8 text."
    assert client.get(f"{FLOWS}/expense_claim/").status_code == 200
    assert client.get(f"{FLOWS}/").status_code == 200
    assert drafts.get_draft(acme.admin.actor, "expense_claim").graph.labels["en"] == "Claims ✓"


def test_importing_another_kind_over_a_flow_is_refused(client, login, acme, globex):
    leave = transfer.export_flow(acme.admin.actor, "leave_request", version=1).body.encode()
    token = login(acme.admin)
    assert _upload(client, f"{FLOWS}/leave_request/import", token, leave, 0).status_code == 302

    refused = _upload(client, f"{FLOWS}/expense_claim/import", token, leave, 0)

    assert refused.status_code == 422
    assert _field_error(refused.get_data(as_text=True)) == (
        "This file describes the flow “leave_request”, not “expense_claim”."
    )
    assert drafts.get_draft(acme.admin.actor, "expense_claim").revision == 0


def test_importing_over_a_draft_someone_saved_since_is_a_conflict(client, login, acme, globex):
    admin = acme.admin.actor
    body = json.dumps(_claim_document(admin)).encode()
    token = login(acme.admin)
    assert _upload(client, f"{FLOWS}/expense_claim/import", token, body, 0).status_code == 302
    assert _upload(client, f"{FLOWS}/expense_claim/import", token, body, 1).status_code == 302

    stale = _upload(client, f"{FLOWS}/expense_claim/import", token, body, 1)

    assert stale.status_code == 409
    assert "Someone saved this draft after you opened it" in stale.get_data(as_text=True)
    assert drafts.get_draft(admin, "expense_claim").revision == 2


# --- publish and discard -----------------------------------------------------------------


def test_publishing_the_draft_lists_the_new_version(client, login, acme, globex):
    admin = acme.admin.actor
    graph = drafts.get_draft(admin, "expense_claim").graph
    drafts.save_draft(admin, "expense_claim", graph, revision=0)
    token = login(acme.admin)
    assert "Publish as version 2" in client.get(f"{FLOWS}/expense_claim/").get_data(as_text=True)

    published = client.post(
        f"{FLOWS}/expense_claim/publish", data={"revision": "1", "csrf_token": token}
    )

    assert published.status_code == 302
    html = client.get(published.headers["Location"]).get_data(as_text=True)
    assert "Published version 2." in html
    assert 'v2 <span class="tag">current</span>' in html
    assert "Alice Admin" in html
    assert queries.current_version(admin, "expense_claim").version == 2
    assert queries.current_version(globex.admin.actor, "expense_claim").version == 1


def test_publishing_an_invalid_draft_shows_every_violation(client, login, acme, globex):
    admin = acme.admin.actor
    _save_without_grants(admin)
    token = login(acme.admin)

    refused = client.post(
        f"{FLOWS}/expense_claim/publish", data={"revision": "1", "csrf_token": token}
    )

    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert "The flow cannot be published" in html
    assert set(_violation_codes(html)) == {"gate_without_grant"}
    assert "transitions[1].gate" in html
    assert drafts.get_draft(admin, "expense_claim").revision == 1
    assert queries.current_version(admin, "expense_claim").version == 1


def test_a_page_opened_before_a_colleagues_import_cannot_publish(
    app, client, login, acme, globex, make_member
):
    admin = acme.admin.actor
    colleague = make_member(acme.org, "Carla Colleague", roles=("admin",))
    drafts.save_draft(
        admin, "expense_claim", drafts.get_draft(admin, "expense_claim").graph, revision=0
    )
    token = login(acme.admin)
    page = client.get(f"{FLOWS}/expense_claim/").get_data(as_text=True)
    seen = re.search(r'name="revision" value="(\d+)"', page)
    assert seen and seen.group(1) == "1"

    other, other_token = sign_in(app, colleague)
    document = _claim_document(admin)
    document["labels"]["en"] = "Carla's claims"
    body = json.dumps(document).encode()
    assert _upload(other, f"{FLOWS}/expense_claim/import", other_token, body, 1).status_code == 302

    stale = client.post(
        f"{FLOWS}/expense_claim/publish", data={"revision": seen.group(1), "csrf_token": token}
    )

    assert stale.status_code == 409
    html = stale.get_data(as_text=True)
    assert "it is now at revision 2" in html
    # The answer is the flow page as it is now, with the colleague's draft on it.
    assert "Carla&#39;s claims" in html
    assert queries.current_version(admin, "expense_claim").version == 1
    assert drafts.get_draft(admin, "expense_claim").graph.labels["en"] == "Carla's claims"


def test_publishing_a_stale_revision_is_a_conflict(client, login, acme, globex):
    admin = acme.admin.actor
    graph = drafts.get_draft(admin, "expense_claim").graph
    drafts.save_draft(admin, "expense_claim", graph, revision=0)
    drafts.save_draft(admin, "expense_claim", graph, revision=1)
    token = login(acme.admin)

    stale = client.post(
        f"{FLOWS}/expense_claim/publish", data={"revision": "1", "csrf_token": token}
    )

    assert stale.status_code == 409
    assert queries.current_version(admin, "expense_claim").version == 1
    fresh = client.post(
        f"{FLOWS}/expense_claim/publish", data={"revision": "2", "csrf_token": token}
    )
    assert fresh.status_code == 302


def test_discarding_the_draft_goes_back_to_the_current_version(client, login, acme, globex):
    admin = acme.admin.actor
    _save_without_grants(admin)
    _save_without_grants(globex.admin.actor)
    token = login(acme.admin)
    stale = client.post(
        f"{FLOWS}/expense_claim/discard", data={"revision": "0", "csrf_token": token}
    )
    assert stale.status_code == 409

    discarded = client.post(
        f"{FLOWS}/expense_claim/discard", data={"revision": "1", "csrf_token": token}
    )

    assert discarded.status_code == 302
    html = client.get(discarded.headers["Location"]).get_data(as_text=True)
    assert "The draft was discarded." in html
    assert "No draft. Below is version 1, the current one." in html
    assert drafts.get_draft(globex.admin.actor, "expense_claim").revision == 1


def test_a_post_without_a_revision_changes_nothing(client, login, acme, globex):
    admin = acme.admin.actor
    _save_without_grants(admin)
    token = login(acme.admin)

    for action in ("publish", "discard"):
        for revision in ("", "abc", "-1"):
            refused = client.post(
                f"{FLOWS}/expense_claim/{action}", data={"revision": revision, "csrf_token": token}
            )
            assert refused.status_code == 422, (action, revision)
    assert drafts.get_draft(admin, "expense_claim").revision == 1


def test_posts_without_a_csrf_token_are_refused(client, login, acme, globex):
    admin = acme.admin.actor
    _save_without_grants(admin)
    body = json.dumps(_claim_document(admin)).encode()
    login(acme.admin)

    for url, data in (
        (f"{FLOWS}/expense_claim/publish", {"revision": "1"}),
        (f"{FLOWS}/expense_claim/discard", {"revision": "1"}),
        (f"{FLOWS}/import", {"file": (io.BytesIO(body), "flow.json")}),
        (f"{FLOWS}/expense_claim/import", {"file": (io.BytesIO(body), "f.json"), "revision": "1"}),
    ):
        refused = client.post(url, data=data, content_type="multipart/form-data")
        assert refused.status_code == 400, url
    assert drafts.get_draft(admin, "expense_claim").revision == 1


def test_a_non_admin_cannot_publish_or_discard(app, client, login, acme, globex, make_member):
    admin = acme.admin.actor
    graph = drafts.get_draft(admin, "expense_claim").graph
    drafts.save_draft(admin, "expense_claim", graph, revision=0)
    drafts.save_draft(
        admin, "leave_request", drafts.get_draft(admin, "leave_request").graph, revision=0
    )
    token = login(acme.admin)
    assert (
        client.post(
            f"{FLOWS}/leave_request/discard", data={"revision": "1", "csrf_token": token}
        ).status_code
        == 302
    )

    browser, member_token = sign_in(app, make_member(acme.org, "Mo Member"))
    for action in ("publish", "discard"):
        refused = browser.post(
            f"{FLOWS}/expense_claim/{action}", data={"revision": "1", "csrf_token": member_token}
        )
        assert refused.status_code == 403
    assert drafts.get_draft(admin, "expense_claim").revision == 1


# --- export ------------------------------------------------------------------------------


def test_a_version_downloads_as_a_json_attachment(client, login, acme, globex):
    admin = acme.admin.actor
    login(acme.admin)

    response = client.get(f"{FLOWS}/expense_claim/export.json?version=1")

    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="expense_claim-v1.json"'
    )
    exported = graph_json.loads(response.get_data())
    assert exported == queries.get_version(admin, "expense_claim", 1).graph
    assert client.get(f"{FLOWS}/expense_claim/export.json?version=7").status_code == 404


def test_an_export_without_a_version_gives_the_draft_else_the_current_version(
    client, login, acme, globex
):
    admin = acme.admin.actor
    login(acme.admin)
    current = client.get(f"{FLOWS}/expense_claim/export.json")
    assert current.status_code == 200
    assert graph_json.loads(current.get_data()).grants != ()

    _save_without_grants(admin)

    drafted = client.get(f"{FLOWS}/expense_claim/export.json")
    assert drafted.status_code == 200
    assert drafted.headers["Content-Disposition"].startswith("attachment;")
    assert graph_json.loads(drafted.get_data()).grants == ()
    assert client.get(f"{FLOWS}/no_such_kind/export.json").status_code == 404


def test_forged_kinds_and_numbers_are_refused_not_crashed_on(client, login, acme, globex):
    admin = acme.admin.actor
    _save_without_grants(admin)
    token = login(acme.admin)
    assert client.get(f"{FLOWS}/expense_claim/export.json?version=1").status_code == 200

    huge = "99999999999999999999"
    for url in (
        f"{FLOWS}/expense_claim/export.json?version={huge}",
        f"{FLOWS}/expense_claim/export.json?version=0",
        f"{FLOWS}/bad%00kind/export.json?version=1",
        f"{FLOWS}/bad%00kind/export.json",
        f"{FLOWS}/bad%00kind/",
    ):
        assert client.get(url).status_code == 404, url
    for action in ("publish", "discard"):
        assert (
            client.post(
                f"{FLOWS}/bad%00kind/{action}", data={"revision": "1", "csrf_token": token}
            ).status_code
            == 404
        )
    body = json.dumps(_claim_document(admin)).encode()
    imported = _upload(client, f"{FLOWS}/expense_claim/import", token, body, huge)
    assert imported.status_code == 422
    assert _field_error(imported.get_data(as_text=True)) == "The request could not be understood."
    discarded = client.post(
        f"{FLOWS}/expense_claim/discard", data={"revision": huge, "csrf_token": token}
    )
    assert discarded.status_code == 422
    published = client.post(
        f"{FLOWS}/expense_claim/publish", data={"revision": huge, "csrf_token": token}
    )
    # A revision beyond any the database can hold is refused before it is compared.
    assert published.status_code == 422
    assert drafts.get_draft(admin, "expense_claim").revision == 1


# --- the JSON schema ---------------------------------------------------------------------


def test_the_graph_schema_is_served_as_json(client):
    assert GRAPH_SCHEMA.is_file(), "portal/domain/graph.schema.json is missing"

    response = client.get("/schema/flow-graph.json")

    assert response.status_code == 200
    assert response.mimetype == "application/schema+json"
    schema = json.loads(response.get_data())
    assert schema.get("type") == "object"
