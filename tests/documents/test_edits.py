"""The record of edits: every change to a draft's amount, title, description or fields —
first time round or back for rework — is one append-only row (old -> new) written with
the change, and the document page shows it in its history between the decisions, each
decision with the amount it was taken on. Globex is there and reads none of it."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.models import DocumentEdit
from portal.documents.queries import detail as document_queries
from portal.documents.queries.history import EditEntry, ReminderEntry
from portal.domain.errors import DomainError
from tests.factories import demo_browser

postgres_only = pytest.mark.postgres_only

CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20", "receipt_number": "R-1"}


@pytest.fixture
def ticking():
    """A clock that moves one minute between steps, so the order of things is plain."""
    clock.freeze(clock.now())

    def tick() -> None:
        clock.advance(timedelta(minutes=1))

    return tick


def _claim(actor, amount: str = "120.00", title: str = "Client visit, Penang"):
    return documents.create_document(
        actor,
        kind="expense_claim",
        title=title,
        amount=Decimal(amount),
        fields=CLAIM_FIELDS,
    )


def _edits(org_id: int, doc) -> list[DocumentEdit]:
    with unit_of_work(org_id) as uow:
        return list(
            uow.session.scalars(
                select(DocumentEdit)
                .where(DocumentEdit.document_id == doc.id)
                .order_by(DocumentEdit.id)
            )
        )


def _move(actor, doc, key: str, comment: str = ""):
    return transitions.transition_document(
        actor, doc.reference, key, seen_state=doc.state, comment=comment
    ).document


def _reworked(people, tick):
    """Siti's claim of 120.00, submitted, sent back by Nurul, and revised: a draft again."""
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    for actor, key, comment in (
        (siti, "submit", ""),
        (nurul, "reject", "The taxi receipt is missing."),
        (siti, "revise", ""),
    ):
        tick()
        doc = _move(actor, doc, key, comment)
    assert doc.state == "draft"
    return siti, nurul, doc


# --- the service -------------------------------------------------------------------------


def test_an_edit_writes_one_row_with_what_changed_old_to_new(people, globex):
    siti = people("siti")
    doc = _claim(siti)

    edited = documents.update_document(
        siti,
        doc.reference,
        title="Client visit, Ipoh",
        description="",
        amount=Decimal("145.50"),
        fields={**CLAIM_FIELDS, "category": "lodging"},
        request_id="req-edit-1",
    )

    assert (edited.title, edited.amount) == ("Client visit, Ipoh", Decimal("145.50"))
    [row] = _edits(siti.org_id, doc)
    assert (row.kind, row.actor_id, row.request_id) == ("edit", siti.member_id, "req-edit-1")
    assert row.changes == [
        {"field": "amount", "old": "120.0000", "new": "145.5000"},
        {"field": "title", "old": "Client visit, Penang", "new": "Client visit, Ipoh"},
        {"field": "fields.category", "old": "travel", "new": "lodging"},
    ]
    # The same values again (the amount spelled differently) change nothing: no row.
    documents.update_document(
        siti,
        doc.reference,
        title="  Client visit,   Ipoh ",
        amount=Decimal("145.5"),
        fields={**CLAIM_FIELDS, "category": "lodging"},
    )
    assert len(_edits(siti.org_id, doc)) == 1
    # A field emptied is recorded as gone.
    documents.update_document(
        siti, doc.reference, fields={**CLAIM_FIELDS, "category": "lodging", "receipt_number": ""}
    )
    assert _edits(siti.org_id, doc)[-1].changes == [
        {"field": "fields.receipt_number", "old": "R-1", "new": None}
    ]


def test_a_refused_edit_records_nothing(people, globex):
    siti, grace, jason = people("siti"), people("grace"), people("jason")
    doc = _claim(siti)
    documents.update_document(siti, doc.reference, amount=Decimal("130.00"))  # allowed
    assert len(_edits(siti.org_id, doc)) == 1

    for actor, change, expected in (
        (grace, {"amount": Decimal(1)}, "not_requester"),  # an admin sees it, may not edit
        (jason, {"amount": Decimal(1)}, "not_found"),
        (globex.admin.actor, {"amount": Decimal(1)}, "not_found"),
        (siti, {"amount": Decimal("-1")}, "amount_negative"),
        (siti, {"amount": Decimal("1.00001")}, "amount_too_precise"),
        (siti, {"title": " "}, "title_required"),
        (siti, {"amount": Decimal("2"), "fields": {"colour": "red"}}, "invalid_fields"),
    ):
        with pytest.raises(DomainError) as refused:
            documents.update_document(actor, doc.reference, **change)
        assert refused.value.code == expected
    assert len(_edits(siti.org_id, doc)) == 1
    assert document_queries.get_document(siti, doc.reference).amount == Decimal("130.00")


def test_an_amount_changed_during_rework_is_recorded_between_the_decisions(people, globex, ticking):
    siti, nurul, doc = _reworked(people, ticking)
    ticking()
    documents.update_document(siti, doc.reference, amount=Decimal("145.50"))
    ticking()
    _move(siti, doc, "submit")
    # Frozen again: an edit is refused and records nothing.
    with pytest.raises(DomainError, match="document_frozen"):
        documents.update_document(siti, doc.reference, amount=Decimal("1.00"))

    page = document_queries.document_detail(siti, doc.reference)

    said = [
        f"edit {e.changes[0].old}->{e.changes[0].new}"
        if isinstance(e, EditEntry)
        else f"{e.transition} on {e.amount:.2f}"
        for e in page.timeline
        if not isinstance(e, ReminderEntry)
    ]
    assert said == [
        "submit on 120.00",
        "reject on 120.00",
        "revise on 120.00",
        "edit 120.0000->145.5000",
        "submit on 145.50",
    ]
    [edit] = [e for e in page.timeline if isinstance(e, EditEntry)]
    assert (edit.kind, edit.actor_name) == ("edit", "Siti Aminah")
    # Nurul, who decided on it, reads the same history.
    assert len(document_queries.document_detail(nurul, doc.reference).timeline) == 5


def test_another_organization_reads_none_of_the_edits(backend, people, globex):
    siti = people("siti")
    doc = _claim(siti)
    documents.update_document(siti, doc.reference, amount=Decimal("130.00"))
    theirs = documents.create_document(
        globex.admin.actor,
        kind="expense_claim",
        title="Globex trip",
        amount=Decimal("9.00"),
        fields=CLAIM_FIELDS,
    )
    documents.update_document(globex.admin.actor, theirs.reference, amount=Decimal("10.00"))

    with unit_of_work(siti.org_id) as uow:  # each organization reads its own
        assert [e.document_id for e in uow.session.scalars(select(DocumentEdit))] == [doc.id]
    with unit_of_work(globex.org.id) as uow:
        assert [e.document_id for e in uow.session.scalars(select(DocumentEdit))] == [theirs.id]
        if backend.postgres:  # row-level security, below the ORM's filter
            raw = text("SELECT document_id FROM document_edit")
            assert list(uow.session.scalars(raw)) == [theirs.id]
    # The same reference is Globex's own claim there, with its own record of edits.
    assert theirs.reference == doc.reference
    page = document_queries.document_detail(globex.admin.actor, doc.reference)
    assert page.document.title == "Globex trip"
    assert [
        (c.old, c.new) for e in page.timeline if isinstance(e, EditEntry) for c in e.changes
    ] == [("9.0000", "10.0000")]


TAMPER = "UPDATE document_edit SET changes = '[]' WHERE document_id = :doc"
ERASE = "DELETE FROM document_edit WHERE document_id = :doc"


@postgres_only
def test_the_app_role_may_not_update_or_delete_an_edit(backend, people, globex):
    if not backend.postgres:
        pytest.skip("privileges are PostgreSQL's")
    siti = people("siti")
    doc = _claim(siti)
    documents.update_document(siti, doc.reference, amount=Decimal("130.00"))
    with unit_of_work(siti.org_id) as uow:  # the allowed case: reading the record
        assert uow.session.scalar(text("SELECT count(*) FROM document_edit")) == 1

    for statement in (TAMPER, ERASE):
        with (
            pytest.raises(DBAPIError, match="permission denied"),
            unit_of_work(siti.org_id) as uow,
        ):
            uow.session.execute(text(statement), {"doc": doc.id})

    assert len(_edits(siti.org_id, doc)[0].changes) == 1


def test_on_sqlite_the_triggers_refuse_updating_or_deleting_an_edit(backend, people, globex):
    if backend.postgres:
        pytest.skip("PostgreSQL: the privilege test")
    siti = people("siti")
    doc = _claim(siti)
    documents.update_document(siti, doc.reference, amount=Decimal("130.00"))

    for statement, op in ((TAMPER, "UPDATE"), (ERASE, "DELETE")):
        with (
            pytest.raises(DBAPIError, match=f"document_edit is append-only: {op} refused"),
            unit_of_work(siti.org_id) as uow,
        ):
            uow.session.execute(text(statement), {"doc": doc.id})

    assert len(_edits(siti.org_id, doc)[0].changes) == 1


# --- the page ----------------------------------------------------------------------------


# Ringgit as the page writes it: the code or the symbol, with or without a space.
MYR = r"(?:MYR|RM) ?"


def _history_text(html: str) -> str:
    """The history section's words, tags and runs of space removed."""
    section = html.split('id="history-heading"', 1)[1]
    words = re.sub(r"<[^>]+>", " ", section)
    return " ".join(words.replace("\u00a0", " ").split())


def test_the_page_shows_each_decisions_amount_and_an_edits_old_and_new(app, people, ticking):
    siti, _nurul, doc = _reworked(people, ticking)
    ticking()
    browser, token = demo_browser(app, "siti")
    saved = browser.post(
        f"/o/acme/documents/{doc.reference}/edit",
        data={
            "title": "Client visit, Ipoh",
            "description": "",
            "amount": "145.50",
            "f_category": "travel",
            "f_expense_date": "2026-11-20",
            "f_receipt_number": "R-1",
            "csrf_token": token,
        },
    )
    assert saved.status_code == 302, saved.get_data(as_text=True)
    [row] = _edits(siti.org_id, doc)
    assert row.request_id  # the request's own id, as decisions record it

    history = _history_text(browser.get(f"/o/acme/documents/{doc.reference}").get_data(True))

    assert re.search(rf"Amount {MYR}120\.00 → {MYR}145\.50", history), history
    assert "Title Client visit, Penang → Client visit, Ipoh" in history
    # Each decision with the amount it was taken on; the edit after the three of them.
    taken_on = [m.end() for m in re.finditer(rf"on {MYR}120\.00", history)]
    assert len(taken_on) == 3
    assert taken_on[-1] < history.index("Edited")
    assert not re.search(rf"on {MYR}145\.50", history)  # not submitted again yet


def test_the_page_of_a_draft_never_edited_says_no_decisions_yet(app, people, globex):
    siti = people("siti")
    doc = _claim(siti)
    browser, _ = demo_browser(app, "siti")
    history = _history_text(browser.get(f"/o/acme/documents/{doc.reference}").get_data(True))
    assert "No decisions yet." in history and "Edited" not in history


def test_a_bad_edit_form_is_refused_and_records_nothing(app, people, globex):
    siti = people("siti")
    doc = _claim(siti)
    browser, token = demo_browser(app, "siti")
    good = {
        "title": "Client visit, Ipoh",
        "description": "",
        "amount": "120.00",
        "f_category": "travel",
        "f_expense_date": "2026-11-20",
        "f_receipt_number": "R-1",
        "csrf_token": token,
    }
    url = f"/o/acme/documents/{doc.reference}/edit"
    assert browser.post(url, data=good).status_code == 302  # allowed: the title changes
    assert len(_edits(siti.org_id, doc)) == 1

    for change in (
        {"amount": "9" * 5000},
        {"amount": "١٢٠"},
        {"amount": "1.00001"},
        {"title": "Client\x00visit"},
        {"title": "x" * 5000},
        {"f_category": "lodging\x07"},
        {"f_expense_date": "2026-02-30"},
    ):
        answer = browser.post(url, data={**good, **change, "title": change.get("title", "New")})
        assert 400 <= answer.status_code < 500, (change, answer.status_code)
    assert len(_edits(siti.org_id, doc)) == 1
    assert document_queries.get_document(siti, doc.reference).title == "Client visit, Ipoh"
