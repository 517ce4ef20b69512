"""The Operations page, as an organization's admins use it: its overdue tasks, what waits
in its outbox and what died there (retried with a button), when the sweep last ran, the
workers and the mail server. Members and auditors do not reach it; another
organization's admins see only their own, and acme's events are not theirs to retry."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from redis import Redis
from sqlalchemy import update

from portal.core import outbox
from portal.core.clock import clock
from portal.core.heartbeat import Heartbeat, beat
from portal.core.mail import SmtpTransport
from portal.core.queue import redis_holder
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.domain.errors import Conflict, NotFound
from portal.operations.queries import operations_overview
from portal.operations.services import retry_dead_letter
from tests.conftest import deliver_mail
from tests.factories import demo_browser, demo_people, sign_in
from tests.mailbox import free_port
from tests.operations.outbox_rows import event, invite, make_dead, make_delivered

PAGE = "/o/acme/operations/"


@pytest.fixture
def people(app, globex):
    clock.freeze(clock.now())
    return demo_people()


def _retry_url(outbox_id: int, org: str = "acme") -> str:
    return f"/o/{org}/operations/dead-letters/{outbox_id}/retry"


def _late_purchase(jason, title: str = "Printer paper"):
    """A purchase request (48 h to decide) whose deadline has passed by a day."""
    doc = documents.create_document(
        jason,
        kind="purchase_request",
        title=title,
        amount=Decimal("300.00"),
        fields={"supplier": "Paper Co", "category": "goods"},
    )
    transitions.transition_document(jason, doc.reference, "submit", seen_state="draft")
    clock.advance(timedelta(days=3))
    return doc


def test_an_admin_sees_the_overdue_tasks_the_backlog_and_the_dead_letters(app, people, globex):
    aisha, jason = people("aisha"), people("jason")
    doc = _late_purchase(jason)
    dead_id = invite(aisha, "nobody@example.test")
    make_dead(aisha.org_id, dead_id, "SMTPRecipientsRefused: 550 mailbox unavailable")
    invite(aisha, "later@example.test")  # pending
    globex_dead = invite(globex.admin.actor, "gx@example.test")
    make_dead(globex.org.id, globex_dead)

    browser, _ = demo_browser(app, "aisha")
    page = browser.get(PAGE)

    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "1 open task is past its deadline." in html
    row = re.search(rf'<tr data-reference="{doc.reference}">(.*?)</tr>', html, re.S)
    assert row, html
    assert f'href="/o/acme/documents/{doc.reference}"' in row.group(1)
    assert "Printer paper" in row.group(1) and "Nurul" in row.group(1)
    assert "1 day" in row.group(1)  # overdue by
    assert "1 event" in html and "1 event gave up" in html
    dead_row = re.search(rf'<tr data-outbox-id="{dead_id}">(.*?)</tr>', html, re.S)
    assert dead_row, html
    assert "Mail: an invitation" in dead_row.group(1)
    assert "550 mailbox unavailable" in dead_row.group(1)
    assert f'action="{_retry_url(dead_id)}"' in dead_row.group(1)
    assert 'name="csrf_token"' in dead_row.group(1)
    assert f'data-outbox-id="{globex_dead}"' not in html
    assert 'href="/o/acme/operations/" aria-current="page"' in html
    assert "style=" not in html


def test_another_organizations_admin_sees_only_their_own(app, people, globex):
    aisha, jason = people("aisha"), people("jason")
    _late_purchase(jason)
    acme_dead = invite(aisha, "nobody@example.test")
    make_dead(aisha.org_id, acme_dead)
    globex_dead = invite(globex.admin.actor, "gx@example.test")
    make_dead(globex.org.id, globex_dead)

    mine = operations_overview(globex.admin.actor, app.extensions["portal.settings"])
    assert (mine.overdue_count, [d.id for d in mine.dead_letters]) == (0, [globex_dead])

    browser, token = sign_in(app, globex.admin)
    html = browser.get("/o/globex-test/operations/").get_data(as_text=True)
    assert f'data-outbox-id="{globex_dead}"' in html
    assert f'data-outbox-id="{acme_dead}"' not in html
    assert "0 open tasks are past their deadline." in html
    # acme's page is not there for them, nor are acme's events theirs to retry.
    assert browser.get(PAGE).status_code == 404
    refused = browser.post(_retry_url(acme_dead, "globex-test"), data={"csrf_token": token})
    assert refused.status_code == 404
    with pytest.raises(NotFound):
        retry_dead_letter(globex.admin.actor, acme_dead)
    still = event(aisha.org_id, acme_dead)
    assert still is not None and still.dead_at is not None


def test_members_and_auditors_do_not_reach_operations(app, people):
    aisha = people("aisha")
    dead_id = invite(aisha, "nobody@example.test")
    make_dead(aisha.org_id, dead_id)
    admin, _ = demo_browser(app, "aisha")
    assert admin.get(PAGE).status_code == 200
    assert 'href="/o/acme/operations/"' in admin.get("/o/acme/").get_data(as_text=True)

    for name in ("siti", "ravi"):
        browser, token = demo_browser(app, name)
        assert browser.get(PAGE).status_code == 403
        assert browser.post(_retry_url(dead_id), data={"csrf_token": token}).status_code == 403
        assert 'href="/o/acme/operations/"' not in browser.get("/o/acme/").get_data(as_text=True)
    still = event(aisha.org_id, dead_id)
    assert still is not None and still.dead_at is not None


def test_a_dead_letter_is_retried_and_then_delivered(app, people, mailbox, monkeypatch):
    aisha = people("aisha")
    outbox_id = invite(aisha, "far@example.test")
    # The mail server is away for every attempt: the event dies.
    closed = free_port()
    real_send = SmtpTransport.send
    monkeypatch.setattr(
        SmtpTransport,
        "send",
        lambda self, message: real_send(
            SmtpTransport(self.settings.with_(smtp_port=closed)), message
        ),
    )
    for _ in range(outbox.MAX_ATTEMPTS):
        deliver_mail(aisha.org_id)
        clock.advance(outbox.LONGEST_WAIT)
    dead = event(aisha.org_id, outbox_id)
    assert dead is not None and dead.dead_at is not None
    assert "ConnectionRefusedError" in (dead.last_error or "")
    monkeypatch.undo()  # the server is back

    browser, token = demo_browser(app, "aisha")
    retried = browser.post(_retry_url(outbox_id), data={"csrf_token": token})

    assert retried.status_code == 303
    again = event(aisha.org_id, outbox_id)
    assert again is not None
    assert (again.dead_at, again.attempts, again.dispatched_at) == (None, 0, None)
    assert "ConnectionRefusedError" in (again.last_error or "")  # until the next attempt
    page = browser.get(PAGE).get_data(as_text=True)
    assert f"Event {outbox_id} will be delivered again shortly." in page
    assert deliver_mail(aisha.org_id) == 1
    assert [m.recipients for m in mailbox.received] == [("far@example.test",)]
    delivered = event(aisha.org_id, outbox_id)
    assert delivered is not None and delivered.dispatched_at is not None
    assert delivered.last_error is None


def test_a_delivered_or_living_event_is_not_retried(app, people):
    aisha = people("aisha")
    dead_id = invite(aisha, "dead@example.test")
    make_dead(aisha.org_id, dead_id)
    retry_dead_letter(aisha, dead_id)  # allowed first
    delivered_id = invite(aisha, "done@example.test")
    make_delivered(aisha.org_id, delivered_id)
    pending_id = invite(aisha, "soon@example.test")

    browser, token = demo_browser(app, "aisha")
    refused = browser.post(_retry_url(delivered_id), data={"csrf_token": token})
    assert refused.status_code == 409
    assert f"Event {delivered_id} was delivered already" in refused.get_data(as_text=True)
    living = browser.post(_retry_url(pending_id), data={"csrf_token": token})
    assert living.status_code == 409
    assert "is still being tried" in living.get_data(as_text=True)
    with pytest.raises(Conflict):
        retry_dead_letter(aisha, delivered_id)
    kept = event(aisha.org_id, delivered_id)
    assert kept is not None and kept.dispatched_at is not None and kept.attempts == 1


@pytest.mark.parametrize("bad", ["0", "99999999999999999999999", "%EF%BC%91", "1%00", "-1"])
def test_a_retry_of_no_event_is_not_found(app, people, bad):
    browser, token = demo_browser(app, "aisha")
    answer = browser.post(
        f"/o/acme/operations/dead-letters/{bad}/retry", data={"csrf_token": token}
    )
    assert answer.status_code in (400, 404)


def test_a_retry_needs_the_csrf_token(app, people):
    aisha = people("aisha")
    dead_id = invite(aisha, "nobody@example.test")
    make_dead(aisha.org_id, dead_id)
    browser, _ = demo_browser(app, "aisha")
    assert browser.post(_retry_url(dead_id)).status_code == 400
    still = event(aisha.org_id, dead_id)
    assert still is not None and still.dead_at is not None


def test_the_page_says_when_the_sweep_last_ran_and_warns_when_it_is_late(app, people):
    browser, _ = demo_browser(app, "aisha")
    # Whatever a test that committed left behind: the sweep has never run here.
    with unit_of_work(people("aisha").org_id) as uow:
        uow.session.execute(
            update(Heartbeat).where(Heartbeat.name == "deadline_sweep").values(beat_at=None)
        )
    never = browser.get(PAGE).get_data(as_text=True)
    assert "It has never run." in never and 'data-testid="ops-sweep-late"' in never

    with unit_of_work(people("aisha").org_id) as uow:
        beat(uow.session, "deadline_sweep", {"organizations": 0})
    clock.advance(timedelta(minutes=2))
    recent = browser.get(PAGE).get_data(as_text=True)
    assert "Last ran 2 minutes ago" in recent
    assert 'data-testid="ops-sweep-late"' not in recent

    clock.advance(timedelta(minutes=2))  # four intervals of 60 s
    assert 'data-testid="ops-sweep-late"' in browser.get(PAGE).get_data(as_text=True)


def test_the_workers_are_listed_and_an_unreachable_redis_is_said(app, people, backend, monkeypatch):
    browser, _ = demo_browser(app, "aisha")
    html = browser.get(PAGE).get_data(as_text=True)
    if not backend.postgres:
        assert "An embedded worker runs inside the web process" in html
        return
    assert "No worker is running" in html

    from rq import Worker

    worker = Worker(["default"], connection=redis_holder.get(), name="ops-test-worker")
    worker.register_birth()
    try:
        worker.heartbeat()
        listed = browser.get(PAGE).get_data(as_text=True)
        assert "ops-test-worker" in listed and "default" in listed
    finally:
        worker.register_death()

    monkeypatch.setattr(redis_holder, "connection", Redis(port=free_port()))
    away = browser.get(PAGE)
    assert away.status_code == 200
    assert "Redis does not answer" in away.get_data(as_text=True)


def test_the_mail_server_check_is_shown(app, people, monkeypatch):
    browser, _ = demo_browser(app, "aisha")
    ok = browser.get(PAGE).get_data(as_text=True)
    assert "The server took a connection" in ok

    settings = app.extensions["portal.settings"]
    monkeypatch.setitem(app.extensions, "portal.settings", settings.with_(smtp_port=free_port()))
    failing = browser.get(PAGE).get_data(as_text=True)
    assert "The last connection check failed" in failing
    assert "the connection was refused" in failing

    monkeypatch.setitem(app.extensions, "portal.settings", settings.with_(smtp_host=""))
    files = browser.get(PAGE).get_data(as_text=True)
    assert "No mail server is configured: mail is written to files" in files


def test_work_the_planner_sees_but_no_worker_takes_is_called_stalled(app, people):
    aisha, jason = people("aisha"), people("jason")
    browser, _ = demo_browser(app, "aisha")
    # The planner has just run: its heartbeat is fresh.
    with unit_of_work(aisha.org_id) as uow:
        beat(uow.session, "deadline_sweep", {"organizations": 1})
    _late_purchase(jason)  # its sweep was due a day ago and nobody took it
    with unit_of_work(aisha.org_id) as uow:
        beat(uow.session, "deadline_sweep", {"organizations": 1})
    html = browser.get(PAGE).get_data(as_text=True)
    assert 'data-testid="ops-sweep-late"' not in html
    assert 'data-testid="ops-sweep-stalled"' in html
    assert "portal worker --queue sweep" in html

    # The sweep takes it: nothing waits any more, nothing is said.
    from portal.deadlines.jobs import sweep_now

    assert sweep_now() >= 1
    with unit_of_work(aisha.org_id) as uow:
        beat(uow.session, "deadline_sweep", {"organizations": 0})
    assert 'data-testid="ops-sweep-stalled"' not in browser.get(PAGE).get_data(as_text=True)
