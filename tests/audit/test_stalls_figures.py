"""Where approvals stall, at the service: the figures of a small history known by hand
(``stall_history``), exact — time in each state, waiting and overdue now, approvals per
approver, the weekly trend in Kuala Lumpur's weeks — while Globex, with requests in the
same states on the same days, is never counted. Then the refusals: an unknown flow or
version (another organization's included), days that are not days, and anyone who is
not an auditor or an admin."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal

import pytest

from portal.audit.queries.stalls import StallQuery, stall_report
from portal.core.clock import clock
from portal.documents import services as documents
from portal.domain.errors import NotFound
from portal.domain.labels import Labels
from portal.flows import queries as flow_queries
from portal.flows import services as flows
from tests.audit.stall_history import (
    HOUR,
    PERIOD,
    StallWorld,
    at,
    create,
    move,
)
from tests.audit.stall_history import stall_world as stall_world
from tests.delegations.covers import set_cover

QUERY = StallQuery(flow=PERIOD["flow"], start=PERIOD["from"], end=PERIOD["to"])


def test_time_in_each_state_counts_the_visits_that_ended(stall_world: StallWorld):
    report = stall_report(stall_world.auditor, QUERY)
    assert report.refusal is None
    assert [(s.state, s.visits) for s in report.states] == [("draft", 7), ("submitted", 4)]
    draft, submitted = report.states
    # Draft: 0, 0, 0, 1, 1, 1 and 2 hours; submitted: 2, 6, 10 and 30 hours.
    assert (draft.median_seconds, draft.longest_seconds) == (HOUR, 2 * HOUR)
    assert draft.p90_seconds == pytest.approx(1.4 * HOUR)
    assert (submitted.median_seconds, submitted.longest_seconds) == (8 * HOUR, 30 * HOUR)
    assert submitted.p90_seconds == pytest.approx(24 * HOUR)
    assert report.state_label("submitted", "en") == "Submitted"
    assert report.state_label("submitted", "zh") == "已提交"


def test_waiting_counts_documents_in_each_state_now_and_the_overdue_among_them(
    stall_world: StallWorld,
):
    report = stall_report(stall_world.auditor, QUERY)
    # Drafts and finished requests wait for nobody; Globex's waiting ones are not here.
    assert [(w.state, w.waiting, w.overdue) for w in report.waiting] == [("submitted", 3, 1)]
    assert report.waiting[0].oldest_entered_at == at(3, 1)
    # Two days later P6 and P8 are past their 48 hours too; the period does not matter.
    clock.freeze(at(11, 1))
    later = stall_report(stall_world.auditor, replace(QUERY, start="2026-11-10"))
    assert [(w.state, w.waiting, w.overdue) for w in later.waiting] == [("submitted", 3, 3)]
    assert later.states == ()


def test_approvals_count_the_members_who_moved_documents_on(stall_world: StallWorld):
    report = stall_report(stall_world.auditor, QUERY)
    nurul, grace = stall_world.person("nurul"), stall_world.person("grace")
    assert [(a.member_id, a.approvals, a.under_cover) for a in report.approvers] == [
        (nurul.member_id, 2, 0),
        (grace.member_id, 1, 0),
    ]
    assert report.approvers[0].by_action == ((("submitted", "approve"), 2),)
    assert report.names[nurul.member_id] == "Nurul Huda"
    assert report.action_label("submitted", "approve", "en") == "Approve"


def test_weeks_are_iso_weeks_in_the_organizations_zone(stall_world: StallWorld):
    report = stall_report(stall_world.auditor, QUERY)
    assert [(w.monday, w.submitted, w.finished) for w in report.weeks] == [
        (date(2026, 11, 2), 6, 4),
        # P8 was submitted on Sunday evening in UTC: Monday morning in Kuala Lumpur.
        (date(2026, 11, 9), 1, 0),
    ]


def test_the_period_bounds_what_ended_in_it(stall_world: StallWorld):
    # Only Tuesday 3 November (KL): P5 submitted, P2 rejected after 30 hours.
    report = stall_report(stall_world.auditor, replace(QUERY, start="2026-11-03", end="2026-11-03"))
    assert [(s.state, s.visits, s.median_seconds) for s in report.states] == [
        ("draft", 1, 0),
        ("submitted", 1, 30 * HOUR),
    ]
    assert report.approvers == ()
    assert [(w.submitted, w.finished) for w in report.weeks] == [(1, 1)]


def test_globex_sees_only_its_own(stall_world: StallWorld):
    theirs = stall_report(stall_world.globex_auditor.actor, QUERY)
    assert [(s.state, s.visits) for s in theirs.states] == [("draft", 3), ("submitted", 2)]
    assert [(w.state, w.waiting, w.overdue) for w in theirs.waiting] == [("submitted", 1, 1)]
    assert [(a.member_id, a.approvals) for a in theirs.approvers] == [
        (stall_world.globex_boss.member_id, 1)
    ]
    assert sum(w.submitted for w in theirs.weeks) == 3


def test_the_default_period_is_the_last_twelve_weeks(stall_world: StallWorld):
    report = stall_report(stall_world.auditor, StallQuery())
    assert report.filter is not None
    assert report.filter.kind == "expense_claim"  # the first flow, by key
    assert (report.filter.period.start, report.filter.period.end) == (
        date(2026, 8, 24),
        date(2026, 11, 9),
    )
    assert len(report.weeks) == 12


def _publish(admin, graph):
    current = flows.get_draft(admin, graph.kind).revision
    draft = flows.save_draft(admin, graph.kind, graph, revision=current)
    return flows.publish_draft(admin, graph.kind, revision=draft.revision).view


def test_one_version_or_all_with_the_newest_names(stall_world: StallWorld):
    aisha, siti, nurul = (stall_world.person(n) for n in ("aisha", "siti", "nurul"))
    v1 = flow_queries.current_version(aisha, "purchase_request").graph
    renamed = tuple(
        replace(s, labels=Labels({"en": "Awaiting approval"})) if s.key == "submitted" else s
        for s in v1.states
    )
    _publish(aisha, replace(v1, states=renamed))
    clock.freeze(at(9, 2))
    doc = move(siti, create(siti, "P9 on version 2"), "submit")
    clock.freeze(at(9, 5))
    move(nurul, doc, "approve")
    clock.freeze(at(9, 6))

    every = stall_report(stall_world.auditor, replace(QUERY, version="all"))
    assert [(s.state, s.visits) for s in every.states] == [("draft", 8), ("submitted", 5)]
    assert every.state_label("submitted", "en") == "Awaiting approval"
    second = stall_report(stall_world.auditor, replace(QUERY, version="2"))
    assert [(s.state, s.visits, s.median_seconds) for s in second.states] == [
        ("draft", 1, 0),
        ("submitted", 1, 3 * HOUR),
    ]
    assert second.waiting == ()
    first = stall_report(stall_world.auditor, replace(QUERY, version="1"))
    assert first.state_label("submitted", "en") == "Submitted"
    assert [(s.state, s.visits) for s in first.states] == [("draft", 7), ("submitted", 4)]


@pytest.mark.parametrize(
    ("change", "code", "field"),
    [
        ({"flow": "no_such_flow"}, "stalls_unknown_flow", "flow"),
        ({"version": "3"}, "stalls_unknown_version", "version"),
        ({"version": "٣"}, "stalls_unknown_version", "version"),
        ({"version": "9" * 5000}, "stalls_unknown_version", "version"),
        ({"start": "2026-11-31"}, "invalid_date", "from"),
        ({"start": "٢٠٢٦-١١-٠٢"}, "invalid_date", "from"),
        ({"end": "<script>"}, "invalid_date", "to"),
        ({"start": "2026-11-15", "end": "2026-11-02"}, "dates_out_of_order", "to"),
        ({"start": "1990-01-01"}, "stalls_period_too_long", "from"),
    ],
)
def test_a_filter_that_cannot_be_read_is_answered_with_the_flows_to_choose(
    stall_world: StallWorld, change, code, field
):
    report = stall_report(stall_world.auditor, replace(QUERY, **change))
    assert report.refusal is not None
    assert (report.refusal.code, report.refusal.field) == (code, field)
    assert report.filter is None and report.states == () and report.waiting == ()
    assert [f.kind for f in report.flows] == ["expense_claim", "leave_request", "purchase_request"]


def test_another_organizations_flow_is_unknown_here(stall_world: StallWorld, globex):
    gus = globex.admin.actor
    v1 = flow_queries.current_version(gus, "purchase_request").graph
    _publish_new(gus, replace(v1, kind="globex_only"))
    theirs = stall_report(stall_world.globex_auditor.actor, replace(QUERY, flow="globex_only"))
    assert theirs.refusal is None and theirs.filter is not None
    ours = stall_report(stall_world.auditor, replace(QUERY, flow="globex_only"))
    assert ours.refusal is not None and ours.refusal.code == "stalls_unknown_flow"
    assert "globex_only" not in [f.kind for f in ours.flows]


def _publish_new(admin, graph):
    draft = flows.save_draft(admin, graph.kind, graph, revision=0)
    return flows.publish_draft(admin, graph.kind, revision=draft.revision).view


def test_only_auditors_and_admins_read_the_figures(stall_world: StallWorld):
    assert stall_report(stall_world.person("aisha"), QUERY).refusal is None  # an admin
    for name in ("siti", "nurul"):
        with pytest.raises(NotFound):
            stall_report(stall_world.person(name), QUERY)


CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-05", "receipt_number": "R-1"}


def test_a_resubmission_and_a_dismissed_dispute_count_once(stall_world: StallWorld):
    siti, nurul, zainal, grace, aisha = (
        stall_world.person(n) for n in ("siti", "nurul", "zainal", "grace", "aisha")
    )
    clock.freeze(at(10, 1))
    claim = documents.create_document(
        siti, kind="expense_claim", title="Hotel", amount=Decimal("300.00"), fields=CLAIM_FIELDS
    )
    claim = move(siti, claim, "submit")
    clock.freeze(at(10, 2))
    claim = move(nurul, claim, "reject", "Receipt missing")
    claim = move(siti, claim, "revise")
    clock.freeze(at(10, 3))
    claim = move(siti, claim, "submit")  # again: not a new submission
    for actor, key in ((nurul, "review"), (zainal, "approve"), (grace, "verify_category")):
        clock.freeze(clock.now() + timedelta(hours=1))
        claim = move(actor, claim, key)
    claim = move(aisha, claim, "pay")
    claim = move(siti, claim, "acknowledge")  # finished: received
    claim = move(siti, claim, "dispute", "Short by RM20")
    clock.freeze(clock.now() + timedelta(hours=1))
    move(grace, claim, "dismiss", "Paid in full")  # received again: not finished twice
    clock.freeze(at(11, 1))

    report = stall_report(
        stall_world.auditor, StallQuery(flow="expense_claim", start="2026-11-09", end="2026-11-15")
    )
    assert [(w.submitted, w.finished) for w in report.weeks] == [(1, 1)]
    visits = {s.state: s.visits for s in report.states}
    assert (visits["draft"], visits["pending_review"], visits["disputed"]) == (2, 2, 1)
    # Rejecting is no approval; the dispute's dismissal moves the claim on: Grace's.
    counted = {report.names[a.member_id]: a.approvals for a in report.approvers}
    assert counted == {"Nurul Huda": 1, "Zainal Abidin": 1, "Grace Lee": 2, "Aisha Rahman": 1}


def test_an_approval_under_cover_counts_for_the_delegate(stall_world: StallWorld):
    nurul, hannah = stall_world.person("nurul"), stall_world.person("hannah")
    clock.freeze(at(9, 2))
    set_cover(nurul, hannah, date(2026, 11, 9), date(2026, 11, 10))
    waiting = stall_report(stall_world.auditor, QUERY).waiting[0].waiting
    p5 = next(d for d in _submitted(stall_world) if d.title == "P5 chairs")
    move(hannah, p5, "approve")
    report = stall_report(stall_world.auditor, QUERY)
    hannahs = next(a for a in report.approvers if a.member_id == hannah.member_id)
    assert (hannahs.approvals, hannahs.under_cover) == (1, 1)
    assert [(w.submitted, w.finished) for w in report.weeks] == [(6, 4), (1, 1)]
    assert report.waiting[0].waiting == waiting - 1


def _submitted(world: StallWorld) -> list:
    from portal.documents.queries.lists import my_documents_page

    jason = world.person("jason")
    page = my_documents_page(jason, kind="purchase_request", state="submitted", page=1, per_page=50)
    return [listed.row for listed in page.rows]
