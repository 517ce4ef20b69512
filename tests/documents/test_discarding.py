"""A requester throws away a draft they never submitted: asked first, then recorded
(who, when, a ``discard`` edit) and gone from every list and count. Its reference stays
taken. The requester meets a "discarded" answer (410) from then on; admins and auditors
still read it, marked Discarded, and nobody can do anything more with it. A document
submitted even once cannot be discarded: it ends through its flow. Globex is there and
never sees a thing."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import select

from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.models import Document, DocumentEdit
from portal.documents.queries import detail as document_queries
from portal.documents.queries import lists
from portal.documents.queries.history import EditEntry
from portal.domain.errors import DomainError, NotFound
from tests.factories import demo_browser

CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20"}


def _claim(actor, title: str = "Client visit, Penang", amount: str = "480.00"):
    return documents.create_document(
        actor, kind="expense_claim", title=title, amount=Decimal(amount), fields=CLAIM_FIELDS
    )


def _refusal(call, *args, **kwargs) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call(*args, **kwargs)
    return caught.value


def _row(org_id: int, doc) -> Document:
    with unit_of_work(org_id) as uow:
        row = uow.session.scalars(select(Document).where(Document.id == doc.id)).one()
        uow.session.expunge(row)
        return row


def _edits(org_id: int, doc) -> list[tuple[str, int, str | None]]:
    with unit_of_work(org_id) as uow:
        return [
            (e.kind, e.actor_id, e.request_id)
            for e in uow.session.scalars(
                select(DocumentEdit)
                .where(DocumentEdit.document_id == doc.id)
                .order_by(DocumentEdit.id)
            )
        ]


def _mine(actor) -> list[str]:
    listed = lists.list_my_documents(actor)
    assert listed.total == len(listed.rows)
    return [r.reference for r in listed.rows]


# --- the service -------------------------------------------------------------------------


def test_the_requester_discards_a_draft_and_it_is_listed_nowhere(people, globex):
    siti = people("siti")
    kept, thrown = _claim(siti, "Keep me"), _claim(siti, "Throw me away")
    assert _mine(siti) == [thrown.reference, kept.reference]

    done = documents.discard_draft(siti, thrown.reference, request_id="req-discard")

    assert (done.reference, done.title) == (thrown.reference, "Throw me away")
    assert _mine(siti) == [kept.reference]
    assert lists.my_documents_page(siti).listed.total == 1
    row = _row(siti.org_id, thrown)
    assert row.discarded_at is not None and row.discarded_by == siti.member_id
    assert row.state == "draft" and row.chain_seq == 0
    assert _edits(siti.org_id, thrown) == [("discard", siti.member_id, "req-discard")]
    # Its reference stays taken: the next claim does not reuse it.
    year = clock.now().year
    assert _claim(siti).reference == f"EXP-{year}-00003"
    # The kept one is untouched.
    assert _row(siti.org_id, kept).discarded_at is None


def test_after_discarding_the_requester_is_told_it_is_gone_and_can_do_nothing(people, globex):
    siti = people("siti")
    doc = _claim(siti)
    documents.update_document(siti, doc.reference, amount=Decimal("500.00"))  # allowed before
    documents.discard_draft(siti, doc.reference)

    for call, args, kwargs in (
        (document_queries.get_document, (), {}),
        (document_queries.document_detail, (), {}),
        (document_queries.history, (), {}),
        (document_queries.document_for_editing, (), {}),
        (document_queries.document_for_discarding, (), {}),
        (documents.update_document, (), {"amount": Decimal("1.00")}),
        (documents.discard_draft, (), {}),  # a second discarding: a double click
        (transitions.transition_document, ("submit",), {"seen_state": "draft"}),
    ):
        refused = _refusal(call, siti, doc.reference, *args, **kwargs)
        assert refused.code == "document_discarded", call
    assert _edits(siti.org_id, doc) == [
        ("edit", siti.member_id, None),
        ("discard", siti.member_id, None),
    ]
    assert _row(siti.org_id, doc).amount == Decimal("500.00")


def test_admins_and_auditors_still_read_a_discarded_draft_marked_so(people, globex):
    siti, grace, ravi = people("siti"), people("grace"), people("ravi")
    doc = _claim(siti)
    documents.discard_draft(siti, doc.reference)

    for reader in (grace, ravi):
        page = document_queries.document_detail(reader, doc.reference)
        assert page.document.discarded_at is not None
        assert (page.actions, page.may_edit, page.may_discard) == ([], False, False)
        [entry] = page.timeline
        assert isinstance(entry, EditEntry)
        assert (entry.kind, entry.actor_name) == ("discard", "Siti Aminah")
        assert document_queries.verify_history(reader, doc.reference).ok
    # Reading is all: an admin cannot move it either.
    moved = _refusal(
        transitions.transition_document, grace, doc.reference, "submit", seen_state="draft"
    )
    assert moved.code == "document_discarded"
    # Nor is it anyone else's to know about.
    for outsider in (people("jason"), people("nurul"), globex.admin.actor):
        with pytest.raises(NotFound):
            document_queries.document_detail(outsider, doc.reference)


def test_only_the_requester_may_discard_and_only_their_own(people, globex):
    siti, grace, jason = people("siti"), people("grace"), people("jason")
    doc = _claim(siti)
    theirs = _claim(globex.admin.actor, "Globex trip")
    assert theirs.reference == doc.reference  # each organization numbers for itself

    assert _refusal(documents.discard_draft, grace, doc.reference).code == "not_requester"
    for outsider in (jason, globex.admin.actor):
        with pytest.raises(NotFound):
            documents.discard_draft(outsider, doc.reference + "0")
    with pytest.raises(NotFound):
        documents.discard_draft(jason, doc.reference)
    # Globex's admin, naming the same reference, discards Globex's own draft only.
    documents.discard_draft(globex.admin.actor, theirs.reference)
    assert _row(siti.org_id, doc).discarded_at is None
    assert _edits(siti.org_id, doc) == []

    documents.discard_draft(siti, doc.reference)  # the requester may
    assert _row(siti.org_id, doc).discarded_by == siti.member_id


def test_a_document_submitted_once_cannot_be_discarded_even_back_in_draft(people, globex):
    siti, nurul = people("siti"), people("nurul")
    never = _claim(siti, "Never submitted")
    assert document_queries.document_for_discarding(siti, never.reference).title == (
        "Never submitted"
    )
    doc = _claim(siti)
    submitted = transitions.transition_document(
        siti, doc.reference, "submit", seen_state="draft"
    ).document

    assert _refusal(documents.discard_draft, siti, doc.reference).code == (
        "discard_after_submission"
    )
    for key, actor, comment in (("reject", nurul, "Wrong trip"), ("revise", siti, "")):
        submitted = transitions.transition_document(
            actor, doc.reference, key, seen_state=submitted.state, comment=comment
        ).document
    assert submitted.state == "draft"  # a draft again, but one that has a history
    page = document_queries.document_detail(siti, doc.reference)
    assert (page.may_edit, page.may_discard) == (True, False)
    for call in (documents.discard_draft, document_queries.document_for_discarding):
        assert _refusal(call, siti, doc.reference).code == "discard_after_submission"
    assert _row(siti.org_id, doc).discarded_at is None
    assert _edits(siti.org_id, doc) == []
    assert doc.reference in _mine(siti)


# --- the pages ---------------------------------------------------------------------------


def test_the_requester_is_asked_then_the_draft_is_gone_from_the_list(app, people, globex):
    siti = people("siti")
    doc = _claim(siti, "Throw me away")
    browser, token = demo_browser(app, "siti")
    page = browser.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
    assert f'href="/o/acme/documents/{doc.reference}/discard"' in page
    assert doc.reference in browser.get("/o/acme/documents/").get_data(as_text=True)

    asked = browser.get(f"/o/acme/documents/{doc.reference}/discard")
    assert asked.status_code == 200
    question = asked.get_data(as_text=True)
    assert f"Discard {doc.reference}?" in question and "Throw me away" in question
    assert "stays taken" in question
    assert f'action="/o/acme/documents/{doc.reference}/discard"' in question
    assert _row(siti.org_id, doc).discarded_at is None  # asking changes nothing

    done = browser.post(f"/o/acme/documents/{doc.reference}/discard", data={"csrf_token": token})
    assert done.status_code == 303
    assert done.headers["Location"].endswith("/o/acme/documents/")
    listing = browser.get(done.headers["Location"]).get_data(as_text=True)
    assert f"{doc.reference} “Throw me away” is discarded" in listing
    assert f"/o/acme/documents/{doc.reference}" not in listing
    [edit] = _edits(siti.org_id, doc)
    assert edit[0] == "discard" and edit[2]  # recorded with the request's id

    # A second post (a double click) is told it was already done; the page is gone (410).
    again = browser.post(f"/o/acme/documents/{doc.reference}/discard", data={"csrf_token": token})
    assert again.status_code == 303
    told = browser.get(again.headers["Location"]).get_data(as_text=True)
    assert f"{doc.reference} had already been discarded." in told
    gone = browser.get(f"/o/acme/documents/{doc.reference}")
    assert gone.status_code == 410
    assert "This draft was discarded by its requester." in gone.get_data(as_text=True)
    assert browser.get(f"/o/acme/documents/{doc.reference}/discard").status_code == 410
    assert browser.get(f"/o/acme/documents/{doc.reference}/edit").status_code == 410
    assert len(_edits(siti.org_id, doc)) == 1


def test_an_admin_sees_a_discarded_draft_marked_and_an_outsider_not_at_all(app, people, globex):
    siti = people("siti")
    doc = _claim(siti)
    documents.discard_draft(siti, doc.reference)

    grace, token = demo_browser(app, "grace")
    page = grace.get(f"/o/acme/documents/{doc.reference}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'data-testid="discarded"' in html and "Draft discarded" in html
    assert 'name="transition"' not in html and "/edit" not in html
    refused = grace.post(
        f"/o/acme/documents/{doc.reference}/transition",
        data={"transition": "submit", "seen_state": "draft", "csrf_token": token},
    )
    assert refused.status_code == 410

    jason, _ = demo_browser(app, "jason")
    assert jason.get(f"/o/acme/documents/{doc.reference}").status_code == 404
    assert jason.get(f"/o/acme/documents/{doc.reference}/discard").status_code == 404


def test_the_discard_page_refuses_whoever_may_not_and_what_may_not_be(app, people, globex):
    siti = people("siti")
    draft, doc = _claim(siti, "Still a draft"), _claim(siti)
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")

    browser, token = demo_browser(app, "siti")
    assert browser.get(f"/o/acme/documents/{draft.reference}/discard").status_code == 200
    page = browser.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
    assert "/discard" not in page  # submitted: no button
    for answer in (
        browser.get(f"/o/acme/documents/{doc.reference}/discard"),
        browser.post(f"/o/acme/documents/{doc.reference}/discard", data={"csrf_token": token}),
    ):
        assert answer.status_code == 409
        assert "it cannot be discarded" in answer.get_data(as_text=True)

    grace, grace_token = demo_browser(app, "grace")  # an admin sees the draft, may not
    assert "/discard" not in grace.get(f"/o/acme/documents/{draft.reference}").get_data(True)
    assert grace.get(f"/o/acme/documents/{draft.reference}/discard").status_code == 403
    posted = grace.post(
        f"/o/acme/documents/{draft.reference}/discard", data={"csrf_token": grace_token}
    )
    assert posted.status_code == 403

    # Without the CSRF token nothing happens; odd references are simply not found.
    assert browser.post(f"/o/acme/documents/{draft.reference}/discard").status_code == 400
    for reference in ("EXP-2026-0000\u0661", "X" * 5000, "EXP%2F..%2F1", "１２３"):
        for answer in (
            browser.get(f"/o/acme/documents/{reference}/discard"),
            browser.post(f"/o/acme/documents/{reference}/discard", data={"csrf_token": token}),
        ):
            assert answer.status_code in (400, 404), (reference, answer.status_code)
    assert browser.get("/o/acme/documents/EXP%00/discard").status_code in (400, 404)
    assert _row(siti.org_id, draft).discarded_at is None
