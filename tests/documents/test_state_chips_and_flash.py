"""Pages that read as finished: each state wears its role's chip (Rejected is not dressed
like Received or a draft), one flash at a time, and the diagram on the document page
names its arrows and marks where the document stands. Globex is present and invisible."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from portal.demo import DEMO_PASSWORD
from portal.documents import services as documents
from portal.documents import transitions
from tests.factories import Person

DOCS = "/o/acme/documents"
FIELDS = {"category": "travel", "expense_date": "2026-11-20"}


@pytest.fixture
def as_siti(client, login, people):
    token = login(Person(people("siti"), "siti@acme.example", "Siti", DEMO_PASSWORD))
    return client, token


def _claim(actor, title: str, amount: str = "35.00"):
    return documents.create_document(
        actor, kind="expense_claim", title=title, amount=Decimal(amount), fields=FIELDS
    )


def _chip(html: str, reference: str) -> str:
    """The classes of the state chip in the list row of ``reference``."""
    row = re.search(rf"<tr>\s*<th scope=\"row\"><a [^>]*>{reference}</a>.*?</tr>", html, re.S)
    assert row, f"no row for {reference}"
    chip = re.search(r'<span class="([^"]*state-chip[^"]*)"', row.group(0))
    assert chip, f"no state chip in the row of {reference}"
    return chip.group(1)


def test_each_state_wears_its_roles_chip_in_my_documents(as_siti, people, globex):
    client, _token = as_siti
    siti, nurul = people("siti"), people("nurul")
    draft = _claim(siti, "Still a draft")
    pending = _claim(siti, "Waiting for review")
    transitions.transition_document(siti, pending.reference, "submit", seen_state="draft")
    rejected = _claim(siti, "Sent back")
    transitions.transition_document(siti, rejected.reference, "submit", seen_state="draft")
    transitions.transition_document(
        nurul, rejected.reference, "reject", seen_state="pending_review", comment="No receipt"
    )
    _claim(globex.admin.actor, "Globex lunch")  # its reference may match one of hers

    html = client.get(f"{DOCS}/").get_data(as_text=True)
    assert "tone-draft" in _chip(html, draft.reference)
    assert "tone-pending" in _chip(html, pending.reference)
    assert "tone-rejected" in _chip(html, rejected.reference)
    # Three states, three different chips; the label is still the text.
    assert len({_chip(html, d.reference) for d in (draft, pending, rejected)}) == 3
    assert re.search(r'tone-rejected" data-state="rejected">Rejected</span>', html)
    assert "Globex lunch" not in html


def test_the_document_page_chip_follows_the_state(as_siti, people):
    client, _token = as_siti
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti, "Parking")
    page = client.get(f"{DOCS}/{doc.reference}").get_data(as_text=True)
    assert re.search(r'class="[^"]*state-chip tone-draft" data-testid="state"', page)

    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    transitions.transition_document(
        nurul, doc.reference, "reject", seen_state="pending_review", comment="Which car park?"
    )
    page = client.get(f"{DOCS}/{doc.reference}").get_data(as_text=True)
    assert re.search(r'class="[^"]*state-chip tone-rejected" data-testid="state"', page)


def _flashes(html: str) -> list[str]:
    return re.findall(r'<p class="flash flash-[a-z]+">([^<]*)</p>', html)


def test_only_the_newest_flash_shows_and_only_once(as_siti):
    client, token = as_siti
    form = {
        "csrf_token": token,
        "title": "Client visit",
        "amount": "120.00",
        "f_category": "travel",
        "f_expense_date": "2026-11-20",
    }
    # Two saves without a page between them: two flashes are queued.
    created = client.post(f"{DOCS}/new/expense_claim", data=form)
    assert created.status_code == 302
    reference = created.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    saved = client.post(f"{DOCS}/{reference}/edit", data={**form, "title": "Client visit, Ipoh"})
    assert saved.status_code == 302

    page = client.get(f"{DOCS}/{reference}").get_data(as_text=True)
    assert _flashes(page) == [f"Your changes to {reference} are saved."]
    # Spent: the next page shows none.
    assert _flashes(client.get(f"{DOCS}/{reference}").get_data(as_text=True)) == []


def test_a_decision_swapped_in_by_htmx_replaces_the_pages_flash(client, login, people):
    siti = people("siti")
    doc = _claim(siti, "Taxi")
    token = login(Person(siti, "siti@acme.example", "Siti", DEMO_PASSWORD))
    answer = client.post(
        f"{DOCS}/{doc.reference}/transition",
        data={"transition": "submit", "seen_state": "draft", "csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    # Its own message, once; and the page's flash region, emptied out of band.
    assert _flashes(html) == ["Done: the document is now “Pending review”."]
    region = re.search(r'<div id="flash"[^>]*>(.*?)</div>', html, re.S)
    assert region and 'hx-swap-oob="true"' in region.group(0)
    assert region.group(1).strip() == ""


def test_the_diagram_names_its_arrows_and_marks_the_current_state(as_siti, people):
    client, _token = as_siti
    siti = people("siti")
    doc = _claim(siti, "Lunch")
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    html = client.get(f"{DOCS}/{doc.reference}").get_data(as_text=True)
    diagram = html[html.index('data-testid="flow-diagram"') : html.index("</figure>")]
    current = re.findall(r'<g class="diagram-state ([^"]*)" data-state="([a-z_]+)"', diagram)
    assert [key for classes, key in current if "current" in classes] == ["pending_review"]
    assert ("tone-rejected", "rejected") in current and ("tone-acknowledged", "received") in current
    labels = re.findall(r"<text [^>]*>([^<]+)</text>", diagram)
    assert {"Submit", "Mark reviewed", "Approve", "Reject", "Confirm receipt"} <= set(labels)
    # Drawn at its natural size, with attributes and classes only.
    assert re.search(r'<svg class="flow-diagram-svg" width="\d+" height="\d+"', diagram)
    assert "style=" not in diagram


def test_the_diagram_speaks_the_readers_language(client, login, people):
    siti = people("siti")
    doc = _claim(siti, "Lunch")
    token = login(Person(siti, "siti@acme.example", "Siti", DEMO_PASSWORD))
    client.post("/locale", data={"locale": "zh", "csrf_token": token, "next": "/"})
    html = client.get(f"{DOCS}/{doc.reference}").get_data(as_text=True)
    diagram = html[html.index('data-testid="flow-diagram"') : html.index("</figure>")]
    labels = set(re.findall(r"<text [^>]*>([^<]+)</text>", diagram))
    assert {"提交", "批准"} <= labels and "Submit" not in labels
