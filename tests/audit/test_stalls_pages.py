"""Where approvals stall, in the browser's view: the page draws four SVG charts, each with
a title that summarises it and a table with the exact figures; each chart's CSV holds
what its table holds and is recorded as an export. Bad filters get a message, never a
500; Globex sees none of the demo organization's figures; and to a member who is not an
auditor or an admin, the page and every CSV do not exist."""

from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser

import pytest
from sqlalchemy import select

from portal.audit.models import AuditExport
from portal.core.uow import unit_of_work
from tests.audit.stall_history import (
    PERIOD,
    StallWorld,
)
from tests.audit.stall_history import stall_world as stall_world
from tests.factories import demo_browser, sign_in

PAGE = "/o/acme/audit/stalls"
CSV = "/o/acme/audit/stalls.csv"
CHARTS = ("states", "waiting", "approvers", "weekly")


class _Tables(HTMLParser):
    """The body rows of each ``data-testid="table-…"`` table: (text, data-value) cells."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[tuple[str, str | None]]]] = {}
        self._table: str | None = None
        self._in_body = False
        self._cell: list[str] | None = None
        self._value: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and (a.get("data-testid") or "").startswith("table-"):
            self._table = (a["data-testid"] or "").removeprefix("table-")
            self.tables[self._table] = []
        elif self._table and tag == "tbody":
            self._in_body = True
        elif self._table and self._in_body and tag == "tr":
            self.tables[self._table].append([])
        elif self._table and self._in_body and tag in ("th", "td"):
            self._cell, self._value = [], a.get("data-value")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self._cell is not None and self._table:
            text = " ".join("".join(self._cell).split())
            self.tables[self._table][-1].append((text, self._value))
            self._cell = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _tables(html: str) -> dict[str, list[list[tuple[str, str | None]]]]:
    parser = _Tables()
    parser.feed(html)
    return parser.tables


def _exports(org_id: int) -> list[AuditExport]:
    with unit_of_work(org_id) as uow:
        return list(uow.session.scalars(select(AuditExport).order_by(AuditExport.id)))


def test_the_auditor_reads_four_charts_each_with_its_title_and_table(app, stall_world: StallWorld):
    browser, _ = demo_browser(app, "ravi")
    response = browser.get(PAGE, query_string=PERIOD)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    for chart in CHARTS:
        svg = re.search(
            rf'<svg [^>]*data-testid="chart-{chart}"[^>]*>\s*<title id="([^"]+)">([^<]+)</title>',
            html,
        )
        assert svg, chart
        assert f'aria-labelledby="{svg.group(1)}"' in html and 'role="img"' in html
    assert "The longest median is in Submitted: 8 h (90th percentile 1 d)." in html
    assert "3 documents are waiting now, 1 of them overdue; the most in Submitted (3)." in html
    assert "3 approvals in all; the most by Nurul Huda (2)." in html
    assert "Over 2 weeks: 7 submitted, 4 finished." in html
    # No inline style anywhere: the CSP would refuse it.
    assert "style=" not in html
    tables = _tables(html)
    assert tables["states"] == [
        [("Draft", "draft"), ("7", None), ("1 h", "3600"), ("1 h 24 min", "5040"), ("2 h", "7200")],
        [
            ("Submitted", "submitted"),
            ("4", None),
            ("8 h", "28800"),
            ("1 d", "86400"),
            ("1 d 6 h", "108000"),
        ],
    ]
    assert tables["waiting"] == [
        [("Submitted", "submitted"), ("3", None), ("1", None), ("6 d", "518400")]
    ]
    nurul = stall_world.person("nurul").member_id
    grace = stall_world.person("grace").member_id
    assert tables["approvers"] == [
        [("Nurul Huda", str(nurul)), ("2", None), ("0", None), ("Approve: 2", None)],
        [("Grace Lee", str(grace)), ("1", None), ("0", None), ("Approve: 1", None)],
    ]
    assert [[cell[0] for cell in row] for row in tables["weekly"]] == [
        ["2026-W45", "2–8 Nov 2026", "6", "4"],
        ["2026-W46", "9–15 Nov 2026", "1", "0"],
    ]
    # The SVG draws the same figures: each bar's title is its table's number.
    assert "<title>8 h</title>" in html and "<title>1 d</title>" in html


@pytest.mark.parametrize("chart", CHARTS)
def test_each_csv_holds_its_tables_figures_and_is_recorded(app, stall_world: StallWorld, chart):
    browser, _ = demo_browser(app, "ravi")
    table = _tables(browser.get(PAGE, query_string=PERIOD).get_data(as_text=True))[chart]
    before = len(_exports(stall_world.auditor.org_id))
    response = browser.get(CSV, query_string={**PERIOD, "chart": chart})
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert (
        f"stalls-{chart}-purchase_request-all-2026-11-02-2026-11-15.csv"
        in response.headers["Content-Disposition"]
    )
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True).lstrip("\ufeff"))))
    header, body = rows[0], rows[1:]
    # The words of each cell, then (where the column has one) its exact value.
    flattened = []
    for row in table:
        line = []
        for text, value in row:
            line.append(text)
            if value is not None:
                line.append(value)
        flattened.append(line)
    exact_columns = {
        "state_key",
        "median_seconds",
        "p90_seconds",
        "longest_seconds",
        "longest_wait_seconds",
        "member_id",
        "monday",
    }
    kept = [i for i, name in enumerate(header) if name not in exact_columns]
    assert [[r[i] for i in kept] for r in body] == [[cell[0] for cell in row] for row in table]
    assert [[v for v in r if v] for r in body] == [[v for v in r if v] for r in flattened]
    exports = _exports(stall_world.auditor.org_id)
    assert len(exports) == before + 1
    record = exports[-1]
    assert (record.kind, record.rows, record.member_id) == (
        "stalls_csv",
        len(table),
        stall_world.auditor.member_id,
    )
    assert record.filters == {
        "chart": chart,
        "flow": "purchase_request",
        "version": "all",
        "from": "2026-11-02",
        "to": "2026-11-15",
    }


def test_globex_reads_its_own_figures_and_none_of_acmes(app, stall_world: StallWorld):
    browser, _ = sign_in(app, stall_world.globex_auditor)
    html = browser.get("/o/globex-test/audit/stalls", query_string=PERIOD).get_data(as_text=True)
    assert "Bea Boss" in html
    assert "Nurul Huda" not in html and "Grace Lee" not in html
    tables = _tables(html)
    assert tables["waiting"][0][1:3] == [("1", None), ("1", None)]
    csv_text = browser.get(
        "/o/globex-test/audit/stalls.csv", query_string={**PERIOD, "chart": "approvers"}
    ).get_data(as_text=True)
    assert "Bea Boss" in csv_text and "Nurul" not in csv_text
    # Their auditor cannot reach acme's page at all.
    assert browser.get(PAGE, query_string=PERIOD).status_code == 404


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"flow": "no_such_flow"}, "This organization has no published flow “no_such_flow”."),
        ({"flow": "<b>x</b>"}, "no published flow “&lt;b&gt;x&lt;/b&gt;”"),
        ({"version": "7"}, "This flow has no published version “7”."),
        ({"version": "٧"}, "This flow has no published version “٧”."),
        ({"from": "2026-11-31"}, "“2026-11-31” is not a date (use YYYY-MM-DD)."),
        ({"from": "٢٠٢٦-١١-٠٢"}, "is not a date"),
        ({"from": "9" * 900}, "is not a date"),
        (
            {"from": "2026-11-15", "to": "2026-11-02"},
            "The end date must not be before the start date.",
        ),
        ({"from": "1900-01-01"}, "A period may be at most 732 days long."),
    ],
)
def test_a_bad_filter_gets_a_message_and_the_form_never_a_500(
    app, stall_world: StallWorld, args, message
):
    browser, _ = demo_browser(app, "ravi")
    response = browser.get(PAGE, query_string={**PERIOD, **args})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'data-testid="stall-refusal"' in html and message in html
    assert 'data-testid="stall-filters"' in html and "<svg" not in html
    before = len(_exports(stall_world.auditor.org_id))
    refused = browser.get(CSV, query_string={**PERIOD, **args, "chart": "states"})
    assert refused.status_code == 422
    assert message in refused.get_data(as_text=True)
    assert len(_exports(stall_world.auditor.org_id)) == before


def test_the_request_layer_refuses_control_characters_and_huge_values(app, stall_world: StallWorld):
    browser, _ = demo_browser(app, "ravi")
    assert (
        browser.get(PAGE, query_string={**PERIOD, "flow": "purchase\x00request"}).status_code == 400
    )
    assert browser.get(PAGE, query_string={**PERIOD, "to": "9" * 5000}).status_code == 400


def test_an_unknown_chart_is_not_found_and_nothing_is_recorded(app, stall_world: StallWorld):
    browser, _ = demo_browser(app, "ravi")
    before = len(_exports(stall_world.auditor.org_id))
    for chart in ("", "pie", "states ", "STATES", "<x>"):
        assert browser.get(CSV, query_string={**PERIOD, "chart": chart}).status_code == 404
    assert len(_exports(stall_world.auditor.org_id)) == before


def test_an_admin_reads_it_too(app, stall_world: StallWorld):
    browser, _ = demo_browser(app, "aisha")
    assert browser.get(PAGE, query_string=PERIOD).status_code == 200
    assert browser.get(CSV, query_string={**PERIOD, "chart": "weekly"}).status_code == 200


@pytest.mark.parametrize("name", ["siti", "nurul", "zainal"])
def test_a_member_who_is_not_an_auditor_gets_404_on_the_page_and_every_csv(
    app, stall_world: StallWorld, name
):
    browser, _ = demo_browser(app, name)
    before = len(_exports(stall_world.auditor.org_id))
    assert browser.get(PAGE, query_string=PERIOD).status_code == 404
    for chart in CHARTS:
        assert browser.get(CSV, query_string={**PERIOD, "chart": chart}).status_code == 404
    assert len(_exports(stall_world.auditor.org_id)) == before


def test_signed_out_visitors_are_sent_to_sign_in(app, stall_world: StallWorld):
    visitor = app.test_client()
    for url in (PAGE, CSV + "?chart=states"):
        response = visitor.get(url)
        assert response.status_code in (302, 401)
