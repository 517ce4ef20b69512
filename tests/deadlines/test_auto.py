"""A deadline that fires the state's transition: the system takes it through the very
same pipeline as a person (the guard, the route, the history row with nobody as its
actor and ``via`` system, the tasks closed and the next opened, the requester told).
A refusal leaves the document where it is, recorded and told to the admins, once.

Hannah's leave request waits for Grace; its deadline is set here to approve it by itself
after 3 days.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from portal.core.clock import clock
from portal.deadlines.jobs import sweep_now
from portal.documents.queries import detail as document_queries
from portal.domain.graph import BreachAction, Deadline, TransitionGuard
from portal.domain.labels import Labels
from portal.flows import queries as flow_queries
from tests.deadlines.sweeping import (
    START,
    decisions,
    effects,
    events,
    open_tasks,
    publish,
    submitted,
    task_rows,
    with_deadline,
)

ADMINS = ("aisha", "grace", "daniel", "meiling")
AUTO_APPROVE = Deadline("3d", BreachAction.AUTO, transition="approve")


def test_an_automatic_deadline_fires_its_transition_as_the_system(people, globex):
    clock.freeze(START)
    hannah, grace = people("hannah"), people("grace")
    with_deadline(grace, "leave_request", "manager_review", AUTO_APPROVE)
    doc = submitted(hannah, "leave_request", "0")
    clock.advance(timedelta(days=3) - timedelta(minutes=1))
    sweep_now()  # the reminder before the deadline only
    assert document_queries.get_document(hannah, doc.reference).state == "manager_review"

    clock.advance(timedelta(minutes=1))
    assert sweep_now() == 1
    assert sweep_now() == 0
    assert document_queries.get_document(hannah, doc.reference).state == "approved"
    last = decisions(hannah.org_id, doc)[-1]
    assert (last.transition, last.gate, last.from_state, last.to_state) == (
        "approve",
        "target",
        "manager_review",
        "approved",
    )
    assert (last.actor_id, last.authority_member_id, last.via) == (None, None, "system")
    assert last.eligible == [grace.member_id]
    # Grace's task is closed (nobody completed it); the requester is told.
    [task] = task_rows(hannah.org_id, doc)
    assert (task.status, task.completed_by) == ("cancelled", None)
    assert open_tasks(hannah.org_id, doc) == []
    [moved] = [
        p for p in events(hannah.org_id, "notify.document_moved", doc) if p["decision"] == last.seq
    ]
    assert (moved["members"], moved["transition"]) == ([hannah.member_id], "approve")
    [effect] = [e for e in effects(hannah.org_id, doc) if e.kind == "breach"]
    assert (effect.action, effect.outcome["decision"]) == ("auto", last.seq)
    assert document_queries.verify_history(hannah, doc.reference).ok


def test_a_refused_automatic_transition_is_recorded_and_told_to_the_admins_once(people, globex):
    clock.freeze(START)
    hannah, grace = people("hannah"), people("grace")
    with_deadline(grace, "leave_request", "manager_review", AUTO_APPROVE)
    # The allowed case first: with no guard the system approves.
    allowed = submitted(hannah, "leave_request", "0")
    clock.advance(timedelta(days=3))
    sweep_now()
    assert document_queries.get_document(hannah, allowed.reference).state == "approved"

    # Now approving needs an amount, which a leave request never has.
    graph = flow_queries.current_version(grace, "leave_request").graph
    guard = TransitionGuard("document.amount > 0", Labels({"en": "Only with an amount."}))
    publish(
        grace,
        replace(
            graph,
            transitions=tuple(
                replace(t, guard=guard) if t.key == "approve" else t for t in graph.transitions
            ),
        ),
    )
    doc = submitted(hannah, "leave_request", "0")
    seq_before = decisions(hannah.org_id, doc)[-1].seq
    clock.advance(timedelta(days=3))
    sweep_now()
    assert document_queries.get_document(hannah, doc.reference).state == "manager_review"
    assert decisions(hannah.org_id, doc)[-1].seq == seq_before
    assert open_tasks(hannah.org_id, doc) == [(grace.member_id, "grant", 0)]
    [effect] = [e for e in effects(hannah.org_id, doc) if e.kind == "breach"]
    assert (effect.action, effect.outcome) == (
        "refused",
        {"transition": "approve", "code": "guard_failed"},
    )
    [notice] = events(hannah.org_id, "notify.auto_refused", doc)
    admins = sorted(people(name).member_id for name in ADMINS)
    assert (notice["members"], notice["transition"], notice["code"]) == (
        admins,
        "approve",
        "guard_failed",
    )
    assert notice["state"] == "manager_review"
    clock.advance(timedelta(days=30))
    assert sweep_now() == 0
    assert len(events(hannah.org_id, "notify.auto_refused", doc)) == 1
