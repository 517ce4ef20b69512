"""The verification on the audit pages: the status (not verified yet; every chain held,
when and how; a prominent alert naming each broken document with its first bad
sequence number and a link to its timeline) and "Verify all now" (a pass queued once,
recorded as the member who asked). To anyone but admins and auditors, and to another
organization's people, both are a 404; a post without its CSRF token queues nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from portal.audit.models import VerificationTrigger
from portal.audit.services import verification
from portal.core.clock import clock
from portal.core.queue import get_queue
from portal.core.uow import unit_of_work
from tests.audit import chains
from tests.audit.chains import GLOBEX, World
from tests.conftest import run_queued_jobs
from tests.factories import browser_for, demo_browser

world = chains.world  # the fixture

STATUS = "/o/acme/audit/verification"
VERIFY = "/o/acme/audit/verify"
COMMENT = "UPDATE decision SET comment = 'Looks wrong' WHERE document_id = :doc AND seq = :seq"


def _queued() -> int:
    """The passes asked for that wait (signing in queues mail of its own)."""
    return sum(
        1 for j in get_queue().get_jobs() if (j.func_name or "").endswith("verify_requested")
    )


def _passes(org_id: int) -> list[tuple[str, int | None]]:
    with unit_of_work(org_id) as uow:
        rows = uow.session.execute(
            text("SELECT trigger, member_id FROM chain_verification WHERE org_id = :o ORDER BY id"),
            {"o": org_id},
        ).all()
    return [(r.trigger, r.member_id) for r in rows]


def test_an_auditor_asks_for_a_pass_and_sees_its_result(world: World, app):
    browser, token = demo_browser(app, "ravi")
    before = browser.get(STATUS).get_data(as_text=True)
    assert "Not verified yet" in before and "Verify all now" in before

    asked = browser.post(VERIFY, data={"csrf_token": token}, follow_redirects=True)

    html = asked.get_data(as_text=True)
    assert asked.status_code == 200
    assert "A check of every chain was asked for" in html
    assert 'data-testid="verification-pending"' in browser.get(STATUS).get_data(as_text=True)
    again = browser.post(VERIFY, data={"csrf_token": token}, follow_redirects=True)
    assert "already waiting to run" in again.get_data(as_text=True)
    assert _queued() == 1

    assert run_queued_jobs() == 1
    assert _passes(world.acme_id) == [("manual", world.person("ravi").member_id)]
    status = browser.get(STATUS).get_data(as_text=True)
    assert "All 3 chains verified at" in status and "Asked for by Ravi Kumar." in status
    assert "verification-pending" not in status and 'role="alert"' not in status
    assert _passes(world.globex_id) == []


def test_an_admin_may_ask_too(world: World, app):
    browser, token = demo_browser(app, "daniel")
    assert browser.post(VERIFY, data={"csrf_token": token}).status_code == 302
    assert _queued() == 1


def test_a_broken_chain_is_a_prominent_alert_naming_the_document(world: World, app):
    doc = world.approved
    world.tamper(world.acme_id, COMMENT, doc=doc.id, seq=2)
    verification.verify_organization(world.person("ravi"), VerificationTrigger.MANUAL)
    browser, _ = demo_browser(app, "ravi")

    html = browser.get(STATUS).get_data(as_text=True)

    assert 'role="alert"' in html
    assert "1 document's history was changed after it was written." in html
    assert "1 of 3 chains do not hold" in html
    assert f'href="/o/acme/audit/documents/{doc.reference}">{doc.reference}</a>' in html
    assert "the first decision that does not hold is number 2." in html
    assert world.submitted.reference not in html


def test_the_time_is_the_readers_with_the_day_when_not_today(world: World, app):
    clock.freeze(datetime(2026, 12, 2, 18, 0, tzinfo=UTC))  # 02:00 in Kuala Lumpur
    verification.verify_organization(world.person("ravi"), VerificationTrigger.CLI)
    browser, _ = demo_browser(app, "ravi")
    today = browser.get(STATUS).get_data(as_text=True)
    assert "verified at 2:00" in today and "Run from the command line." in today
    assert "Dec 2026" not in today

    clock.freeze(datetime(2026, 12, 4, 10, 0, tzinfo=UTC))
    later = browser.get(STATUS).get_data(as_text=True)
    assert "verified at 3 Dec 2026" in later


def test_nobody_but_admins_and_auditors_reaches_the_verification(world: World, app):
    browser, _ = demo_browser(app, "ravi")  # the allowed case first
    assert browser.get(STATUS).status_code == 200

    for name in ("siti", "nurul", "zainal"):
        member, member_token = demo_browser(app, name)
        assert member.get(STATUS).status_code == 404
        assert member.post(VERIFY, data={"csrf_token": member_token}).status_code == 404
    # Globex's admin, signed in, is no member of acme.
    outsider, outsider_token = browser_for(app, f"head@{GLOBEX}.test", "globex-pass-123")
    assert outsider.post(VERIFY, data={"csrf_token": outsider_token}).status_code == 404
    assert outsider.get(STATUS).status_code == 404
    assert _queued() == 0
    # Signed out: to the sign-in page.
    anonymous = app.test_client()
    assert anonymous.post(VERIFY).status_code in (302, 400)
    assert _queued() == 0


def test_a_post_without_its_csrf_token_queues_nothing(world: World, app):
    browser, token = demo_browser(app, "ravi")
    assert browser.post(VERIFY, data={"csrf_token": "forged"}).status_code == 400
    assert browser.post(VERIFY).status_code == 400
    assert _queued() == 0
    assert browser.post(VERIFY, data={"csrf_token": token}).status_code == 302


def test_whatever_else_the_post_carries_is_ignored(world: World, app):
    browser, token = demo_browser(app, "ravi")
    junk = {
        "csrf_token": token,
        "org": "globex-verify",
        "member": "<script>alert(1)</script>",
        "trigger": "nightly",
        "seq": "١٢٣",
    }

    answer = browser.post(VERIFY, data=junk, follow_redirects=True)

    assert answer.status_code == 200
    assert "<script>alert(1)</script>" not in answer.get_data(as_text=True)
    run_queued_jobs()
    assert _passes(world.acme_id) == [("manual", world.person("ravi").member_id)]
    assert _passes(world.globex_id) == []


def test_a_control_character_or_a_huge_value_is_refused_and_queues_nothing(world: World, app):
    browser, token = demo_browser(app, "ravi")

    answer = browser.post(VERIFY, data={"csrf_token": token, "member": "a\x00b"})

    assert answer.status_code == 400
    assert "contains a control character" in answer.get_data(as_text=True)
    huge = browser.post(VERIFY, data={"csrf_token": token, "seq": "9" * 50_000})
    assert huge.status_code == 400
    assert "is longer than" in huge.get_data(as_text=True)
    assert _queued() == 0


def test_the_status_polls_only_while_a_pass_waits(world: World, app):
    browser, token = demo_browser(app, "ravi")
    assert "hx-get" not in browser.get(STATUS).get_data(as_text=True)
    browser.post(VERIFY, data={"csrf_token": token})
    assert f'hx-get="{STATUS}"' in browser.get(STATUS).get_data(as_text=True)
    clock.freeze(clock.now() + timedelta(seconds=1))
    run_queued_jobs()
    assert "hx-get" not in browser.get(STATUS).get_data(as_text=True)


def test_with_the_queue_away_asking_for_a_pass_says_so_and_queues_nothing(
    world: World, app, monkeypatch
):
    import redis

    from portal.core.queue import redis_holder

    browser, token = demo_browser(app, "ravi")

    def unreachable():
        return redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)

    monkeypatch.setattr(redis_holder, "get", unreachable)
    asked = browser.post(VERIFY, data={"csrf_token": token}, follow_redirects=True)

    assert asked.status_code == 200
    assert "could not be queued just now" in asked.get_data(as_text=True)
    monkeypatch.undo()
    assert _queued() == 0
    assert _passes(world.acme_id) == []
