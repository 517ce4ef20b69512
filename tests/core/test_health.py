"""Liveness and readiness for load balancers, and the mail server check a worker makes at
start-up: ready only at the migration head with Redis answering, and a mail server that
does not answer is said in words, never raised."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from redis import Redis
from rq import Worker

from portal.core import health
from portal.core.queue import redis_holder
from tests.mailbox import free_port


@pytest.fixture
def a_worker(app):
    """A real RQ worker registered on Redis with a fresh heartbeat (not working: the
    readiness check reads only its registration)."""
    if redis_holder.embedded:  # the demo's worker is the web process's own thread
        yield None
        return
    worker = Worker(["default"], connection=redis_holder.get(), name=f"ready-{uuid.uuid4().hex}")
    worker.register_birth()
    yield worker
    worker.register_death()


def test_ready_when_the_database_is_at_the_head_and_redis_answers(client, a_worker):
    live = client.get("/healthz")
    assert live.status_code == 200 and live.json["ok"] is True

    ready = client.get("/readyz")

    assert ready.status_code == 200
    assert ready.json["ready"] is True
    assert ready.json["not_ready"] == []
    assert (ready.json["database"], ready.json["migrations"]) == ("ok", "ok")
    assert ready.json["workers"] == ("embedded" if a_worker is None else "ok")


def test_not_ready_without_a_worker_heartbeat_seen_lately(client, a_worker, monkeypatch):
    if a_worker is None:
        pytest.skip("the embedded queue's worker is a thread of the web process")
    assert client.get("/readyz").status_code == 200
    monkeypatch.setattr(health, "WORKER_FRESH", timedelta(0))  # every beat is old now

    stale = client.get("/readyz")

    assert stale.status_code == 503
    assert stale.json["not_ready"] == ["workers"]
    assert stale.json["workers"].startswith("no worker heartbeat since ")
    a_worker.register_death()
    gone = client.get("/readyz")
    assert (gone.status_code, gone.json["workers"]) == (503, "no worker has registered")
    assert client.get("/healthz").status_code == 200  # alive all the same


def test_not_ready_while_the_database_is_behind_the_migration_scripts(
    client, a_worker, monkeypatch
):
    # A deploy whose new scripts are there but whose `portal db upgrade` has not run.
    monkeypatch.setattr(health, "migration_heads", lambda: frozenset({"9999"}))

    answer = client.get("/readyz")

    assert answer.status_code == 503
    assert answer.json["not_ready"] == ["migrations"]
    assert "the head is 9999" in answer.json["migrations"]
    assert client.get("/healthz").status_code == 200  # alive all the same


def test_not_ready_while_redis_does_not_answer(client, monkeypatch):
    monkeypatch.setattr(redis_holder, "connection", Redis(port=free_port()))
    monkeypatch.setattr(redis_holder, "embedded", False)

    answer = client.get("/readyz")

    assert answer.status_code == 503
    assert answer.json["not_ready"] == ["redis", "workers"]
    assert answer.json["redis"] == "error: ConnectionError"
    assert client.get("/healthz").status_code == 503


def test_the_mail_server_check_passes_against_a_server_that_answers(settings, mailbox):
    assert health.check_smtp(settings) is None
    assert mailbox.received == []  # a check sends nothing


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"smtp_port": "closed"}, "the connection was refused"),
        ({"smtp_security": "starttls"}, "the server does not offer STARTTLS"),
        ({"smtp_host": "no-such-host.invalid"}, "the host name was not found"),
    ],
)
def test_a_mail_server_that_does_not_work_is_said_in_words(settings, changes, words):
    if changes.get("smtp_port") == "closed":
        changes = {"smtp_port": free_port()}
    bad = settings.with_(**changes)

    problem = health.check_smtp(bad)

    assert problem is not None
    assert problem.startswith(f"the mail server {bad.smtp_host}:{bad.smtp_port}: ")
    assert words in problem


def test_without_a_mail_server_there_is_nothing_to_check(settings):
    assert health.check_smtp(settings.with_(smtp_host="")) is None


def test_the_check_is_kept_for_a_minute(settings, monkeypatch):
    bad = settings.with_(smtp_port=free_port())
    first = health.smtp_check(bad)
    assert first.error is not None
    calls: list[object] = []
    monkeypatch.setattr(health, "check_smtp", lambda s: calls.append(s))
    assert health.smtp_check(bad) is first
    assert calls == []
    monkeypatch.setattr("portal.core.health.time.monotonic", lambda: 10**9)
    assert health.smtp_check(bad).error is None  # asked again (the stand-in says fine)
    assert calls == [bad]
