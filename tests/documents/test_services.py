"""Documents through their services, in the demo organization's chart: created pinned to
the current flow version and numbered per organization, edited while a draft, moved
through the seeded flows with every refusal of DESIGN §5 (and nothing half-written
after one), tasks opened for the next step's band, side effects written to the outbox,
visible only to the people who have a part in them, and a history that shows tampering.
Globex is always there, and never sees a thing of acme's."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import DBAPIError

from portal.accounts import queries as account_queries
from portal.core.clock import clock
from portal.core.db import db, rows_changed
from portal.core.outbox import OutboxEvent
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.models import Decision, Document, Task, TaskStatus
from portal.documents.queries import detail as document_queries
from portal.domain import fields
from portal.domain.engine import TransitionRefused
from portal.domain.errors import DomainError, NotFound
from portal.domain.graph import (
    CommentPolicy,
    DocumentField,
    FieldType,
    Gate,
)
from portal.domain.labels import Labels
from portal.flows import queries as flow_queries
from portal.flows import services as flows
from tests.factories import demo_people

postgres_only = pytest.mark.postgres_only

CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20", "receipt_number": "R-1"}
PURCHASE_FIELDS = {"supplier": "Office Depot", "category": "goods"}
LEAVE_FIELDS = {"leave_type": "annual", "first_day": "2026-12-21", "last_day": "2026-12-24"}


def _year() -> int:
    return clock.now().year


def _claim(actor, amount: str = "480.00", title: str = "Client visit, Penang", **kw):
    return documents.create_document(
        actor,
        kind="expense_claim",
        title=title,
        amount=Decimal(amount),
        fields=kw.pop("fields", CLAIM_FIELDS),
        **kw,
    )


def _purchase(actor, amount: str, title: str = "Laptops"):
    return documents.create_document(
        actor, kind="purchase_request", title=title, amount=Decimal(amount), fields=PURCHASE_FIELDS
    )


def _move(actor, doc, key: str, comment: str = ""):
    return transitions.transition_document(
        actor, doc.reference, key, seen_state=doc.state, comment=comment
    ).document


def _walk(doc, *steps):
    """Take (actor, transition[, comment]) steps in turn; the document as it ends up."""
    for actor, key, *comment in steps:
        doc = _move(actor, doc, key, *comment)
    return doc


def _publish(admin, graph):
    current = flows.get_draft(admin, graph.kind).revision
    draft = flows.save_draft(admin, graph.kind, graph, revision=current)
    return flows.publish_draft(admin, graph.kind, revision=draft.revision).view


def _without_exclusive_approval(admin) -> None:
    """Publish the expense claim again with exclusive approval off: a claim of someone
    who reports straight to their unit's head (Grace, under Aisha) needs Aisha twice."""
    v1 = flow_queries.current_version(admin, "expense_claim").graph
    _publish(admin, replace(v1, exclusive_approval=False))


def _refusal(call, *args, **kwargs) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call(*args, **kwargs)
    return caught.value


def _tasks(org_id: int, doc) -> list[Task]:
    with unit_of_work(org_id) as uow:
        return list(
            uow.session.scalars(select(Task).where(Task.document_id == doc.id).order_by(Task.id))
        )


def _open_tasks(org_id: int, doc) -> dict[int, Task]:
    return {t.assignee_id: t for t in _tasks(org_id, doc) if t.status == TaskStatus.OPEN}


def _events(org_id: int, doc) -> list[OutboxEvent]:
    with unit_of_work(org_id) as uow:
        rows = uow.session.scalars(select(OutboxEvent).order_by(OutboxEvent.id))
        return [e for e in rows if e.payload.get("document_id") == doc.id]


def _state_of(org_id: int, doc) -> tuple:
    """Everything a transition or an edit could write about ``doc``."""
    with unit_of_work(org_id) as uow:
        s = uow.session
        row = s.scalars(select(Document).where(Document.id == doc.id)).one()
        return (
            (row.state, row.row_version, row.amount, row.title, dict(row.fields)),
            (row.state_entered_at, row.dispute_raiser_id, row.updated_at),
            [
                tuple(r)
                for r in s.execute(
                    select(Decision.seq, Decision.hash).where(Decision.document_id == doc.id)
                )
            ],
            [
                tuple(r)
                for r in s.execute(
                    select(Task.id, Task.assignee_id, Task.status, Task.completed_at).where(
                        Task.document_id == doc.id
                    )
                )
            ],
            [tuple(r) for r in s.execute(select(OutboxEvent.id, OutboxEvent.topic))],
        )


def _refused_without_trace(call, actor, doc, *args, **kwargs) -> DomainError:
    """The refusal ``call(actor, doc.reference, ...)`` raises, having written nothing:
    the document, its decisions and tasks, and the outbox are as they were."""
    before = _state_of(actor.org_id, doc)
    error = _refusal(call, actor, doc.reference, *args, **kwargs)
    assert _state_of(actor.org_id, doc) == before
    return error


def _transition_refused(actor, doc, key: str, *, seen_state: str | None = None, comment=""):
    error = _refused_without_trace(
        transitions.transition_document,
        actor,
        doc,
        key,
        seen_state=doc.state if seen_state is None else seen_state,
        comment=comment,
    )
    assert isinstance(error, TransitionRefused), error
    return error


# --- creating ----------------------------------------------------------------------------


def test_a_document_stays_on_the_version_it_started_on(people, globex):
    siti, grace = people("siti"), people("grace")
    first = _claim(siti, title="Before the change")
    assert (first.state, first.version, first.is_draft) == ("draft", 1, True)
    assert first.requester_name == "Siti Aminah"
    # Version 2 wants a reason on every submission.
    v1 = flow_queries.current_version(grace, "expense_claim").graph
    v2 = replace(
        v1,
        transitions=tuple(
            replace(t, comment=CommentPolicy.REQUIRED) if t.key == "submit" else t
            for t in v1.transitions
        ),
    )
    assert _publish(grace, v2).version == 2

    second = _claim(siti, title="After the change")

    assert second.version == 2
    assert document_queries.get_document(siti, first.reference).version == 1
    assert _move(siti, first, "submit").state == "pending_review"  # v1: no comment needed
    assert _transition_refused(siti, second, "submit").code == "comment_required"
    assert _move(siti, second, "submit", "Penang trip").state == "pending_review"


def test_references_are_numbered_per_kind_year_and_organization(people, globex):
    siti, hannah, gus = people("siti"), people("hannah"), globex.admin.actor
    year = _year()

    assert _claim(siti).reference == f"EXP-{year}-00001"
    assert _claim(siti).reference == f"EXP-{year}-00002"
    assert _purchase(hannah, "120.00").reference == f"PUR-{year}-00001"
    leave = documents.create_document(
        hannah, kind="leave_request", title="Year end", amount=Decimal(0), fields=LEAVE_FIELDS
    )
    assert leave.reference == f"LVE-{year}-00001"
    # Globex counts for itself, in its own currency.
    theirs = _claim(gus, title="Globex trip")
    assert (theirs.reference, theirs.currency) == (f"EXP-{year}-00001", "USD")

    assert document_queries.get_document(gus, f"EXP-{year}-00001").title == "Globex trip"
    assert document_queries.get_document(siti, f"EXP-{year}-00001").title == "Client visit, Penang"
    assert isinstance(_refusal(document_queries.get_document, gus, f"EXP-{year}-00002"), NotFound)
    assert _claim(siti).reference == f"EXP-{year}-00003"


def test_a_reference_prefix_comes_from_the_kind():
    assert [
        documents.reference_prefix(k)
        for k in ("expense_claim", "purchase_request", "leave_request")
    ] == ["EXP", "PUR", "LVE"]
    assert documents.reference_prefix("travel_advance") == "TA"
    assert documents.reference_prefix("invoice") == "INV"


def test_a_document_needs_a_known_kind_a_title_and_a_sound_amount(people, globex):
    siti = people("siti")
    good = _claim(siti, title="  Client   visit ", amount="480.12", currency="myr")
    assert (good.title, good.amount, good.currency) == ("Client visit", Decimal("480.12"), "MYR")

    for change, code, field, params in (
        ({"kind": "bonus_claim"}, "unknown_flow", "kind", {"kind": "bonus_claim"}),
        ({"title": "   "}, "title_required", "title", {}),
        ({"amount": Decimal("-0.01")}, "amount_negative", "amount", {}),
        (
            {"amount": Decimal("1.001")},
            "amount_too_precise",
            "amount",
            {"currency": "MYR", "num": 2},
        ),
        (
            {"currency": "EUR"},
            "amount_currency_mismatch",
            "currency",
            {"currency": "EUR", "base": "MYR"},
        ),
    ):
        args = {
            "kind": "expense_claim",
            "title": "Client visit",
            "amount": Decimal("480.00"),
            "fields": CLAIM_FIELDS,
            **change,
        }
        error = _refusal(documents.create_document, siti, **args)
        assert (error.code, error.field, error.params) == (code, field, params)

    with unit_of_work(siti.org_id) as uow:
        assert uow.session.scalars(select(Document.reference)).all() == [good.reference]
    assert _claim(siti).reference == f"EXP-{_year()}-00002"


def test_several_bad_fields_are_reported_together_and_nothing_is_created(people, globex):
    grace, hannah = people("grace"), people("hannah")
    v1 = flow_queries.current_version(grace, "purchase_request").graph
    quantity = DocumentField(
        key="quantity", type=FieldType.NUMBER, labels=Labels({"en": "Quantity"}), required=True
    )
    _publish(grace, replace(v1, fields=(*v1.fields, quantity)))
    v2 = flow_queries.current_version(grace, "purchase_request").graph
    good = {**PURCHASE_FIELDS, "needed_by": "2026-12-15", "quantity": "1,200"}
    assert fields.check_fields(v2, good, currency="MYR") == {**good, "quantity": "1200"}

    bad = {
        "supplier": "   ",
        "category": "hardware",
        "needed_by": "2026-02-30",
        "quantity": "a dozen",
        "colour": "red",
    }
    error = _refusal(
        documents.create_document,
        hannah,
        kind="purchase_request",
        title="Laptops",
        amount=Decimal("1200.00"),
        fields=bad,
    )

    assert isinstance(error, fields.FieldErrors)
    assert (error.code, error.params) == ("invalid_fields", {"num": 5})
    assert {e.field: e.code for e in error.errors} == {
        "fields.supplier": "field_required",
        "fields.category": "field_not_choice",
        "fields.needed_by": "field_not_date",
        "fields.quantity": "field_not_number",
        "fields.colour": "field_unknown",
    }
    with unit_of_work(hannah.org_id) as uow:
        assert uow.session.scalars(select(Document.id)).all() == []
    # The refusal took no number from the counter.
    made = documents.create_document(
        hannah, kind="purchase_request", title="Laptops", amount=Decimal("1200.00"), fields=good
    )
    assert (made.reference, made.fields["quantity"]) == (f"PUR-{_year()}-00001", "1200")


# --- editing -----------------------------------------------------------------------------


def test_the_requester_edits_a_draft_until_it_is_submitted(people, globex):
    siti, grace, jason = people("siti"), people("grace"), people("jason")
    doc = _claim(siti)

    edited = documents.update_document(
        siti,
        doc.reference,
        title="Client visit, Ipoh",
        amount=Decimal("512.40"),
        fields={**CLAIM_FIELDS, "category": "lodging"},
    )
    assert (edited.title, edited.amount, edited.fields["category"]) == (
        "Client visit, Ipoh",
        Decimal("512.40"),
        "lodging",
    )

    # An admin sees the draft but may not edit it; a colleague does not even see it.
    refusal = _refused_without_trace(documents.update_document, grace, doc, amount=Decimal(1))
    assert refusal.code == "not_requester"
    hidden = _refused_without_trace(documents.update_document, jason, doc, amount=Decimal(1))
    assert isinstance(hidden, NotFound)

    submitted = _move(siti, edited, "submit")
    frozen = _refused_without_trace(documents.update_document, siti, submitted, amount=Decimal(1))
    assert (frozen.code, frozen.params) == ("document_frozen", {"state": "pending_review"})
    assert document_queries.get_document(siti, doc.reference).amount == Decimal("512.40")


# --- moving: every refusal ---------------------------------------------------------------


def test_a_replayed_or_stale_request_meets_stale_state(people, globex):
    siti = people("siti")
    draft = _claim(siti)

    submitted = _move(siti, draft, "submit")
    assert submitted.state == "pending_review"

    replay = _transition_refused(siti, submitted, "submit", seen_state="draft")
    assert (replay.code, replay.params) == (
        "stale_state",
        {"seen": "draft", "current": "pending_review"},
    )
    never = _transition_refused(siti, submitted, "withdraw", seen_state="approved", comment="x")
    assert (never.code, never.params["seen"]) == ("stale_state", "approved")


def test_a_transition_must_leave_the_current_state(people, globex):
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    reviewed = _walk(_claim(siti), (siti, "submit"), (nurul, "review"))
    assert _move(zainal, reviewed, "approve").state == "approved"

    pending = _move(siti, _claim(siti), "submit")
    error = _transition_refused(nurul, pending, "approve")
    assert (error.code, error.params) == (
        "transition_not_allowed",
        {"transition": "approve", "state": "pending_review"},
    )
    assert _transition_refused(nurul, pending, "fly_to_the_moon").code == "transition_not_allowed"


def test_a_rejection_needs_a_comment(people, globex):
    siti, nurul = people("siti"), people("nurul")
    first = _move(siti, _claim(siti), "submit")
    assert _move(nurul, first, "reject", "Attach the receipt, please.").state == "rejected"

    second = _move(siti, _claim(siti), "submit")
    for blank in ("", "   "):
        error = _transition_refused(nurul, second, "reject", comment=blank)
        assert (error.code, error.field) == ("comment_required", "comment")


def test_an_expense_claim_of_nothing_cannot_be_submitted(people, globex):
    siti = people("siti")
    assert _move(siti, _claim(siti, "0.01"), "submit").state == "pending_review"

    nothing = _claim(siti, "0.00")
    error = _transition_refused(siti, nothing, "submit")
    assert (error.code, error.params) == (
        "guard_failed",
        {"message": "An expense claim needs an amount above zero."},
    )
    in_chinese = _transition_refused(replace(siti, locale="zh"), nothing, "submit")
    assert in_chinese.params == {"message": "费用报销的金额必须大于零。"}


def test_leave_cannot_end_before_it_starts(people, globex):
    hannah, grace = people("hannah"), people("grace")
    leave = documents.create_document(
        hannah, kind="leave_request", title="Year end", amount=Decimal(0), fields=LEAVE_FIELDS
    )
    assert _walk(leave, (hannah, "submit"), (grace, "approve")).state == "approved"

    backwards = documents.create_document(
        hannah,
        kind="leave_request",
        title="Year end",
        amount=Decimal(0),
        fields={**LEAVE_FIELDS, "last_day": "2026-12-20"},
    )
    error = _transition_refused(hannah, backwards, "submit")
    assert (error.code, error.params) == (
        "guard_failed",
        {"message": "The last day of leave cannot be before the first."},
    )


def test_only_the_requester_may_submit_or_withdraw(people, globex):
    siti, grace, nurul = people("siti"), people("grace"), people("nurul")
    mine = _move(siti, _claim(siti), "submit")
    assert _move(siti, mine, "withdraw", "Booked twice").state == "cancelled"

    draft = _claim(siti)
    assert _transition_refused(grace, draft, "submit").code == "not_requester"
    pending = _move(siti, draft, "submit")
    refusal = _transition_refused(nurul, pending, "withdraw", comment="Not needed")
    assert refusal.code == "not_requester"


def test_only_the_winning_band_may_decide(people, globex):
    siti, nurul, grace, ravi = people("siti"), people("nurul"), people("grace"), people("ravi")
    assert _move(nurul, _move(siti, _claim(siti), "submit"), "review").state == "reviewed"

    pending = _move(siti, _claim(siti), "submit")
    # An admin and the auditor see every document, but neither is Siti's superior.
    for outsider in (grace, ravi):
        assert _transition_refused(outsider, pending, "review").code == "not_assigned"
        error = _transition_refused(outsider, pending, "reject", comment="No")
        assert error.code == "not_assigned"


def test_nobody_decides_their_own_document(people, globex):
    siti, nurul, grace, aisha = people("siti"), people("nurul"), people("grace"), people("aisha")
    pending = _move(siti, _claim(siti), "submit")
    assert _transition_refused(siti, pending, "review").code == "self_approval"
    assert _move(nurul, pending, "review").state == "reviewed"

    # Grace is an admin, and admins verify categories: but not on her own claim.
    _without_exclusive_approval(grace)
    own = _walk(_claim(grace), (grace, "submit"), (aisha, "review"), (aisha, "approve"))
    assert _transition_refused(grace, own, "verify_category").code == "self_approval"
    assert _move(aisha, own, "verify_category").state == "category_verified"


def test_who_raised_a_dispute_may_not_close_it(people, globex):
    siti, nurul, grace, aisha = people("siti"), people("nurul"), people("grace"), people("aisha")
    # In the seeded flow only the requester disputes, and closing their own dispute is
    # already self-approval; version 2 lets the admins who paid raise one themselves
    # (the payer: a dispute raised from the payment is the payment step's to raise).
    v1 = flow_queries.current_version(grace, "expense_claim").graph
    v2 = replace(
        v1,
        transitions=tuple(
            replace(t, gate=Gate.SOURCE) if (t.key, t.from_state) == ("dispute", "completed") else t
            for t in v1.transitions
        ),
    )
    assert _publish(grace, v2).version == 2
    paid = _walk(
        _claim(siti),
        (siti, "submit"),
        (nurul, "review"),
        (people("zainal"), "approve"),
        (grace, "verify_category"),
        (aisha, "pay"),
    )
    disputed = _move(aisha, paid, "dispute", "Paid to the wrong account")
    assert disputed.state == "disputed"

    [dismiss] = [
        a
        for a in document_queries.available_transitions(grace, paid.reference)
        if a.key == "dismiss"
    ]
    assert dismiss.allowed
    error = _transition_refused(aisha, disputed, "dismiss", comment="Fine after all")
    assert error.code == "dispute_raiser"
    assert _move(grace, disputed, "dismiss", "Bank confirms receipt").state == "received"


def test_a_requester_with_no_seat_cannot_submit(people, globex, make_member):
    siti = people("siti")
    assert _move(siti, _claim(siti), "submit").state == "pending_review"
    acme = account_queries.find_organization("acme")
    newcomer = make_member(acme, "Nora Newcomer").actor
    draft = _claim(newcomer)  # creating needs no route; submitting does

    error = _transition_refused(newcomer, draft, "submit")

    assert error.code == "route_has_gap"
    assert (error.params["state"], error.params["reason"]) == ("reviewed", "no_primary_position")


def test_a_transition_that_fails_after_writing_rolls_back_whole(people, globex, monkeypatch):
    siti = people("siti")
    draft = _claim(siti)
    before = _state_of(siti.org_id, draft)
    write = transitions.write_decision

    def write_then_fail(*args, **kwargs):
        assert write(*args, **kwargs)
        raise RuntimeError("the connection dropped")

    monkeypatch.setattr(transitions, "write_decision", write_then_fail)
    with pytest.raises(RuntimeError):
        transitions.transition_document(siti, draft.reference, "submit", seen_state="draft")

    assert _state_of(siti.org_id, draft) == before
    assert _events(siti.org_id, draft) == []


# --- tasks -------------------------------------------------------------------------------


def test_submitting_opens_tasks_for_the_band_that_covers_the_amount(people, globex):
    hannah, grace, aisha = people("hannah"), people("grace"), people("aisha")
    clock.freeze(clock.now())
    due = clock.now() + timedelta(hours=48)

    below = _move(hannah, _purchase(hannah, "9999.99"), "submit")
    at_floor = _move(hannah, _purchase(hannah, "10000.00"), "submit")

    [superior] = _open_tasks(hannah.org_id, below).values()
    assert (superior.assignee_id, superior.state, superior.band_floor) == (
        grace.member_id,
        "submitted",
        Decimal("0"),
    )
    assert (superior.transitions, superior.via, superior.due_at) == (
        ["approve", "reject"],
        "grant",
        due,
    )
    [head] = _open_tasks(hannah.org_id, at_floor).values()
    assert (head.assignee_id, head.band_floor, head.due_at) == (
        aisha.member_id,
        Decimal("10000"),
        due,
    )
    assert _transition_refused(grace, at_floor, "approve").code == "not_assigned"
    approved = _move(aisha, at_floor, "approve")
    assert approved.state == "approved"
    assert document_queries.verify_history(aisha, approved.reference).ok


def test_leaving_a_state_completes_the_actors_task_and_cancels_the_others(people, globex):
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    admins = [people(name) for name in ("grace", "aisha", "daniel", "meiling")]
    grace, aisha = admins[0], admins[1]
    approved = _walk(_claim(siti), (siti, "submit"), (nurul, "review"), (zainal, "approve"))
    waiting = _open_tasks(siti.org_id, approved)
    assert sorted(waiting) == sorted(a.member_id for a in admins)
    assert {t.state for t in waiting.values()} == {"approved"}

    verified = _move(grace, approved, "verify_category")

    closed = {t.assignee_id: t for t in _tasks(siti.org_id, verified) if t.state == "approved"}
    assert closed[grace.member_id].status == TaskStatus.COMPLETED
    assert closed[aisha.member_id].status == TaskStatus.CANCELLED
    assert {t.completed_by for t in closed.values()} == {grace.member_id}
    # Exclusive approval: whoever committed the money does not pay it too.
    now_open = _open_tasks(siti.org_id, verified)
    assert sorted(now_open) == sorted(a.member_id for a in admins[1:])
    assert {t.state for t in now_open.values()} == {"category_verified"}
    assert document_queries.count_open_tasks_on(siti, verified.reference) == 3


def test_the_requester_never_gets_a_task_on_their_own_document(people, globex):
    siti, nurul, grace, aisha = people("siti"), people("nurul"), people("grace"), people("aisha")
    others = _walk(_claim(siti), (siti, "submit"), (nurul, "review"), (people("zainal"), "approve"))
    assert grace.member_id in _open_tasks(siti.org_id, others)

    _without_exclusive_approval(grace)
    own = _walk(_claim(grace), (grace, "submit"), (aisha, "review"), (aisha, "approve"))

    finance = [people(name).member_id for name in ("daniel", "meiling")]
    assert sorted(_open_tasks(grace.org_id, own)) == sorted([aisha.member_id, *finance])
    assert all(t.assignee_id != grace.member_id for t in _tasks(grace.org_id, own))


# --- the outbox --------------------------------------------------------------------------


def _by_decision(org_id: int, doc) -> dict[int, dict[str, dict]]:
    found: dict[int, dict[str, dict]] = {}
    for event in _events(org_id, doc):
        found.setdefault(event.payload["decision"], {})[event.topic] = event.payload
    return found


def test_each_decision_writes_its_side_effects_to_the_outbox(people, globex):
    siti, nurul, grace, aisha = people("siti"), people("nurul"), people("grace"), people("aisha")
    admins = sorted(people(name).member_id for name in ("grace", "aisha", "daniel", "meiling"))
    doc = _walk(
        _claim(siti),
        (siti, "submit"),
        (nurul, "review"),
        (people("zainal"), "approve"),
        (grace, "verify_category"),
        (aisha, "pay"),
        (siti, "acknowledge"),
        (siti, "dispute", "Short by RM20"),
        (grace, "uphold", "Bank slip shows RM460"),
    )
    assert doc.state == "rejected"

    events = _by_decision(siti.org_id, doc)

    assert {seq: sorted(topics) for seq, topics in events.items()} == {
        1: ["notify.task_assigned"],  # Siti acted herself: nobody to tell but Nurul
        2: ["notify.document_moved", "notify.task_assigned"],
        3: ["notify.document_moved", "notify.task_assigned"],
        4: ["notify.document_moved", "notify.task_assigned", "posting.accrual"],
        5: ["notify.document_moved", "posting.payout"],
        # 6: Siti acknowledged; no tasks, no posting, nobody to tell.
        7: ["notify.task_assigned"],
        8: ["notify.document_moved", "posting.reversal"],
    }
    assert events[1]["notify.task_assigned"]["members"] == [nurul.member_id]
    assert events[1]["notify.task_assigned"]["state"] == "pending_review"
    assert events[3]["notify.task_assigned"]["members"] == admins
    assert events[7]["notify.task_assigned"]["members"] == admins
    for seq in (2, 3, 4, 5, 8):
        assert events[seq]["notify.document_moved"]["members"] == [siti.member_id]
    assert events[8]["notify.document_moved"]["transition"] == "uphold"
    for seq, topic in ((4, "posting.accrual"), (5, "posting.payout"), (8, "posting.reversal")):
        posting = events[seq][topic]
        assert (Decimal(posting["amount"]), posting["currency"]) == (Decimal("480.00"), "MYR")
        assert (posting["kind"], posting["reference"]) == ("expense_claim", doc.reference)


def test_a_refused_transition_leaves_no_outbox_row(people, globex):
    siti, nurul = people("siti"), people("nurul")
    pending = _move(siti, _claim(siti), "submit")
    assert len(_events(siti.org_id, pending)) == 1

    _transition_refused(nurul, pending, "reject")  # no comment
    _transition_refused(siti, pending, "review")

    assert [e.topic for e in _events(siti.org_id, pending)] == ["notify.task_assigned"]


# --- what each person may do -------------------------------------------------------------


def _choices(actor, doc) -> dict[str, tuple[bool, str | None]]:
    return {
        a.key: (a.allowed, a.refusal.code if a.refusal else None)
        for a in document_queries.available_transitions(actor, doc.reference)
    }


def test_available_transitions_say_who_may_do_what(people, globex):
    siti, nurul, ravi = people("siti"), people("nurul"), people("ravi")
    draft = _claim(siti)

    assert _choices(siti, draft) == {"submit": (True, None)}
    assert _choices(ravi, draft) == {"submit": (False, "not_requester")}
    assert _choices(siti, _claim(siti, "0.00")) == {"submit": (False, "guard_failed")}

    pending = _move(siti, draft, "submit")
    assert _choices(nurul, pending) == {
        "review": (True, None),
        "reject": (True, None),
        "withdraw": (False, "not_requester"),
    }
    reject = next(
        a
        for a in document_queries.available_transitions(nurul, pending.reference)
        if a.key == "reject"
    )
    assert (reject.to_state, reject.comment_required) == ("rejected", True)
    assert _choices(siti, pending) == {
        "review": (False, "self_approval"),
        "reject": (False, "self_approval"),
        "withdraw": (True, None),
    }


def test_the_detail_page_read_is_the_separate_reads_in_one_go(people):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    page = document_queries.document_detail(nurul, doc.reference)
    assert page.document == document_queries.get_document(nurul, doc.reference)

    def exits(actions):
        # Refusals are exceptions, which compare by identity: compare their codes.
        return [(a.key, a.allowed, a.refusal.code if a.refusal else None) for a in actions]

    assert exits(page.actions) == exits(
        document_queries.available_transitions(nurul, doc.reference)
    )
    assert [a.key for a in page.actions if a.allowed] == ["review", "reject"]
    assert page.waiting == document_queries.waiting_for(nurul, doc.reference)
    assert page.waiting["review"] == ["Nurul Huda"]
    assert page.history == document_queries.history(nurul, doc.reference)
    assert [h.transition for h in page.history] == ["submit"]
    assert page.chain == document_queries.verify_history(nurul, doc.reference)
    assert page.chain.ok and page.chain.decisions == 1


# --- visibility --------------------------------------------------------------------------


def _hidden_from(actor, doc) -> None:
    for call, args, kwargs in (
        (document_queries.get_document, (), {}),
        (document_queries.history, (), {}),
        (document_queries.verify_history, (), {}),
        (document_queries.available_transitions, (), {}),
        (document_queries.waiting_for, (), {}),
        (document_queries.document_detail, (), {}),
        (transitions.transition_document, ("review",), {"seen_state": doc.state}),
    ):
        assert isinstance(_refusal(call, actor, doc.reference, *args, **kwargs), NotFound)


def test_a_document_is_seen_only_by_those_with_a_part_in_it(people, globex):
    siti, nurul, jason = people("siti"), people("nurul"), people("jason")
    grace, ravi = people("grace"), people("ravi")
    draft = _claim(siti)
    for reader in (siti, grace, ravi):  # the requester, an admin, the auditor
        assert document_queries.get_document(reader, draft.reference).title == draft.title
    _hidden_from(nurul, draft)  # no task yet
    _hidden_from(jason, draft)

    pending = _move(siti, draft, "submit")
    assert document_queries.get_document(nurul, pending.reference).state == "pending_review"
    approved = _walk(pending, (nurul, "review"), (people("zainal"), "approve"))
    # Nurul's tasks are all done: having held one is enough.
    assert _open_tasks(siti.org_id, approved).keys().isdisjoint({nurul.member_id})
    assert [e.transition for e in document_queries.history(nurul, approved.reference)] == [
        "submit",
        "review",
        "approve",
    ]
    _hidden_from(jason, approved)
    _hidden_from(globex.admin.actor, approved)


# --- history -----------------------------------------------------------------------------


def test_history_lists_each_decision_in_order_with_who_and_why(people, globex):
    siti, nurul = people("siti"), people("nurul")
    doc = _walk(
        _claim(siti),
        (siti, "submit"),
        (nurul, "reject", "Attach the receipt, please."),
        (siti, "revise"),
        (siti, "submit"),
        (nurul, "review", "Receipt attached, thanks"),
    )

    entries = document_queries.history(siti, doc.reference)

    assert [(e.seq, e.from_state, e.to_state, e.actor_name, e.comment) for e in entries] == [
        (1, "draft", "pending_review", "Siti Aminah", ""),
        (2, "pending_review", "rejected", "Nurul Huda", "Attach the receipt, please."),
        (3, "rejected", "draft", "Siti Aminah", ""),
        (4, "draft", "pending_review", "Siti Aminah", ""),
        (5, "pending_review", "reviewed", "Nurul Huda", "Receipt attached, thanks"),
    ]
    assert [e.via for e in entries] == ["requester", "grant", "requester", "requester", "grant"]
    assert entries[1].eligible == [nurul.member_id]
    check = document_queries.verify_history(siti, doc.reference)
    assert (check.ok, check.decisions, check.broken_at) == (True, 5, None)


def _three_decisions(person):
    siti, nurul = person("siti"), person("nurul")
    doc = _walk(
        _claim(siti),
        (siti, "submit"),
        (nurul, "review", "Looks right"),
        (person("zainal"), "approve"),
    )
    assert document_queries.verify_history(siti, doc.reference).ok
    return siti, doc


TAMPER = "UPDATE decision SET comment = 'Looks wrong' WHERE document_id = :doc AND seq = 2"


def test_on_sqlite_a_rewritten_decision_breaks_the_chain(backend, people, globex):
    if backend.postgres:
        pytest.skip("PostgreSQL: see the owner test")
    siti, doc = _three_decisions(people)

    with unit_of_work(siti.org_id) as uow:  # undone with the test's transaction
        uow.session.execute(text("DROP TRIGGER decision_no_update"))
        assert rows_changed(uow.session.execute(text(TAMPER), {"doc": doc.id})) == 1

    assert document_queries.history(siti, doc.reference)[1].comment == "Looks wrong"
    check = document_queries.verify_history(siti, doc.reference)
    assert (check.ok, check.decisions, check.broken_at) == (False, 3, 2)


@postgres_only
def test_a_decision_rewritten_by_the_table_owner_breaks_the_chain(backend, committed):
    if not backend.postgres:
        pytest.skip("the owner role is PostgreSQL's")
    # Everything runs on one owner connection in a transaction rolled back at the end:
    # another connection could not see the test's rows, nor wait for the owner's lock.
    owner = create_engine(backend.owner_url)
    conn = owner.connect()
    outer = conn.begin()
    db.pin_to(conn)
    try:
        siti, doc = _three_decisions(demo_people())
        with (
            pytest.raises(DBAPIError, match="decision is append-only: UPDATE refused"),
            unit_of_work(siti.org_id) as uow,
        ):
            uow.session.execute(text(TAMPER), {"doc": doc.id})
        assert document_queries.verify_history(siti, doc.reference).ok

        with unit_of_work(siti.org_id) as uow:
            uow.session.execute(text("ALTER TABLE decision DISABLE TRIGGER decision_append_only"))
            assert rows_changed(uow.session.execute(text(TAMPER), {"doc": doc.id})) == 1

        assert document_queries.history(siti, doc.reference)[1].comment == "Looks wrong"
        check = document_queries.verify_history(siti, doc.reference)
        assert (check.ok, check.decisions, check.broken_at) == (False, 3, 2)
    finally:
        db.pin_to(None)
        outer.rollback()
        conn.close()
        owner.dispose()


@postgres_only
def test_the_app_role_may_not_update_or_delete_a_decision(backend, people, globex):
    if not backend.postgres:
        pytest.skip("privileges are PostgreSQL's")
    siti, doc = _three_decisions(people)
    with unit_of_work(siti.org_id) as uow:  # the allowed case: reading the history
        assert uow.session.scalar(text("SELECT count(*) FROM decision")) == 3

    for statement in (TAMPER, "DELETE FROM decision WHERE document_id = :doc"):
        with (
            pytest.raises(DBAPIError, match="permission denied"),
            unit_of_work(siti.org_id) as uow,
        ):
            uow.session.execute(text(statement), {"doc": doc.id})

    assert document_queries.verify_history(siti, doc.reference).ok


def test_on_sqlite_the_triggers_refuse_updating_or_deleting_a_decision(backend, people, globex):
    if backend.postgres:
        pytest.skip("PostgreSQL is covered by the privilege and owner tests")
    siti, doc = _three_decisions(people)

    for statement, op in (
        (TAMPER, "UPDATE"),
        ("DELETE FROM decision WHERE document_id = :doc", "DELETE"),
    ):
        with (
            pytest.raises(DBAPIError, match=f"decision is append-only: {op} refused"),
            unit_of_work(siti.org_id) as uow,
        ):
            uow.session.execute(text(statement), {"doc": doc.id})

    check = document_queries.verify_history(siti, doc.reference)
    assert (check.ok, check.decisions) == (True, 3)
