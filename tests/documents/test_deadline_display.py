"""The pages tell the truth about deadlines: the document page shows each open task's
due date ("due in 2 days", "overdue by 3 hours", the moment in the reader's zone) and
what a passing deadline did with it ("escalated to you from Nurul Huda", "escalated to
Zainal Abidin"); the history tells each escalation, reassignment, gap, automatic move
and reminder; the inbox marks a task handed over by a deadline. The sweep's rows are
written here as the sweep writes them (``deadline_rows``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import select

from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.queries.handovers import handovers_of
from portal.orgchart.models import Position
from tests.documents.deadline_rows import record_handover, record_reminder, record_system_move
from tests.factories import demo_browser

FIELDS = {"category": "travel", "expense_date": "2026-11-20"}
# 10:00 in Kuala Lumpur, where the demo organization and its people are.
SUBMITTED_AT = datetime(2027, 1, 4, 2, 0, tzinfo=UTC)


def _submitted(people):
    """Siti's claim, waiting for Nurul's review: due five days (5 × 24 h) later."""
    clock.freeze(SUBMITTED_AT)
    siti = people("siti")
    doc = documents.create_document(
        siti, kind="expense_claim", title="Client visit", amount=Decimal("480.00"), fields=FIELDS
    )
    return transitions.transition_document(
        siti, doc.reference, "submit", seen_state="draft"
    ).document


def _page(app, name: str, reference: str) -> str:
    browser, _token = demo_browser(app, name)
    page = browser.get(f"/o/acme/documents/{reference}")
    assert page.status_code == 200
    return page.get_data(as_text=True)


def _inbox(app, name: str) -> str:
    browser, _token = demo_browser(app, name)
    page = browser.get("/o/acme/inbox/")
    assert page.status_code == 200
    return page.get_data(as_text=True)


# --- due dates ------------------------------------------------------------------------------


def test_the_document_page_says_when_each_open_task_is_due_in_the_readers_zone(app, people):
    doc = _submitted(people)
    clock.freeze(SUBMITTED_AT + timedelta(days=3))

    html = _page(app, "siti", doc.reference)
    assert 'Nurul Huda</strong> <span class="tag">due in 2 days</span>' in html
    # 9 January, 10:00 in Kuala Lumpur (02:00 UTC).
    assert "due 9 Jan 2027, 10:00" in html

    clock.freeze(SUBMITTED_AT + timedelta(days=5, hours=3))
    late = _page(app, "nurul", doc.reference)
    assert '<strong>You</strong> <span class="tag danger">overdue by 3 hours</span>' in late


def test_a_state_without_a_deadline_lists_no_due_date(app, people):
    doc = _submitted(people)
    reviewed = transitions.transition_document(
        people("nurul"), doc.reference, "review", seen_state="pending_review"
    ).document
    html = _page(app, "siti", reviewed.reference)
    assert 'data-testid="open-tasks"' not in html and "due in" not in html


# --- escalation -----------------------------------------------------------------------------


def test_an_escalated_task_says_from_whom_and_the_history_tells_it(app, people, globex):
    doc = _submitted(people)
    nurul, zainal = people("nurul"), people("zainal")
    # Before any deadline passed: nothing escalated anywhere.
    assert "escalated" not in _inbox(app, "nurul")
    assert "escalated" not in _page(app, "nurul", doc.reference)

    clock.freeze(SUBMITTED_AT + timedelta(days=5, minutes=1))
    record_handover(nurul.org_id, doc.reference, nurul.member_id, [zainal.member_id])

    inbox = _inbox(app, "zainal")
    assert doc.reference in inbox
    assert 'data-via="escalation">escalated to you from Nurul Huda</span>' in inbox
    # Nurul keeps hers, and learns whom it went up to.
    hers_listed = _inbox(app, "nurul")
    assert "escalated to you" not in hers_listed
    assert 'data-via="escalated_away">escalated to Zainal Abidin</span>' in hers_listed

    theirs = _page(app, "zainal", doc.reference)
    assert "escalated to you from Nurul Huda" in theirs
    # Said once: not again as a seat the step reached past a gap.
    assert "It reached Zainal Abidin by escalation" not in theirs
    assert "Escalated to Zainal Abidin after the deadline passed" in theirs
    # The deadline's decision joins the chain, which still verifies.
    assert "2 decisions; the chain verifies." in theirs
    hers = _page(app, "nurul", doc.reference)
    assert "escalated to Zainal Abidin" in hers
    requester = _page(app, "siti", doc.reference)
    assert "Zainal Abidin</strong>" in requester and "escalated from Nurul Huda" in requester


def test_lazy_escalation_is_told_apart_from_a_breach(app, people):
    doc = _submitted(people)
    nurul, zainal = people("nurul"), people("zainal")
    record_handover(
        nurul.org_id, doc.reference, nurul.member_id, [zainal.member_id], kind="escalate_after"
    )
    html = _page(app, "siti", doc.reference)
    assert "Escalated to Zainal Abidin: nobody had acted on it in time" in html


def test_a_reassigned_task_says_from_whom_and_the_history_names_both(app, people):
    doc = _submitted(people)
    nurul, zainal = people("nurul"), people("zainal")
    record_handover(
        nurul.org_id, doc.reference, nurul.member_id, [zainal.member_id], action="reassign"
    )

    assert 'data-via="reassignment">reassigned to you from Nurul Huda</span>' in _inbox(
        app, "zainal"
    )
    html = _page(app, "zainal", doc.reference)
    assert "reassigned to you from Nurul Huda" in html
    assert "Reassigned from Nurul Huda to Zainal Abidin" in html
    # Hers is gone from her inbox.
    assert doc.reference not in _inbox(app, "nurul")


def test_nobody_above_is_said_with_the_vacant_seat(app, people):
    doc = _submitted(people)
    nurul = people("nurul")
    with unit_of_work(nurul.org_id) as uow:
        code, title, position_id = uow.session.execute(
            select(Position.code, Position.title, Position.id)
            .where(Position.org_id == nurul.org_id)
            .order_by(Position.code)
            .limit(1)
        ).one()
    record_handover(
        nurul.org_id,
        doc.reference,
        nurul.member_id,
        [],
        gap={"reason": "vacant", "position_id": position_id},
    )
    html = _page(app, "siti", doc.reference)
    assert (
        f"Nobody above Nurul Huda to escalate to: the seat of {code} — {title} is vacant." in html
    )
    # A gap hands nothing over: no task says it came from anyone.
    assert "escalated from" not in html and "escalated to Nurul" not in html


def test_a_gap_of_another_kind_is_worded_as_the_product_words_it(app, people):
    doc = _submitted(people)
    nurul = people("nurul")
    record_handover(
        nurul.org_id,
        doc.reference,
        nurul.member_id,
        [],
        gap={"reason": "member_inactive", "member_id": people("zainal").member_id},
    )
    html = _page(app, "siti", doc.reference)
    assert (
        "Nobody above Nurul Huda to escalate to. Zainal Abidin is no longer an active member."
        in html
    )


# --- reminders ----------------------------------------------------------------------------


def test_reminders_sent_join_the_history_and_superseded_ones_do_not(app, people):
    doc = _submitted(people)
    nurul = people("nurul")
    clock.freeze(SUBMITTED_AT + timedelta(days=4, hours=20))
    record_reminder(nurul.org_id, doc.reference, nurul.member_id, kind="due_soon")
    clock.freeze(SUBMITTED_AT + timedelta(days=5))
    record_reminder(nurul.org_id, doc.reference, nurul.member_id, kind="breach")
    record_reminder(
        nurul.org_id, doc.reference, nurul.member_id, kind="breach", level=2, action="superseded"
    )

    html = _page(app, "siti", doc.reference)
    soon = html.index("Reminder sent to Nurul Huda (due soon)")
    late = html.index("Reminder sent to Nurul Huda (overdue)")
    assert html.index("Client visit") < soon < late  # in the order they happened
    assert html.count("Reminder sent to") == 2


# --- the system's move ------------------------------------------------------------------


def test_a_move_the_system_made_when_the_deadline_passed_says_so(app, people):
    doc = _submitted(people)
    record_system_move(people("siti").org_id, doc.reference, "review", "reviewed")
    html = _page(app, "nurul", doc.reference)
    assert "Reviewed automatically when the deadline passed" in html
    assert "2 decisions; the chain verifies." in html


# --- tenancy and bad rows ------------------------------------------------------------------


def test_another_organization_sees_none_of_it(app, people, globex):
    doc = _submitted(people)
    nurul, zainal = people("nurul"), people("zainal")
    record_handover(nurul.org_id, doc.reference, nurul.member_id, [zainal.member_id])
    from tests.factories import sign_in

    gus, _token = sign_in(app, globex.admin)
    assert gus.get(f"/o/acme/documents/{doc.reference}").status_code == 404
    theirs = gus.get("/o/globex-test/inbox/").get_data(as_text=True)
    assert doc.reference not in theirs and "Nurul Huda" not in theirs


def test_a_resolution_written_by_hand_is_read_defensively():
    at = SUBMITTED_AT
    assert handovers_of(1, at, "escalate_up", "not a list") == []
    assert handovers_of(1, at, "escalate_up", [None, 3, "x"]) == []
    (odd,) = handovers_of(
        1,
        at,
        "escalate_up",
        [{"from_member": "7", "members": [1, True, "2", 10**30], "kind": 5, "gap": "vacant"}],
    )
    assert odd.from_member is None and odd.to_members == (1, 10**30)
    assert odd.reason == "breach" and odd.gap is None


def test_a_page_with_a_malformed_deadline_row_still_opens(app, people):
    doc = _submitted(people)
    nurul, zainal = people("nurul"), people("zainal")
    record_handover(
        nurul.org_id,
        doc.reference,
        nurul.member_id,
        [zainal.member_id],
        resolution=[{"from_member": 10**12, "members": [10**12], "kind": "\x00"}, "junk"],
    )
    html = _page(app, "siti", doc.reference)
    # Said with the numbers it has, never a broken page.
    assert "Escalated to #1000000000000 after the deadline passed" in html
    assert "2 decisions; the chain verifies." in html


def test_a_reader_in_chinese_reads_the_same_story_with_the_flows_chinese_names(app, people):
    from portal.accounts.services.people import set_user_locale

    doc = _submitted(people)
    nurul, zainal = people("nurul"), people("zainal")
    record_handover(nurul.org_id, doc.reference, nurul.member_id, [zainal.member_id])
    set_user_locale(zainal.user_id, "zh")

    html = _page(app, "zainal", doc.reference)
    assert 'lang="zh"' in html
    # The flow's own Chinese state name, the people's names, and the story of the
    # escalation (its sentences in the reader's language once translated).
    assert "待审核" in html
    assert html.count("Nurul Huda") >= 1 and 'data-testid="history-deadline"' in html
    assert 'data-testid="task-note"' in html
