"""Exporting the audit search: ``export.csv`` and ``export.json`` hold the search's rows,
every page, in its order; money as strings with the currency, times ISO 8601 in UTC; a
cell a spreadsheet would run is written as text; every export is recorded (who, which
kind, the filter, how many rows) before its first row; past the configured maximum, a
message with the count and nothing recorded. Globex's matching document never shows."""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal
from html import unescape

import pytest
from sqlalchemy import select

from portal.audit.models import AuditExport, ExportKind
from portal.audit.queries.search import search
from portal.audit.services.exports import COLUMNS, amount_text, start_search_export
from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.domain.audit_query import AuditQuery
from portal.domain.errors import DomainError, NotFound
from tests.audit.search_world import WORD
from tests.audit.search_world import world as world
from tests.delegations.covers import CLAIM_FIELDS
from tests.factories import demo_browser

EXPORT = "/o/acme/audit/export"
ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


def _exports(org_id: int) -> list[AuditExport]:
    with unit_of_work(org_id) as uow:
        return list(uow.session.scalars(select(AuditExport).order_by(AuditExport.id)))


def _csv(body: str) -> list[dict[str, str]]:
    assert body.startswith("\ufeff")
    return list(csv.DictReader(io.StringIO(body[1:])))


@pytest.mark.parametrize("sort", ["-created", "amount", "-requester", "state"])
def test_the_csv_holds_the_searchs_rows_in_its_order_and_is_recorded(app, world, sort):
    browser, _ = demo_browser(app, "ravi")
    args = {"text": WORD, "sort": sort}
    answer = browser.get(EXPORT + ".csv", query_string=args)
    assert answer.status_code == 200
    assert answer.mimetype == "text/csv"
    day = clock.today_in("Asia/Kuala_Lumpur").isoformat()
    assert answer.headers["Content-Disposition"] == (
        f'attachment; filename="countersign-acme-audit-{day}.csv"'
    )
    rows = _csv(answer.get_data(as_text=True))
    found = search(world.auditor, AuditQuery(text=WORD, sort=sort))
    assert [r["reference"] for r in rows] == [r.reference for r in found.rows]
    assert list(rows[0]) == list(COLUMNS)
    recorded = _exports(world.auditor.org_id)
    assert [(e.member_id, e.kind, e.filters, e.rows) for e in recorded] == [
        (
            world.auditor.member_id,
            ExportKind.SEARCH_CSV,
            {"text": WORD} | ({"sort": sort} if sort != "-created" else {}),
            3,
        )
    ]
    assert recorded[0].request_id == answer.headers["X-Request-Id"]


def test_the_csvs_cells_say_what_the_document_is(app, world):
    browser, _ = demo_browser(app, "ravi")
    rows = _csv(
        browser.get(EXPORT + ".csv", query_string={"state": "rejected"}).get_data(as_text=True)
    )
    assert len(rows) == 1
    row = rows[0]
    assert row["reference"] == world.rejected.reference
    assert (row["kind"], row["kind_name"], row["flow_version"]) == (
        "expense_claim",
        "Expense claim",
        "1",
    )
    assert (row["amount"], row["currency"]) == ("1250.00", "MYR")
    assert (row["state"], row["state_name"], row["requester"]) == (
        "rejected",
        "Rejected",
        "Siti Aminah",
    )
    assert row["requester_member_id"] == str(world.person("siti").member_id)
    assert ISO_UTC.fullmatch(row["created_at"]) and ISO_UTC.fullmatch(row["last_decision_at"])
    assert row["discarded_at"] == ""
    assert row["title"] == f"{WORD} hotel, Kuching"


def test_the_json_holds_the_same_rows_with_money_as_strings(app, world):
    browser, _ = demo_browser(app, "aisha")  # an admin exports too
    answer = browser.get(EXPORT + ".json", query_string={"text": WORD, "sort": "-amount"})
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    assert answer.headers["Content-Disposition"].endswith('.json"')
    data = json.loads(answer.get_data(as_text=True))
    assert data["organization"] == "acme" and data["count"] == 3
    assert data["filters"] == {"text": WORD, "sort": "-amount"}
    assert ISO_UTC.fullmatch(data["exported_at"])
    refs = [d["reference"] for d in data["documents"]]
    assert refs == [world.rejected.reference, world.reviewed.reference, world.purchase.reference]
    first = data["documents"][0]
    assert list(first) == list(COLUMNS)
    assert (first["amount"], first["currency"], first["flow_version"]) == ("1250.00", "MYR", 1)
    assert first["discarded_at"] is None
    assert [e.kind for e in _exports(world.auditor.org_id)] == [ExportKind.SEARCH_JSON]


def test_an_empty_export_is_a_file_with_no_rows_and_is_recorded(app, world):
    browser, _ = demo_browser(app, "ravi")
    data = json.loads(browser.get(EXPORT + ".json?text=nothing-like-this").get_data(as_text=True))
    assert data["documents"] == [] and data["count"] == 0
    assert _csv(browser.get(EXPORT + ".csv?text=nothing-like-this").get_data(as_text=True)) == []
    assert [e.rows for e in _exports(world.auditor.org_id)] == [0, 0]


def test_a_title_a_spreadsheet_would_run_is_exported_as_text(app, world):
    siti = world.person("siti")
    documents.create_document(
        siti,
        kind="expense_claim",
        title='=HYPERLINK("http://evil.example","Zephyr")',
        amount=Decimal("1.00"),
        fields=CLAIM_FIELDS,
    )
    documents.create_document(
        siti, kind="expense_claim", title="-Zephyr+1", amount=Decimal("2.00"), fields=CLAIM_FIELDS
    )
    browser, _ = demo_browser(app, "ravi")
    rows = _csv(browser.get(EXPORT + ".csv?text=Zephyr&state=draft").get_data(as_text=True))
    titles = sorted(r["title"] for r in rows)
    assert titles == ["'-Zephyr+1", '\'=HYPERLINK("http://evil.example","Zephyr")']
    # The JSON is no spreadsheet: it says what was typed.
    data = json.loads(browser.get(EXPORT + ".json?text=Zephyr&state=draft").get_data(as_text=True))
    assert "-Zephyr+1" in [d["title"] for d in data["documents"]]


def test_past_the_maximum_the_export_says_how_many_and_how_to_narrow(app, world, monkeypatch):
    settings = app.extensions["portal.settings"]
    monkeypatch.setitem(app.extensions, "portal.settings", settings.with_(audit_export_max_rows=2))
    browser, _ = demo_browser(app, "ravi")
    answer = browser.get(EXPORT + ".csv", query_string={"text": WORD})
    assert answer.status_code == 422
    html = unescape(answer.get_data(as_text=True))
    assert "This export would hold 3 documents; at most 2 can be exported at once." in html
    assert "Narrow the search" in html
    assert 'href="/o/acme/audit/?text=Zephyr"' in html
    assert _exports(world.auditor.org_id) == []
    # Narrowed, it goes through.
    assert browser.get(EXPORT + ".csv", query_string={"text": "taxi"}).status_code == 200
    assert [e.rows for e in _exports(world.auditor.org_id)] == [1]


def test_the_maximum_counts_in_the_readers_numbers_at_the_service_layer(app, world):
    with pytest.raises(DomainError) as refused:
        start_search_export(world.auditor, AuditQuery(), "csv", request_id=None, max_rows=1)
    assert refused.value.code == "audit_export_too_large"
    assert refused.value.params == {"num": Decimal(3), "limit": Decimal(1)}
    assert _exports(world.auditor.org_id) == []


def test_an_export_of_a_search_that_could_not_be_read_is_refused(app, world):
    browser, _ = demo_browser(app, "ravi")
    answer = browser.get(EXPORT + ".csv", query_string={"amount_min": "١٢", "text": WORD})
    assert answer.status_code == 422
    html = unescape(answer.get_data(as_text=True))
    assert "Nothing was exported" in html and "digits 0–9" in html
    assert "amount_min=%D9%A1%D9%A2" in html  # back to the search as it was asked
    assert _exports(world.auditor.org_id) == []


def test_globex_exports_its_own_and_nothing_of_acmes(app, world, globex):
    theirs = start_search_export(globex.admin.actor, AuditQuery(), "json", request_id=None)
    data = json.loads("".join(theirs.chunks))
    assert [d["reference"] for d in data["documents"]] == [world.globex_reference]
    assert theirs.rows == 1 and data["organization"] == "globex-test"
    ours = start_search_export(world.auditor, AuditQuery(text="Globex"), "csv", request_id=None)
    assert ours.rows == 0 and _csv("".join(ours.chunks)) == []
    assert [e.rows for e in _exports(globex.org.id)] == [1]
    assert [e.rows for e in _exports(world.auditor.org_id)] == [0]


def test_nobody_else_exports_and_nothing_is_recorded(app, world):
    start_search_export(world.auditor, AuditQuery(), "csv", request_id=None)  # allowed first
    for who in ("siti", "hannah"):
        with pytest.raises(NotFound):
            start_search_export(world.person(who), AuditQuery(), "csv", request_id=None)
    with pytest.raises(NotFound):
        start_search_export(world.auditor, AuditQuery(), "xlsx", request_id=None)
    assert len(_exports(world.auditor.org_id)) == 1


@pytest.mark.parametrize(
    ("amount", "currency", "text"),
    [
        (Decimal("1250.0000"), "MYR", "1250.00"),
        (Decimal("1200.0000"), "JPY", "1200"),
        (Decimal("1.2500"), "KWD", "1.250"),
        (Decimal("0.0000"), "MYR", "0.00"),
        # An amount kept from before its currency's decimals were enforced: every place.
        (Decimal("12.3450"), "MYR", "12.345"),
    ],
)
def test_money_is_written_at_its_currencys_decimals_never_rounded(amount, currency, text):
    assert amount_text(amount, currency) == text


def test_a_head_request_learns_the_type_and_records_nothing(app, world):
    browser, _ = demo_browser(app, "ravi")
    got = browser.get(EXPORT + ".csv", query_string={"text": WORD})
    got.get_data()
    assert len(_exports(world.auditor.org_id)) == 1

    head = browser.head(EXPORT + ".csv", query_string={"text": WORD})

    assert head.status_code == 200 and head.mimetype == "text/csv"
    assert len(_exports(world.auditor.org_id)) == 1


@pytest.mark.parametrize("day", ["0001-01-01", "9999-12-31", "1899-12-31", "3000-01-01"])
def test_a_day_outside_the_years_anyone_means_is_left_out_not_a_500(app, world, day):
    browser, _ = demo_browser(app, "ravi")
    for name in ("created_from", "created_to", "decided_from", "decided_to"):
        page = browser.get("/o/acme/audit/", query_string={name: day})
        assert page.status_code == 200, (name, day)
        assert "this day was left out" in page.get_data(as_text=True)
        refused = browser.get(EXPORT + ".csv", query_string={name: day})
        assert refused.status_code == 422, (name, day)
    stalls = browser.get("/o/acme/audit/stalls", query_string={"from": day, "to": day})
    assert stalls.status_code == 422
    assert _exports(world.auditor.org_id) == []


def test_the_refusals_way_back_keeps_to_the_search(app, world):
    browser, _ = demo_browser(app, "ravi")
    page = browser.get(
        EXPORT + ".csv",
        query_string={"amount_min": "x", "_method": "POST", "_external": "1", "org": "globex"},
    )
    assert page.status_code == 422
    back = re.search(r'href="([^"]*)" data-testid="back-to-search"', page.get_data(as_text=True))
    assert back is not None
    link = unescape(back.group(1))
    assert link.startswith("/o/acme/audit/") and "globex" not in link
    assert "_method" not in link and "amount_min=x" in link
