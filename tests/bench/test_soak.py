"""`portal bench soak`: a short run end to end (the processes, the load, every fault, the
drain, the checker), and the checker itself, which must fail on each kind of damage it
is there to find — a test of a checker that cannot fail would prove nothing."""

from __future__ import annotations

import collections
import shutil
from dataclasses import replace

import pytest
from sqlalchemy import create_engine, text

from portal.accounts import queries as account_queries
from portal.bench.soak import bench_soak
from portal.bench.soak_check import check_soak
from portal.bench.soak_faults import PLAN
from portal.bench.soak_load import MIX, DecisionAsked
from portal.bench.soak_report import report
from portal.bench.soak_world import PREFIX, build_soak_world, remove_soak_world
from portal.core.outbox import dispatch_outbox
from portal.documents.transitions import transition_document


@pytest.fixture
def postgres(backend):
    if not backend.postgres:
        pytest.skip("the soak's topology needs PostgreSQL and a Redis shared between processes")
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    return backend


def _soak_rows(backend) -> tuple[int, int]:
    owner = create_engine(backend.owner_url)
    with owner.connect() as conn:
        orgs = conn.scalar(
            text("SELECT count(*) FROM organization WHERE slug LIKE :p"), {"p": PREFIX + "%"}
        )
        users = conn.scalar(
            text("SELECT count(*) FROM app_user WHERE email LIKE :p"), {"p": f"%@{PREFIX}%"}
        )
    owner.dispose()
    return int(orgs or 0), int(users or 0)


def test_a_short_soak_survives_every_fault_with_nothing_lost(postgres, settings, committed):
    lines: list[str] = []
    result = bench_soak(
        replace(settings, embedded_worker=False),
        duration=45,
        organizations=2,
        documents=20,
        rate=12,
        threads=4,
        redis_outage=4,
        progress=lines.append,
    )
    printed = "\n".join(report(result))

    assert [f.name for f in result.faults] == [name for name, _ in PLAN], printed
    assert result.fault_errors == [], printed
    assert result.verdict.passed, printed
    assert result.failures_outside == [], printed
    assert result.decisions_made > 0 and result.success >= 0.999, printed
    assert {s.kind for s in result.record.samples} == set(MIX), printed
    assert result.record.foreign_rows == 0 and result.undelivered == 0
    assert result.passed and printed.endswith("verdict: PASS")
    assert _soak_rows(postgres) == (0, 0)  # the organizations and accounts are gone


@pytest.fixture
def decided(postgres, settings, committed):
    """One soak organization in which a lead has approved one document as request
    ``soak-test-request``, and the outbox delivered what that caused."""
    org = build_soak_world(1, 2, lambda _line: None)[0]
    lead_email = org.deciders[0].email
    user = account_queries.find_user(lead_email)
    assert user is not None
    lead = account_queries.actor_for(org.slug, user.id, None)
    assert lead is not None
    owner = create_engine(postgres.owner_url)
    with owner.connect() as conn:
        since = conn.scalar(text("SELECT now()"))
    reference = sorted(org.references)[0]
    transition_document(
        lead, reference, "approve", seen_state="manager", request_id="soak-test-request"
    )
    dispatch_outbox(org.org_id)
    dispatch_outbox(org.org_id)  # the mail the notices asked for
    with owner.begin() as conn:
        conn.execute(text("SELECT set_config('app.current_org', :o, true)"), {"o": str(org.org_id)})
        mails = conn.execute(
            text(
                "SELECT o.id, u.email FROM outbox o JOIN membership m"
                " ON m.org_id = o.org_id AND m.id = (o.payload ->> 'member_id')::bigint"
                " JOIN app_user u ON u.id = m.user_id"
                " WHERE o.org_id = :o AND o.topic LIKE 'mail.%' AND o.dispatched_at IS NOT NULL"
            ),
            {"o": org.org_id},
        ).all()
    owner.dispose()
    try:
        yield org, since, mails
    finally:
        remove_soak_world(postgres.owner_url)


def _received(org, mails, times: int = 1) -> collections.Counter[tuple[str, str]]:
    return collections.Counter(
        {(f"<outbox.{i}.{org.org_id}@countersign.test>", email): times for i, email in mails}
    )


def _failed(verdict) -> dict[str, list[str]]:
    return {c.name: c.problems for c in verdict.checks if not c.passed}


def test_the_checker_passes_a_run_that_lost_nothing(postgres, decided):
    org, since, mails = decided
    asked = [DecisionAsked("soak-test-request", org.org_id, 1, 1, 0)]
    assert mails, "the finance officer takes notices by mail"

    verdict = check_soak(
        postgres.owner_url, [(org.org_id, org.slug)], asked, _received(org, mails), since
    )

    assert _failed(verdict) == {}
    # No answer at all: either outcome is possible, and none is a loss.
    unanswered = [DecisionAsked("soak-test-request", org.org_id, 1, None, 0)]
    verdict = check_soak(
        postgres.owner_url, [(org.org_id, org.slug)], unanswered, _received(org, mails), since
    )
    assert _failed(verdict) == {}


def test_the_checker_fails_a_decision_made_for_a_refused_request_or_one_never_sent(
    postgres, decided
):
    org, since, mails = decided
    ids = [(org.org_id, org.slug)]
    refused = [DecisionAsked("soak-test-request", org.org_id, 1, 0, 1)]

    assert "answered 0 made, 1 in the history" in " ".join(
        _failed(check_soak(postgres.owner_url, ids, refused, _received(org, mails), since))[
            "decisions: none lost, none duplicated"
        ]
    )
    never_sent = _failed(check_soak(postgres.owner_url, ids, [], _received(org, mails), since))
    assert "which nobody sent" in " ".join(never_sent["decisions: none lost, none duplicated"])
    lost = [DecisionAsked("another-request", org.org_id, 1, 1, 0)]
    lost_found = _failed(check_soak(postgres.owner_url, ids, lost, _received(org, mails), since))
    assert "another-request: answered 1 made, 0 in the history" in " ".join(
        lost_found["decisions: none lost, none duplicated"]
    )


def test_the_checker_fails_mail_never_received_or_received_twice(postgres, decided):
    org, since, mails = decided
    ids = [(org.org_id, org.slug)]
    asked = [DecisionAsked("soak-test-request", org.org_id, 1, 1, 0)]

    missing = _failed(check_soak(postgres.owner_url, ids, asked, collections.Counter(), since))
    twice = _failed(check_soak(postgres.owner_url, ids, asked, _received(org, mails, 2), since))

    assert "never reached the server" in " ".join(missing["mail: each recipient once"])
    assert "2 times" in " ".join(twice["mail: each recipient once"])


def test_the_checker_fails_an_open_task_left_on_a_state_its_document_left(postgres, decided):
    org, since, mails = decided
    ids = [(org.org_id, org.slug)]
    asked = [DecisionAsked("soak-test-request", org.org_id, 1, 1, 0)]
    owner = create_engine(postgres.owner_url)
    with owner.begin() as conn:
        conn.execute(text("SELECT set_config('app.current_org', :o, true)"), {"o": str(org.org_id)})
        # The closed task of the approved step, open again on the state its document left.
        conn.execute(
            text(
                "UPDATE task SET status = 'open', completed_at = NULL, completed_by = NULL"
                " WHERE org_id = :o AND state = 'manager' AND status <> 'open'"
            ),
            {"o": org.org_id},
        )
    owner.dispose()

    failed = _failed(check_soak(postgres.owner_url, ids, asked, _received(org, mails), since))

    assert list(failed) == ["no open task on a state left"]
