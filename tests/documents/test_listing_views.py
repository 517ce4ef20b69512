"""My documents and the document forms, driven through the test client as Siti (a
requester in the demo organization acme), with Jason beside her and globex present:
neither may show up in her list."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from portal.demo import DEMO_PASSWORD
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.queries import detail as document_queries
from portal.documents.queries import lists as document_lists
from tests.factories import Person

DOCS = "/o/acme/documents"
CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20"}


@pytest.fixture
def siti(people):
    return people("siti")


@pytest.fixture
def as_siti(client, login, siti):
    """Siti's browser: (client, CSRF token)."""
    token = login(Person(siti, "siti@acme.example", "Siti", DEMO_PASSWORD))
    return client, token


def _claim(actor, title: str = "Taxi to the airport", amount: str = "35.00"):
    return documents.create_document(
        actor, kind="expense_claim", title=title, amount=Decimal(amount), fields=CLAIM_FIELDS
    )


def _claim_form(token: str, **overrides: str) -> dict[str, str]:
    data = {
        "csrf_token": token,
        "title": "Client visit, Penang",
        "description": "Two nights",
        "amount": "1,234.50",
        "f_category": "travel",
        "f_expense_date": "2026-11-20",
        "f_receipt_number": "R-77",
    }
    data.update(overrides)
    return data


def _error_beside(html: str, field_id: str) -> str:
    match = re.search(rf'<p class="field-error" id="{field_id}-error">([^<]*)</p>', html)
    assert match, f"no error beside {field_id}"
    return match.group(1)


def _listed(html: str) -> list[str]:
    table = re.search(r'data-testid="my-documents".*?</table>', html, re.S)
    return (
        re.findall(r"<th scope=\"row\"><a href=\"[^\"]+\">([A-Z]+-\d{4}-\d{5})</a>", table.group(0))
        if table
        else []
    )


def _count_siti_documents(siti) -> int:
    return document_lists.list_my_documents(siti).total


# --- creating ------------------------------------------------------------------------------


def test_siti_creates_an_expense_claim_through_the_form_and_lands_on_it(as_siti, siti):
    client, token = as_siti

    page = client.get(f"{DOCS}/new/expense_claim")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Category (required)" in html
    assert '<option value="travel">Travel</option>' in html
    assert 'type="date"' in html
    assert 'inputmode="decimal"' in html

    response = client.post(f"{DOCS}/new/expense_claim", data=_claim_form(token))

    assert response.status_code == 302
    [row] = document_lists.list_my_documents(siti).rows
    assert response.headers["Location"] == f"{DOCS}/{row.reference}"
    saved = document_queries.get_document(siti, row.reference)
    assert saved.amount == Decimal("1234.50")
    assert saved.title == "Client visit, Penang"
    assert saved.fields == {
        "category": "travel",
        "expense_date": "2026-11-20",
        "receipt_number": "R-77",
    }


def test_my_documents_lists_the_claim_with_its_state_label(as_siti, siti):
    client, _ = as_siti
    claim = _claim(siti, amount="1234.50")

    html = client.get(f"{DOCS}/").get_data(as_text=True)

    assert _listed(html) == [claim.reference]
    assert f'href="{DOCS}/{claim.reference}"' in html
    assert 'data-state="draft">Draft</span>' in html
    assert "Expense claim" in html
    assert "1,234.50" in html
    assert f'href="{DOCS}/new/expense_claim"' in html


def test_labels_follow_the_readers_locale(as_siti, siti):
    client, _ = as_siti
    _claim(siti)
    with client.session_transaction() as session:
        session["locale"] = "ms"  # Siti saved no preference: the session's choice applies

    html = client.get(f"{DOCS}/").get_data(as_text=True)

    assert 'data-state="draft">Draf</span>' in html
    assert "Tuntutan perbelanjaan" in html


@pytest.mark.parametrize(
    ("overrides", "field_id", "message"),
    [
        ({"f_category": ""}, "f_category", "Category is required."),
        ({"f_expense_date": "2026-13-45"}, "f_expense_date", "must be a date (YYYY-MM-DD)."),
        ({"amount": "-5.00"}, "amount", "The amount cannot be negative."),
        ({"amount": "twelve"}, "amount", "Type the amount in digits, as 1,234.50."),
        ({"amount": ""}, "amount", "Enter the amount."),
        ({"title": "   "}, "title", "A title is required."),
    ],
)
def test_a_wrong_form_answers_422_with_the_message_beside_its_field(
    as_siti, siti, overrides, field_id, message
):
    client, token = as_siti
    # The allowed case first, so the refusals below cannot pass for the wrong reason.
    assert client.post(f"{DOCS}/new/expense_claim", data=_claim_form(token)).status_code == 302
    before = _count_siti_documents(siti)

    response = client.post(f"{DOCS}/new/expense_claim", data=_claim_form(token, **overrides))

    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert message in _error_beside(html, field_id)
    assert _count_siti_documents(siti) == before
    # What she typed is still there.
    assert "Client visit, Penang" in html or overrides.get("title")


def test_several_field_errors_show_at_once(as_siti, siti):
    client, token = as_siti

    response = client.post(
        f"{DOCS}/new/expense_claim",
        data=_claim_form(token, f_category="", f_expense_date=""),
    )

    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Category is required." in _error_beside(html, "f_category")
    assert "Date of expense is required." in _error_beside(html, "f_expense_date")
    assert "2 fields need attention; nothing was saved." in html
    assert _count_siti_documents(siti) == 0


def test_an_unpublished_kind_has_no_form(as_siti):
    client, _ = as_siti
    assert client.get(f"{DOCS}/new/space_travel").status_code == 404


def test_a_post_without_csrf_is_refused(as_siti, siti):
    client, token = as_siti
    data = _claim_form(token)
    del data["csrf_token"]

    response = client.post(f"{DOCS}/new/expense_claim", data=data)

    assert response.status_code == 400
    assert _count_siti_documents(siti) == 0


# --- the list ------------------------------------------------------------------------------


def test_another_members_documents_never_appear_in_sitis_list(as_siti, siti, people, globex):
    client, _ = as_siti
    mine = _claim(siti, title="Mine")
    jasons = _claim(people("jason"), title="Jason's")
    documents.create_document(
        globex.admin.actor,
        kind="expense_claim",
        title="Globex's",
        amount=Decimal("10"),
        fields=CLAIM_FIELDS,
    )

    html = client.get(f"{DOCS}/").get_data(as_text=True)

    assert _listed(html) == [mine.reference]
    assert jasons.reference not in html
    assert "Jason&#39;s" not in html and "Globex&#39;s" not in html


def test_filters_narrow_the_list(as_siti, siti):
    client, _ = as_siti
    draft = _claim(siti, title="Still a draft")
    submitted = _claim(siti, title="Sent off")
    transitions.transition_document(siti, submitted.reference, "submit", seen_state="draft")
    purchase = documents.create_document(
        siti,
        kind="purchase_request",
        title="Laptops",
        amount=Decimal("900"),
        fields={"supplier": "Office Depot", "category": "goods"},
    )

    everything = _listed(client.get(f"{DOCS}/").get_data(as_text=True))
    assert everything == [purchase.reference, submitted.reference, draft.reference]

    claims = _listed(client.get(f"{DOCS}/?kind=expense_claim").get_data(as_text=True))
    assert claims == [submitted.reference, draft.reference]

    pending = client.get(f"{DOCS}/?kind=expense_claim&state=pending_review")
    html = pending.get_data(as_text=True)
    assert _listed(html) == [submitted.reference]
    assert 'data-state="pending_review">Pending review</span>' in html

    drafts = _listed(client.get(f"{DOCS}/?state=draft").get_data(as_text=True))
    assert drafts == [purchase.reference, draft.reference]

    none = client.get(f"{DOCS}/?kind=leave_request").get_data(as_text=True)
    assert _listed(none) == []
    assert "None of your documents match these filters." in none


def test_the_list_pages(as_siti, siti):
    client, _ = as_siti
    made = [_claim(siti, title=f"Claim {n}").reference for n in range(3)]

    page = document_lists.list_my_documents(siti, page=2, per_page=2)

    assert (page.total, page.page, page.pages) == (3, 2, 2)
    assert [r.reference for r in page.rows] == [made[0]]
    html = client.get(f"{DOCS}/?page=9").get_data(as_text=True)
    assert len(_listed(html)) == 3  # 25 a page: one page, and a page past the end clamps


def test_an_empty_list_says_how_to_start(as_siti):
    client, _ = as_siti

    html = client.get(f"{DOCS}/").get_data(as_text=True)

    assert "You have not started any documents yet." in html
    assert f'href="{DOCS}/new/expense_claim"' in html


def test_signed_out_visitors_are_sent_to_sign_in(client, people):
    people("siti")
    response = client.get(f"{DOCS}/")
    assert response.status_code == 302
    assert "/login" in response.headers["Location"]


# --- editing -------------------------------------------------------------------------------


def test_the_edit_form_changes_a_drafts_title(as_siti, siti):
    client, token = as_siti
    claim = _claim(siti, amount="1234.50")

    page = client.get(f"{DOCS}/{claim.reference}/edit")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'value="Taxi to the airport"' in html
    assert 'value="1,234.50"' in html  # as she writes amounts
    assert 'value="2026-11-20"' in html
    assert '<option selected value="travel">' in html

    response = client.post(
        f"{DOCS}/{claim.reference}/edit",
        data=_claim_form(token, title="Taxi both ways", amount="70", f_receipt_number=""),
    )

    assert response.status_code == 302
    assert response.headers["Location"] == f"{DOCS}/{claim.reference}"
    saved = document_queries.get_document(siti, claim.reference)
    assert saved.title == "Taxi both ways"
    assert saved.amount == Decimal("70")
    assert "receipt_number" not in saved.fields


def test_the_edit_form_is_refused_once_submitted(as_siti, siti):
    client, token = as_siti
    claim = _claim(siti)
    transitions.transition_document(siti, claim.reference, "submit", seen_state="draft")

    page = client.get(f"{DOCS}/{claim.reference}/edit")
    html = page.get_data(as_text=True)
    assert "only be edited while it is a draft" in html
    assert "Pending review" in html
    assert 'name="title"' not in html

    response = client.post(
        f"{DOCS}/{claim.reference}/edit", data=_claim_form(token, title="Too late")
    )

    assert response.status_code == 409
    assert "only be edited while it is a draft" in response.get_data(as_text=True)
    assert document_queries.get_document(siti, claim.reference).title == "Taxi to the airport"


def test_someone_elses_draft_does_not_exist_for_the_editor(as_siti, people):
    client, token = as_siti
    jasons = _claim(people("jason"))

    assert client.get(f"{DOCS}/{jasons.reference}/edit").status_code == 404
    response = client.post(f"{DOCS}/{jasons.reference}/edit", data=_claim_form(token))
    assert response.status_code == 404
    assert document_queries.get_document(people("jason"), jasons.reference).title == jasons.title


def test_an_admin_who_can_see_a_draft_still_cannot_edit_it(client, login, siti, people):
    claim = _claim(siti)
    grace = people("grace")  # an admin: she may read every document, not edit Siti's
    login(Person(grace, "grace@acme.example", "Grace", DEMO_PASSWORD))

    assert client.get(f"{DOCS}/{claim.reference}/edit").status_code == 403
