"""Escalation and reassignment by the deadline sweep, in the demo organization.

Siti's purchase request waits for Nurul (Sales Manager); 48 hours on, the sweep brings
in the next seat up — Zainal (Sales Director), then Aisha (CEO) — one seat per period,
as far as the grants' ``max_escalation_levels`` (2) allows; each step is one history row
(gate "deadline", nobody's decision, the state unchanged) and one set of new tasks,
however often the sweep runs. A chain with nobody in reach says so: a history row with
nobody eligible and a notice to the admins. Reassignment moves the task instead.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.deadlines.effects import DocumentSweep
from portal.deadlines.jobs import sweep_now
from portal.deadlines.queries import DueTask, lock_document, organization_in
from portal.documents.queries import detail as document_queries
from portal.domain.actor import Actor
from portal.domain.graph import BreachAction, Deadline, GranteeKind
from portal.flows import queries as flow_queries
from portal.flows.queries import version_in
from portal.orgchart import services as orgchart
from portal.orgchart.models import PositionHolding
from portal.orgchart.queries import load_chart
from tests.deadlines.sweeping import (
    START,
    decisions,
    effects,
    events,
    move,
    open_tasks,
    publish,
    submitted,
    sweep_rows,
    task_rows,
    with_deadline,
)
from tests.domain.test_validate import grant
from tests.factories import demo_browser

HOUR = timedelta(hours=1)
ADMINS = ("aisha", "grace", "daniel", "meiling")


def _ids(people, *names: str) -> list[int]:
    return sorted(people(name).member_id for name in names)


def test_a_request_whose_deadline_passes_is_escalated_once_to_the_next_seat_up(app, people, globex):
    clock.freeze(START)
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    doc = submitted(siti)
    clock.advance(48 * HOUR)
    assert sweep_now() == 1
    assert sweep_now() == 0  # run twice: nothing more

    # One history row: the sweep's, nobody's decision, the state unchanged.
    [row] = sweep_rows(siti.org_id, doc)
    assert (row.transition, row.gate, row.via) == ("escalate_up", "deadline", "escalation")
    assert (row.actor_id, row.authority_member_id) == (None, None)
    assert (row.from_state, row.to_state) == ("submitted", "submitted")
    assert row.eligible == [zainal.member_id]
    [nurul_task] = [t for t in task_rows(siti.org_id, doc) if t.assignee_id == nurul.member_id]
    assert row.resolution == [
        {
            "from_member": nurul.member_id,
            "task": nurul_task.id,
            "kind": "breach",
            "position_id": row.resolution[0]["position_id"],
            "members": [zainal.member_id],
            "gap": None,
        }
    ]
    # One set of new tasks: Zainal's, a seat up; Nurul keeps his.
    assert open_tasks(siti.org_id, doc) == sorted(
        [(nurul.member_id, "grant", 0), (zainal.member_id, "escalation", 1)]
    )
    [told] = events(siti.org_id, "notify.escalated", doc)
    assert (told["members"], told["from_members"], told["reason"], told["decision"]) == (
        [zainal.member_id],
        [nurul.member_id],
        "breach",
        row.seq,
    )
    [away] = events(siti.org_id, "notify.escalated_away", doc)
    assert (away["members"], away["to_members"]) == ([nurul.member_id], [zainal.member_id])
    # The document's row and chain: state and version as they were, the chain intact.
    current = document_queries.get_document(siti, doc.reference)
    assert current.state == "submitted"
    assert document_queries.verify_history(siti, doc.reference).ok
    # Those who read the history read the row too: nobody acted, the system escalated.
    [entry] = [e for e in document_queries.history(siti, doc.reference) if e.seq == row.seq]
    assert (entry.actor_id, entry.via, entry.transition) == (None, "escalation", "escalate_up")
    assert document_queries.document_detail(zainal, doc.reference).document.state == "submitted"
    browser, _token = demo_browser(app, "zainal")
    assert browser.get(f"/o/acme/documents/{doc.reference}").status_code == 200

    # Zainal's escalated task carries authority: he approves, and every task closes.
    assert move(zainal, current, "approve").state == "approved"
    assert open_tasks(siti.org_id, doc) == []
    assert sweep_now() == 0


def test_the_chain_climbs_a_seat_per_period_up_to_the_bound_then_says_so(people, globex):
    clock.freeze(START)
    siti, nurul, zainal, aisha = people("siti"), people("nurul"), people("zainal"), people("aisha")
    doc = submitted(siti)
    clock.advance(48 * HOUR)
    assert sweep_now() == 1
    clock.advance(48 * HOUR)
    assert sweep_now() == 1  # Zainal's own deadline: Aisha
    assert open_tasks(siti.org_id, doc) == sorted(
        [
            (nurul.member_id, "grant", 0),
            (zainal.member_id, "escalation", 1),
            (aisha.member_id, "escalation", 2),
        ]
    )
    assert [r.eligible for r in sweep_rows(siti.org_id, doc)] == [
        [zainal.member_id],
        [aisha.member_id],
    ]
    # Two seats up is as far as the grants allow: Aisha's deadline is a gap, told to
    # the admins, and nobody new is brought in.
    clock.advance(48 * HOUR)
    assert sweep_now() == 1
    gap_row = sweep_rows(siti.org_id, doc)[-1]
    assert gap_row.eligible == []
    assert gap_row.resolution[0]["gap"]["reason"] == "escalation_bound"
    assert gap_row.resolution[0]["from_member"] == aisha.member_id
    [notice] = events(siti.org_id, "notify.escalation_gap", doc)
    assert notice["members"] == _ids(people, *ADMINS)
    assert notice["from_members"] == [aisha.member_id]
    assert notice["gap"]["reason"] == "escalation_bound"
    assert notice["decision"] == gap_row.seq
    assert len(open_tasks(siti.org_id, doc)) == 3
    clock.advance(480 * HOUR)
    assert sweep_now() == 0
    assert [e.action for e in effects(siti.org_id, doc)].count("gap") == 1


def _end_holding_of(admin: Actor, member: Actor, last_day: date) -> None:
    with unit_of_work(admin.org_id) as uow:
        holding_id = uow.session.scalar(
            select(PositionHolding.id).where(PositionHolding.member_id == member.member_id)
        )
    assert holding_id is not None
    orgchart.end_holding(admin, holding_id, last_day=last_day)


def test_a_vacant_seat_is_passed_on_the_way_up(people, globex):
    clock.freeze(START)
    siti, grace, zainal, aisha = people("siti"), people("grace"), people("zainal"), people("aisha")
    doc = submitted(siti)
    # The Sales Director leaves: his seat stands empty from the next day.
    _end_holding_of(grace, zainal, clock.today_in("Asia/Kuala_Lumpur"))
    clock.advance(48 * HOUR)
    assert sweep_now() == 1
    [row] = sweep_rows(siti.org_id, doc)
    assert row.eligible == [aisha.member_id]
    assert (aisha.member_id, "escalation", 2) in open_tasks(siti.org_id, doc)


def test_a_vacant_chain_in_reach_is_a_gap_in_the_history_and_a_notice_to_the_admins(people, globex):
    clock.freeze(START)
    siti, grace, nurul, zainal = people("siti"), people("grace"), people("nurul"), people("zainal")
    # One seat up at most.
    graph = flow_queries.current_version(grace, "purchase_request").graph
    publish(
        grace,
        replace(graph, grants=tuple(replace(g, max_escalation_levels=1) for g in graph.grants)),
    )
    allowed = submitted(siti)
    clock.advance(48 * HOUR)
    assert sweep_now() == 1  # the allowed case: Zainal sits one seat up
    [reached] = sweep_rows(siti.org_id, allowed)
    assert reached.eligible == [zainal.member_id]
    director_seat = reached.resolution[0]["position_id"]

    doc = submitted(siti)
    _end_holding_of(grace, zainal, clock.today_in("Asia/Kuala_Lumpur"))
    clock.advance(48 * HOUR)
    sweep_now()
    [row] = sweep_rows(siti.org_id, doc)
    assert (row.transition, row.eligible) == ("escalate_up", [])
    gap = row.resolution[0]["gap"]
    assert gap == {"reason": "vacant", "position_id": director_seat}
    [notice] = events(siti.org_id, "notify.escalation_gap", doc)
    assert notice["members"] == _ids(people, *ADMINS)
    assert (notice["from_members"], notice["gap"]) == ([nurul.member_id], gap)
    # The task stays with its holder; nobody else is brought in.
    assert open_tasks(siti.org_id, doc) == [(nurul.member_id, "grant", 0)]
    [effect] = [e for e in effects(siti.org_id, doc) if e.kind == "breach"]
    assert (effect.action, effect.outcome["gap"]) == ("gap", gap)


def test_reassign_moves_the_task_to_the_holders_superior(people, globex):
    clock.freeze(START)
    grace, siti, nurul, zainal = people("grace"), people("siti"), people("nurul"), people("zainal")
    with_deadline(grace, "purchase_request", "submitted", Deadline("48h", BreachAction.REASSIGN))
    doc = submitted(siti)
    clock.advance(48 * HOUR)
    assert sweep_now() == 1
    assert sweep_now() == 0
    assert open_tasks(siti.org_id, doc) == [(zainal.member_id, "reassignment", 1)]
    [old] = [t for t in task_rows(siti.org_id, doc) if t.assignee_id == nurul.member_id]
    assert (old.status, old.completed_at) == ("cancelled", clock.now())
    [row] = sweep_rows(siti.org_id, doc)
    assert (row.transition, row.via, row.gate, row.actor_id) == (
        "reassign",
        "reassignment",
        "deadline",
        None,
    )
    assert row.eligible == [zainal.member_id]
    [told] = events(siti.org_id, "notify.reassigned", doc)
    assert told["members"] == sorted([nurul.member_id, zainal.member_id])
    assert (told["from_member"], told["to_members"], told["decision"]) == (
        nurul.member_id,
        [zainal.member_id],
        row.seq,
    )
    assert move(zainal, doc, "approve").state == "approved"


def test_a_state_untouched_for_its_escalate_after_brings_in_the_seat_above(people, globex):
    clock.freeze(START)
    hannah, grace, aisha = people("hannah"), people("grace"), people("aisha")
    # Leave requests: a reminder after 3 days as seeded, and lazy escalation after 1.
    graph = flow_queries.current_version(grace, "leave_request").graph
    publish(
        grace,
        replace(
            graph,
            states=tuple(
                replace(s, escalate_after="1d") if s.key == "manager_review" else s
                for s in graph.states
            ),
        ),
    )
    doc = submitted(hannah, "leave_request", "0")
    clock.advance(24 * HOUR - HOUR)
    assert sweep_now() == 0
    clock.advance(HOUR)
    assert sweep_now() == 1
    [row] = sweep_rows(hannah.org_id, doc)
    assert row.eligible == [aisha.member_id]
    assert row.resolution[0]["kind"] == "escalate_after"
    [told] = events(hannah.org_id, "notify.escalated", doc)
    assert told["reason"] == "escalate_after"
    # The reminders of the deadline still come, to Grace, in their time.
    clock.advance(48 * HOUR)
    sweep_now()
    overdue = events(hannah.org_id, "notify.overdue", doc)
    assert [grace.member_id] in [p["members"] for p in overdue]


def _jason_approves(people, *, exclusive: bool) -> None:
    """The expense claim with its approval step given to Jason (who reports to Nurul,
    the reviewer) and a day's deadline escalating it."""
    grace, jason = people("grace"), people("jason")
    graph = flow_queries.current_version(grace, "expense_claim").graph
    grants = tuple(
        grant("approved", GranteeKind.MEMBER, member=jason.member_id)
        if g.state == "approved"
        else g
        for g in graph.grants
    )
    states = tuple(
        replace(s, deadline=Deadline("1d", BreachAction.ESCALATE_UP)) if s.key == "reviewed" else s
        for s in graph.states
    )
    publish(grace, replace(graph, grants=grants, states=states, exclusive_approval=exclusive))


def test_without_exclusive_approval_the_reviewer_above_is_brought_in(people, globex):
    clock.freeze(START)
    siti, nurul, jason = people("siti"), people("nurul"), people("jason")
    _jason_approves(people, exclusive=False)
    doc = move(nurul, submitted(siti, "expense_claim", "480.00"), "review")
    clock.advance(24 * HOUR)
    assert sweep_now() == 1
    assert sweep_rows(siti.org_id, doc)[0].eligible == [nurul.member_id]
    assert (nurul.member_id, "escalation", 1) in open_tasks(siti.org_id, doc)
    assert (jason.member_id, "grant", 0) in open_tasks(siti.org_id, doc)


def test_under_exclusive_approval_whoever_decided_another_step_is_passed_over(people, globex):
    clock.freeze(START)
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    _jason_approves(people, exclusive=True)
    doc = move(nurul, submitted(siti, "expense_claim", "480.00"), "review")
    clock.advance(24 * HOUR)
    assert sweep_now() == 1
    # Nurul reviewed it: he may not approve it too; the seat above his is reached.
    [row] = sweep_rows(siti.org_id, doc)
    assert row.eligible == [zainal.member_id]
    assert (zainal.member_id, "escalation", 2) in open_tasks(siti.org_id, doc)
    assert nurul.member_id not in [m for m, _via, _lvl in open_tasks(siti.org_id, doc)]
    # The sweep's own row decides no step: Zainal approves, then two different admins
    # commit and pay, as the rule wants.
    approved = move(zainal, doc, "approve")
    assert approved.state == "approved"
    steps = {d.transition: d.actor_id for d in decisions(siti.org_id, doc)}
    assert steps["escalate_up"] is None and steps["approve"] == zainal.member_id
    assert sorted(m for m, _v, _l in open_tasks(siti.org_id, doc)) == _ids(people, *ADMINS)


def test_a_second_sweeper_that_missed_the_record_writes_nothing(people, globex):
    """The effect's unique key is the last word: a sweeper that did not see the record
    (as if its read came before the first one's commit) has its whole effect undone."""
    clock.freeze(START)
    siti, nurul = people("siti"), people("nurul")
    doc = submitted(siti)
    clock.advance(48 * HOUR)
    assert sweep_now() == 1
    [task] = [t for t in task_rows(siti.org_id, doc) if t.assignee_id == nurul.member_id]
    due = DueTask(
        task.id,
        task.state,
        task.assignee_id,
        task.via,
        tuple(task.transitions),
        task.band_floor,
        task.due_at,
        task.created_at,
        task.level,
    )
    # It acts as if nothing were recorded: the record's key refuses the effect, and
    # the whole unit of work — the new tasks, the history row, the notices — goes.
    with pytest.raises(IntegrityError), unit_of_work(siti.org_id) as uow:
        s = uow.session
        org = organization_in(s, siti.org_id)
        loaded = lock_document(s, siti.org_id, doc.id, skip_locked=False)
        assert org is not None and loaded is not None
        graph = version_in(s, siti.org_id, doc.kind, doc.version).graph
        chart = load_chart(s, clock.today_in(org.time_zone))
        sweep = DocumentSweep(uow, org, loaded, graph, chart, clock.now())
        sweep.sweep_task(due, set())
        sweep.finish()
    assert len(sweep_rows(siti.org_id, doc)) == 1
    assert len(events(siti.org_id, "notify.escalated", doc)) == 1
    assert len(open_tasks(siti.org_id, doc)) == 2
    assert document_queries.verify_history(siti, doc.reference).ok
