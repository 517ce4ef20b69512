"""Amounts through the real paths: Siti (a requester in the demo organization acme,
whose money is MYR) types amounts into the new-document and edit forms, and Grace (an
admin) asks the editor's "Who would approve?". Globex is present throughout.

Once, "9999.999" was kept as typed, shown as MYR10,000.00 and routed below the 10,000
band; "0.005" showed as MYR0.00 yet passed the `amount > 0` guard; "1.234,50" was read
as 1.2345 and "12,34" as 1,234.00; amounts over 1e11 were refused. Now an amount is
read strictly as the reader writes it, has its currency's decimals or is refused, and is
stored, shown and routed on as one value.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from portal.core.uow import unit_of_work
from portal.demo import DEMO_PASSWORD
from portal.documents import services as documents
from portal.documents.queries import detail as document_queries
from portal.documents.queries import lists as document_lists
from portal.domain.graph import DocumentField, FieldType, Grant, Grantee, GranteeKind
from portal.domain.labels import Labels
from portal.domain.ladder import band_for
from portal.domain.money import LIMIT, minor_digits, parse_amount
from portal.domain.resolution import Resolution
from portal.flows import queries as flow_queries
from portal.flows import services as flows
from portal.flows.services import route_preview
from portal.web.i18n import format_money
from portal.web.money_input import number_form
from tests.factories import Person

DOCS = "/o/acme/documents"
NEW = f"{DOCS}/new/purchase_request"
AMBIGUOUS = "That amount could be read more than one way. Type the amount as 1,234.50."
TOO_PRECISE = "MYR amounts have at most 2 decimal places."
TOO_LARGE = "The amount must be less than 1,000,000,000,000,000."


@pytest.fixture
def siti(people):
    return people("siti")


@pytest.fixture
def as_siti(client, login, siti):
    token = login(Person(siti, "siti@acme.example", "Siti", DEMO_PASSWORD))
    return client, token


def _form(token: str, amount: str, **overrides: str) -> dict[str, str]:
    return {
        "csrf_token": token,
        "title": "Laptops",
        "description": "",
        "amount": amount,
        "f_supplier": "Tech Sdn Bhd",
        "f_category": "goods",
        "f_needed_by": "2026-12-15",
        **overrides,
    }


def _error_beside(html: str, field_id: str) -> str:
    match = re.search(rf'<p class="field-error" id="{field_id}-error">([^<]*)</p>', html)
    assert match, f"no error beside {field_id}"
    return match.group(1)


def _input_value(html: str, field_id: str) -> str:
    match = re.search(rf'<input[^>]*id="{field_id}"[^>]*>', html)
    assert match, f"no input {field_id}"
    value = re.search(r'value="([^"]*)"', match.group(0))
    return value.group(1) if value else ""


def _saved(siti) -> list:
    return document_lists.list_my_documents(siti).rows


def _stored_amount(siti, reference: str) -> Any:
    """The amount as the database holds it, read past the column type."""
    with unit_of_work(siti.org_id) as uow:
        return uow.session.execute(
            text("SELECT amount FROM document WHERE reference = :r"), {"r": reference}
        ).scalar_one()


def _create(client, token: str, amount: str):
    return client.post(NEW, data=_form(token, amount))


# --- one value: typed, stored, shown, routed ------------------------------------------------


def test_an_amount_at_the_currencys_decimals_is_stored_exactly(as_siti, siti):
    client, token = as_siti

    response = _create(client, token, "9999.99")

    assert response.status_code == 302, response.get_data(as_text=True)
    [row] = _saved(siti)
    saved = document_queries.get_document(siti, row.reference)
    assert saved.amount == Decimal("9999.99")
    raw = _stored_amount(siti, row.reference)
    if isinstance(raw, str):  # SQLite: exact text, not a float
        assert raw == "000000000009999.9900"
    assert Decimal(raw) == Decimal("9999.99")


@pytest.mark.parametrize("typed", ["9999.999", "9,999.999", "0.005"])
def test_more_decimals_than_the_currency_has_are_refused_and_nothing_is_saved(as_siti, siti, typed):
    client, token = as_siti
    assert _create(client, token, "0.01").status_code == 302  # the allowed case first
    before = len(_saved(siti))

    response = _create(client, token, typed)

    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert _error_beside(html, "amount") == TOO_PRECISE
    assert _input_value(html, "amount") == typed  # what she typed is kept
    assert len(_saved(siti)) == before


@pytest.mark.parametrize("typed", ["1.234,50", "12,34", "1234,50", "1,23,456"])
def test_an_amount_that_could_mean_two_amounts_is_refused_with_the_expected_form(
    as_siti, siti, typed
):
    client, token = as_siti
    assert _create(client, token, "1,234.50").status_code == 302
    assert _create(client, token, "1234.50").status_code == 302
    before = len(_saved(siti))

    response = _create(client, token, typed)

    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert _error_beside(html, "amount") == AMBIGUOUS
    assert _input_value(html, "amount") == typed
    assert len(_saved(siti)) == before


def test_amounts_up_to_the_columns_range_are_kept_and_beyond_it_refused_naming_the_limit(
    as_siti, siti
):
    client, token = as_siti

    assert _create(client, token, "123,456,789,012,345.67").status_code == 302
    [row] = _saved(siti)
    assert document_queries.get_document(siti, row.reference).amount == Decimal(
        "123456789012345.67"
    )
    assert Decimal(_stored_amount(siti, row.reference)) == Decimal("123456789012345.67")

    for typed in ("1000000000000000", "1,000,000,000,000,000.00", "9" * 5000):
        response = _create(client, token, typed)
        assert response.status_code == 422
        assert _error_beside(response.get_data(as_text=True), "amount") == TOO_LARGE
    assert len(_saved(siti)) == 1


@pytest.mark.parametrize(
    ("typed", "status"),
    [("١٢٣", 422), ("１２３", 422), ("1e5", 422), ("NaN", 422), ("12\x003", 400)],
)
def test_other_scripts_digits_exponents_and_control_characters_are_refused(
    as_siti, siti, typed, status
):
    client, token = as_siti

    response = _create(client, token, typed)

    assert response.status_code == status
    if status == 422:
        message = _error_beside(response.get_data(as_text=True), "amount")
        assert message == "Type the amount in digits, as 1,234.50."
    assert _saved(siti) == []


def test_the_value_shown_is_the_value_routed_on(as_siti, siti, people):
    client, token = as_siti
    grace = people("grace")
    for typed in ("9,999.99", "10,000.00"):
        assert _create(client, token, typed).status_code == 302
    # Acme is in Malaysia: money is shown as en_MY writes it ("RM9,999.99").
    form = number_form("en_MY", "MYR")

    for row in _saved(siti):
        page = client.get(f"{DOCS}/{row.reference}").get_data(as_text=True)
        shown = re.search(r"<dt>Amount</dt><dd>([^<]*)</dd>", page)
        assert shown, row.reference
        read = parse_amount(html.unescape(shown.group(1)), form)
        saved = document_queries.get_document(siti, row.reference).amount
        assert read == saved
        preview = route_preview.preview_route(
            grace, kind="purchase_request", member_id=siti.member_id, amount=read
        )
        [band] = [s.band for s in preview.route.steps if s.band is not None]
        # Below 10,000 the superior decides; from 10,000 the unit head.
        assert band.floor == (Decimal("10000") if saved >= 10000 else Decimal("0"))


# --- editing --------------------------------------------------------------------------------


def test_the_edit_form_shows_the_amount_as_she_writes_it_and_refuses_the_same(as_siti, siti):
    client, token = as_siti
    claim = documents.create_document(
        siti,
        kind="purchase_request",
        title="Laptops",
        amount=Decimal("1234.5"),
        fields={"supplier": "Tech Sdn Bhd", "category": "goods", "needed_by": "2026-12-15"},
    )
    edit = f"{DOCS}/{claim.reference}/edit"
    page = client.get(edit).get_data(as_text=True)
    assert _input_value(page, "amount") == "1,234.50"

    assert client.post(edit, data=_form(token, "2,000.10")).status_code == 302
    assert document_queries.get_document(siti, claim.reference).amount == Decimal("2000.10")

    for typed, message in (("9999.999", TOO_PRECISE), ("1.234,50", AMBIGUOUS)):
        response = client.post(edit, data=_form(token, typed))
        assert response.status_code == 422
        html = response.get_data(as_text=True)
        assert _error_beside(html, "amount") == message
        assert _input_value(html, "amount") == typed
    assert document_queries.get_document(siti, claim.reference).amount == Decimal("2000.10")


# --- the editor's JSON API --------------------------------------------------------------------


def test_the_editors_route_preview_reads_amounts_the_same_way(client, login, people):
    grace = people("grace")
    token = login(Person(grace, "grace@acme.example", "Grace", DEMO_PASSWORD))
    siti = people("siti")
    url = "/o/acme/flows/purchase_request/api/route"

    def ask(amount: object):
        return client.post(
            url,
            data=json.dumps({"member_id": siti.member_id, "amount": amount}),
            headers={"X-CSRFToken": token, "Accept": "application/json"},
            content_type="application/json",
        )

    for fine in ("1,234.50", "1234.50", "123456789012345.67"):
        assert ask(fine).status_code == 200, fine
    for typed, code, message in (
        ("1.234,50", "amount_ambiguous", AMBIGUOUS),
        ("12,34", "amount_ambiguous", AMBIGUOUS),
        ("9999.999", "amount_too_precise", TOO_PRECISE),
        ("1" + "0" * 15, "amount_too_large", TOO_LARGE),
        ("١٢٣", "amount_invalid", "Type the amount in digits, as 1,234.50."),
        (True, "amount_invalid", "Type the amount in digits, as 1,234.50."),
    ):
        answer = ask(typed)
        assert answer.status_code == 422, typed
        error = answer.get_json()["error"]
        assert (error["code"], error["message"]) == (code, message)


# --- a declared number field ------------------------------------------------------------------


def test_a_declared_number_field_is_read_the_same_strict_way(as_siti, siti, people):
    client, token = as_siti
    grace = people("grace")
    v1 = flow_queries.current_version(grace, "purchase_request").graph
    quantity = DocumentField(
        key="quantity", type=FieldType.NUMBER, labels=Labels({"en": "Quantity"})
    )
    draft = flows.save_draft(
        grace,
        "purchase_request",
        replace(v1, fields=(*v1.fields, quantity)),
        revision=flows.get_draft(grace, "purchase_request").revision,
    )
    flows.publish_draft(grace, "purchase_request", revision=draft.revision)

    assert client.post(NEW, data=_form(token, "10", f_quantity="1,200")).status_code == 302
    [row] = _saved(siti)
    assert document_queries.get_document(siti, row.reference).fields["quantity"] == "1200"
    page = client.get(f"{DOCS}/{row.reference}/edit").get_data(as_text=True)
    assert _input_value(page, "f_quantity") == "1,200"

    for typed, message in (
        ("12,34", "Quantity could be read more than one way. Type it as 1,234.50."),
        ("twelve", "Quantity must be a number in digits, such as 1,234.50."),
    ):
        response = client.post(NEW, data=_form(token, "10", f_quantity=typed))
        assert response.status_code == 422
        assert _error_beside(response.get_data(as_text=True), "f_quantity") == message
    assert len(_saved(siti)) == 1


# --- routing agrees with what is shown, for any amount ----------------------------------------

SHOWN_IN = ["en", "zh", "ms", "en_MY", "zh_Hans_MY", "ms_MY", "de", "fr"]


@st.composite
def _amounts(draw, currency: str) -> Decimal:
    digits = minor_digits(currency)
    units = draw(st.integers(min_value=0, max_value=int(LIMIT * 10**digits) - 1))
    return Decimal(units).scaleb(-digits)


@pytest.mark.parametrize("currency", ["MYR", "JPY", "KWD"])
def test_a_stored_amount_is_the_parse_of_its_shown_text_and_routes_as_shown(
    make_org, make_member, globex, currency
):
    org = make_org(base_currency=currency, territory="MY")
    requester = make_member(org, "Rina Requester").actor
    fields = {"supplier": "Tech Sdn Bhd", "category": "goods"}
    ladder = [
        Resolution(
            Grant(
                grantee=Grantee(kind=GranteeKind.ROLE, role="approver"),
                state="approved",
                min_amount=Decimal(floor),
            ),
            index,
            (900 + index,),
        )
        for index, floor in enumerate(("0", "9999.99", "10000", "10000.01"))
    ]

    @settings(
        max_examples=15,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(amount=_amounts(currency), locale=st.sampled_from(SHOWN_IN))
    def check(amount: Decimal, locale: str) -> None:
        made = documents.create_document(
            requester, kind="purchase_request", title="Stock", amount=amount, fields=fields
        )
        stored = document_queries.get_document(requester, made.reference).amount
        shown = format_money(stored, currency, locale)

        read = parse_amount(shown, number_form(locale, currency))

        assert stored == amount
        assert read == stored
        assert band_for(ladder, stored, 1) == band_for(ladder, read, 1)

    check()


def test_spaces_alone_are_no_amount(as_siti, siti):
    client, token = as_siti
    assert _create(client, token, " 12 ").status_code == 302

    response = _create(client, token, "   ")

    assert response.status_code == 422
    assert _error_beside(response.get_data(as_text=True), "amount") == "Enter the amount."
    assert len(_saved(siti)) == 1
