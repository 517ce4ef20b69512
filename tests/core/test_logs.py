"""Logs an operator can search, and errors an error tracker hears about: JSON lines in
production with the request id, organization and member on every line of a request,
the job id on a job's, and every unexpected error sent through Flask's
``got_request_exception`` and the configured hook."""

from __future__ import annotations

import io
import json
import logging

import pytest
from flask import got_request_exception

from portal.config import ConfigError, Settings
from portal.core import logs
from portal.inbox import queries as inbox_queries
from tests.factories import demo_browser

heard: list[tuple[BaseException, dict]] = []


def remember(error: BaseException, context: dict) -> None:
    """An error hook, as PORTAL_ERROR_HOOK names one."""
    heard.append((error, context))


@pytest.fixture
def log_lines():
    """What the portal logs while the test runs, as JSON objects (the handler the
    process would install), and the handler removed afterwards."""
    stream = io.StringIO()
    logs.configure_logging(log_format="json", level="INFO", stream=stream)
    root = logging.getLogger()
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        for handler in [h for h in root.handlers if isinstance(h, logs._PortalHandler)]:
            root.removeHandler(handler)
        root.setLevel(logging.WARNING)


def _broken_inbox(monkeypatch, app):
    def broken(*_args, **_kwargs):
        raise RuntimeError("the inbox query broke")

    monkeypatch.setattr(inbox_queries, "open_tasks", broken)
    monkeypatch.setitem(app.config, "PROPAGATE_UNEXPECTED", False)


def test_a_request_logs_json_lines_with_its_id_organization_and_member(
    app, people, log_lines, monkeypatch
):
    nurul, _token = demo_browser(app, "nurul")
    page = nurul.get("/o/acme/inbox/")
    assert page.status_code == 200
    logging.getLogger("portal.test").info("nothing happened")  # outside any request
    _broken_inbox(monkeypatch, app)

    broken = nurul.get("/o/acme/inbox/")

    assert broken.status_code == 500
    assert "Something went wrong on our side." in broken.get_data(as_text=True)
    (line,) = [line for line in log_lines() if line["level"] == "ERROR"]
    assert line["logger"] == "portal.web.errors"
    assert line["message"] == "unhandled error on GET /o/acme/inbox/"
    assert line["request_id"] == broken.headers["X-Request-Id"]
    assert (line["org"], line["member"]) == ("acme", people("nurul").member_id)
    assert "RuntimeError: the inbox query broke" in line["error"]
    assert line["time"].endswith("+00:00")
    quiet = [line for line in log_lines() if line["message"] == "nothing happened"]
    assert quiet and "request_id" not in quiet[0] and "org" not in quiet[0]


def test_an_unexpected_error_reaches_got_request_exception_and_the_hook(app, people, monkeypatch):
    nurul, _token = demo_browser(app, "nurul")
    tracked: list[BaseException] = []

    def tracker(_sender, exception, **_extra):
        tracked.append(exception)

    with got_request_exception.connected_to(tracker, app):
        assert nurul.get("/o/acme/inbox/").status_code == 200
        assert tracked == []  # nothing unexpected, nothing sent
        _broken_inbox(monkeypatch, app)
        assert nurul.get("/o/acme/inbox/").status_code == 500
        # A refusal the portal expects is not an error for a tracker.
        assert nurul.get("/o/acme/documents/EC-1999-99999").status_code == 404
    assert [str(e) for e in tracked] == ["the inbox query broke"]

    for missing in ("tests.core.no_such_module:remember", "tests.core.test_logs:forget"):
        with pytest.raises(ConfigError, match="PORTAL_ERROR_HOOK"):
            logs.load_error_hook(missing)
    with pytest.raises(ConfigError, match="is not a function"):
        logs.load_error_hook("tests.core.test_logs:heard")
    hook = logs.load_error_hook("tests.core.test_logs:remember")
    heard.clear()
    with logs.bound(request_id="r-1", org="acme"):
        logs.report_error(hook, tracked[0])
    assert heard == [(tracked[0], {"request_id": "r-1", "org": "acme"})]


def test_a_failing_hook_is_logged_and_never_raises(log_lines):
    def failing(_error, _context):
        raise ValueError("the tracker is down")

    logs.report_error(failing, RuntimeError("first"))
    (line,) = log_lines()
    assert line["message"] == "the error hook failed" and "the tracker is down" in line["error"]


def test_a_job_line_carries_the_job_id_and_text_is_for_people():
    stream = io.StringIO()
    logs.configure_logging(log_format="text", level="INFO", stream=stream)
    try:
        with logs.bound(job_id="job-42", org="acme"):
            logging.getLogger("portal.jobs").info("swept %d documents", 3)
        logging.getLogger("portal.jobs").debug("not at INFO")
    finally:
        logs.configure_logging(log_format="text", level="WARNING", stream=io.StringIO())
        root = logging.getLogger()
        for handler in [h for h in root.handlers if isinstance(h, logs._PortalHandler)]:
            root.removeHandler(handler)
    (line,) = stream.getvalue().splitlines()
    assert line.endswith("INFO    portal.jobs [org=acme job_id=job-42]: swept 3 documents")


def test_the_log_settings_are_read_and_refused_by_name():
    production = {
        "PORTAL_ENV": "production",
        "PORTAL_DATABASE_URL": "postgresql+psycopg://app@db/countersign",
        "PORTAL_REDIS_URL": "redis://redis:6379/0",
        "PORTAL_SMTP_HOST": "smtp.example.com",
        "PORTAL_BASE_URL": "https://countersign.example.com",
        "PORTAL_SECRET_KEY": "x" * 40,
    }
    assert Settings.from_env(production).log_format == "json"
    assert Settings.from_env({}).log_format == "text"
    chosen = Settings.from_env(
        {"PORTAL_LOG_FORMAT": "json", "PORTAL_LOG_LEVEL": "WARNING", "PORTAL_ERROR_HOOK": "a.b:c"}
    )
    assert (chosen.log_format, chosen.log_level, chosen.error_hook) == ("json", "WARNING", "a.b:c")
    for name, value in (
        ("PORTAL_LOG_FORMAT", "xml"),
        ("PORTAL_LOG_LEVEL", "LOUD"),
        ("PORTAL_ERROR_HOOK", "no_function_named"),
        ("PORTAL_ERROR_HOOK", "a.b:c; rm -rf /"),
        ("PORTAL_ERROR_HOOK", "a.b:c\x00"),
    ):
        with pytest.raises(ConfigError, match=name):
            Settings.from_env({name: value})
