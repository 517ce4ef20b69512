"""``portal outbox status|retry|prune`` for operators: what waits per organization and
for the account mail, dead letters sent on their way again, and delivered rows removed
after the retention, never an undelivered one and never another organization's."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import text

from portal.cli import main
from portal.config import ConfigError, Settings
from portal.core import outbox
from portal.core.clock import clock
from portal.core.uow import unit_of_work
from tests.operations.outbox_rows import event, invite, make_dead, make_delivered


@pytest.fixture
def cli(app):
    runner = app.test_cli_runner()

    def run(*args: str):
        return runner.invoke(main, list(args))

    return run


def test_status_counts_pending_due_and_dead_per_organization(cli, acme, globex):
    clock.freeze(clock.now())
    invite(acme.admin.actor, "one@example.test")
    dead = invite(acme.admin.actor, "two@example.test")
    make_dead(acme.org.id, dead)
    clock.advance(timedelta(hours=3))

    result = cli("outbox", "status")

    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line.split() for line in result.output.splitlines()[1:]}
    assert lines["acme-test"] == ["acme-test", "1", "1", "1", "3h"]
    assert lines["globex-test"] == ["globex-test", "0", "0", "0", "-"]
    assert "(account" in lines
    only = cli("outbox", "status", "--org", "globex-test")
    assert "acme-test" not in only.output and "globex-test" in only.output
    missing = cli("outbox", "status", "--org", "nowhere")
    assert missing.exit_code != 0 and "there is no organization 'nowhere'" in missing.output


def test_retry_by_id_and_all_dead_of_one_organization(cli, acme, globex):
    first = invite(acme.admin.actor, "one@example.test")
    second = invite(acme.admin.actor, "two@example.test")
    theirs = invite(globex.admin.actor, "gx@example.test")
    for org_id, outbox_id in ((acme.org.id, first), (acme.org.id, second), (globex.org.id, theirs)):
        make_dead(org_id, outbox_id)

    by_id = cli("outbox", "retry", str(first))
    assert by_id.exit_code == 0, by_id.output
    assert f"retrying {first} (acme-test)" in by_id.output
    retried = event(acme.org.id, first)
    assert retried is not None and (retried.dead_at, retried.attempts) == (None, 0)

    all_acme = cli("outbox", "retry", "--all-dead", "--org", "acme-test")
    assert all_acme.exit_code == 0, all_acme.output
    assert f"retrying {second} (acme-test)" in all_acme.output
    untouched = event(globex.org.id, theirs)
    assert untouched is not None and untouched.dead_at is not None


def test_retry_refuses_a_delivered_event_and_bad_arguments(cli, acme):
    delivered = invite(acme.admin.actor, "done@example.test")
    make_delivered(acme.org.id, delivered)

    refused = cli("outbox", "retry", str(delivered))
    assert refused.exit_code != 0
    assert f"not dead letters (delivered, still being tried, or no such event): {delivered}" in (
        refused.output
    )
    kept = event(acme.org.id, delivered)
    assert kept is not None and kept.dispatched_at is not None
    for bad in (["retry"], ["retry", "--all-dead", "1"], ["retry", "x"], ["retry", "0"],
                ["retry", "1" * 5000], ["retry", "１"]):  # fmt: skip
        answer = cli("outbox", *bad)
        assert answer.exit_code != 0 and "Traceback" not in answer.output


def test_prune_deletes_only_delivered_rows_older_than_the_retention(cli, acme, globex):
    clock.freeze(clock.now())
    old = invite(acme.admin.actor, "old@example.test")
    recent = invite(acme.admin.actor, "recent@example.test")
    waiting = invite(acme.admin.actor, "waiting@example.test")
    dead = invite(acme.admin.actor, "dead@example.test")
    make_dead(acme.org.id, dead)
    theirs = invite(globex.admin.actor, "gx@example.test")
    clock.advance(timedelta(days=40))  # the undelivered ones are old too
    make_delivered(acme.org.id, old, clock.now() - timedelta(days=31))
    make_delivered(acme.org.id, recent, clock.now() - timedelta(days=29))
    make_delivered(globex.org.id, theirs, clock.now() - timedelta(days=35))

    result = cli("outbox", "prune", "--older-than", "30d", "--org", "acme-test")

    assert result.exit_code == 0, result.output
    assert "acme-test: 1 deleted" in result.output
    assert event(acme.org.id, old) is None
    for kept in (recent, waiting, dead):
        assert event(acme.org.id, kept) is not None
    assert event(globex.org.id, theirs) is not None

    everyone = cli("outbox", "prune")  # the configured retention: 30 days
    assert everyone.exit_code == 0, everyone.output
    assert "globex-test: 1 deleted" in everyone.output
    assert event(globex.org.id, theirs) is None
    for bad in ("30", "0d", "-5d", "３０d", "1" * 5000 + "d", "30d\x00"):
        answer = cli("outbox", "prune", "--older-than", bad)
        assert answer.exit_code != 0 and "write whole days" in answer.output


def test_the_database_lets_the_app_delete_only_delivered_rows(acme, backend):
    if not backend.postgres:
        pytest.skip("row-level security is PostgreSQL's")
    waiting = invite(acme.admin.actor, "waiting@example.test")
    delivered = invite(acme.admin.actor, "done@example.test")
    make_delivered(acme.org.id, delivered)
    with unit_of_work(acme.org.id) as uow:
        gone = uow.session.execute(
            text("DELETE FROM outbox WHERE id IN (:a, :b)"), {"a": waiting, "b": delivered}
        )
        assert gone.rowcount == 1  # type: ignore[attr-defined]
    assert event(acme.org.id, waiting) is not None and event(acme.org.id, delivered) is None


def test_the_retention_is_configured_and_bounded():
    assert Settings.from_env({}).outbox_retention_days == 30
    assert Settings.from_env({"PORTAL_OUTBOX_RETENTION_DAYS": "7"}).outbox_retention_days == 7
    for bad in ("0", "-1", "3651", "７", "30d", "1" * 5000):
        with pytest.raises(ConfigError, match="PORTAL_OUTBOX_RETENTION_DAYS"):
            Settings.from_env({"PORTAL_OUTBOX_RETENTION_DAYS": bad})


def test_the_prune_job_is_daily():
    from portal.core.schedule import PERIODIC_JOBS

    assert ("portal.core.outbox.prune_outbox", 86_400) in PERIODIC_JOBS
    assert outbox.prune_outbox.__name__ == "prune_outbox"
