"""The deadline sweep over time: reminders before and after a deadline, each once; a
task decided in time is never touched; what a rolled-back transition would have opened
is never swept; one organization's sweep never touches, nor sees, another's tasks; the
periodic planner enqueues one job per organization with due work.

The demo organization (``people``): Hannah's leave request waits for Grace (3 days,
then reminders); Siti's purchase request waits for Nurul (48 hours, then escalation).
The organization reminds 4 hours before a deadline.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from decimal import Decimal

import pytest
from click.testing import CliRunner
from flask.cli import ScriptInfo
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from portal.accounts.services.organizations import archive_organization, restore_organization
from portal.cli import main
from portal.core.clock import clock
from portal.core.heartbeat import last_beat
from portal.core.queue import SWEEP_QUEUE, get_queue, redis_holder
from portal.core.uow import operator_work, unit_of_work, unit_of_work_for
from portal.deadlines import jobs, services
from portal.deadlines.jobs import sweep_deadlines, sweep_now
from portal.deadlines.queries import documents_due
from portal.deadlines.services import sweep_organization_now
from portal.documents import services as documents
from portal.documents import transitions
from portal.domain.deadlines import MAX_REMINDERS
from portal.domain.graph import BreachAction, Deadline
from tests.deadlines.sweeping import PURCHASE_FIELDS as FIELDS
from tests.deadlines.sweeping import (
    START,
    effects,
    events,
    globex_request,
    move,
    open_tasks,
    submitted,
    sweep_rows,
    task_rows,
    with_deadline,
)

HOUR = timedelta(hours=1)
MINUTE = timedelta(minutes=1)


@pytest.fixture
def leave(people, globex):
    """Hannah's leave request, submitted at START: Grace's task is due 3 days later."""
    clock.freeze(START)
    hannah = people("hannah")
    return hannah, people("grace"), submitted(hannah, "leave_request", "0")


def test_the_lead_reminder_goes_once_four_hours_before_the_deadline(leave):
    hannah, grace, doc = leave
    clock.advance(timedelta(days=3) - 4 * HOUR - MINUTE)
    assert sweep_now() == 0
    assert events(hannah.org_id, "notify.due_soon") == []

    clock.advance(MINUTE)
    assert sweep_now() == 1
    [due_soon] = events(hannah.org_id, "notify.due_soon", doc)
    assert due_soon["members"] == [grace.member_id]
    assert due_soon["reference"] == doc.reference and due_soon["state"] == "manager_review"
    assert due_soon["due_at"] == (START + timedelta(days=3)).isoformat()
    # Swept again: nothing more, and nothing recorded twice.
    assert sweep_now() == 0
    assert len(events(hannah.org_id, "notify.due_soon", doc)) == 1
    assert [(e.kind, e.level, e.action) for e in effects(hannah.org_id, doc)] == [
        ("due_soon", 1, "remind")
    ]
    # Reminders are no decisions: the history holds the submission only.
    assert sweep_rows(hannah.org_id, doc) == []


def test_a_task_opened_inside_the_lead_window_gets_no_early_reminder(people, globex):
    clock.freeze(START)
    grace, siti, nurul = people("grace"), people("siti"), people("nurul")
    # A 3-hour deadline opens its task inside the 4-hour lead: it was just announced.
    with_deadline(grace, "purchase_request", "submitted", Deadline("3h", BreachAction.REMIND))
    doc = submitted(siti)
    clock.advance(3 * HOUR - MINUTE)
    assert sweep_now() == 0
    clock.advance(MINUTE)
    assert sweep_now() == 1
    assert events(siti.org_id, "notify.due_soon", doc) == []
    [overdue] = events(siti.org_id, "notify.overdue", doc)
    assert (overdue["members"], overdue["level"]) == ([nurul.member_id], 1)


def test_an_overdue_task_is_reminded_once_a_period_at_most_max_reminders_times(leave):
    hannah, _grace, doc = leave
    clock.advance(timedelta(days=3) - 4 * HOUR)
    assert sweep_now() == 1  # the lead reminder
    for level in range(1, MAX_REMINDERS + 1):
        clock.advance(timedelta(days=3) if level > 1 else 4 * HOUR)
        assert sweep_now() == 1
        assert sweep_now() == 0
        assert [p["level"] for p in events(hannah.org_id, "notify.overdue", doc)] == list(
            range(1, level + 1)
        )
    clock.advance(timedelta(days=30))
    assert sweep_now() == 0
    assert len(events(hannah.org_id, "notify.overdue", doc)) == MAX_REMINDERS
    # Nothing more to do for the task: the sweep does not look at it again.
    [task] = task_rows(hannah.org_id, doc)
    assert task.status == "open" and task.sweep_at is None


def test_a_sweep_that_comes_late_sends_the_latest_reminder_only(leave):
    hannah, grace, doc = leave
    clock.advance(timedelta(days=10))
    assert sweep_now() == 1
    [overdue] = events(hannah.org_id, "notify.overdue", doc)
    assert (overdue["members"], overdue["level"]) == ([grace.member_id], 3)
    assert events(hannah.org_id, "notify.due_soon", doc) == []
    # What it left out is recorded as superseded, so it is never sent late.
    assert sorted((e.kind, e.level, e.action) for e in effects(hannah.org_id, doc)) == [
        ("breach", 1, "superseded"),
        ("breach", 2, "superseded"),
        ("breach", 3, "remind"),
        ("due_soon", 1, "superseded"),
    ]
    assert sweep_now() == 0


def test_a_task_decided_before_its_deadline_is_never_touched(people, globex):
    clock.freeze(START)
    siti, nurul = people("siti"), people("nurul")
    late = submitted(siti)
    decided = submitted(siti)
    clock.advance(47 * HOUR)
    assert move(nurul, decided, "approve").state == "approved"
    clock.advance(2 * HOUR)
    # The allowed case: the one left waiting is escalated (its reminder before the
    # deadline, due too, is superseded by the breach).
    assert sweep_now() == 1
    assert len(sweep_rows(siti.org_id, late)) == 1
    # The one decided in time: no effect, no history row, no notice.
    assert effects(siti.org_id, decided) == []
    assert sweep_rows(siti.org_id, decided) == []
    assert events(siti.org_id, "notify.escalated", decided) == []
    assert events(siti.org_id, "notify.due_soon", decided) == []


def test_a_rolled_back_transition_leaves_no_task_to_sweep(people, globex):
    clock.freeze(START)
    siti = people("siti")
    committed = submitted(siti)
    draft = documents.create_document(
        siti, kind="purchase_request", title="Never sent", amount=Decimal("10"), fields=FIELDS
    )
    with pytest.raises(RuntimeError), unit_of_work_for(siti) as uow:
        transitions.transition_in(uow, siti, draft.reference, "submit", seen_state="draft")
        raise RuntimeError("the request failed after the decision")
    assert open_tasks(siti.org_id, draft) == []
    clock.advance(timedelta(days=5))
    assert sweep_now() == 1  # the committed one is escalated
    assert len(sweep_rows(siti.org_id, committed)) == 1
    assert effects(siti.org_id, draft) == [] and sweep_rows(siti.org_id, draft) == []


def test_one_organizations_sweep_neither_touches_nor_sees_anothers_tasks(
    people, globex, make_member
):
    clock.freeze(START)
    siti = people("siti")
    acme_doc = submitted(siti)
    gina, gus, globex_doc = globex_request(globex, make_member)
    [globex_task] = task_rows(gina.org_id, globex_doc)
    clock.advance(timedelta(days=4))

    # Acme's sweep finds Acme's due document only, while Globex's is due too.
    with unit_of_work(siti.org_id) as uow:
        assert documents_due(uow.session, siti.org_id, clock.now(), 0, 100) == [acme_doc.id]
    with unit_of_work(gina.org_id) as uow:
        assert documents_due(uow.session, gina.org_id, clock.now(), 0, 100) == [globex_doc.id]
    assert sweep_organization_now(siti.org_id) == 1
    assert len(sweep_rows(siti.org_id, acme_doc)) == 1
    # Globex's rows, read in Globex's own unit of work: nothing recorded, nothing told,
    # the task not moved on.
    assert effects(gina.org_id, globex_doc) == []
    assert events(gina.org_id, "notify.overdue") == []
    [still] = task_rows(gina.org_id, globex_doc)
    assert (still.id, still.sweep_at) == (globex_task.id, globex_task.sweep_at)
    with unit_of_work(gina.org_id) as uow:
        assert documents_due(uow.session, gina.org_id, clock.now(), 0, 100) == [globex_doc.id]

    # Its own sweep reminds Gus, in Globex only.
    assert sweep_organization_now(gina.org_id) == 1
    [overdue] = events(gina.org_id, "notify.overdue", globex_doc)
    assert overdue["members"] == [gus.member_id]
    assert events(siti.org_id, "notify.overdue", globex_doc) == []


def _sweep_jobs() -> list:
    return [
        job
        for job in get_queue(SWEEP_QUEUE).get_jobs()
        if (job.func_name or "").endswith("deadlines.jobs.sweep_organization")
    ]


def test_the_planner_enqueues_one_job_per_organization_with_due_work(people, globex, make_member):
    clock.freeze(START)
    siti = people("siti")
    doc = submitted(siti)
    gina, _gus, globex_doc = globex_request(globex, make_member)
    # Nothing due yet: nothing enqueued, and the heartbeat says it looked.
    assert sweep_deadlines() == 0
    clock.advance(timedelta(days=4))
    assert sweep_deadlines() == 2
    assert sorted(job.args[0] for job in _sweep_jobs()) == sorted([siti.org_id, gina.org_id])
    # A second tick while those wait adds nothing.
    assert sweep_deadlines() == 0
    assert len(_sweep_jobs()) == 2
    with operator_work() as uow:
        heartbeat = last_beat(uow.session, "deadline_sweep")
        assert heartbeat is not None and heartbeat.beat_at == clock.now()
        assert heartbeat.detail["orgs"] == 2

    for job in _sweep_jobs():
        get_queue(SWEEP_QUEUE).remove(job)
        job.perform()
    assert len(sweep_rows(siti.org_id, doc)) == 1
    assert [e.action for e in effects(gina.org_id, globex_doc)] == ["superseded", "remind"]
    # Their flags are cleared: the next due work is enqueued again.
    clock.advance(timedelta(days=3))
    assert sweep_deadlines() == 2


def test_a_failed_enqueue_leaves_the_organization_to_the_next_tick(people, globex, monkeypatch):
    clock.freeze(START)
    siti = people("siti")
    submitted(siti)
    clock.advance(timedelta(days=3))

    def refused(*args, **kwargs):
        raise ConnectionError("Redis refused the job")

    monkeypatch.setattr(jobs, "enqueue", refused)
    assert sweep_deadlines() == 0
    # No job waits, and no flag keeps the organization out.
    assert redis_holder.get().get(jobs._queued_flag(siti.org_id)) is None
    monkeypatch.undo()
    # The allowed case: the very next tick enqueues it.
    assert sweep_deadlines() == 1
    assert [job.args[0] for job in _sweep_jobs()] == [siti.org_id]


def test_redis_out_of_reach_loses_nothing(people, globex, monkeypatch, caplog):
    clock.freeze(START)
    siti = people("siti")
    doc = submitted(siti)
    clock.advance(timedelta(days=3))

    def unreachable():
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(redis_holder, "get", unreachable)
    with caplog.at_level(logging.WARNING, logger=jobs.log.name):
        assert sweep_deadlines() == 0
    assert "could not enqueue the deadline sweep" in caplog.text
    assert effects(siti.org_id, doc) == []
    monkeypatch.undo()
    # Back: the next tick finds the same work.
    assert sweep_deadlines() == 1


def test_a_document_whose_sweep_fails_waits_a_while_and_the_others_are_swept(
    people, globex, monkeypatch, caplog
):
    clock.freeze(START)
    siti = people("siti")
    failing, fine = submitted(siti), submitted(siti)
    clock.advance(timedelta(days=3))
    sweep_document = services.sweep_document

    def broken(org, document_id):
        if document_id == failing.id:
            raise RuntimeError("this document cannot be swept")
        return sweep_document(org, document_id)

    monkeypatch.setattr(services, "sweep_document", broken)
    with caplog.at_level(logging.ERROR, logger=services.log.name):
        assert sweep_organization_now(siti.org_id) == 1
    # The others are swept; the failing one is logged once and put off.
    assert len(sweep_rows(siti.org_id, fine)) == 1
    [logged] = [r for r in caplog.records if r.exc_info is not None]
    assert f"document {failing.id} " in logged.getMessage()
    retry_at = clock.now() + services.RETRY_AFTER
    assert [t.sweep_at for t in task_rows(siti.org_id, failing)] == [retry_at]
    # Not every tick: nothing is due until then.
    clock.advance(services.RETRY_AFTER - MINUTE)
    assert services.organizations_to_sweep() == []
    assert sweep_organization_now(siti.org_id) == 0
    # Then it is tried again; mended, it is swept.
    monkeypatch.undo()
    clock.advance(MINUTE)
    assert sweep_now() == 1
    assert len(sweep_rows(siti.org_id, failing)) == 1


def test_portal_sweep_runs_it_once_and_says_how_many(app, people, globex):
    clock.freeze(START)
    siti = people("siti")
    doc = submitted(siti)
    clock.advance(timedelta(days=3))
    runner = CliRunner()
    info = ScriptInfo(create_app=lambda: app)
    result = runner.invoke(main, ["sweep"], obj=info)
    assert result.exit_code == 0, result.output
    assert "1 effect(s) applied" in result.output
    assert len(sweep_rows(siti.org_id, doc)) == 1
    result = runner.invoke(main, ["sweep"], obj=info)
    assert "0 effect(s) applied" in result.output


def test_portal_sweep_says_so_when_another_sweep_holds_the_lock(app, backend, people, globex):
    if not backend.postgres:
        pytest.skip("the planner's lock is PostgreSQL's")
    clock.freeze(START)
    siti = people("siti")
    doc = submitted(siti)
    clock.advance(timedelta(days=3))
    runner = CliRunner()
    info = ScriptInfo(create_app=lambda: app)
    # Another planner, in a connection of its own, holds the lock.
    other = create_engine(backend.owner_url, poolclass=NullPool)
    with other.connect() as conn, conn.begin():
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": services.PLANNER_LOCK})
        result = runner.invoke(main, ["sweep"], obj=info)
    other.dispose()
    assert result.exit_code == 0, result.output
    assert "another sweep is running" in result.output
    assert "effect(s)" not in result.output
    assert sweep_rows(siti.org_id, doc) == []
    # The lock released: this one sweeps.
    result = runner.invoke(main, ["sweep"], obj=info)
    assert "1 effect(s) applied" in result.output


def test_an_archived_organization_is_not_swept_until_it_is_restored(people, globex, make_member):
    clock.freeze(START)
    siti = people("siti")
    doc = submitted(siti)
    gina, _gus, globex_doc = globex_request(globex, make_member)
    clock.advance(timedelta(days=4))
    archive_organization(globex.org.slug)
    # The allowed case: Acme is swept; archived Globex is left as it is.
    assert sweep_now() == 1
    assert len(sweep_rows(siti.org_id, doc)) == 1
    assert sweep_organization_now(gina.org_id) == 0
    assert effects(gina.org_id, globex_doc) == []
    restore_organization(globex.org.slug)
    assert sweep_now() == 1
    assert [e.action for e in effects(gina.org_id, globex_doc)] == ["superseded", "remind"]


@pytest.mark.parametrize("org_id", [0, -1, 2**63, 10**30, 987_654_321])
def test_an_organization_id_that_names_nothing_sweeps_nothing(app, org_id):
    assert sweep_organization_now(org_id) == 0
    assert jobs.sweep_organization(org_id) == 0
