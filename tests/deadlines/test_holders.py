"""Whose task a deadline acts on, and whom it reaches: a holder deactivated since the
task was opened is no reason to strand it (the climb starts at the seat they held), and
a reassignment to someone on the step already names them (in the history and the
notices), never "nobody".

The demo organization: Siti's purchase request waits for Nurul (Sales Manager), who
reports to Zainal (Sales Director), who reports to Aisha (CEO).
"""

from __future__ import annotations

from datetime import timedelta

from portal.accounts import services as accounts
from portal.core.clock import clock
from portal.deadlines.jobs import sweep_now
from portal.documents.queries import detail as document_queries
from portal.domain.graph import BreachAction, Deadline
from tests.deadlines.sweeping import (
    START,
    effects,
    events,
    move,
    open_tasks,
    submitted,
    sweep_rows,
    task_rows,
    with_deadline,
)
from tests.factories import demo_browser

HOUR = timedelta(hours=1)


def test_a_task_held_by_a_deactivated_member_is_escalated_from_the_seat_they_held(people, globex):
    clock.freeze(START)
    siti, grace, nurul, zainal = people("siti"), people("grace"), people("nurul"), people("zainal")
    allowed = submitted(siti)
    clock.advance(48 * HOUR)
    # The allowed case: Nurul active, Zainal is brought in.
    assert sweep_now() == 1
    [reached] = sweep_rows(siti.org_id, allowed)
    assert reached.eligible == [zainal.member_id]

    doc = submitted(siti)
    accounts.deactivate_member(grace, nurul.member_id)
    clock.advance(48 * HOUR)
    sweep_now()
    # Nurul is off the chart: his task climbs from the Sales Manager's seat all the same.
    [row] = sweep_rows(siti.org_id, doc)
    assert (row.transition, row.eligible) == ("escalate_up", [zainal.member_id])
    assert row.resolution[0]["gap"] is None
    assert row.resolution[0]["from_member"] == nurul.member_id
    assert row.resolution[0]["position_id"] == reached.resolution[0]["position_id"]
    assert (zainal.member_id, "escalation", 1) in open_tasks(siti.org_id, doc)
    assert events(siti.org_id, "notify.escalation_gap", doc) == []
    [told] = events(siti.org_id, "notify.escalated", doc)
    assert (told["members"], told["from_members"]) == ([zainal.member_id], [nurul.member_id])
    # Zainal decides it.
    assert move(zainal, doc, "approve").state == "approved"


def test_a_reassignment_to_someone_already_on_the_step_names_them(app, people, globex):
    clock.freeze(START)
    grace, siti, nurul, zainal = people("grace"), people("siti"), people("nurul"), people("zainal")
    # Zainal is brought in after a day untouched; the 36-hour deadline then reassigns
    # Nurul's task to the seat above him — Zainal's, who holds the step already.
    with_deadline(
        grace,
        "purchase_request",
        "submitted",
        Deadline("36h", BreachAction.REASSIGN),
        escalate_after="1d",
    )
    doc = submitted(siti)
    clock.advance(24 * HOUR)
    assert sweep_now() == 1
    assert open_tasks(siti.org_id, doc) == sorted(
        [(nurul.member_id, "grant", 0), (zainal.member_id, "escalation", 1)]
    )
    clock.advance(12 * HOUR)
    assert sweep_now() == 1

    # Nurul's task is cancelled; Zainal keeps the one he has (no second task for him).
    assert open_tasks(siti.org_id, doc) == [(zainal.member_id, "escalation", 1)]
    [old] = [t for t in task_rows(siti.org_id, doc) if t.assignee_id == nurul.member_id]
    assert old.status == "cancelled"
    row = sweep_rows(siti.org_id, doc)[-1]
    assert (row.transition, row.via) == ("reassign", "reassignment")
    # Nobody got a new task, but the history names who has it: Zainal, already there.
    assert row.eligible == []
    [entry] = row.resolution
    assert (entry["members"], entry["already"], entry["gap"]) == (
        [zainal.member_id],
        [zainal.member_id],
        None,
    )
    [told] = events(siti.org_id, "notify.reassigned", doc)
    assert told["members"] == sorted([nurul.member_id, zainal.member_id])
    assert (told["from_member"], told["to_members"], told["decision"]) == (
        nurul.member_id,
        [zainal.member_id],
        row.seq,
    )
    [effect] = [e for e in effects(siti.org_id, doc) if e.action == "reassign"]
    assert (effect.outcome["members"], effect.outcome["already"]) == ([], [zainal.member_id])
    # The history tells it as a reassignment to Zainal, not "nobody above".
    browser, _token = demo_browser(app, "grace")
    page = browser.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
    assert "Reassigned from Nurul" in page and "Nobody above" not in page
    assert document_queries.verify_history(siti, doc.reference).ok
    assert move(zainal, doc, "approve").state == "approved"
