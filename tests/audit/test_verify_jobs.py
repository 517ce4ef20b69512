"""The nightly verification: once each organization's 02:00 has come (in its own zone)
the planner enqueues one pass per organization, once per night however often it ticks;
each pass is stored in its own organization (a broken chain of the other's never shows
in ours) and its result is on the audit home page. Once through a real `portal worker`
process on real Redis and PostgreSQL, committing for real."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, pool, text

from portal.accounts import services as accounts
from portal.audit import jobs
from portal.audit.services import verification
from portal.bench.cleanup import purge_organizations
from portal.bench.sweep import PEOPLE, chart_organization, submit_through_the_pipeline
from portal.bench.sweep_checks import in_org
from portal.bench.worker_processes import WorkerProcesses, worker_environment
from portal.core.clock import clock
from portal.core.queue import DEFAULT_QUEUE, enqueue, get_queue, redis_holder
from portal.core.uow import unit_of_work
from tests.audit import chains
from tests.audit.chains import World
from tests.conftest import run_queued_jobs
from tests.factories import demo_browser

COMMENT = "UPDATE decision SET comment = 'Looks wrong' WHERE document_id = :doc AND seq = 1"
# 02:30 in Kuala Lumpur (the demo organization's zone): 18:30 UTC, the globex one's
# (UTC) 02:00 long past too.
NIGHT = datetime(2026, 12, 2, 18, 30, tzinfo=UTC)

world = chains.world  # the fixture


def _passes(org_id: int) -> list[tuple[str, int, list]]:
    with unit_of_work(org_id) as uow:
        rows = uow.session.execute(
            text(
                "SELECT trigger, chains, failures FROM chain_verification"
                " WHERE org_id = :o ORDER BY id"
            ),
            {"o": org_id},
        ).all()
    # SQLite hands a JSON column read by plain SQL back as its text.
    return [
        (r.trigger, r.chains, json.loads(r.failures) if isinstance(r.failures, str) else r.failures)
        for r in rows
    ]


def _queued(name: str) -> int:
    return sum(1 for job in get_queue().get_jobs() if (job.func_name or "").endswith(name))


def _globex_doc(world: World) -> tuple[int, str]:
    with unit_of_work(world.globex_id) as uow:
        row = uow.session.execute(
            text("SELECT id, reference FROM document WHERE org_id = :o ORDER BY id LIMIT 1"),
            {"o": world.globex_id},
        ).one()
    return row.id, row.reference


def test_the_nightly_job_verifies_every_organization_each_in_its_own(world: World, app):
    doc_id, reference = _globex_doc(world)
    world.tamper(world.globex_id, COMMENT, doc=doc_id)
    clock.freeze(NIGHT)

    enqueued = jobs.plan_nightly_verifications()

    assert enqueued >= 2 and _queued("verify_nightly") == enqueued
    assert run_queued_jobs() == enqueued
    # Ticks later that night enqueue nothing more.
    clock.freeze(NIGHT + timedelta(minutes=5))
    assert jobs.plan_nightly_verifications() == 0
    assert _passes(world.acme_id) == [("nightly", 3, [])]
    assert _passes(world.globex_id) == [
        ("nightly", 2, [{"reference": reference, "document_id": doc_id, "seq": 1}])
    ]

    # The result is on the acme auditor's audit home, in their zone; globex's broken
    # chain is nowhere in it.
    browser, _ = demo_browser(app, "ravi")
    pages = [browser.get("/o/acme/audit/verification")]
    if "audit.search" in app.view_functions:
        pages.append(browser.get("/o/acme/audit", follow_redirects=True))
    for page in pages:
        html = page.get_data(as_text=True)
        assert page.status_code == 200, html
        assert "All 3 chains verified at 2:30" in html
        assert "The nightly check." in html
        assert reference not in html and 'role="alert"' not in html


def test_the_next_night_enqueues_again_and_a_second_delivery_stores_nothing(world: World):
    clock.freeze(NIGHT)
    jobs.plan_nightly_verifications()
    run_queued_jobs()
    slot = verification.nightly_slot(NIGHT, "Asia/Kuala_Lumpur")

    # The same night's job delivered again (Redis flushed, a retry): nothing stored.
    assert jobs.verify_nightly(world.acme_id, slot.isoformat()) is None
    assert len(_passes(world.acme_id)) == 1

    clock.freeze(NIGHT + timedelta(days=1))
    assert jobs.plan_nightly_verifications() >= 2
    run_queued_jobs()
    assert [t for t, *_ in _passes(world.acme_id)] == ["nightly", "nightly"]


def test_before_two_oclock_the_night_already_verified_is_not_verified_again(world: World):
    clock.freeze(NIGHT)
    jobs.plan_nightly_verifications()
    run_queued_jobs()
    redis_holder.get().flushdb()  # the night's claims lost

    clock.freeze(NIGHT + timedelta(hours=23))  # 01:30 the next night in Kuala Lumpur
    jobs.plan_nightly_verifications()
    run_queued_jobs()

    assert len(_passes(world.acme_id)) == 1


def test_a_pass_asked_for_runs_as_the_member_who_asked(world: World):
    ravi = world.person("ravi")
    assert verification.request_verification(ravi) is True
    assert verification.request_verification(ravi) is False  # one waits already
    assert _queued("verify_requested") == 1

    assert run_queued_jobs() == 1

    with unit_of_work(world.acme_id) as uow:
        row = uow.session.execute(
            text("SELECT trigger, member_id FROM chain_verification WHERE org_id = :o"),
            {"o": world.acme_id},
        ).one()
    assert (row.trigger, row.member_id) == ("manual", ravi.member_id)
    assert verification.verification_queued(ravi) is False
    assert verification.request_verification(ravi) is True  # and may be asked again
    assert _passes(world.globex_id) == []


# --- a real worker process -------------------------------------------------------------


@pytest.fixture
def committed_org(backend, committed):
    if not backend.postgres:
        pytest.skip("worker processes need PostgreSQL and a Redis shared between processes")
    slug = f"verify-{uuid.uuid4().hex[:8]}"
    emails = {who: f"{who}@{slug}.test" for who in PEOPLE}
    owner = create_engine(backend.owner_url, poolclass=pool.NullPool)
    try:
        for who, email in emails.items():
            accounts.create_user(email, who.title(), "verify-pass-123")
        org_id, _ = chart_organization(slug, emails)
        submit_through_the_pipeline(slug, emails["requester"], 3)
        yield org_id, owner
    finally:
        purge_organizations(backend.owner_url, slug_like=slug, email_like=f"%@{slug}.test")
        owner.dispose()


def test_the_nightly_pass_runs_in_a_real_worker_process(committed_org, settings, tmp_path: Path):
    org_id, owner = committed_org
    slot = verification.nightly_slot(datetime.now(UTC), "UTC")
    enqueue(jobs.verify_nightly, org_id, slot.isoformat())

    workers = WorkerProcesses(
        1,
        queue=DEFAULT_QUEUE,
        connection=redis_holder.get(),
        env=worker_environment(settings, tmp_path / "instance"),
        log_dir=tmp_path / "logs",
        burst=True,
    ).start()
    try:
        assert workers.wait() == [0], workers.logs()
    finally:
        workers.stop()

    with in_org(owner, org_id) as conn:
        rows = conn.execute(
            text(
                "SELECT trigger, chains, decisions, failures FROM chain_verification"
                " WHERE org_id = :o"
            ),
            {"o": org_id},
        ).all()
    assert [(r.trigger, r.chains, r.decisions, list(r.failures)) for r in rows] == [
        ("nightly", 3, 3, [])
    ]
