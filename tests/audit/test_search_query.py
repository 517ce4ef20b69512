"""The audit search's filter as the query string holds it (``domain.audit_query``): every
value read strictly, each bad one refused on its own and left out while the rest still
applies, and one canonical spelling for links and the record of an export. No app."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from portal.domain.audit_query import DEFAULT_SORT, AuditQuery, parse_audit_query
from portal.domain.spreadsheet import safe_cell


def _codes(args: dict[str, str]) -> list[tuple[str, str | None]]:
    return [(e.code, e.field) for e in parse_audit_query(args)[1]]


def test_every_filter_is_read_into_its_type():
    query, refusals = parse_audit_query(
        {
            "kind": "expense_claim",
            "state": "rejected",
            "requester_id": "12",
            "approver_id": "13",
            "delegate_id": "14",
            "created_from": "2026-11-01",
            "created_to": "2026-11-30",
            "decided_from": "2026-12-01",
            "decided_to": "2026-12-02",
            "amount_min": "1,000.50",
            "amount_max": "5000",
            "reference": "exp-2026",
            "text": "  taxi  ",
            "sort": "amount",
            "page": "3",
        }
    )
    assert refusals == []
    assert query == AuditQuery(
        kind="expense_claim",
        state="rejected",
        requester_id=12,
        approver_id=13,
        delegate_id=14,
        created_from=date(2026, 11, 1),
        created_to=date(2026, 11, 30),
        decided_from=date(2026, 12, 1),
        decided_to=date(2026, 12, 2),
        amount_min=Decimal("1000.5"),
        amount_max=Decimal("5000"),
        reference="EXP-2026",
        text="taxi",
        sort="amount",
        page=3,
    )
    assert query.filtered


def test_the_canonical_query_string_reads_back_as_the_same_search():
    query, _ = parse_audit_query(
        {"amount_min": "10.50", "amount_max": "1,000", "created_from": "2026-01-05", "page": "2"}
    )
    args = query.to_args()
    assert args == {
        "amount_min": "10.5",
        "amount_max": "1000",
        "created_from": "2026-01-05",
        "page": "2",
    }
    assert parse_audit_query(args) == (query, [])
    # The export and its record carry the filter, not the page; defaults are left out.
    assert query.filter_args() == {k: v for k, v in args.items() if k != "page"}
    assert AuditQuery().to_args() == {} and not AuditQuery().filtered
    assert AuditQuery(sort=DEFAULT_SORT, page=1).to_args() == {}


def test_empty_values_are_no_filter():
    assert parse_audit_query({"kind": "", "amount_min": "  ", "page": ""}) == (AuditQuery(), [])


@pytest.mark.parametrize(
    ("args", "code", "field"),
    [
        ({"amount_min": "abc"}, "audit_amount_invalid", "amount_min"),
        ({"amount_min": "１２３"}, "audit_amount_invalid", "amount_min"),  # full-width digits
        ({"amount_max": "١٢٣"}, "audit_amount_invalid", "amount_max"),  # Arabic-Indic
        ({"amount_min": "1e5"}, "audit_amount_invalid", "amount_min"),
        ({"amount_min": "NaN"}, "audit_amount_invalid", "amount_min"),
        ({"amount_min": "9" * 900}, "audit_amount_too_large", "amount_min"),
        ({"amount_min": "-5"}, "audit_amount_negative", "amount_min"),
        ({"amount_min": "1.23456"}, "audit_amount_too_precise", "amount_min"),
        ({"amount_min": "1\x00"}, "control_character", "amount_min"),
        ({"amount_min": "9" * 5000}, "value_too_long", "amount_min"),
        ({"created_from": "05/12/2026"}, "audit_day_invalid", "created_from"),
        ({"created_to": "2026-02-30"}, "audit_day_invalid", "created_to"),
        ({"decided_from": "２０２６-01-01"}, "audit_day_invalid", "decided_from"),
        ({"requester_id": "١٢"}, "audit_member_unknown", "requester_id"),
        ({"approver_id": "9" * 30}, "audit_member_unknown", "approver_id"),
        ({"delegate_id": "<b>1</b>"}, "audit_member_unknown", "delegate_id"),
        ({"kind": "<script>"}, "audit_key_unknown", "kind"),
        ({"sort": "password"}, "audit_sort_unknown", "sort"),
        ({"sort": "-<i>x</i>"}, "audit_sort_unknown", "sort"),
        ({"page": "0"}, "audit_page_invalid", "page"),
        ({"page": "٣"}, "audit_page_invalid", "page"),
        ({"page": "9" * 5000}, "value_too_long", "page"),
        ({"page": "999999999"}, "audit_page_invalid", "page"),
        ({"reference": "X" * 33}, "audit_value_too_long", "reference"),
        ({"text": "a" * 201}, "audit_value_too_long", "text"),
    ],
)
def test_a_bad_value_is_refused_and_left_out_while_the_rest_applies(args, code, field):
    query, refusals = parse_audit_query({**args, "kind": args.get("kind", "expense_claim")})
    assert [(e.code, e.field) for e in refusals] == [(code, field)]
    assert getattr(query, field) == getattr(AuditQuery(), field)
    if field != "kind":
        assert query.kind == "expense_claim"  # the rest of the search still applies


def test_a_range_that_ends_before_it_starts_is_left_out_whole():
    query, refusals = parse_audit_query(
        {
            "created_from": "2026-12-05",
            "created_to": "2026-12-01",
            "amount_min": "500",
            "amount_max": "100",
            "decided_from": "2026-12-01",
            "decided_to": "2026-12-01",  # one day is a range, not a reversed one
        }
    )
    assert [(e.code, e.field) for e in refusals] == [
        ("audit_dates_reversed", "created_to"),
        ("audit_amounts_reversed", "amount_max"),
    ]
    assert refusals[0].params == {"start": "2026-12-05", "end": "2026-12-01"}
    assert (query.created_from, query.created_to, query.amount_min, query.amount_max) == (
        None,
        None,
        None,
        None,
    )
    assert query.decided_from == query.decided_to == date(2026, 12, 1)


def test_markup_in_the_words_is_searched_as_written():
    query, refusals = parse_audit_query({"text": "<img src=x onerror=alert(1)>"})
    assert refusals == [] and query.text == "<img src=x onerror=alert(1)>"


def test_every_bad_value_gets_its_own_refusal():
    assert _codes({"amount_min": "x", "created_from": "y", "sort": "z", "page": "-1"}) == [
        ("audit_day_invalid", "created_from"),
        ("audit_amount_invalid", "amount_min"),
        ("audit_sort_unknown", "sort"),
        ("audit_page_invalid", "page"),
    ]


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+60 12", "'+60 12"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "'\rcmd"),
        ("Taxi = 12", "Taxi = 12"),
        ("", ""),
    ],
)
def test_a_cell_a_spreadsheet_would_run_is_written_as_text(cell, written):
    assert safe_cell(cell) == written
