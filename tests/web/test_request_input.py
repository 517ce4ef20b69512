"""The request layer: what any form, query, path or JSON body is refused for, once, for
every page, and what it hands the views (NFC text, ASCII whole numbers, a request id)."""

from __future__ import annotations

import json
import unicodedata

import pytest

from portal.domain.errors import DomainError
from portal.domain.text_input import (
    JsonRefused,
    clean_text,
    is_id,
    json_whole_number,
    loads_strict,
    whole_number,
)

MEMBERS = "/o/acme-test/admin/members/"
FLOW_API = "/o/acme-test/flows/leave_request/api"

# --- the rules, without an app ---------------------------------------------------------


def test_text_is_normalised_and_control_characters_are_refused_by_field():
    decomposed = "Cafe\u0301"  # "Café" typed as e + combining acute
    assert clean_text(decomposed, field="name", limit=20) == unicodedata.normalize(
        "NFC", decomposed
    )
    assert clean_text("two\nlines", field="comment", multiline=True, limit=20) == "two\nlines"
    for hostile in ("nul\x00", "bell\x07", "esc\x1b[2J", "del\x7f", "c1\x85", "line\nbreak"):
        with pytest.raises(DomainError) as refused:
            clean_text(hostile, field="title", limit=100)
        assert (refused.value.code, refused.value.field) == ("control_character", "title")
    with pytest.raises(DomainError, match="control_character"):
        clean_text("nul\x00", field="comment", multiline=True, limit=20)
    with pytest.raises(DomainError, match="value_too_long"):
        clean_text("x" * 21, field="title", limit=20)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("١٢٣", "not_a_whole_number"),  # int() reads Arabic-Indic digits
        ("²", "not_a_whole_number"),  # isdigit() is true, int() refuses
        ("1_000", "not_a_whole_number"),  # int() reads it as 1000
        (" 12", "not_a_whole_number"),  # int() strips it
        ("12 34", "not_a_whole_number"),
        ("-1", "not_a_whole_number"),
        ("", "not_a_whole_number"),
        ("9" * 5000, "number_out_of_range"),  # int() raises past 4,300 digits
        ("9223372036854775808", "number_out_of_range"),  # one past BIGINT
    ],
)
def test_a_whole_number_is_ascii_digits_within_bounds(text, code):
    assert whole_number("42", field="page") == 42
    with pytest.raises(DomainError) as refused:
        whole_number(text, field="page")
    assert refused.value.code == code


def test_ids_and_json_numbers_are_bounded_too():
    assert is_id("1") and is_id(str(2**63 - 1))
    assert not any(is_id(t) for t in ("0", str(2**63), "١", "²", "1e3", ""))
    assert json_whole_number(7, field="revision") == 7
    for value in (True, 1.5, "7", -1, 2**63, None):
        with pytest.raises(DomainError):
            json_whole_number(value, field="revision")


def test_json_is_read_strictly():
    assert loads_strict('{"amount": 1.10, "a": ["x\\ny"]}') == {
        "amount": __import__("decimal").Decimal("1.10"),
        "a": ["x\ny"],
    }
    for text, code in (
        ('{"kind": "a", "kind": "b"}', "json_duplicate_key"),
        ('{"a": {"b": 1, "b": 2}}', "json_duplicate_key"),
        ('{"a": NaN}', "json_invalid"),
        ('{"a": 1', "json_invalid"),
        ("[" * 100_000 + "]" * 100_000, "json_too_deep"),
        ("9" * 5000, "json_invalid"),
    ):
        with pytest.raises(JsonRefused) as refused:
            loads_strict(text)
        assert refused.value.code == code, text[:20]
    with pytest.raises(DomainError, match="control_character"):
        loads_strict('{"a": "nul\\u0000"}')


# --- the layer, in front of every page ------------------------------------------------------


def test_a_nul_anywhere_in_a_request_is_a_clear_400_not_a_500(client, login, acme, globex):
    token = login(acme.admin)
    assert client.get("/o/acme-test/documents/?kind=expense_claim").status_code == 200

    for url in (
        "/o/acme-test/documents/?kind=expense%00claim",
        "/o/acme-test/documents/?state=%1b",
        "/o/acme-test/admin/chart/routing?kind=purchase_request%00",
    ):
        refused = client.get(url)
        assert refused.status_code == 400, url
        assert "contains a control character" in refused.get_data(as_text=True)
    for url in ("/o/acme-test/documents/EXP%00", "/o/acme-test/flows/bad%00kind/"):
        assert client.get(url).status_code == 404, url
    added = client.post(
        MEMBERS, data={"email": "nul\x00@example.test", "name": "N", "csrf_token": token}
    )
    assert added.status_code == 400
    assert "“email” contains a control character" in added.get_data(as_text=True)


def test_line_breaks_pass_only_where_a_view_takes_several_lines(client, login, acme):
    token = login(acme.admin)
    page = client.post(
        "/o/acme-test/documents/new/leave_request",
        data={
            "title": "Leave",
            "amount": "0",
            "description": "line one\nline two",
            "csrf_token": token,
        },
    )
    assert page.status_code in (200, 302, 422)  # the description is taken as it is
    assert "control character" not in page.get_data(as_text=True)
    one_line = client.post(
        "/o/acme-test/documents/new/leave_request",
        data={"title": "Leave\nagain", "amount": "0", "csrf_token": token},
    )
    assert one_line.status_code == 400
    assert "“title” contains a control character" in one_line.get_data(as_text=True)


def test_ids_in_the_path_are_ascii_digits_naming_a_storable_row(client, login, acme):
    login(acme.admin)
    assert client.get(f"{MEMBERS}{acme.admin.member_id}").status_code == 200
    for forged in ("١", "%C2%B2", "9" * 5000, str(2**63), "0", "1_0"):
        assert client.get(f"{MEMBERS}{forged}").status_code == 404, forged


def test_json_bodies_with_a_key_twice_are_refused_and_change_nothing(client, login, acme):
    token = login(acme.admin)
    draft = client.get(f"{FLOW_API}/draft").get_json()
    body = json.dumps({"revision": draft["revision"], "graph": draft["graph"]})
    twice = '{"revision": 0, ' + body[1:]  # "revision" first as 0, then the real one
    refused = client.put(
        f"{FLOW_API}/draft",
        data=twice,
        headers={
            "X-CSRFToken": token,
            "Content-Type": "application/json",
            "Accept": "application/json",
        },
    )
    assert refused.status_code == 400
    assert refused.get_json()["error"]["code"] == "json_duplicate_key"
    assert client.get(f"{FLOW_API}/draft").get_json()["revision"] == draft["revision"]
    saved = client.put(
        f"{FLOW_API}/draft",
        data=body,
        headers={
            "X-CSRFToken": token,
            "Content-Type": "application/json",
            "Accept": "application/json",
        },
    )
    assert saved.status_code == 200


def test_json_with_tenant_data_is_never_cached(client, login, acme):
    login(acme.admin)
    answer = client.get(f"{FLOW_API}/draft")
    assert answer.status_code == 200
    assert answer.headers["Cache-Control"] == "no-store"


def test_the_request_id_is_the_servers_and_a_trusted_proxys_only_when_well_formed(
    app, client, monkeypatch
):
    mine = client.get("/login").headers["X-Request-Id"]
    assert len(mine) == 32 and mine != client.get("/login").headers["X-Request-Id"]
    offered = "edge-4f9c2a1b-7e6d"
    # Straight from a client, an offered id is ignored: it never reaches the history.
    assert client.get("/login", headers={"X-Request-Id": offered}).headers["X-Request-Id"] != (
        offered
    )

    monkeypatch.setitem(app.config, "PORTAL_TRUST_REQUEST_ID", True)  # behind a proxy
    assert client.get("/login", headers={"X-Request-Id": offered}).headers["X-Request-Id"] == (
        offered
    )
    for hostile in ("x" * 65, "short", "has space here", "semi;colon-1234", "ünïcode-12345"):
        answered = client.get("/login", headers={"X-Request-Id": hostile}).headers["X-Request-Id"]
        assert answered != hostile and len(answered) == 32


def test_a_links_secret_never_reaches_the_log():
    from portal.web.errors import _loggable

    assert _loggable("/o/acme/documents/EXP-1") == "/o/acme/documents/EXP-1"
    assert _loggable("/invitations/eyJvIjoxfQ.abc/join") == "/invitations/…/join"
    assert _loggable("/password/reset/eyJ1IjoxfQ.xyz") == "/password/reset/…"
