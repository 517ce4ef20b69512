"""Liveness and readiness for load balancers, and the mail server check a worker makes at
start-up: ready only at the migration head with Redis answering, and a mail server that
does not answer is said in words, never raised."""

from __future__ import annotations

import pytest
from redis import Redis

from portal.core import health
from portal.core.queue import redis_holder
from tests.mailbox import free_port


def test_ready_when_the_database_is_at_the_head_and_redis_answers(client):
    live = client.get("/healthz")
    assert live.status_code == 200 and live.json["ok"] is True

    ready = client.get("/readyz")

    assert ready.status_code == 200
    assert ready.json["ready"] is True
    assert ready.json["not_ready"] == []
    assert (ready.json["database"], ready.json["migrations"]) == ("ok", "ok")


def test_not_ready_while_the_database_is_behind_the_migration_scripts(client, monkeypatch):
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
    assert answer.json["not_ready"] == ["redis"]
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
